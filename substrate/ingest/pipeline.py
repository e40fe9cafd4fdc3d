"""``ingest_path`` and ``ingest_text``: incremental, reported, interruptible ingestion.

How a run goes:

1. Walk the tree (``walk.py``): ignore rules, hidden/VCS folders, symlinks; only ``stat``.
   Files are handed on as each folder is listed, so the next steps overlap the walk.
2. For each file, consult the source cache (``sources.py``). Same size and mtime (and the same
   ingest options) means unchanged: the file is not even opened. Otherwise it is read and hashed;
   the same content hash also means unchanged (only the cache is refreshed).
3. A new or changed file is decoded (strict UTF-8), parsed by its format, each segment passed
   through the write-time gate (``substrate.gate.admit``) and given a stable id. The file's
   previous items that are no longer produced are removed; the others are rewritten in place.
4. Changes are saved in batches (every 1,000 files, 10,000 items or 2 s). One ``save()`` is one
   atomic committed append, and a batch only ever holds whole files, so a crash leaves each file
   either in its old or in its new version.
5. Sources under the root that were not seen (deleted, or now ignored) lose their items.

``KeyboardInterrupt`` stops the run after saving the files already completed, then propagates;
a rerun picks up where it stopped, because completed files are unchanged by then.

Provenance of every item: ``source`` is the path relative to the ingest root, with ``/``
separators (the file name when a single file is ingested), short and portable for display and
citations; ``path`` is the absolute path (as walked: a file reached through a link inside the
root keeps the link's path). Ids and the source cache are keyed by the absolute path, so the
same file reached from two different roots is still one set of items. Then ``section`` (heading
path), ``line_start``/``line_end`` (1-based, inclusive), ``chunk`` (index within the section),
``index`` (position within the file), ``format``, ``content_hash`` (sha256, 32 hex, as
``content_hash(path)`` computes it; withheld when the gate masked a secret in the file,
``build.withhold_hash``), ``size``, ``mtime``, ``mtime_ns``, ``ingested_at`` and
``ingest_options`` (a fingerprint of the options that shaped the item), and ``ingest_scope``
(the scope it was ingested into: an item published elsewhere since is no longer the ingest's
to rewrite or remove). Streams have ``path = None``.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import replace
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, cast

from substrate.compressed import GZIP_MAGIC, CompressedError, gunzip
from substrate.errors import InvalidInputError, NotFoundError
from substrate.gate import refuse_non_list, refuse_non_text, refuse_unfit_names
from substrate.ingest import report as status
from substrate.ingest.chunk import check_limit
from substrate.ingest.detect import detect_format, file_format, normalize_format
from substrate.ingest.ignore import IgnoreStack, RuleSet, compile_rule, enclosing_rules
from substrate.ingest.parallel import (
    MIN_PARALLEL_FILES,
    can_fork,
    prepared_in_workers,
    worker_count,
)
from substrate.ingest.prepare import PARSED, IngestOptions, Prepared, Ticket
from substrate.ingest.report import IngestReport
from substrate.ingest.session import IngestSession, ProgressFn, too_large
from substrate.ingest.settings import (
    as_text_rules,
    ignore_rules,
    setting_int,
    size_limit,
    warn_unknown_settings,
)
from substrate.ingest.sourcekeys import STREAM_PREFIX
from substrate.ingest.textio import content_digest
from substrate.ingest.walk import (
    FileEntry,
    WalkResult,
    files_by_folder,
    shard_file,
    utf8_name,
)
from substrate.limits import BINARY_PROBE_BYTES, DEFAULT_CHUNK_CHARS
from substrate.secrets.sources import shown_path
from substrate.streams import read_within
from substrate.widetext import is_binary

if TYPE_CHECKING:
    from substrate.store import Substrate

log = logging.getLogger(__name__)


def _resolve_options(
    substrate: Substrate,
    scope: str,
    tags: Iterable[str],
    as_format: str | None,
    chunk_chars: int | None,
    redact: bool,
) -> IngestOptions:
    warn_unknown_settings(substrate)
    if chunk_chars is None:
        chunk_chars = setting_int(substrate, "chunk_chars", DEFAULT_CHUNK_CHARS)
    tags = _tags_given(tags)
    refuse_non_text(scope=scope)  # (a caller's scope=None)
    refuse_unfit_names(scope=scope)  # before anything names a cache entry after it
    return IngestOptions(
        scope=scope,
        tags=tuple(dict.fromkeys(tags)),
        as_format=normalize_format(as_format) if as_format else None,
        chunk_chars=check_limit(chunk_chars),
        redact=redact,
    )


def _text_patterns(substrate: Substrate, given: Iterable[str]) -> IgnoreStack:
    """The rules of the files read as plain text: the settings' ``as_text``, then ``given``
    (a later rule decides, as in an ignore file: ``!`` takes a file back)."""
    rules = []
    for pattern in (*as_text_rules(substrate), *_texts_given(given, "as_text", "pattern")):
        rule = compile_rule(pattern)
        if rule is None:
            raise InvalidInputError(f"as_text: {pattern!r} is no pattern of file names")
        rules.append(rule)
    return IgnoreStack((RuleSet(tuple(rules)),)) if rules else IgnoreStack()


def _tags_given(tags: object) -> list[str]:
    """``tags`` as a list of text (``_texts_given``)."""
    return _texts_given(tags, "tags", "tag")


def _texts_given(values: object, name: str, one: str) -> list[str]:
    """``values`` (the argument ``name``, each value ``one``) as a list of text: one text is
    one value; anything that is not text (5, None, the bytes of b"ab", the keys of a dict) is
    refused, not spelled as Python spells it."""
    if isinstance(values, str):
        return [values]
    refuse_non_list(values, name)
    given: list[str] = list(cast(Iterable[str], values))
    for value in given:  # (each one looked at: a list may hold anything)
        refuse_non_text(**{one: value})
    return given


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (worker processes forked in it too).

    A run makes items, dicts and lists by the hundred thousand and keeps many until they are
    saved; the collector's passes over them find next to nothing to free (items hold no
    cycles) and cost 5-10% of a first ingest. Reference counting frees everything as usual,
    and the collector resumes, if it was on, when the block ends. The switch is the whole
    process's: other threads of a host program run without cyclic collection meanwhile, and of
    two ingests in threads the first to end turns it back on (a matter of speed, not of data).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@collector_paused()
def ingest_path(
    substrate: Substrate,
    path: str | os.PathLike[str],
    *,
    scope: str = "local",
    tags: Iterable[str] = (),
    as_format: str | None = None,
    chunk_chars: int | None = None,
    max_file_size: int | None = None,
    redact: bool = True,
    prune: bool = True,
    prune_empty: bool = False,
    hidden: bool = False,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    report: IngestReport | None = None,
    jobs: int | None = None,
    rehash: bool = False,
    named_from: str | os.PathLike[str] | None = None,
    authorize: Callable[[], None] | None = None,
    as_text: Iterable[str] = (),
) -> IngestReport:
    """Ingest a file or a directory tree, incrementally.

    Unchanged files are skipped without being read; changed files have their items replaced;
    files that disappeared lose their items (unless ``prune=False``). Changes are saved as the run
    goes (for a shard on disk), so an interrupted run keeps the files it completed.

    Args:
        substrate: the shard to write to.
        path: a file or directory.
        scope: scope of the new items.
        tags: tags added to every new item.
        as_format: parse every file as this format (``markdown``, ``text``, ``rst``, ``jsonl``,
            ``json``, ``csv``, ``tsv``, ``artifact``, ``traces`` or an alias such as ``md``);
            None detects it from the file name (and, for JSON Lines, from the rows).
        chunk_chars: the largest prose chunk in characters (default: settings
            ``[ingest] chunk_chars``, else 1500).
        max_file_size: larger files are skipped (default: settings ``[ingest] max_file_size``,
            else 32 MiB).
        redact: mask secrets with the write-time gate.
        prune: remove the items of files under ``path`` that no longer exist or are now ignored,
            and those of a file gone from the disk whose content a new file holds (moved).
        prune_empty: prune a folder in which the walk found no file too. Without it, the
            items of such a folder are kept, and an issue says so: an unmounted drive or share
            leaves an empty folder, and its notes must not vanish from the shard with it.
        hidden: also ingest hidden files and folders (VCS folders are always skipped).
        progress: called as ``progress(files_done, files_total, items, bytes)`` after files
            (at most every 50 ms) and once at the end; ``files_total`` counts the files found
            so far, and is final once the walk has ended.
        cancel: when set (from another thread), the run stops before the next file is
            applied (files are prepared a chunk at a time: those of the chunk being prepared
            are left for the next run), saves, and returns a report marked ``cancelled``.
        report: a report to fill in place (it stays valid if ``KeyboardInterrupt`` propagates).
        jobs: worker processes that read and parse files (Linux); None uses the CPUs when
            more than a thousand files must be read, 1 keeps everything in this process. The
            result is the same either way.
        rehash: read, parse and gate every file, even one whose size, modification time and
            change time are those recorded last time (an edit that kept all three, on a file
            system that keeps no change time, is otherwise unseen); a file that gives the same
            items is still unchanged, and none of its items is written again.
        named_from: the folder each file's ``source`` is its path from; it must hold
            ``path``. Default: the outermost folder around ``path`` that named files ingested
            with the same options before, else ``path`` (a file's folder). A file named from
            another folder before is read again and renamed: links and citations go by it.
        authorize: called before each save of a shard on disk, under its writer lock; raising
            refuses that save and ends the run (the batches saved before it are kept). A
            caller checks there that it may still write to ``scope``: a grant saved by another
            process during a long run is seen by its next batch.
        as_text: patterns, written as in ``.gitignore`` (``*.py``, ``src/**/*.js``), of files
            of no format mixle knows that are read as plain text (source code, configuration),
            beside settings' ``[ingest] as_text``; a file whose name implies a format keeps it.

    Returns:
        The report: counts, one outcome per file, and every problem with its file and line.

    Raises:
        NotFoundError: ``path`` does not exist.
        InvalidInputError: an unknown format or a bad chunk size.
    """
    started = time.monotonic()
    if not os.fspath(path):  # Path("") would be the working directory
        raise NotFoundError("no such file or directory: '' (the path is empty)")
    given = Path(os.path.expanduser(os.fspath(path)))
    if not given.exists():
        raise NotFoundError(f"no such file or directory: {shown_path(str(given))}")
    root = Path(os.path.realpath(given))
    if not utf8_name(str(root)):
        raise InvalidInputError(f"the path '{shown_path(str(root))}' is not valid UTF-8; rename it")
    options = _resolve_options(substrate, scope, tags, as_format, chunk_chars, redact)
    if max_file_size is None:
        max_file_size = size_limit(substrate)
    options = replace(options, max_read=max_file_size)
    report = report if report is not None else IngestReport()
    report.roots.append(str(root))
    run = IngestSession(substrate, options, report, progress, cancel)
    run.name_from(_naming_folder(run, root, named_from), root if root.is_dir() else root.parent)
    run.within = str(root)
    run.rehash = rehash
    run.authorize = authorize
    run.let_go_of_moved = prune
    run.as_text = _text_patterns(substrate, as_text)
    walked_tree = root.is_dir()
    walked = WalkResult()
    folders: Iterable[list[FileEntry]]
    if walked_tree:
        extra = [r for r in map(compile_rule, ignore_rules(substrate)) if r]
        exclude = [substrate.root] if substrate.root is not None else []
        found = files_by_folder(
            root,
            walked,
            hidden=hidden,
            exclude=exclude,
            rules=enclosing_rules(root),
            extra_rules=extra,
        )
        folders = _noting_skips(found, walked, run, root)
        walked_root: str | None = str(root)
    elif root.is_file():
        if shard_file(root):  # named: refused, where a walk passes a shard's folder over
            walked.failed.append((root.name, status.SHARD_FILE))
            folders = _noting_skips([], walked, run, root.parent)
        else:
            folders = [[FileEntry.of(str(root), root.name, root.stat())]]
        walked_root = None
    else:
        raise InvalidInputError(f"not a regular file or directory: {shown_path(str(given))}")
    seen = report.walked  # the paths of earlier runs into this report are kept from pruning
    try:
        # files are read (in workers, when there are many) while the walk still goes on
        tickets = run.planned(folders, seen, max_file_size, asked_for=not walked_tree)
        # left to decide: are there files enough for workers to be worth starting?
        first = list(islice(tickets, MIN_PARALLEL_FILES)) if jobs is None and can_fork() else []
        cancelled = cancel is not None and cancel.is_set()
        workers = 0 if cancelled else worker_count(jobs, len(first))
        if workers:
            prepared = prepared_in_workers(
                chain(first, tickets),
                options,
                run.fingerprint,
                workers,
                encoded=substrate.root is not None,
                cancel=cancel,
            )
        else:
            prepared = run.prepare_here(chain(first, tickets))
        stopped = cancelled
        with closing(prepared):  # stops the workers however the loop ends
            for ticket, result in () if cancelled else prepared:
                # a file read while the stop came is kept: it stops the run after the file
                # at hand, which may have been a long one to read
                run.apply(ticket, result)
                run.files_done += 1
                run.tick()
                if cancel is not None and cancel.is_set():
                    stopped = True
                    break
        run.record_waiting()
        if stopped and run.files_done == run.files_found and (run.walked_all or not walked_tree):
            # every file found was done, and no other is to come (a file named alone): the
            # stop came as the run ended
            stopped, run.walked_all = False, True
        if stopped or not run.walked_all:
            report.cancelled = True
        elif walked_root is not None and prune:
            found_none = not prune_empty and not _any_under(seen, walked_root)
            seen -= run.unclaimed  # read as text before, of no format now: as if gone
            run.prune(walked_root, seen, walked.unreadable, found_none=found_none)
        elif walked_root is not None:
            run.tell_unpruned(walked_root, seen - run.unclaimed)
        elif prune and not walked_tree:  # a file named where a folder was: its files are gone
            run.prune(str(root), seen)
        run.finish()
    except KeyboardInterrupt:
        _finish_interrupted(run)
        raise
    finally:
        report.elapsed_s = time.monotonic() - started
        report.entries_hidden += walked.hidden
        report.entries_ignored += walked.ignored
        run.tick(force=True)
    return report


def _naming_folder(
    run: IngestSession, root: Path, named_from: str | os.PathLike[str] | None
) -> Path:
    """The folder sources are named from: the outermost folder around ``named_from`` (which
    must hold ``root``; default: ``root``, or a file's folder) that named files ingested with
    these options before, else that folder itself. A note edited and ingested alone, or a
    subfolder ingested again, keeps the names the whole tree gave it (``projects/hermes.md``)."""
    base = root if root.is_dir() else root.parent
    if named_from is not None:
        given = Path(os.path.realpath(os.path.expanduser(os.fspath(named_from))))
        if not base.is_relative_to(given):
            raise InvalidInputError(f"{shown_path(str(root))} is not in {shown_path(str(given))}")
        base = given
    known = run.cache.known_keys()
    around = [f for f in (base, *base.parents) if run.key_for(f) in known]
    if len(around) < 2:
        return around[-1] if around else base
    # several: the one that named most of the files in it now, the outermost of equals (a
    # file of the project ingested from its top must not rename a folder ingested before)
    named = run.cache.naming_counts(str(base))
    return max(reversed(around), key=lambda folder: named[run.key_for(folder)])


def _any_under(paths: set[str], root: str) -> bool:
    """Whether a walk of this report (this root's, or a root around it) met a file in
    ``root``."""
    inside = root.rstrip(os.sep) + os.sep
    return any(path.startswith(inside) for path in paths)


def _noting_skips(
    folders: Iterable[list[FileEntry]], walked: WalkResult, run: IngestSession, root: Path
) -> Iterator[list[FileEntry]]:
    """``folders`` as the walk hands them out, with what it passed over in each (links out of
    the root, unreadable folders: failed) reported before the folder's files."""
    skipped = failed = 0

    def note_new() -> None:
        nonlocal skipped, failed
        # counted as scanned too: scanned = added + updated + unchanged + skipped + failed
        run.report.files_scanned += len(walked.failed) - failed + len(walked.skipped) - skipped
        for rel, reason in walked.failed[failed:]:
            run.settle(run.fail, _named(rel, root), _path(rel, root), reason)
        for rel, reason in walked.skipped[skipped:]:
            run.settle(run.outcome, _named(rel, root), _path(rel, root), status.SKIPPED, reason)
        skipped, failed = len(walked.skipped), len(walked.failed)

    for files in folders:
        note_new()
        yield files
    note_new()


def _path(rel: str, root: Path) -> str:
    """Where an entry the walk passed over is (an ignore file above the root: ``../x``)."""
    return os.path.normpath(root / rel)


def _named(rel: str, root: Path) -> str:
    """How the report names what the walk passed over: ``.``, the folder given itself, by its
    name."""
    return root.name if rel == "." else rel


def ingest_text(
    substrate: Substrate,
    text: str | bytes | BinaryIO,
    *,
    source: str | None = None,
    as_format: str | None = None,
    scope: str = "local",
    tags: Iterable[str] = (),
    chunk_chars: int | None = None,
    max_file_size: int | None = None,
    redact: bool = True,
    report: IngestReport | None = None,
    authorize: Callable[[], None] | None = None,
) -> IngestReport:
    """Ingest text that does not come from a file (standard input, a pipe, a string).

    The source name plays the role of the file: ingesting the same name again replaces the
    items it gave last time (identical text is skipped). Without a name, each distinct text is
    its own source, ``stdin-<content hash>`` (``stream_name`` when it holds a secret): piping
    in one note, then another, keeps both.
    Nothing is saved here for an in-memory shard; a shard on disk is saved once, atomically.

    Args:
        substrate: the shard to write to.
        text: the content (bytes must be UTF-8), or a binary stream (such as standard
            input), read no further than one byte past ``max_file_size``.
        source: the name recorded as ``provenance.source`` (a label); None names the text
            by its content.
        as_format: how to parse it (any format ``ingest_path`` knows); default: as a file
            named ``source`` would be (``notes.md`` is Markdown), else plain text.
        scope: scope of the new items.
        tags: tags added to every new item.
        chunk_chars: the largest prose chunk in characters.
        max_file_size: a larger text fails (what the source gave before is kept): unlike a
            file, a stream cannot be read again (default: settings ``[ingest]
            max_file_size``, else 32 MiB).
        redact: mask secrets with the write-time gate.
        report: a report to fill in place.
        authorize: as for ``ingest_path``: called under the writer lock before the save (a
            stream may take long to read).

    Returns:
        The report, with one file outcome for the stream.

    Raises:
        InvalidInputError: an unknown format, a bad chunk size, or ``artifact`` (a manifest
            is referenced by its folder, which a stream has not).
    """
    started = time.monotonic()
    options = _resolve_options(substrate, scope, tags, as_format, chunk_chars, redact)
    if options.as_format == "artifact":  # its reference would be the working directory
        raise InvalidInputError(
            "an artifact is the folder its manifest.json describes: a stream has none "
            "(ingest the folder)"
        )
    if max_file_size is None:
        max_file_size = size_limit(substrate)
    data = _held(text, max_file_size)
    size = len(data)
    unreadable = ""
    if data.startswith(GZIP_MAGIC):  # piped in compressed: the text inside is read
        try:
            data = gunzip(data, max_file_size)
        except CompressedError as exc:
            unreadable = f"{exc} (nothing was stored)"
    unnamed = source is None
    if source is None:
        source = f"stdin-{content_digest(data)[:12]}"
    report = report if report is not None else IngestReport()
    run = IngestSession(substrate, options, report, None, None)
    run.authorize = authorize
    key = f"{STREAM_PREFIX}{source}"
    # named, not forced: a stream named traces.jsonl is looked at as that file would be
    fmt = file_format(options.as_format or _format_named(source), "")
    assert fmt is not None
    report.files_scanned += 1
    if size > max_file_size:  # failed, not skipped as a file is: a stream is not read twice
        # a stream is read no further than the limit: its size is not known
        known = size if isinstance(text, str | bytes | bytearray | memoryview) else None
        run.fail(source, None, too_large(known, max_file_size))
    elif unreadable:
        run.fail(source, None, unreadable)
    elif is_binary(data[:BINARY_PROBE_BYTES]):  # failed too: a file skipped can be fixed
        run.fail(source, None, "binary content, not text (nothing was stored)")
    elif not data.strip() and run.earlier_text_items(key):  # a failed command before it?
        run.fail(source, None, "empty input: the items this source gave before are kept")
    else:
        ticket, result = _prepared_stream(run, source, fmt, data)
        if unnamed and result.status == PARSED and not result.digest:
            # it held a secret (its hash was withheld): so must the name be
            source = stream_name(result)
            ticket, result = _prepared_stream(run, source, fmt, data)
        run.apply(ticket, result)
    report.roots.append(f"{STREAM_PREFIX}{source}")
    try:
        run.finish()
    except KeyboardInterrupt:  # (a Ctrl-C while waiting for another writer's lock)
        _finish_interrupted(run)
        raise
    report.elapsed_s = time.monotonic() - started
    return report


def _finish_interrupted(run: IngestSession) -> None:
    """Save, on the way out of an interrupted run, what it completed; or, when another writer
    holds the shard, nothing, with the report taking back what it told of those files (a
    report must not count as added what was not saved)."""
    run.report.interrupted = True
    try:
        run.finish(checkpoint=False, wait=False)
    except (ImportError, AttributeError):
        # the interrupt broke a module being imported (numpy), which then cannot be
        # imported again, or is found half made ("module 'numpy' has no attribute
        # 'matrix'"): what was saved stays, and a rerun saves the rest
        log.warning("the interrupted ingest could not save its last files; run it again")


def _format_named(source: str | None) -> str:
    """The format a stream named ``source`` is read as when none is given: the one a file of
    that name would get (a ``manifest.json`` piped in is JSON: a stream has no folder for an
    artifact to be), else plain text."""
    named = detect_format(source) if source else None
    return "json" if named == "artifact" else named or "text"


def _prepared_stream(
    run: IngestSession, source: str, fmt: str, data: bytes
) -> tuple[Ticket, Prepared]:
    key = f"{STREAM_PREFIX}{source}"
    known_size, known = run.known_version(key)
    ticket = Ticket(key, source, None, fmt, known_hash=known, data=data, known_size=known_size)
    [(_, result)] = run.prepare_here([ticket])
    return ticket, result


def stream_name(done: Prepared) -> str:
    """The source name of an unnamed stream that held a secret: ``stdin-`` and 12 hex digits
    of the hash of its items' texts, as the gate masked them. Shown wherever its items are,
    the hash of the raw bytes (which names a stream with none) would confirm a guess of the
    secret, the rest of the text being stored."""
    items = done.built_items()
    texts = "\n".join(item.text for item in items)
    return f"stdin-{content_digest(texts.encode())[:12]}"


def _held(text: str | bytes | BinaryIO, limit: int) -> bytes:
    """The bytes of ``text`` to parse: of a stream, at most ``limit + 1`` (a larger one is
    skipped, its size unknown)."""
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    if isinstance(text, bytes | bytearray | memoryview):
        return bytes(text)
    return read_within(text, limit)
