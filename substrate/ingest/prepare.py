"""From a file's bytes to gated items, away from the store.

Preparing a file (reading, hashing, decoding, parsing, the write-time gate, ids) needs nothing
but the file and the ingest options, so it can run in a worker process. What it gives back,
a ``Prepared``, is applied to the store and the source cache by the session, in file order.
"""

from __future__ import annotations

import codecs
import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from substrate.compressed import (
    GZIP_MAGIC,
    NOT_GZIP,
    CompressedError,
    InflatedTooLarge,
    compressed_name,
    gunzip,
)
from substrate.errors import InvalidInputError
from substrate.ingest.build import ItemBuilder, secret_in_lines, secrets_in_lines, withhold_hash
from substrate.ingest.earlier import words_of_lines
from substrate.ingest.formats import PARSERS, ParseContext
from substrate.ingest.formats.jsonl import without_a_line_being_written
from substrate.ingest.formats.traces import SAMPLE_ROWS
from substrate.ingest.report import GateTally
from substrate.ingest.secretlines import keep_lines_digest, relooked
from substrate.ingest.segment import FileRejected, Parsed, Segment
from substrate.ingest.sourcekeys import DIGEST_KEY, cache_origin, origin_digest
from substrate.ingest.sources import REJECTED_KEY, being_written
from substrate.ingest.textio import content_digest, decode_text, read_unless_binary
from substrate.itemline import decode, encode
from substrate.limits import (
    BINARY_PROBE_BYTES,
    DEFAULT_CHUNK_CHARS,
    PER_LINE_FORMATS,
    reads_alike_grown,
)
from substrate.lineprefixes import LinePrefixes
from substrate.linesdigest import PROVENANCE_KEY as LINES_HASH_KEY
from substrate.linesdigest import LinesDigest
from substrate.secrets.copies import copies_across
from substrate.secrets.engine import KEYWORD_GATE, find_secrets
from substrate.secrets.fields import keys_judge_nothing
from substrate.secrets.paths import find_secrets_in_path
from substrate.secrets.rules import rules_digest
from substrate.secrets.screen import (
    may_hold_secrets,
    path_slices_may_hold_secrets,
    slices_may_hold_secrets,
)
from substrate.versions import PARSER_VERSION
from substrate.widetext import is_binary, wide_encoding

if TYPE_CHECKING:
    from substrate.item import SubstrateItem

# The provenance fields ``_gated_items`` adds to an item after the gate, and the count of
# rejected lines stamped after that: ingestion's own, from nothing in the content, so masking
# a secret's copies leaves them alone
COMPUTED_PROVENANCE = frozenset(
    {
        *("line_start", "line_end", "chunk", "index", "size", "mtime", "mtime_ns"),
        *("ingested_at", "format", "content_hash", "ingest_options", "ingest_scope"),
        DIGEST_KEY,
        REJECTED_KEY,
        LINES_HASH_KEY,
    }
)


# What became of a file.
FAILED = "failed"  # unreadable, invalid UTF-8 or rejected by its parser
BINARY = "binary"  # skipped: the first bytes show it is not text
SAME = "same"  # same content hash as last time: nothing to parse
PARSED = "parsed"  # parsed into items (possibly none)
GONE = "gone"  # removed since the walk listed it (a build's temporary file, a sync)
TOO_LARGE = "too large"  # skipped: larger than the size limit once decompressed


@dataclass(frozen=True, slots=True)
class IngestOptions:
    """The options that shape the items of a source (a change re-ingests the source)."""

    scope: str = "local"
    tags: tuple[str, ...] = ()
    as_format: str | None = None
    chunk_chars: int = DEFAULT_CHUNK_CHARS
    redact: bool = True
    # the size limit, checked again as a file is read (it may have grown since the walk); not
    # part of the fingerprint: it decides which files are read, not what their items are
    max_read: int | None = None

    def fingerprint(self) -> str:
        text = "\x1f".join(
            [
                PARSER_VERSION,
                rules_digest(),  # (the gate's rules: a new one reaches every file once)
                self.scope,
                "\x1e".join(self.tags),
                self.as_format or "",
                str(self.chunk_chars),
                "1" if self.redact else "0",
            ]
        )
        return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


