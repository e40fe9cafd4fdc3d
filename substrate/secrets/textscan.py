"""Scan files and text for a pre-commit style check: line, column, fingerprint, safe preview.

Every finding carries a fingerprint, the SHA-256 of rule, path and secret, so a baseline can
accept it and keep accepting it when the line moves; neither the secret nor a line number is
part of it. Previews show the offending line with the secret masked.

Bytes are handled defensively: UTF-16 or UTF-32 with a byte-order mark (or UTF-16 without
one, see ``substrate.widetext``) is decoded as such;
otherwise a NUL byte in the first 8 KiB marks a binary file (skipped with a note) unless
the bytes around it are plain text (the NUL bytes are then read as spaces), invalid
UTF-8 is decoded with replacement characters and scanned, and inputs over the size cap are
skipped with a note. Nothing here raises on odd input.
"""

from __future__ import annotations

import bisect
import itertools
import os
import signal
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from substrate.compressed import (
    GZIP_MAGIC,
    CompressedError,
    InflatedTooLarge,
    inflate,
)
from substrate.cpus import capped_workers, end_with_parent, ready_to_end_with_parent
from substrate.errors import InvalidInputError
from substrate.limits import BINARY_PROBE_BYTES
from substrate.secrets.copies import (
    MIN_COPY,
    Copies,
    copies_of_hits,
    copies_outside,
    mask_spans,
)
from substrate.secrets.engine import find_secrets
from substrate.secrets.hits import Hit
from substrate.secrets.names import escaped_name, name_bytes, slashed
from substrate.secrets.paths import find_secrets_in_path
from substrate.secrets.scan import redact_hits
from substrate.secrets.tables import with_table_hits
from substrate.settings import warn_unknown_keys
from substrate.settingvalues import CHECKS, problem_in
from substrate.widetext import BYTE_ORDER_MARKS, is_binary, wide_encoding

DEFAULT_MAX_BYTES = 32 * 1024 * 1024  # 3-10 s of scanning, as the text goes
SKIPPED_TOO_LARGE = "too large"  # TextScan.skipped of an input over the cap
SKIPPED_ALLOWED = "allowed path"  # TextScan.skipped of a path that allow_paths lists
SKIPPED_BINARY = "binary"  # TextScan.skipped of a binary file
SKIPPED_UNREADABLE = "unreadable"  # TextScan.skipped of a file that could not be read
ALLOW_MARKERS = ("mixle:allow", "pragma: allowlist secret")
_PREVIEW_WIDTH = 160
# A line longer than this is never shown whole: each finding's preview is a window of it.
_LONG_LINE = 4 * _PREVIEW_WIDTH
# Secrets at least this long (the shortest copy an item masks) are masked in a preview
# wherever they stand on the line, inside longer words too: a preview may mask too much,
# never too little.
_GLUED_MIN = MIN_COPY
# Up to this many forms of a text's secrets, each is looked for on every line shown.
_GLUED_FORMS = 64
# Languages whose unquoted right-hand sides are expressions (variables, calls), not literals.
_CODE_SUFFIXES = frozenset(
    ".py .pyi .pyx .js .jsx .mjs .cjs .ts .tsx .java .kt .kts .scala .groovy .gradle .c .h .cc "
    ".cpp .cxx .hpp .hh .cs .m .mm .swift .rb .php .rs .dart .lua .cls .tf .hcl .vue .svelte "
    ".r .jl .ex .exs .erl .clj .fs .vb".split()
)


@dataclass(frozen=True)
class ScanConfig:
    """Settings for file scanning: the ``[secrets]`` table of mixle.toml.

    Attributes:
        allow_paths: glob patterns of paths never scanned (``tests/fixtures/*``).
        allow_rules: rule names never reported.
        max_bytes: larger inputs are not scanned (``skipped`` "too large"; binary ones are
            skipped as binary); the command line makes that an error.
    """

    allow_paths: tuple[str, ...] = ()
    allow_rules: tuple[str, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def from_settings(cls, table: Mapping[str, Any] | None) -> ScanConfig:
        """Build from the ``[secrets]`` table.

        A key this version does not know is warned of (a misspelt allow-list would quietly
        allow nothing), not refused: a newer mixle may have written it.

        Raises:
            InvalidInputError: a known key has the wrong type or names an unknown rule.
        """
        if not table:
            return cls()
        warn_unknown_keys("secrets", table, _KEYS)
        problem = problem_in("secrets", table)
        if problem is not None:
            raise InvalidInputError(problem)
        paths, rules = table.get("allow_paths", []), table.get("allow_rules", [])
        max_bytes = table.get("max_file_bytes", DEFAULT_MAX_BYTES)
        return cls(tuple(paths), tuple(rules), max_bytes)


_KEYS = frozenset(CHECKS["secrets"])


@dataclass(frozen=True)
class TextFinding:
    """A secret found in a file: where (1-based line and column), which rule, and proof-free
    identity (``fingerprint``). ``preview`` is the line with every secret on it masked.

    A secret in the file's name (committed with it as surely as its content) has line 0, and
    its columns are those of the name."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    rule: str
    fingerprint: str
    preview: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready dict; holds no secret characters."""
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "rule": self.rule,
            "fingerprint": self.fingerprint,
            "preview": self.preview,
        }


