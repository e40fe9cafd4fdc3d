"""How far the log was committed, noted after each commit.

A log cut short inside a batch (a bad restore, a sync tool) looks like one a writer crashed in:
its last batch has no commit line, and the next writer would cut it off as a torn write, losing
acknowledged items. The note (``index/log-end.json``) tells the two apart: it is written only
after a commit line is durable, so it never lies past the committed end of a sound log.

The note also names the last few generations the log had before its own (``retired``): a
compaction, or an edit by hand noticed, gives the log a new one. A copy of the log from before
such a rewrite, put back (an older backup restored), is known by its generation: what was
committed since is missing from it.

The note also keeps the log's modification time right after that commit. A writer that finds
the log with another one, or another size, knows something else wrote to it since (a hand
edit, another tool, a writer killed before its note), and parses every committed line before
it appends: a line damaged in the middle of the log is then refused, as readers refuse it,
instead of being written past (a writer reads only the lines after its catalog).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import orjson

from substrate.derived import derived_dir, failure
from substrate.errors import CorruptShardError, LostCommitsError
from substrate.replacing import open_derived

if TYPE_CHECKING:
    from substrate.log import LogFile, TailState

log = logging.getLogger(__name__)

LEGACY = "legacy"  # the generation of a log without a header (``LogFile.generation``)
_WIDTH = 192  # bytes of a note, padded with spaces (JSON allows them; older notes had 96)
_RETIRED_KEPT = 3  # generations before the log's own that a note names


class Note(NamedTuple):
    """What the last writer noted: the log's generation, its committed end, its modification
    time right after that commit (None: not known, as in a note of an older mixle, or one
    carried over to a new generation), and the generations the log had before, latest first."""

    generation: str
    end: int
    mtime_ns: int | None
    retired: tuple[str, ...] = ()

    def of_an_older_copy(self, generation: str) -> bool:
        """Whether a log of ``generation`` is a copy of this one from before it was last
        rewritten (compacted, or edited by hand): what was committed since is missing."""
        return generation != LEGACY and generation in self.retired

    def lost_its_header(self, generation: str) -> bool:
        """Whether a log of ``generation`` has no header though commits to it were noted (only
        a log with a header gets a note): its start was cut off, or another file put in its
        place."""
        return generation == LEGACY and self.end > 0


# What status and audit say of a log a write refuses for what it is
HEADER_LOST = (
    "items.jsonl has no header line, though commits to it were noted (its start cut off, or "
    "another file put in its place?): committed items may be missing, and no write is taken: "
    "restore it from a backup, or remove index/log-end.json to go on writing to it as it is"
)
OLDER_COPY = (
    "items.jsonl is an older copy of the log, from before it was rewritten (by a compaction, "
    "or after an edit by hand; an older backup restored?): what was committed since is "
    "missing, and no write is taken: restore the log's latest copy from a backup, or remove "
    "index/log-end.json to go on from this one"
)


def read_note(path: Path) -> Note | None:
    """The note the last writer left in ``path``, if any."""
    try:
        noted = orjson.loads(path.read_bytes())
        generation, end = noted["generation"], noted["end"]
        mtime_ns, retired = noted.get("mtime_ns"), noted.get("retired", [])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None  # missing, unreadable or damaged: evidence only, never required
    if not isinstance(generation, str) or type(end) is not int:
        return None
    if isinstance(retired, str):  # one alone, as the first notes to name one wrote it
        retired = [retired]
    kept = (
        tuple(g for g in retired if isinstance(g, str) and g) if isinstance(retired, list) else ()
    )
    return Note(generation, end, mtime_ns if type(mtime_ns) is int else None, kept)


def noted_end(path: Path) -> tuple[str, int] | None:
    """The (generation, end) the last writer noted in ``path``, if any."""
    note = read_note(path)
    return None if note is None else (note.generation, note.end)


def note_end(
    path: Path, generation: str, end: int, mtime_ns: int | None = None, replaced: str = LEGACY
) -> None:
    """Note in ``path``, after a commit, how far the log is committed (and, when given, the
    log's modification time right after it). The generations retired are carried over from
    the note before, with its own when the log has another one now (compacted, or renewed
    after an edit by hand; or compacted by a process that stopped before its note), and with
    the generation a compaction ``replaced`` (named even when there was no note before).

    Written in place, without a temporary file or a sync: it is evidence only, a few dozen
    bytes written under the writer lock, and a note a crash cut short no longer parses (read
    as no note, never as a wrong one).
    """
    # one record of a fixed width, written over the last: truncating first would make the
    # file system flush it on close (ext4 does, for a file truncated and rewritten)
    note: dict[str, object] = {"generation": generation, "end": end}
    if mtime_ns is not None:
        note["mtime_ns"] = mtime_ns
    retired = _retired_after(read_note(path), generation, replaced)
    if retired:
        note["retired"] = list(retired)
    data = orjson.dumps(note)
    # a long hand-made generation: the time goes first (it only saves a writer a read), then
    # the generations retired; with none of them room, no note is kept
    for dropped in ("mtime_ns", "retired"):
        if len(data) > _WIDTH:
            note.pop(dropped, None)
            data = orjson.dumps(note)
    if len(data) > _WIDTH:
        return
    data = data.ljust(_WIDTH)
    try:
        try:
            fd = open_derived(path, os.O_WRONLY | os.O_CREAT)
        except FileNotFoundError:  # a new shard: no index/ yet
            derived_dir(path.parent)
            fd = open_derived(path, os.O_WRONLY | os.O_CREAT)
        try:
            os.pwrite(fd, data, 0)
            if os.fstat(fd).st_size > _WIDTH:  # damaged (written over): what follows the
                os.ftruncate(fd, _WIDTH)  # note would keep it from ever parsing again
        finally:
            os.close(fd)
    except OSError as exc:  # the log is committed all the same, but the guard is off
        if str(path) not in _WARNED:  # once per note: a long ingest saves many batches
            _WARNED.add(str(path))
            log.warning(
                "could not note the end of the log in %s (%s): a log cut short later would "
                "not be noticed",
                path,
                failure(path, exc),
            )


_WARNED: set[str] = set()


def _retired_after(before: Note | None, generation: str, replaced: str) -> tuple[str, ...]:
    """The generations retired when ``generation`` (which ``replaced`` another) is noted
    after the note ``before``."""
    retired = [replaced]
    if before is not None:
        retired += [before.generation, *before.retired]  # its own, when the log has another
    kept = (g for g in retired if g not in (generation, LEGACY) and len(g) <= 32)
    return tuple(dict.fromkeys(kept))[:_RETIRED_KEPT]


def refuse_lost_commits(
    log_file: LogFile, state: TailState, generation: str, known: int = 0, *, writing: bool = False
) -> TailState:
    """Raise if the log lost lines that were committed, rather than read or write on; returns
    the log's state, read again when it looked short of the evidence.

    Args:
        log_file: the log.
        state: its tail as just read.
        generation: its generation as just read.
        known: a watermark a catalog was written at (other evidence of what was committed).
        writing: a write is about to note a new end. A log that lost whole batches (or lines
            of them) still reads, and ``audit`` tells of it; a write would hide the loss for
            good, so it is refused.

    Raises:
        LostCommitsError: the log is missing or empty, or ends before the end noted at its last
            commit, though commits into it were noted.
        CorruptShardError: the log ends inside a batch that was committed; or, on the way to a
            write, a committed line does not parse, the log having been written to since the
            last writer's note (``as_noted``).
    """
    path, folder = log_file.path, log_file.end_path.parent
    noted = read_note(log_file.end_path)
    if writing and noted is not None and noted.of_an_older_copy(generation):
        raise LostCommitsError(
            f"{path} is an older copy of the log, from before it was rewritten (by a "
            "compaction, or after an edit by hand; an older backup restored?): what was "
            "committed since is missing; restore the log's latest copy from a backup, or "
            f"remove {log_file.end_path} to go on writing to this one"
        )
    if noted is not None and noted[0] == generation:
        known = max(known, noted[1])
    if known > state.committed_end:
        # read before the evidence: a writer may have committed in between (readers take no
        # lock), so look at the log again
        state = log_file.tail_state()
    if state.size == 0 and (known > 0 or (noted is not None and noted[1] > 0)):
        raise LostCommitsError(
            f"{path} is missing or empty, but items were committed to it; restore it from a "
            f"backup (or remove {folder} to start again with an empty shard)"
        )
    if writing and noted is not None and noted.lost_its_header(generation):
        # only a log with a header gets a note: this one lost its first line
        raise LostCommitsError(
            f"{path} has no header line, though commits to it were noted (its start cut off, "
            "or another file put in its place?): committed items may be missing; restore it "
            f"from a backup, or remove {log_file.end_path} to go on writing to it as it is"
        )
    torn = state.uncommitted_bytes and not _only_a_header(log_file, state)
    if known > state.committed_end and torn:
        _refuse_corrupt_lines(log_file, state.committed_end)
        # the first batch has no commit before it: its lines start after the header
        first = 2 if state.committed_end == 0 and log_file.header() is not None else 1
        lines = _whole_lines(path, state.committed_end)
        if lines:
            left = f"the {lines} whole line(s) from this line on"
            lost = f"those {lines} line(s) and the rest of their batch"
        else:  # not "the 0 whole line(s)": part of a line is there, and lost all the same
            left = "the part of a line from here on"
            lost = "the items of that batch"
        raise CorruptShardError(
            str(path),
            max(first, log_file.line_number(state.committed_end)),
            f"the log ends inside a batch that was committed (cut short?): {left} "
            f"({state.uncommitted_bytes} bytes) lost the line that ends their batch; restore "
            f"the file from a backup (removing {folder}, which is rebuilt, keeps only the "
            f"complete batches: {lost} would be lost)",
        )
    if writing and known > state.committed_end:
        _refuse_corrupt_lines(log_file, state.committed_end)
        raise LostCommitsError(
            f"{path} ends {known - state.committed_end} bytes before the end noted at its last "
            "commit: committed items are missing (an older copy restored, or one taken during "
            "a write; the file cut short; lines removed or shortened by hand); restore it from "
            f"a backup, or remove {log_file.end_path} to go on writing to the log as it is"
        )
    if writing and state.committed_end and not as_noted(log_file, noted, generation, state):
        _refuse_corrupt_lines(log_file, state.committed_end)
    return state


def as_noted(log_file: LogFile, noted: Note | None, generation: str, state: TailState) -> bool:
    """Whether the log is as the last writer left it: of the generation, size and modification
    time it noted after its commit. Only then may a writer trust the lines before the tail it
    read, without parsing them."""
    if noted is None or noted.mtime_ns is None or noted.generation != generation:
        return False
    if noted.end != state.size:
        return False
    try:
        return log_file.path.stat().st_mtime_ns == noted.mtime_ns
    except OSError:
        return False


def _only_a_header(log_file: LogFile, state: TailState) -> bool:
    """Whether the log holds its header line and nothing else: no batch was cut short in it
    (every batch after the header is gone)."""
    if state.committed_end or state.size > 4096:
        return False
    try:
        with log_file.path.open("rb") as fh:
            first = fh.readline(4096)
    except OSError:
        return False
    return len(first) == state.size and log_file.header() is not None


def _whole_lines(path: Path, start: int) -> int:
    """How many whole lines the file at ``path`` holds from byte ``start`` on."""
    try:
        with path.open("rb") as fh:
            fh.seek(start)
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except OSError:  # read just before: told as none rather than hide the error itself
        return 0


def _refuse_corrupt_lines(log_file: LogFile, end: int) -> None:
    """Raise for the first corrupt line before ``end``, if there is one.

    A line edited by hand moves every offset after it, so the evidence can point past the
    committed end of a log that lost nothing; with a torn write after it, the log would be
    said to be cut short, naming the torn line and suggesting to remove index/, which would
    not help. The corrupt line is the error (as it is when no torn write follows it). Read
    only on the way to that error: the whole committed log is parsed.

    Raises:
        CorruptShardError: naming the corrupt line.
    """
    for _ in log_file.records(0, end):
        pass
