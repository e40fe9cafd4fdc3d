"""What an ingest run did: counts, one outcome per file, and every problem with its location.

File names and reasons are shown masked (``as_dict``, ``location``): a secret pasted into a
file name is redacted from the items' provenance, and must not come back through the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from substrate.secrets import safe_text
from substrate.secrets.paths import safe_path
from substrate.sourcenames import distinct_names, ending_in

# The status of one file in a run.
ADDED = "added"  # first time this source was ingested
UPDATED = "updated"  # the source changed: its old items were replaced
UNCHANGED = "unchanged"  # same size and mtime, or same content hash: not parsed
REMOVED = "removed"  # the source disappeared (or is now ignored): its items were removed
SKIPPED = "skipped"  # not ingested on purpose (binary, too large, unsupported format, ...)
FAILED = "failed"  # rejected because it could not be read or parsed; stored items kept

STATUSES = (ADDED, UPDATED, UNCHANGED, REMOVED, SKIPPED, FAILED)


NO_CONTENT = "no content"
# Why a file is passed over as binary: git's rule, said, as a text file a crash left zeros in
# is passed over too (``scan-secrets`` reads one, the NUL bytes as spaces)
BINARY = "binary file (a NUL byte in its first 8 KiB, as git tells one)"
# Why a shard's own file named, or a copy of its log named or found, is not ingested
SHARD_FILE = "one of a mixle shard's own files (the shard holds its items, each in its scope)"
SHARD_LOG = "a mixle shard's log (its lines are that shard's items, each in its scope), not data"
# Why a copy a sync or merge tool left beside a note is passed over in a folder's walk
TOOL_COPY = "a copy a sync or merge tool left beside the file (name it to ingest it)"
# Why the items of a file iCloud evicted (a ".NAME.icloud" in its place) are kept
IN_THE_CLOUD = "kept in iCloud, not on this disk (its items are kept; download it to read it)"
# Why a package manager's lock file is passed over in a folder's walk
LOCK_FILE = "a lock file a package manager writes (name it to ingest it)"
# The reason of a file removed because a new file of this run holds its content
MOVED_TO = "moved to "


def nothing_parsed(rejected: int, empty: int) -> str:
    """Why a file whose lines or rows gave no item failed: how many were rejected, and how
    many of the others were empty."""
    if not empty:
        return f"all {rejected} line(s) or row(s) rejected"
    return f"{rejected} line(s) or row(s) rejected, and the other {empty} empty"


@dataclass(slots=True)
class IngestIssue:
    """One problem found while ingesting, located as precisely as the format allows.

    Attributes:
        source: the source name (path relative to the ingest root, or a stream name).
        reason: what went wrong, in words.
        line: 1-based line number, when known.
        byte: 0-based byte offset in the file, when known (invalid UTF-8).
        fatal: True when the whole file was rejected; False when only one line or row was.
        path: the file's path, when it is a file: two files of one run may share a source
            name (``shown_names``).
    """

    source: str
    reason: str
    line: int | None = None
    byte: int | None = None
    fatal: bool = False
    path: str | None = None

    def location(self, shown: str | None = None) -> str:
        """``source:line`` (or ``source:byte N``), the form editors and terminals link to;
        ``shown`` names the source instead (``shown_names``)."""
        source = shown or safe_path(self.source)
        if self.line is not None:
            return f"{source}:{self.line}"
        if self.byte is not None:
            return f"{source}: byte {self.byte}"
        return source

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": safe_path(self.source),
            "line": self.line,
            "byte": self.byte,
            "reason": safe_text(self.reason),
            "fatal": self.fatal,
            "path": None if self.path is None else safe_path(self.path),
        }


@dataclass(slots=True)
class FileOutcome:
    """What happened to one file (or stream) in a run."""

    source: str
    status: str
    path: str | None = None
    reason: str = ""
    items_added: int = 0
    items_removed: int = 0
    errors: int = 0
    items_rewritten: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": safe_path(self.source),
            "path": None if self.path is None else safe_path(self.path),
            "status": self.status,
            "reason": safe_text(self.reason),
            "items_added": self.items_added,
            "items_rewritten": self.items_rewritten,
            "items_removed": self.items_removed,
            "errors": self.errors,
        }


@dataclass(slots=True)
class GateTally:
    """What the write-time gate did to the items of one file (added to the run's report when
    the file is applied)."""

    items_dropped: int = 0
    redactions: int = 0
    redaction_rules: Counter[str] = field(default_factory=Counter)
    unredacted_secrets: int = 0

    def __reduce__(self) -> tuple[type[GateTally], tuple[Any, ...]]:
        fields = (self.items_dropped, self.redactions, self.redaction_rules)
        return (GateTally, (*fields, self.unredacted_secrets))


@dataclass(slots=True)
class IngestReport:
    """The outcome of one ingest run, filled in as the run goes.

    Pass one in (``report=``) to keep the counts of a run that is interrupted: the object is
    updated in place, so it still describes the stored work when ``KeyboardInterrupt`` propagates.

    Attributes:
        roots: every path (or stream name) ingested into the report, in order; ``root`` is
            the first.
        files_scanned: files considered (after ignore rules), including unchanged ones and
            those skipped or failed: added + updated + unchanged + skipped + failed.
        items_added: new items written by this run.
        items_rewritten: items of a changed source stored again under the same id (the same
            content with new provenance: line numbers, chunk index, tags); the shard holds
            ``items_added - items_removed`` more items than before.
        items_removed: items removed (replaced sections, pruned sources).
        items_dropped: chunks dropped because they were empty or whitespace only.
        redactions: secrets masked by the write-time gate.
        redaction_rules: for each secret rule, how many items it fired in.
        unredacted_secrets: secrets stored as they were (``redact=False``), as the gate
            counted them; the CLI should warn about them.
        bytes_read: bytes of file content read (unchanged files are not read).
        entries_hidden: hidden files and folders a walk left out (``hidden=True`` takes
            them); the shard's own folder, ignore files and VCS folders are not counted.
        entries_ignored: files and folders a walk left out because an ignore rule names
            them (``.gitignore``, ``.mixleignore``, ``[ingest] ignore`` in ``mixle.toml``).
        files_reoptioned: files read again only because their last ingest had other options
            (tags, format, chunk size, redaction) or named them from another folder: their
            size and modification time are those recorded then.
        ids: ids of the items written, in source order.
        files: one outcome per file added, updated, removed, skipped or failed.
        unchanged: the sources found unchanged (only listed: a re-ingest of a large tree
            should not build an object per untouched file).
        issues: every problem, with file and line.
        notices: what happened that the user should know and that is not a problem of the
            input (a pending proposal withdrawn with the item it was for).
        interrupted: the run was stopped by KeyboardInterrupt (completed files are stored).
        cancelled: the run was stopped by its cancel event (completed files are stored).
        walked: the absolute paths of the files every run filling this report considered (not
            in ``as_dict``); a later run's prune keeps their items, so a file named on its own
            and then met as ignored by its folder's walk is not removed.
    """

    roots: list[str] = field(default_factory=list)
    files_scanned: int = 0
    items_added: int = 0
    items_rewritten: int = 0
    items_removed: int = 0
    items_dropped: int = 0
    redactions: int = 0
    redaction_rules: Counter[str] = field(default_factory=Counter)
    unredacted_secrets: int = 0
    bytes_read: int = 0
    entries_hidden: int = 0
    entries_ignored: int = 0
    files_reoptioned: int = 0
    ids: list[str] = field(default_factory=list)
    files: list[FileOutcome] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    issues: list[IngestIssue] = field(default_factory=list)
    notices: list[IngestIssue] = field(default_factory=list)
    interrupted: bool = False
    cancelled: bool = False
    elapsed_s: float = 0.0
    walked: set[str] = field(default_factory=set)

    def count(self, status: str) -> int:
        """How many files ended with ``status`` (one of ``STATUSES``)."""
        if status == UNCHANGED:
            return len(self.unchanged)
        return sum(1 for f in self.files if f.status == status)

    @property
    def files_added(self) -> int:
        return self.count(ADDED)

    @property
    def files_updated(self) -> int:
        return self.count(UPDATED)

    @property
    def files_unchanged(self) -> int:
        return self.count(UNCHANGED)

    @property
    def files_removed(self) -> int:
        return self.count(REMOVED)

    @property
    def files_moved(self) -> int:
        """Of the files removed, those whose content a new file of this run holds."""
        return sum(1 for f in self.files if f.status == REMOVED and f.reason.startswith(MOVED_TO))

    @property
    def files_skipped(self) -> int:
        return self.count(SKIPPED)

    @property
    def files_failed(self) -> int:
        return self.count(FAILED)

    @property
    def files_not_reached(self) -> int:
        """Files found but not reached (a run stopped early): scanned = added + updated +
        unchanged + skipped + failed + not reached."""
        done = len(self.unchanged) + sum(1 for f in self.files if f.status != REMOVED)
        return max(self.files_scanned - done, 0)

    @property
    def ok(self) -> bool:
        """True when nothing failed, no line was rejected and the run was not stopped early."""
        return not self.issues and not self.interrupted and not self.cancelled

    def note(self, issue: IngestIssue) -> None:
        self.issues.append(issue)

    def tell(self, source: str, notices: list[str], path: str | None = None) -> None:
        """Record what the user should know of ``source`` (the file at ``path``) that is not
        a problem of its input (an approval withdrawn with a replaced item): reported,
        without failing the run."""
        self.notices.extend(IngestIssue(source, notice, path=path) for notice in notices)

    def failed(
        self,
        source: str,
        path: str | None,
        reason: str,
        line: int | None = None,
        byte: int | None = None,
    ) -> FileOutcome:
        """Record a file rejected as a whole: the problem with its place, and its outcome."""
        issue = IngestIssue(source, reason, line, byte, fatal=True, path=path)
        self.note(issue)
        return self.failed_for(issue, path)

    def failed_for(self, issue: IngestIssue, path: str | None) -> FileOutcome:
        """Record the outcome of a file rejected as a whole for ``issue``, noted already."""
        where = f"line {issue.line}: " if issue.line is not None else ""
        where = where or (f"byte {issue.byte}: " if issue.byte is not None else "")
        outcome = FileOutcome(issue.source, FAILED, path, where + issue.reason, errors=1)
        self.files.append(outcome)
        return outcome

    def record_file(
        self,
        name: str,
        path: str | None,
        *,
        added: int,
        rewritten: int,
        gave_items: bool,
        errors: int = 0,
        empty: int = 0,
    ) -> None:
        """The outcome of one file read whole: unchanged when every item it gave is stored as
        it is; failed when it gave none and ``errors`` lines or rows were rejected (as ingest
        tells it), skipped when it held nothing (``empty`` lines or rows were blank)."""
        if gave_items and not (added or rewritten):
            self.unchanged.append(name)
            return
        if not gave_items and errors:
            self.failed(name, path, nothing_parsed(errors, empty)).errors = errors
            return
        result = UPDATED if rewritten else ADDED if gave_items else SKIPPED
        outcome = FileOutcome(name, result, path, "" if gave_items else NO_CONTENT)
        outcome.items_added, outcome.items_rewritten, outcome.errors = added, rewritten, errors
        self.files.append(outcome)

    @property
    def root(self) -> str:
        """The path (or stream name) ingested, the first when there were several."""
        return self.roots[0] if self.roots else ""

    def add_tally(self, tally: GateTally) -> None:
        self.items_dropped += tally.items_dropped
        self.redactions += tally.redactions
        self.redaction_rules.update(tally.redaction_rules)
        self.unredacted_secrets += tally.unredacted_secrets

    def take_back_items(self, outcome: FileOutcome) -> None:
        """Take back the items a file's outcome added to the totals (its change not saved)."""
        self.items_added -= outcome.items_added
        self.items_rewritten -= outcome.items_rewritten
        self.items_removed -= outcome.items_removed

    def take_back_tally(self, tally: GateTally) -> None:
        """Take back ``add_tally`` for a file whose items were not saved after all."""
        self.items_dropped -= tally.items_dropped
        self.redactions -= tally.redactions
        self.redaction_rules.subtract(tally.redaction_rules)
        self.redaction_rules = +self.redaction_rules  # (the rules left at zero go)
        self.unredacted_secrets -= tally.unredacted_secrets

    def as_dict(self, *, files: bool = True) -> dict[str, Any]:
        """A JSON-ready summary.

        Args:
            files: include the per-file outcomes (unchanged files are only counted, so that
                re-ingesting a large tree gives a short document).
        """
        counts = Counter(f.status for f in self.files)
        counts[UNCHANGED] = len(self.unchanged)
        out: dict[str, Any] = {
            "root": safe_path(self.root),
            "roots": [safe_path(root) for root in self.roots],
            "files_scanned": self.files_scanned,
            **{f"files_{status}": counts.get(status, 0) for status in STATUSES},
            "files_moved": self.files_moved,
            "files_not_reached": self.files_not_reached,
            "items_added": self.items_added,
            "items_rewritten": self.items_rewritten,
            "items_removed": self.items_removed,
            "items_dropped": self.items_dropped,
            "redactions": self.redactions,
            "redaction_rules": dict(sorted(self.redaction_rules.items())),
            "unredacted_secrets": self.unredacted_secrets,
            "bytes_read": self.bytes_read,
            "entries_hidden": self.entries_hidden,
            "entries_ignored": self.entries_ignored,
            "files_reoptioned": self.files_reoptioned,
            "interrupted": self.interrupted,
            "cancelled": self.cancelled,
            "elapsed_s": round(self.elapsed_s, 3),
            "issues": [i.as_dict() for i in self.issues],
            "notices": [i.as_dict() for i in self.notices],
            "ids": self.ids,
        }
        if files:
            out["files"] = [f.as_dict() for f in self.files]
        return out


def shown_names(told: Iterable[tuple[str, str | None]]) -> dict[tuple[str, str | None], str]:
    """How to show each (source, path) of the files, problems and notices ``told`` together:
    the masked source name, lengthened where two files share it (a run over ``teamA`` and
    ``teamB`` reads ``refunds.md`` in both; ``sourcenames.distinct_names``)."""
    pairs = list(dict.fromkeys(told))
    names = [safe_path(source) for source, _ in pairs]
    paths = [
        ending_in(safe_path(path) if path else None, name)
        for (_, path), name in zip(pairs, names, strict=True)
    ]
    shown = distinct_names(names, paths)
    return {pair: name or "" for pair, name in zip(pairs, shown, strict=True)}