class Ticket(NamedTuple):
    """A file (or stream) that must be read: everything preparing it needs to know.

    Attributes:
        key: the source cache key (absolute path, or ``stream:`` + name).
        source: the name recorded as ``provenance.source``.
        path: the file to read; None for a stream, whose bytes are in ``data``.
        fmt: the format to parse it as.
        size: the size the walk saw (None for a stream).
        mtime_ns: the modification time the walk saw (None for a stream).
        known_hash: the content hash stored last time with the same options ("" if none).
        data: a stream's content.
        within: the folder (or file) ingested: the file read must still lie in it, however
            its path was changed since the walk (a link put in its place, or in a folder's).
        stamp: the walk's ``file_stamp`` of it (0 for a stream), kept with its state.
        known_size: the size it had when it was ``known_hash`` (0: none told), for a format of
            a document per line: one that only grew since keeps the items of its lines.
        asked_for: the caller named this very file: over the size limit once decompressed,
            it fails, as a file named over it on disk does.

    A named tuple: one is made for every file to read, and most are sent to a worker.
    """

    key: str
    source: str
    path: str | None
    fmt: str
    size: int | None = None
    mtime_ns: int | None = None
    known_hash: str = ""
    data: bytes | None = None
    within: str | None = None
    stamp: int = 0
    known_size: int = 0
    asked_for: bool = False


@dataclass(slots=True)
class Prepared:
    """What preparing one ticket gave: its status, items, what the gate did, and problems with
    their lines."""

    status: str
    bytes_read: int = 0
    digest: str = ""
    items: list[SubstrateItem] = field(default_factory=list)
    tally: GateTally | None = None
    issues: list[tuple[str, int | None]] = field(default_factory=list)
    reason: str = ""
    line: int | None = None
    byte: int | None = None
    prepared_at: float = 0.0
    # the items as ``(id, log line)`` instead, when prepared for a shard on disk (``encoded``):
    # lines pickle several times faster than items, and take a fraction of the memory
    encoded: list[tuple[str, bytes]] | None = None
    # how the source cache names the source when a secret in its name is masked (else "")
    named: str = ""
    # the words of the rejected lines: which earlier items they may hold (``earlier``)
    rejected_words: frozenset[str] = frozenset()
    # the size it had when last ingested, when it has only grown since by whole lines (a log,
    # a trace file appended to): its items of those lines are stored already, unchanged
    grown_from: int = 0
    # the lines it had then, when the items are those of the lines added since alone: for a
    # document per line whose lines added hold no secret, the earlier lines are not gated and
    # built again (``_gated``), so that a line appended costs a line's work, not the file's
    lines_before: int = 0
    # a document per line that held a secret: the digest of its bytes without the lines that
    # held one (``linesdigest``), which the source cache keeps in its hash's stead. Read again
    # having only grown: the one it has now, those lines still left out, gated again beside
    # the lines added (``secretlines.relooked``)
    lines_digest: str = ""
    # whether its bytes are its text, line for line (no carriage return, no byte-order mark):
    # a lines digest is taken of the text, and checked against the bytes
    text_as_read: bool = False

    def recorded_hash(self) -> str:
        """What the source cache keeps of its content: its hash, else its lines digest."""
        return self.digest or self.lines_digest

    def item_ids(self) -> list[str]:
        """The ids of the items, whichever way they are held."""
        return [item.id for item in self.items] or [item_id for item_id, _ in self.encoded or ()]

    def built_items(self) -> list[SubstrateItem]:
        """The items, decoded when they are held as log lines."""
        return self.items or [decode(line) for _, line in self.encoded or ()]

    def __reduce__(self) -> tuple[type[Prepared], tuple[Any, ...]]:
        # sent back by worker processes by the thousand: constructor arguments pickle fastest
        return (
            Prepared,
            (
                self.status,
                self.bytes_read,
                self.digest,
                self.items,
                self.tally,
                self.issues,
                self.reason,
                self.line,
                self.byte,
                self.prepared_at,
                self.encoded,
                self.named,
                self.rejected_words,
                self.grown_from,
                self.lines_before,
                self.lines_digest,
                self.text_as_read,
            ),
        )