@dataclass
class TextScan:
    """The outcome for one file or text: findings, or why it was skipped."""

    path: str
    findings: list[TextFinding] = field(default_factory=list)
    skipped: str | None = None
    notes: list[str] = field(default_factory=list)
    suppressed: int = 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "path": self.path,
            "findings": [f.as_dict() for f in self.findings],
            "skipped": self.skipped,
            "notes": list(self.notes),
            "suppressed": self.suppressed,
        }


def fingerprint(rule: str, path: str, secret: str) -> str:
    """SHA-256 hex of rule, path and secret: stable across line moves, and holds no character
    of the secret (though, like any hash of one, it confirms a guess of a chosen password).

    The path's bytes are those of the real name (``name_bytes``), so names that differ only in
    bytes that are not UTF-8 differ here too; a UTF-8 name hashes as it always did."""
    import hashlib  # imported here: only needed once something was found

    name = name_bytes(PurePosixPath(slashed(path)).as_posix())
    data = b"\0".join((rule.encode(), name, secret.encode("utf-8", "surrogatepass")))
    return hashlib.sha256(data).hexdigest()


def path_allowed(path: str, patterns: Iterable[str]) -> bool:
    """Whether ``path`` matches one of the allow-list globs (``*`` crosses directories)."""
    import fnmatch  # imported here: only needed when allow-lists are configured

    posix = slashed(path)
    name = posix.rsplit("/", 1)[-1]
    for pat in patterns:
        bare = pat[3:] if pat.startswith("**/") else pat
        if (
            fnmatch.fnmatch(posix, pat)
            or fnmatch.fnmatch(posix, bare)
            or fnmatch.fnmatch(name, bare)
        ):
            return True
    return False


# Languages whose single quotes delimit a character (a rune in Go), not a string
_C_FAMILY = frozenset(".c .h .cc .cpp .cxx .hpp .hh .cs .m .mm .go".split())


def syntax_for(path: str) -> str:
    """How ``key = value`` reads in files like ``path``: ``text``, ``code`` or ``c``."""
    suffix = PurePosixPath(slashed(path)).suffix.lower()
    if suffix in _C_FAMILY:
        return "c"
    return "code" if suffix in _CODE_SUFFIXES else "text"


def scan_text(
    data: str | bytes,
    *,
    path: str = "<text>",
    config: ScanConfig | Mapping[str, Any] | None = None,
) -> TextScan:
    """Scan one file's content (text or raw bytes), and its name, and report findings with
    positions. A secret in ``path`` is masked wherever the result shows the path.

    Args:
        data: the content; bytes are checked for binary content and decoded as UTF-8 with
            replacement of invalid sequences.
        path: the file's path, used for fingerprints, allow-lists and file-type conventions.
        config: a ``ScanConfig`` or the ``[secrets]`` settings table.

    Returns:
        A ``TextScan``; ``skipped`` says why nothing was scanned (allowed path, binary, size).
    """
    cfg = config if isinstance(config, ScanConfig) else ScanConfig.from_settings(config)
    return _with_name_scanned(_scan_content(data, path, cfg), cfg)