def prepare(
    ticket: Ticket, options: IngestOptions, fingerprint: str, *, encoded: bool = False
) -> Prepared:
    """Read, hash, parse and gate one file.

    ``fingerprint`` is ``options.fingerprint()``, worked out once per run. With ``encoded``,
    the items come as log lines (``Prepared.encoded``), each encoded as soon as it is built:
    a CSV of a million rows never holds a million item objects at once.
    """
    return prepare_many([ticket], options, fingerprint, encoded=encoded)[0]


def prepare_many(
    tickets: Sequence[Ticket], options: IngestOptions, fingerprint: str, *, encoded: bool = False
) -> list[Prepared]:
    """``prepare`` each ticket of a chunk (``parallel.chunks``: a few files, or one large
    one), a stage at a time: every file is read, then every one parsed, screened, and its
    items built. A stage's code and data then stay in the processor's caches from file to
    file, where going through all the stages for each file in turn costs a fifth more time
    on many small files."""
    read = [_read(ticket, options) for ticket in tickets]
    parsed = [
        _parse(ticket, step, options) if isinstance(step, _Read) else step
        for ticket, step in zip(tickets, read, strict=True)
    ]
    del read  # the files' bytes: their texts are all that is needed now
    screens = [
        screen_file(step.text, step.parsed, ticket, options)
        if isinstance(step, _Parsed)
        else FileScreen()
        for ticket, step in zip(tickets, parsed, strict=True)
    ]
    return [
        _gated(ticket, step, screen, options, fingerprint, encoded)
        if isinstance(step, _Parsed)
        else step
        for ticket, step, screen in zip(tickets, parsed, screens, strict=True)
    ]


class _Read(NamedTuple):
    """A file read and hashed, to be parsed."""

    done: Prepared
    data: bytes


class _Parsed(NamedTuple):
    """A file parsed, to be screened and gated."""

    done: Prepared
    text: str
    parsed: Parsed


def _read(ticket: Ticket, options: IngestOptions) -> Prepared | _Read:
    """Read and hash a file: what became of it when that settles it (unreadable, binary, the
    same content as last time), else its bytes."""
    data = ticket.data
    if data is None:
        assert ticket.path is not None
        compressed = compressed_name(ticket.path)
        try:
            data, binary = read_unless_binary(
                ticket.path, ticket.within, options.max_read, compressed=compressed
            )
        except FileNotFoundError:
            return Prepared(GONE)
        except OSError as exc:
            return Prepared(FAILED, reason=f"cannot read: {exc.strerror or exc}")
        if binary:
            named = cache_name(ticket, options)
            return Prepared(BINARY, len(data), prepared_at=time.time(), named=named)
        if compressed:
            return _read_compressed(ticket, data, options)
    written = ticket.mtime_ns  # (None for a stream)
    if (
        ticket.fmt in PER_LINE_FORMATS
        and written is not None
        and being_written(written, time.time())
    ):
        data = without_a_line_being_written(data)
    digest = content_digest(data)
    if ticket.known_hash == digest:
        return Prepared(SAME, len(data), digest, prepared_at=time.time())
    done = Prepared(PARSED, len(data), digest, prepared_at=time.time())
    known = LinesDigest.parse(ticket.known_hash)
    if known is None:
        done.grown_from = _grown_from(ticket, data)
    else:
        done.grown_from, done.lines_digest = _grown_past_secrets(ticket, data, known)
    # (in UTF-16 or -32 a byte 0x0A is also part of other characters: no count of lines)
    if done.grown_from and ticket.fmt in PER_LINE_FORMATS and wide_encoding(data) is None:
        done.lines_before = data.count(b"\n", 0, done.grown_from)
    if ticket.fmt in PER_LINE_FORMATS:
        done.text_as_read = b"\r" not in data and not data.startswith(codecs.BOM_UTF8)
    return _Read(done, data)


def _read_compressed(ticket: Ticket, data: bytes, options: IngestOptions) -> Prepared | _Read:
    """``_read`` for a gzip file, ``data`` its bytes on disk, which its hash is of: the text
    inside, at most the size limit of it, read whole (never as a log grown)."""
    digest = content_digest(data)
    if ticket.known_hash == digest:
        return Prepared(SAME, len(data), digest, prepared_at=time.time())
    named = cache_name(ticket, options)
    if data and not data.startswith(GZIP_MAGIC):  # (a Git LFS pointer, say): skipped as binary is
        return Prepared(BINARY, len(data), reason=NOT_GZIP, prepared_at=time.time(), named=named)
    try:
        inside = gunzip(data, options.max_read)
    except InflatedTooLarge as exc:  # skipped, as a file over the limit on disk is
        return Prepared(TOO_LARGE, len(data), reason=str(exc))
    except CompressedError as exc:
        return Prepared(FAILED, len(data), reason=str(exc))
    if is_binary(inside[:BINARY_PROBE_BYTES]):
        return Prepared(BINARY, len(data), prepared_at=time.time(), named=named)
    return _Read(Prepared(PARSED, len(data), digest, prepared_at=time.time()), inside)


def _grown_from(ticket: Ticket, data: bytes) -> int:
    """The size ``ticket``'s file had when last ingested, when it has only grown since by whole
    lines read as they were (``reads_alike_grown``: its old bytes, ending at a line's end,
    hash as they did); else 0."""
    size = ticket.known_size
    if not (reads_alike_grown(ticket.fmt, size) and ticket.known_hash and 0 < size < len(data)):
        return 0
    if LinePrefixes(ticket.key, data).of(size) != ticket.known_hash:
        return 0
    return size


def _grown_past_secrets(ticket: Ticket, data: bytes, known: LinesDigest) -> tuple[int, str]:
    """``_grown_from`` for a document per line last read with secrets in some of its lines
    (``known``): the size it had, and its digest now with the same lines left out, when its
    first bytes, those lines left out, hash as they did; else ``(0, "")``."""
    size = ticket.known_size
    if ticket.fmt not in PER_LINE_FORMATS or not 0 < size < len(data):
        return 0, ""
    now = known.of(data, len(data))
    if now is None or known.of(data, size) != known.digest or not known.placed(data):
        return 0, ""
    return size, str(LinesDigest(now, known.skipped, known.ids))


def _parse(ticket: Ticket, read: _Read, options: IngestOptions) -> Prepared | _Parsed:
    """Decode and parse a file read: it fails when its format rejects it whole."""
    done = read.done
    try:
        text = decode_text(read.data, lines_apart=ticket.fmt in PER_LINE_FORMATS)
        context = ParseContext(
            options.chunk_chars,
            ticket.path,
            ticket.source,
            options.redact,
            forced=options.as_format is not None,
        )
        parsed = PARSERS[ticket.fmt](text, context)
    except FileRejected as exc:
        done.status, done.reason, done.line, done.byte = FAILED, exc.reason, exc.line, exc.byte
        return done
    return _Parsed(done, text, parsed)


def _gated(
    ticket: Ticket,
    step: _Parsed,
    screen: FileScreen,
    options: IngestOptions,
    fingerprint: str,
    encoded: bool,
) -> Prepared:
    """The items of a file parsed and screened, through the gate, in ``step.done``: of the
    lines added since it was last ingested alone (``Prepared.lines_before``; with its lines
    that held a secret, ``Prepared.lines_digest``), when none of them holds a secret; else of the
    whole file (a secret found in a line added is masked wherever it stands bare, in earlier
    lines too)."""
    done = step.done
    after = done.lines_before
    if after and _read_alike(step.parsed.segments, after, options):
        added = _gated_lines(ticket, step, screen, options, fingerprint, encoded, after)
        if added is not None:
            return added
    done.lines_before, done.lines_digest = 0, ""
    built = _gated_lines(ticket, step, screen, options, fingerprint, encoded, 0)
    assert built is not None
    return built