def _scan_content(data: str | bytes, path: str, cfg: ScanConfig) -> TextScan:
    result = TextScan(path)
    if cfg.allow_paths and path_allowed(path, cfg.allow_paths):
        return _allowed(result)
    if len(data) > cfg.max_bytes:
        return _over_cap(result, data[:BINARY_PROBE_BYTES], cfg)
    if isinstance(data, bytes) and data.startswith(GZIP_MAGIC):
        # what ``mixle ingest`` reads of it (a copy of the file leaks it), and the bytes after
        # its data, which zcat passes over
        try:
            inside, after = inflate(data, cfg.max_bytes)
        except CompressedError as exc:
            result.notes.append(f"skipped: {exc}")
            too_large = isinstance(exc, InflatedTooLarge)
            result.skipped = SKIPPED_TOO_LARGE if too_large else SKIPPED_UNREADABLE
            return result
        data = inside + b"\n" + after if after.strip(b"\0") else inside
    if isinstance(data, bytes):
        wide = wide_encoding(data)
        if wide is not None:  # text, though full of NUL bytes
            data = wide.decode(data, "replace")
    probe = data[:BINARY_PROBE_BYTES]
    if (b"\0" in probe) if isinstance(probe, bytes) else ("\0" in probe):
        if not _stray_nuls(probe):
            return _binary(result)
        # text with a few NUL bytes in it: read as spaces, so a NUL cannot hide a secret
        data = data.replace(b"\0", b" ") if isinstance(data, bytes) else data.replace("\0", " ")
        result.notes.append("NUL bytes read as spaces")
    if isinstance(data, bytes):
        text = data.decode("utf-8", "replace")
        if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
            result.notes.append("invalid UTF-8 replaced before scanning")
    else:
        text = data
    hits = with_table_hits(find_secrets(text, syntax=syntax_for(path)), text, path)
    _collect(result, text, hits, cfg)
    return result


def binary_by_its_head(head: bytes) -> bool:
    """Whether content whose first ``BINARY_PROBE_BYTES`` bytes are ``head`` is skipped as
    binary whatever follows: a NUL among many control characters, and no sign of UTF-16 or
    UTF-32 text (no byte-order mark: with one, the content's length decides). A reader may
    then keep the head alone (a commit's images are not held whole to be passed over)."""
    return (
        b"\0" in head
        and not _stray_nuls(head)
        and not head.startswith(BYTE_ORDER_MARKS)
        and wide_encoding(head) is None
    )


# Text holds few control characters: a binary file has one byte in eight or so below 0x20
_STRAY_CONTROLS = 0.01


def _stray_nuls(probe: str | bytes) -> bool:
    """Whether content whose first bytes hold a NUL is text for all that: control characters
    other than white space are at most ``_STRAY_CONTROLS`` of them, or just the one."""
    codes = probe if isinstance(probe, bytes) else probe.encode("utf-8", "surrogatepass")
    controls = len(codes) - len(codes.translate(None, _CONTROLS))
    return controls <= max(1, _STRAY_CONTROLS * len(codes))


_CONTROLS = bytes(c for c in range(32) if c not in b"\t\n\r\f")


def _over_cap(result: TextScan, head: str | bytes, cfg: ScanConfig) -> TextScan:
    """``result`` for an input over the cap: skipped as binary when its first bytes say so,
    else "too large" (which the command line reports as an error, not a pass)."""
    if ("\0" in head) if isinstance(head, str) else is_binary(head):
        return _binary(result)
    result.skipped = SKIPPED_TOO_LARGE
    # not its size: a stream is read one byte past the cap, which only tells it is larger
    result.notes.append(f"skipped: over the {cfg.max_bytes}-byte cap")
    return result


def _allowed(result: TextScan) -> TextScan:
    # said, not silent: a report that counted nothing would read as if the file were missed
    result.skipped = SKIPPED_ALLOWED
    result.notes.append("skipped: listed in allow_paths")
    return result


def _binary(result: TextScan) -> TextScan:
    result.skipped = SKIPPED_BINARY
    result.notes.append("skipped: binary content (NUL byte)")
    return result


def scan_file(
    path: str | Path,
    *,
    config: ScanConfig | Mapping[str, Any] | None = None,
    display_path: str | None = None,
) -> TextScan:
    """Read and scan one file; an unreadable file is reported as skipped, not raised.

    Args:
        path: the file to read.
        config: a ``ScanConfig`` or the ``[secrets]`` settings table.
        display_path: the path to report and fingerprint (e.g. relative to the repository
            root); defaults to ``path`` as given.
    """
    cfg = config if isinstance(config, ScanConfig) else ScanConfig.from_settings(config)
    shown = display_path if display_path is not None else str(path)
    if cfg.allow_paths and path_allowed(shown, cfg.allow_paths):
        return _with_name_scanned(_allowed(TextScan(shown)), cfg)
    try:
        size = Path(path).stat().st_size
        if size > cfg.max_bytes:
            with open(path, "rb") as fh:
                head = fh.read(BINARY_PROBE_BYTES)
            return scan_oversized(head, path=shown, config=cfg)
        data = Path(path).read_bytes()
    except OSError as exc:
        unread = TextScan(
            shown, skipped=SKIPPED_UNREADABLE, notes=[f"skipped: {exc.strerror or exc}"]
        )
        return _with_name_scanned(unread, cfg)
    return scan_text(data, path=shown, config=cfg)