def _read_alike(segments: Sequence[Segment], after: int, options: IngestOptions) -> bool:
    """Whether the segments of the first ``after`` lines are those the last reading gave: the
    rows that tell traces from records (``SAMPLE_ROWS``) all lie among them, and none carries
    parts of secrets to mask (found across segments: its item, built again, would be
    masked)."""
    before = [seg for seg in segments if seg.line_end and seg.line_end <= after]
    if len({seg.line_start for seg in before}) < SAMPLE_ROWS:
        return False  # (a row added may be among those that decide what the file is)
    return not (options.redact and any(seg.secrets is not None for seg in before))


def _gated_lines(
    ticket: Ticket,
    step: _Parsed,
    screen: FileScreen,
    options: IngestOptions,
    fingerprint: str,
    encoded: bool,
    after: int,
) -> Prepared | None:
    """``_gated``'s work, for the segments past line ``after`` (0: all); None when ``after``
    is given and those segments hold a secret."""
    done, text, parsed = step
    done.issues = [(issue.reason, issue.line) for issue in parsed.issues]
    if done.issues:
        done.rejected_words = words_of_lines(text, (line for _, line in done.issues))
    if not screen.names:
        done.named = cache_name(ticket, options)
    rejected = len(done.issues)  # the parser's: stamped on each item as it is built
    tally = GateTally(items_dropped=parsed.dropped)
    builder = _builder(ticket, options, done, tally)
    relook = LinesDigest.parse(done.lines_digest) if after else None
    again = relook.lines() if relook is not None else frozenset()
    built_items = _gated_items(ticket, parsed, done, fingerprint, screen, builder, after, again)
    _build(done, built_items, encoded, rejected)
    if after and relook is None and (builder.secrets or tally.redactions):
        return None
    plain = done.digest
    amends: list[Callable[[SubstrateItem], None]] = []
    built: list[SubstrateItem] | None = None  # the log lines of ``done`` decoded, once
    if builder.secrets and len(done.encoded or done.items) > 1:
        # a secret the gate found in one item may stand bare in another: masked in all (rare:
        # files with secrets in more than one item); counted in what was stored: a password
        # given with its key five times is masked there, and is no word of the file's
        built = done.built_items()
        copies = copies_across(builder.secrets, "\n".join(item.text for item in built))
        if copies is not None:
            amends.append(builder.masking_copies(copies, COMPUTED_PROVENANCE))
    if len(done.issues) != rejected:  # the gate refused rows too (rare): stamp the total
        total = len(done.issues)
        amends.append(lambda item: item.provenance.update({REJECTED_KEY: total}))
    masked = builder.secrets or tally.redactions
    in_content = masked and not _only_in_names(ticket, parsed, builder.secrets)
    # a secret on a line left out is in no item, but in the bytes the hash is of
    rejected_lines = (line for _, line in done.issues)
    rejected = options.redact and not in_content and secret_in_lines(text, rejected_lines)
    if options.redact and (in_content or rejected):
        # keep no hash of the bytes of a file that held a secret (``build.withhold_hash``),
        # in its items or for the source cache
        done.digest = ""
        amends.append(lambda item: withhold_hash(item.provenance))
    if amends:
        _amend(done, amends, done.built_items() if built is None else built)
    if relook is not None:
        if not relooked(done, relook, after, text, parsed, _secrets_of(builder, text, done)):
            done.digest = plain
            return None
        tally.redactions, tally.redaction_rules = 0, Counter()  # (of lines stored already)
    elif not done.digest and options.redact and done.text_as_read:
        keep_lines_digest(done, text, _secrets_of(builder, text, done), parsed)
    if tally.items_dropped or tally.redaction_rules:  # most files: nothing to tell
        done.tally = tally
    return done


def _secrets_of(builder: ItemBuilder, text: str, done: Prepared) -> set[str]:
    """The secrets the gate found in a file's items, and those the scanner finds in its lines
    rejected (in no item): none may stand in what a lines digest hashes."""
    return set(builder.secrets) | secrets_in_lines(text, (line for _, line in done.issues))


def _amend(
    done: Prepared, amends: list[Callable[[SubstrateItem], None]], items: list[SubstrateItem]
) -> None:
    """Apply each of ``amends`` to every one of ``items`` (``done.built_items()``), in order;
    items kept as log lines are encoded again."""
    for item in items:
        for amend in amends:
            amend(item)
    if done.encoded:
        done.encoded = [(item.id, encode(item)) for item in items]


def _only_in_names(ticket: Ticket, parsed: Parsed, secrets: dict[str, str]) -> bool:
    """Whether every secret the gate masked is known, and is in the file's names, not its
    content (a token as a folder's name is masked in the path, and the bytes give nothing of
    it away)."""
    names = f"{ticket.source}\n{ticket.path or ''}"
    cut = any(seg.secrets is not None for seg in parsed.segments)
    if not secrets or cut or not all(secret in names for secret in secrets):
        return False
    content = [seg.text for seg in parsed.segments] + [str(seg.payload) for seg in parsed.segments]
    return not any(secret in part for secret in secrets for part in content)  # (not there too)


def _build(done: Prepared, built: Iterator[SubstrateItem], encoded: bool, rejected: int) -> None:
    """Keep the ``built`` items in ``done`` (as log lines when ``encoded``), each stamped with
    how many lines of its file the parser ``rejected``."""
    if rejected:
        built = _stamped(built, rejected)
    if encoded:
        done.encoded = [(item.id, encode(item)) for item in built]
    else:
        done.items = list(built)


def _stamped(items: Iterator[SubstrateItem], rejected: int) -> Iterator[SubstrateItem]:
    for item in items:
        item.provenance[REJECTED_KEY] = rejected
        yield item


def cache_name(ticket: Ticket, options: IngestOptions) -> str:
    """How the source cache must name the ticket's source: "" for its own name, else its
    masked name (``sourcekeys.cache_origin``), when the gate masks a secret in it."""
    if not options.redact:  # names are stored as they are, in the items too
        return ""
    named = cache_origin(ticket.key)
    return "" if named == ticket.key else named


@dataclass(frozen=True, slots=True)
class FileScreen:
    """What is known of a file's strings before the gate (see ``screen_file``).

    Attributes:
        names: the file's names and sections, and the run's scope and tags, hold nothing
            the gate could find, and the format's segment texts are slices of the file.
        text: no slice of the file's text holds anything either.
    """

    names: bool = False
    text: bool = False
    rows: bytes = b""  # 1 at the position of each record screened clean (a byte a row)

    def passes(self, position: int, seg: Segment) -> bool:
        """Whether the item of ``seg``, the segment at ``position``, is known to pass the
        gate untouched.

        True for a record among the ``rows`` screened clean (``_clean_records``), and for a
        plain segment (``_plain``) once the names are clean and either the whole text is or
        this segment's text alone gives no finding: the item's other strings are then the
        clean names, so the gate would find nothing in it.
        """
        if position < len(self.rows) and self.rows[position]:
            return True
        if not (self.names and _plain(seg)):
            return False
        return self.text or not find_secrets(seg.text)


def screen_file(text: str, parsed: Parsed, ticket: Ticket, options: IngestOptions) -> FileScreen:
    """Screen a prose file's strings once, where the gate would screen each item's.

    A plain segment of a slicing format (Markdown, text, reStructuredText) is an item whose
    strings are a slice of ``text``, the file's names (source, path, section) and the run's
    scope and tags. The names are checked as the gate checks them; one screen of the whole
    text answers for every slice of it (``slices_may_hold_secrets``). Most files hold no
    keyword: their items then skip the gate, and the others need only their text scanned.

    A name that is a slice of a clean string is clean, and so is each piece a path scan reads
    of it: those pieces are slices too. The file's path is screened on its own, its folder
    once for all its files (``path_slices_may_hold_secrets``); the source is the end of the
    path, a section a heading of the text. The names left are screened with a short text in
    one joined screen, which answers for all when it finds nothing; a long text is screened
    on its own, as the joined screen could not tell.
    """
    if not _options_clean(options.scope, options.tags):
        return FileScreen()
    if not parsed.slices:
        return FileScreen(rows=_clean_records(parsed, ticket))
    path = ticket.path or ""
    path_clean = not path_slices_may_hold_secrets(path) if path else True
    names = [ticket.source, path, *{s.section for s in parsed.segments if s.section}]
    names = [n for n in names if not (path_clean and _slice_of(n, path))]
    text_clean: bool | None = None
    if path_clean and len(text) < KEYWORD_GATE and all(len(n) < KEYWORD_GATE for n in names):
        parts = _distinct(names, text)
        if not slices_may_hold_secrets("\n".join(parts)):  # (most files)
            return FileScreen(names=True, text=True)
        if len(parts) == 1:  # the text held every name left: that was its own screen
            text_clean = False
    if text_clean is None:
        text_clean = not slices_may_hold_secrets(text)
    others = _not_slices(names, text) if text_clean else names
    # a name with a keyword is common ("Desktop" holds "sk"): then the scan decides
    if may_hold_secrets(others) and any(find_secrets_in_path(name) for name in others):
        return FileScreen()
    return FileScreen(names=True, text=text_clean)