def scan_oversized(
    head: str | bytes,
    *,
    path: str,
    config: ScanConfig | Mapping[str, Any] | None = None,
) -> TextScan:
    """``scan_text`` of an input known to be over the size cap, from its first
    ``BINARY_PROBE_BYTES`` only: skipped as binary, or as too large (an error), and its name
    scanned."""
    cfg = config if isinstance(config, ScanConfig) else ScanConfig.from_settings(config)
    if cfg.allow_paths and path_allowed(path, cfg.allow_paths):
        return _with_name_scanned(_allowed(TextScan(path)), cfg)
    return _with_name_scanned(_over_cap(TextScan(path), head, cfg), cfg)


_Job = TypeVar("_Job")


def _scan_one(job: tuple[str | Path, str | None, ScanConfig]) -> TextScan:
    return scan_file(job[0], config=job[2], display_path=job[1])


def scan_files(
    paths: Iterable[str | Path],
    *,
    config: ScanConfig | Mapping[str, Any] | None = None,
    workers: int = 1,
    display_paths: Iterable[str] | None = None,
) -> Iterator[TextScan]:
    """Scan several files lazily, yielding results in the given order.

    Args:
        paths: the files to scan.
        config: a ``ScanConfig`` or the ``[secrets]`` settings table.
        workers: processes to use. Scanning is CPU-bound pure Python, so a large tree scans
            about ``workers`` times faster with more processes; keep 1 for a handful of files,
            where starting processes costs more than it saves. At most ``WORKERS_PER_CPU``
            per CPU, and no more than the files when ``paths`` is a collection.
        display_paths: the path to report for each file, in the same order as ``paths``
            (see ``scan_file``); defaults to the paths as given.
    """
    cfg = config if isinstance(config, ScanConfig) else ScanConfig.from_settings(config)
    shown: Iterable[str | None] = (
        display_paths if display_paths is not None else itertools.repeat(None)
    )
    jobs = ((p, d, cfg) for p, d in zip(paths, shown, strict=display_paths is not None))
    if isinstance(paths, Collection):
        workers = min(workers, len(paths))
    yield from _mapped(_scan_one, jobs, workers)


def scan_contents(
    contents: Iterable[tuple[str, str | bytes]],
    *,
    config: ScanConfig | Mapping[str, Any] | None = None,
    workers: int = 1,
) -> Iterator[TextScan]:
    """``scan_text`` of each ``(path, content)`` (a commit's staged files), lazily and in the
    given order, in ``workers`` processes as ``scan_files`` uses them."""
    cfg = config if isinstance(config, ScanConfig) else ScanConfig.from_settings(config)
    if isinstance(contents, Collection):
        workers = min(workers, len(contents))
    yield from _mapped(_scan_content_job, ((p, d, cfg) for p, d in contents), workers)


def _scan_content_job(job: tuple[str, str | bytes, ScanConfig]) -> TextScan:
    return scan_text(job[1], path=job[0], config=job[2])


def _mapped(
    scan: Callable[[_Job], TextScan], jobs: Iterable[_Job], workers: int
) -> Iterator[TextScan]:
    """``scan`` of each job, in order: here, or in ``workers`` processes."""
    if workers <= 1:
        for job in jobs:
            yield scan(job)
        return
    from concurrent.futures import Future, ProcessPoolExecutor

    workers = capped_workers(workers)
    left = iter(jobs)
    chunks = iter(lambda: list(itertools.islice(left, _CHUNK)), [])
    # Not ``pool.map``: it takes every job at once (a whole tree's walk), and when stopped it
    # cancels what is queued, which a pool broken meanwhile (its workers ended by the SIGTERM
    # a ``timeout`` sends the whole group) then fails to fail: a traceback from its thread.
    # Here a few chunks per worker are queued, never cancelled: once stopped, the pool runs
    # them out (or fails them, broken) as it shuts down.
    queued: deque[Future[list[TextScan]]] = deque()
    ready_to_end_with_parent()
    with ProcessPoolExecutor(
        max_workers=workers, initializer=_worker, initargs=(os.getpid(),)
    ) as pool:
        for chunk in chunks:
            queued.append(pool.submit(_scan_chunk, scan, chunk))
            if len(queued) > 2 * workers:
                yield from queued.popleft().result()
        while queued:
            yield from queued.popleft().result()