# Records screened together: enough to pay one screen's cost many times over, few enough that
# one keyword ("author" holds "auth") sends only a handful of rows to the gate one by one.
RECORD_BATCH = 64
# After this many batches in a row that each held a keyword (a column of links holds "//" in
# every row), the file's other records go to the gate without being screened first.
_FUTILE_BATCHES = 8
_RECORD_PROVENANCE = ("source", "path", "section", "index")


def _clean_records(parsed: Parsed, ticket: Ticket) -> bytes:
    """The positions of the record segments whose items the gate would pass untouched,
    screened ``RECORD_BATCH`` at a time.

    A record whose payload is flat, every value a string under keys that judge nothing
    (``keys_judge_nothing``), with no tags of its own, is an item whose strings are its text,
    its keys and values, the file's names (source, path) and the run's scope and tags (these
    checked by ``_options_clean``): when one screen of the strings of a batch of such records
    and of the names finds nothing, ``find_secrets`` finds nothing in any of them, and the
    gate would pass each item as it is.
    """
    names = [ticket.source, ticket.path or ""]
    if not keys_judge_nothing(_RECORD_PROVENANCE) or may_hold_secrets(names):
        return b""
    clean = bytearray(len(parsed.segments))
    batch: list[int] = []
    strings: list[str] = []
    keys: set[str] = set()  # a file's records repeat their keys: screened once a batch
    futile = 0
    for position, seg in enumerate(parsed.segments):
        if not _flat_record(seg):
            continue
        batch.append(position)
        strings.append(seg.text)
        strings.extend(seg.payload.values())
        keys.update(seg.payload)
        if len(batch) == RECORD_BATCH:
            futile = 0 if _screened(clean, batch, [*strings, *keys]) else futile + 1
            if futile == _FUTILE_BATCHES:
                break
            batch, strings, keys = [], [], set()
    else:
        _screened(clean, batch, [*strings, *keys])
    return bytes(clean)


def _flat_record(seg: Segment) -> bool:
    payload = seg.payload
    if seg.kind != "record" or seg.tags or seg.secrets is not None or not payload:
        return False
    if seg.section is not None or not seg.extra.keys() <= {"index"}:  # the provenance set
        return False
    if not all(type(value) is str for value in payload.values()):
        return False
    return keys_judge_nothing(tuple(payload))


def _screened(clean: bytearray, batch: list[int], strings: list[str]) -> bool:
    """Mark the ``batch`` of records ``clean`` when one screen of their ``strings`` finds
    nothing; whether it did."""
    if not batch or may_hold_secrets(strings):
        return False
    for position in batch:
        clean[position] = 1
    return True


# Each look for a name in a text reads the text: a file with a heading every other line would
# cost the square of its length. Past this many names, they are screened as they are.
_MAX_LOOKUPS = 64


def _not_slices(names: list[str], clean: str) -> list[str]:
    """The ``names`` that are not slices of ``clean`` (``_slice_of``), or all of them when
    there are too many to look for."""
    if len(names) > _MAX_LOOKUPS:
        return names
    return [n for n in names if not _slice_of(n, clean)]


def _slice_of(name: str, clean: str) -> bool:
    """Whether ``name`` is a slice of ``clean``, a string a slice screen found clean, short
    enough for that screen to answer for it."""
    return len(name) < KEYWORD_GATE and name in clean


def _distinct(names: list[str], text: str) -> list[str]:
    """``text`` and each of ``names`` that is not a slice of it or of another name: the
    strings whose slices are all the slices of them all."""
    if len(names) > _MAX_LOOKUPS:
        return [text, *names]
    parts = [text]
    for name in sorted(names, key=len, reverse=True):  # longest first: they hold the others
        if not any(name in part for part in parts):
            parts.append(name)
    return parts


@lru_cache(maxsize=16)
def _options_clean(scope: str, tags: tuple[str, ...]) -> bool:
    # the gate also reads the provenance keys set in _gated_items: constant, checked all the same
    keys = ("source", "path", "section")
    return not find_secrets(scope) and not may_hold_secrets([*tags, *keys])


def _plain(seg: Segment) -> bool:
    """Whether the item of ``seg`` holds nothing but its text slice, names and section."""
    plain = not (seg.payload or seg.tags or seg.extra or seg.secrets)
    return plain and len(seg.text) < KEYWORD_GATE


def _builder(
    ticket: Ticket,
    options: IngestOptions,
    done: Prepared,
    tally: GateTally,
) -> ItemBuilder:
    """The builder of a file's items, counting drops and redactions in ``tally``."""
    return ItemBuilder(
        ticket.key,
        scope=options.scope,
        tags=options.tags,
        redact=options.redact,
        report=tally,
        created_at=done.prepared_at,
    )


def _gated_items(
    ticket: Ticket,
    parsed: Parsed,
    done: Prepared,
    fingerprint: str,
    screen: FileScreen,
    builder: ItemBuilder,
    after: int = 0,
    again: frozenset[int] = frozenset(),
) -> Iterator[SubstrateItem]:
    """The items of the parsed segments, one at a time, through the gate (unless ``screen``
    knows they pass it), with their provenance; a segment the gate refuses becomes an issue
    of ``done``. Those of the first ``after`` lines are only counted (``pass_over``): their
    items are stored already; but for the lines ``again``, which held secrets: gated again,
    their items show whether the lines still hold what they did (``secretlines.relooked``)."""
    now = done.prepared_at
    mtime_ns = ticket.mtime_ns
    mtime = mtime_ns / 1e9 if mtime_ns is not None else None
    size = done.bytes_read  # (of the bytes hashed: a file may have grown since the walk)
    fixed = {
        "format": parsed.format,
        "content_hash": done.digest,
        "ingest_options": fingerprint,
        "ingest_scope": builder.scope,  # stays when the item is published elsewhere
    }
    if done.named:  # lets a rebuilt source cache name the source as this run does
        fixed[DIGEST_KEY] = origin_digest(ticket.key)
    known = LinesDigest.parse(done.lines_digest)
    if known is not None:
        fixed[LINES_HASH_KEY] = known.for_items()
    for position, seg in enumerate(parsed.segments):
        # only strings that come from the content pass the gate; numbers and the fields
        # computed here cannot hold a secret, and are added after it
        provenance = {"source": ticket.source, "path": ticket.path, "section": seg.section}
        if after and seg.line_end and seg.line_end <= after and seg.line_start not in again:
            builder.pass_over(seg, {**provenance, **seg.extra} if seg.extra else provenance)
            continue
        computed: dict[str, Any] = {
            "line_start": seg.line_start,
            "line_end": seg.line_end,
            "chunk": seg.chunk,
            "index": position,
            "size": size,
            "mtime": mtime,
            "mtime_ns": mtime_ns,
            "ingested_at": now,
        }
        if seg.extra:  # format-specific fields (a record's index, a trace's row) win
            provenance.update(seg.extra)
            for name in seg.extra:
                computed.pop(name, None)
        computed.update(fixed)
        try:
            screened = screen.passes(position, seg)
            item = builder.build(seg, provenance, computed=computed, screened=screened)
        except InvalidInputError as exc:  # the gate refuses what it cannot check: this row only
            done.issues.append((str(exc), seg.line_start))
            continue
        if item is not None:
            yield item