_CHUNK = 16  # jobs sent to a worker at once: a small file's scan costs less than its passage


def _scan_chunk(scan: Callable[[_Job], TextScan], jobs: list[_Job]) -> list[TextScan]:
    return [scan(job) for job in jobs]


def _worker(parent: int) -> None:
    """A scanning process leaves Ctrl-C to the parent, which stops taking results (one
    interrupted with a queue's lock held would leave the others, and the parent's wait for
    them, stuck), and ends on SIGTERM: the handler a host set in the parent is the parent's
    to run; and it ends with the parent, however that ends (``end_with_parent``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not end_with_parent(parent):
        os._exit(0)


def _collect(result: TextScan, text: str, hits: list[Hit], cfg: ScanConfig) -> None:
    newlines: list[int] = []
    if hits:
        i = text.find("\n")
        while i != -1:
            newlines.append(i)
            i = text.find("\n", i + 1)

    def position(offset: int) -> tuple[int, int]:
        line = bisect.bisect_left(newlines, offset)
        line_start = newlines[line - 1] + 1 if line else 0
        return line + 1, offset - line_start + 1

    copies = copies_of_hits(text, hits) if hits else None  # once per text, not per finding
    starts, ends = [h.start for h in hits], [h.end for h in hits]  # both sorted: no overlaps
    # each line's allow marker and masks, worked out once: a minified line holds many
    previews: dict[tuple[int, int], _LinePreview | None] = {}
    for h in hits:
        line, col = position(h.start)
        end_line, end_col = position(h.end)
        line_span = _line_span(text, newlines, line)
        if h.rule in cfg.allow_rules:
            result.suppressed += 1
            continue
        if line_span not in previews:
            low = text[line_span[0] : line_span[1]].lower()
            allowed = any(marker in low for marker in ALLOW_MARKERS)
            touching = _touching(hits, starts, ends, line_span)
            previews[line_span] = (
                None if allowed else _LinePreview(text, line_span, touching, copies)
            )
        shown = previews[line_span]
        if shown is None:
            result.suppressed += 1
            continue
        preview = shown.around(h.start)
        fp = fingerprint(h.rule, result.path, text[h.start : h.end])
        line, col = position(_first_written(text, h.start, h.end))
        result.findings.append(
            TextFinding(
                result.path,
                line,
                col,
                end_line,
                end_col,
                h.rule,
                fp,
                preview,
            )
        )


def _with_name_scanned(result: TextScan, cfg: ScanConfig) -> TextScan:
    """``result`` with the secrets in its path reported (line 0), unless the path is allowed,
    and masked in the path of the result and of each finding; bytes of the name that are not
    UTF-8 are shown ``\\xNN`` (the fingerprints were taken of the real name)."""
    name = result.path
    hits = find_secrets_in_path(name)  # a key may be a whole folder's name
    shown = _reported(name, hits)
    if shown == name:
        return result
    found = []
    for h in hits if result.skipped != SKIPPED_ALLOWED else []:
        if h.rule in cfg.allow_rules:
            result.suppressed += 1
            continue
        fp = fingerprint(h.rule, name, name[h.start : h.end])
        found.append(TextFinding(shown, 0, h.start + 1, 0, h.end + 1, h.rule, fp, shown))
    result.findings = found + [replace(f, path=shown) for f in result.findings]
    result.path = shown
    return result


def reported_path(path: str) -> str:
    """``path`` as a scan of the file reports it (and a baseline records it): its secrets
    masked, and bytes that are not UTF-8 written ``\\xNN``."""
    return _reported(path, find_secrets_in_path(path))


def _reported(path: str, hits: list[Hit]) -> str:
    return escaped_name(redact_hits(path, hits) if hits else path)


def _first_written(text: str, start: int, end: int) -> int:
    """Where a secret spanning ``start:end`` is said to start: a private key's body begins
    with the line break that ends its BEGIN line, a column past that line's end, so it is
    placed where that line starts (where its preview and an allow marker are read)."""
    if start < end - 1 and text[start] in "\r\n":
        return text.rfind("\n", 0, start) + 1
    return start


def _line_span(text: str, newlines: list[int], line: int) -> tuple[int, int]:
    start = newlines[line - 2] + 1 if line > 1 else 0
    end = newlines[line - 1] if line - 1 < len(newlines) else len(text)
    return start, end


def _touching(
    hits: list[Hit], starts: list[int], ends: list[int], span: tuple[int, int]
) -> list[Hit]:
    """The hits touching ``span``, found by bisection: a table of a hundred thousand secrets
    has as many findings, each shown on its line."""
    return hits[bisect.bisect_right(ends, span[0]) : bisect.bisect_left(starts, span[1])]


class _LinePreview:
    """A finding's line (``span`` of ``text``) with every secret touching it (``hits``, and
    copies of the text's secrets) masked; a long line is trimmed around each finding.

    A preview is shown, not stored: the secrets of the line are masked inside longer words
    too (``_glued``), where the copies an item keeps masked stop ("admin" is left in
    "administrator" there); one glued to other text ("xAKIA...y") would show whole."""

    def __init__(
        self, text: str, span: tuple[int, int], hits: list[Hit], copies: Copies | None
    ) -> None:
        start, end = span
        self.start = start
        self.line = text[start:end].rstrip("\r")
        local = [
            Hit(h.rule, max(h.start, start) - start, min(h.end, end) - start, 0, 0, 0) for h in hits
        ]
        masks = [(h.start, h.end, h.rule) for h in local]
        masks += copies_outside(self.line, copies, local)
        # the text's secrets, as they are and as JSON and Python escape them, when there are
        # few (a dump of thousands is looked for by the secrets of the line alone)
        forms = copies.forms if copies is not None and len(copies.forms) <= _GLUED_FORMS else {}
        self.forms = {form: rule for form, rule in forms.items() if len(form) >= _GLUED_MIN}
        self.short = len(self.line) <= _LONG_LINE  # else each preview is a window of it
        if self.short:
            masks += self._glued(0, len(self.line), masks)
        self.masks = sorted(masks)
        self.whole = mask_spans(self.line, self.masks) if self.short else ""
        self.starts = [s for s, _, _ in self.masks]
        self.longest = max((e - s for s, e, _ in self.masks), default=0)

    def around(self, at: int) -> str:
        """The masked line, or, when it is long, the part of it around offset ``at`` of the
        text (where a finding starts): every finding of a minified line shows its own."""
        if self.short and len(self.whole) <= _PREVIEW_WIDTH:
            return self.whole
        lo = max(0, at - self.start - _PREVIEW_WIDTH // 3)
        hi = lo + _PREVIEW_WIDTH
        # the masks near the window, found by bisection: a minified line may hold thousands
        # (none starting further back than the longest reaches it)
        nearby = self.masks[
            bisect.bisect_left(self.starts, lo - self.longest) : bisect.bisect_left(
                self.starts, hi + _PREVIEW_WIDTH
            )
        ]
        near = [m for m in nearby if m[0] < hi]
        if not self.short:  # and the secrets they cover, wherever they stand in the window
            near += self._glued(lo, hi, [m for m in nearby if m[1] > lo - _PREVIEW_WIDTH])
        inside = [(max(s, lo) - lo, min(e, hi) - lo, rule) for s, e, rule in near if e > lo]
        masked = mask_spans(self.line[lo:hi], inside)[:_PREVIEW_WIDTH]
        return ("\u2026" if lo else "") + masked + ("\u2026" if hi < len(self.line) else "")

    def _glued(
        self, lo: int, hi: int, masks: list[tuple[int, int, str]]
    ) -> list[tuple[int, int, str]]:
        """Where the secrets ``masks`` cover, and the text's (``forms``), stand on the line
        across ``lo``..``hi``, inside longer words too."""
        values = {self.line[s:e]: rule for s, e, rule in masks if e - s >= _GLUED_MIN}
        spans = []
        for value, rule in {**self.forms, **values}.items():
            end = hi + len(value)  # each looked for where it may cross the range, no further
            at = self.line.find(value, max(0, lo - len(value)), end)
            while at != -1:
                spans.append((at, at + len(value), rule))
                at = self.line.find(value, at + 1, end)
        return spans
