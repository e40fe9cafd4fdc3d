"""The reference ingest adapters: the same names, arguments, defaults and return values.

Each returns the ids of the items it put, in input (file) order, and, like the reference, only
``put``s: the caller decides when to ``save()``. What changed, on purpose:

* ids are derived from the source, the position and the content, so ingesting the same input
  twice updates the same items instead of duplicating them;
* every item passes the write-time gate (secrets redacted unless ``redact=False``);
* bad input is counted, never silently skipped: give ``report=IngestReport()`` to receive every
  problem with its file and line (they are also logged as warnings);
* JSON Lines keep file order (``index`` counts rows in file order); trace ``row`` is still the
  0-based physical line index, and ``line`` (1-based) is recorded beside it;
* a manifest that is not a JSON object is reported instead of crashing;
* items from files record ``path``, ``line``, ``content_hash``, ``size`` and ``mtime``.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from substrate.errors import InvalidInputError
from substrate.gate import refuse_non_list, refuse_non_text
from substrate.ingest import report as status
from substrate.ingest.build import ItemBuilder, secret_in_lines, withhold_hash
from substrate.ingest.detect import detect_format, normalize_format
from substrate.ingest.earlier import carry_over, same_as_stored
from substrate.ingest.formats.artifacts import artifact_segment, load_manifest
from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.jsonfile import parse_json
from substrate.ingest.formats.jsonl import add_rows, json_rows, without_a_line_being_written
from substrate.ingest.formats.records import document_parts, record_parts
from substrate.ingest.formats.tabular import parse_delimited
from substrate.ingest.formats.traces import traces_from_rows
from substrate.ingest.ignore import compile_rule, enclosing_rules
from substrate.ingest.report import FileOutcome, GateTally, IngestIssue, IngestReport
from substrate.ingest.segment import FileRejected, LineIssue, Parsed, Segment, mark_secrets_across
from substrate.ingest.session import too_large
from substrate.ingest.settings import ignore_rules, size_limit
from substrate.ingest.sourcekeys import DIGEST_KEY, cache_origin, origin_digest
from substrate.ingest.sources import being_written
from substrate.ingest.textio import content_digest, decode_text, not_text
from substrate.ingest.walk import WalkResult, files_by_folder, shard_file
from substrate.limits import (
    BINARY_PROBE_BYTES,
    FILE_FORMATS,
    LINE_FORMATS,
    PER_LINE_FORMATS,
    ROW_FORMATS,
    reads_alike_grown,
)
from substrate.lineprefixes import LinePrefixes
from substrate.secrets.paths import safe_path
from substrate.secrets.sources import shown_path

if TYPE_CHECKING:
    from substrate.item import SubstrateItem
    from substrate.store import Substrate

log = logging.getLogger(__name__)


def _issue(
    report: IngestReport | None,
    source: str,
    reason: str,
    line: int | None = None,
    *,
    byte: int | None = None,
    fatal: bool = False,
    path: str | None = None,
) -> None:
    issue = IngestIssue(source, reason, line, byte, fatal, path)
    if report is not None:
        report.note(issue)
    else:  # nobody collects the problems: say them
        log.warning("%s: %s", issue.location(), reason)


def _store(
    substrate: Substrate,
    items: list[SubstrateItem],
    report: IngestReport | None,
    tally: GateTally,
    read: bytes | None = None,
) -> tuple[list[str], int, int]:
    """Put the items (saved by the caller) and count them: their ids, how many are new and
    how many were stored already and are written again (same content, other provenance).
    ``read``: the bytes of the file they were all read from, when held.
    What the gate counted as it built them (``tally``) is told as ``ingest`` tells a file's:
    its redactions and secrets stored only when something is written, as no secret is newly
    masked or stored by a run that writes nothing.

    An item stored already keeps its age and its proposals (``earlier.carry_over``); one that
    would be written exactly as it is stored is not written at all (ingesting an unchanged file
    again adds nothing to the log), nor is one published or approved into another scope since,
    which is no longer this ingest's to change. Items are handled one at a time: a large file
    never holds its stored items all at once.
    """
    ids: list[str] = []
    seen: set[str] = set()
    added = rewritten = 0
    notices: list[str] = []
    prefixes: dict[str, LinePrefixes] = {}
    for item in items:
        stored = substrate.peek(item.id)
        if stored is not None and stored.scope != item.scope:
            continue  # moved elsewhere since: left where it is, and not this ingest's item
        ids.append(item.id)
        if stored is not None:
            notices += carry_over([item], {item.id: stored})
            _keep_record_of_lines_read(item, stored, prefixes, read)
            if same_as_stored(item, stored):
                continue
        if item.id not in seen:  # the same item twice in one input is put twice, counted once
            added += stored is None
            rewritten += stored is not None
        seen.add(item.id)
        substrate.put(item)
    if report is not None:
        report.add_tally(tally if added or rewritten else GateTally(tally.items_dropped))
        report.items_added += added
        report.items_rewritten += rewritten
        report.ids.extend(ids)
        source = items[0].provenance.get("source") if items else None
        report.tell(str(source or report.root), notices)
    return ids, added, rewritten


# What an item records of the file it was read from (``file_provenance``)
_FILE_RECORD = ("content_hash", "size", "mtime")


def _keep_record_of_lines_read(
    item: SubstrateItem,
    stored: SubstrateItem,
    prefixes: dict[str, LinePrefixes],
    read: bytes | None,
) -> None:
    """Have ``item``, a line (or a table's row) of a file of a format appended to, record the
    file as its stored version does when the file has only grown by whole lines since (its
    first bytes, as many as it had then, hash as they did): the line says what it did, so
    freshness knows it fresh by that record, and the item need not be written again. Each
    line of a log appended to was written again at each run, the log growing by the whole
    file."""
    now, before = item.provenance, stored.provenance
    size, digest, path = before.get("size"), before.get("content_hash"), now.get("path")
    if now.get("format") != before.get("format") or not reads_alike_grown(now.get("format"), size):
        return
    if type(size) is not int or not isinstance(digest, str) or not isinstance(path, str):
        return
    grown = now.get("size")
    if before.get("path") != path or type(grown) is not int or not 0 < size <= grown:
        return  # (the same size: touched, or its line being written left out again)
    if path not in prefixes:  # (from the bytes read, when held: not read from disk again)
        prefixes[path] = LinePrefixes(path, read)
    if prefixes[path].of(size) != digest[:32]:
        return
    for key in _FILE_RECORD:
        if key in before:
            now[key] = before[key]
        else:
            now.pop(key, None)


def ingest_documents(
    substrate: Substrate,
    docs: Iterable[Any],
    *,
    source: str = "documents",
    scope: str = "local",
    redact: bool = True,
    report: IngestReport | None = None,
    origin: Mapping[str, Any] | None = None,
    drop_empty: bool = False,
    lines: Sequence[int] | None = None,
) -> list[str]:
    """Add text passages as ``kind="text"`` items; returns the new ids.

    Each doc is a string, or a ``{"text": ..., "tags": [...], "payload": {...}}`` dict.
    Provenance: ``source``, ``index`` (position in ``docs``), ``ingested_at``, and the fields
    of ``origin``: for docs read from a file, its ``file_provenance``, by which freshness
    checks tell when the file changed; with ``lines`` (the line of each doc in that file),
    ``line``, which citations show. ``drop_empty`` leaves out (and counts in the report) a doc
    with neither text nor payload, which by default becomes an empty item.
    """
    refuse_non_list(docs, "docs")
    refuse_non_text(source=source, scope=scope)
    tally = GateTally()
    builder = ItemBuilder(source, scope=scope, redact=redact, report=tally, drop_empty=drop_empty)
    now = time.time()
    items = []
    segments = [
        Segment("text", text, payload=payload, tags=tags)
        for text, tags, payload in map(document_parts, docs)
    ]
    if redact:
        mark_secrets_across(segments, apart=True)
    for i, seg in enumerate(segments):
        prov = {"source": source, **(origin or {}), "index": i, "ingested_at": now}
        if lines is not None:
            if i >= len(lines):  # (nothing is stored: the items go in one save below)
                raise InvalidInputError("lines gives fewer line numbers than there are docs")
            prov["line"] = lines[i]
        item = builder.build(seg, prov, locator=f"doc#{i}")
        if item is not None:  # (dropped as empty, with drop_empty, and counted)
            items.append(item)
    builder.mask_copies_across(items)
    _time_where_withheld(items)
    return _store(substrate, items, report, tally)[0]


def _time_where_withheld(items: list[SubstrateItem]) -> None:
    """Have the items of a file whose hash was withheld (it held a secret) record its
    modification time, when it still has the size read: freshness then tells the file's
    change by its size and time (with the hash, none is kept, lest a file only touched
    rewrite its items; without either, a file replaced whole passed for fresh)."""
    times: dict[str, float | None] = {}
    for prov in (item.provenance for item in items):
        where = prov.get("path")
        if "content_hash" in prov or "mtime" in prov or not isinstance(where, str):
            continue
        if where not in times:
            try:
                info = os.stat(where)
            except OSError:
                info = None
            fits = info is not None and info.st_size == prov.get("size")
            times[where] = info.st_mtime if fits and info is not None else None
        if times[where] is not None:
            prov["mtime"] = times[where]


def ingest_records(
    substrate: Substrate,
    records: Iterable[Any],
    *,
    source: str = "records",
    scope: str = "local",
    text_fields: Iterable[str] | None = None,
    redact: bool = True,
    report: IngestReport | None = None,
) -> list[str]:
    """Add records (dicts, or tuples/lists of values) as ``kind="record"`` items.

    A dict's payload is the dict and its text the ``text_fields`` (default: all fields)
    space-joined; any other record becomes ``{"values": [...]}``. Provenance: ``source``,
    ``index``, ``ingested_at``.
    """
    refuse_non_list(records, "records")
    refuse_non_text(source=source, scope=scope)
    if isinstance(text_fields, str):  # one field named, not its letters
        text_fields = [text_fields]
    fields = list(text_fields) if text_fields else None
    tally = GateTally()
    builder = ItemBuilder(source, scope=scope, redact=redact, report=tally, drop_empty=False)
    now = time.time()
    items = []
    for i, rec in enumerate(records):
        text, payload = record_parts(rec, fields)
        prov = {"source": source, "index": i, "ingested_at": now}
        item = builder.build(Segment("record", text, payload=payload), prov, locator=f"record#{i}")
        assert item is not None
        items.append(item)
    builder.mask_copies_across(items)
    return _store(substrate, items, report, tally)[0]


def _read_source(path: Path, *, per_line: bool = False) -> tuple[bytes, dict[str, Any]]:
    """The file's bytes and what its items record of it; of a file of a document per line
    written to moments ago, without a last line still being written."""
    data = path.read_bytes()
    if per_line and being_written(path.stat().st_mtime_ns, time.time()):
        data = without_a_line_being_written(data)
    return data, file_provenance(path, data)


def _skipped_as_too_large(
    substrate: Substrate, path: Path, name: str, report: IngestReport | None
) -> bool:
    """Whether the file is over the size limit: then it fails, unread (it is not held in
    memory), as a file named to ``ingest_path`` does."""
    limit, size = size_limit(substrate), path.stat().st_size
    if size <= limit:
        return False
    if report is not None:
        report.files_scanned += 1
    _file_failed(report, name, too_large(size, limit), path=str(path.absolute()))
    return True


def file_provenance(path: Path, data: bytes, *, stat: bool = True) -> dict[str, Any]:
    """What an item read from the file at ``path``, whose content is ``data``, records of it:
    ``path``, ``content_hash`` and ``size`` (and the digest of a path the gate masks), by which
    freshness checks find the file and tell whether it changed; with ``stat``, its ``mtime``
    too (then a file only touched gives items that differ from those stored)."""
    where = str(path.absolute())
    # the size of the bytes hashed: by it freshness tells a file appended to by whole lines
    meta: dict[str, Any] = {"path": where, "content_hash": content_digest(data), "size": len(data)}
    if stat:
        meta["mtime"] = path.stat().st_mtime
    if cache_origin(where) != where:  # the gate masks the path: freshness finds it by this
        meta[DIGEST_KEY] = origin_digest(where)
    return meta


def ingest_traces(
    substrate: Substrate,
    jsonl_path: str | os.PathLike[str],
    *,
    source: str | None = None,
    scope: str = "local",
    redact: bool = True,
    report: IngestReport | None = None,
) -> list[str]:
    """Index a JSON Lines file of ``{"input": ..., "answer"|"label"|"call": ...}`` rows.

    Returns [] when the file does not exist, or is larger than ``[ingest] max_file_size``
    (skipped and reported, as ``ingest_path`` skips it). Each row becomes a ``trace`` item with
    the row as payload. Provenance: ``source`` (default: the path), ``row`` (0-based physical
    line index, blank lines counted), ``line`` (1-based), ``path``, ``content_hash``,
    ``ingested_at``.
    Malformed lines, rows that are not objects and rows with neither an input nor an answer
    (``null => null``) are reported and left out.

    Raises:
        InvalidInputError: the file is not valid UTF-8, or is a shard's log; the path is a
            folder, or not a path at all.
    """
    refuse_non_text(scope=scope, source="" if source is None else source)  # None: the path
    path = _data_file(jsonl_path, "jsonl_path")
    if path is None:
        return []
    name = source or str(jsonl_path)
    _refuse_shard_file(path, name, report)
    if _skipped_as_too_large(substrate, path, name, report):
        return []
    data, meta = _read_source(path, per_line=True)
    meta["format"] = "traces"  # one row a line: freshness knows a log appended to as fresh
    text = _decode(data, name, report, lines_apart=True)
    parsed = Parsed("traces")
    traces_from_rows(json_rows(text, parsed), parsed)
    tally = GateTally()
    builder = ItemBuilder(meta["path"], scope=scope, redact=redact, report=tally)
    now = time.time()
    items = []
    for seg in parsed.segments:
        index = int(seg.extra["row"])
        prov = {"source": name, "row": index, "line": index + 1, **meta, "ingested_at": now}
        try:
            item = builder.build(seg, prov, locator=f"row#{index}")
        except InvalidInputError as exc:  # the gate refuses what it cannot check
            parsed.issues.append(LineIssue(index + 1, str(exc)))
            continue
        assert item is not None
        items.append(item)
    builder.mask_copies_across(items)
    _withhold_for_rejected(items, text, parsed, redact)
    return _finish_file(substrate, name, meta, data, parsed, items, report, tally)


def _data_file(path: object, name: str) -> Path | None:
    """The file ``path`` names, or None when there is none to read (a missing path, or "",
    which is no path rather than the working directory): the seed API ingests nothing then.
    A folder is refused, not taken for missing: it holds files that ``ingest_path`` reads."""
    if not isinstance(path, str | os.PathLike):
        raise InvalidInputError(f"{name} must be a file path, not {type(path).__name__}")
    given = Path(path)
    if os.fspath(path) and given.is_dir():
        raise InvalidInputError(
            f"{shown_path(str(path))} is a folder, not a file; ingest_path (mixle ingest) "
            "reads the files in a folder"
        )
    return given if given.is_file() else None


def _decode(
    data: bytes, name: str, report: IngestReport | None, *, lines_apart: bool = False
) -> str:
    try:
        why = not_text(data[:BINARY_PROBE_BYTES])  # said as ingest says it, not as bad UTF-8
        if why is not None:
            raise FileRejected(why, line=1)
        return decode_text(data, lines_apart=lines_apart)
    except FileRejected as exc:
        _rejected_file(report, name, exc)
        raise _rejected_error(name, exc) from None


def _refuse_shard_file(path: Path, name: str, report: IngestReport | None) -> None:
    """Refuse a shard's own file (its log, its settings): its items are that shard's."""
    if shard_file(path):
        exc = FileRejected(status.SHARD_FILE)
        _rejected_file(report, name, exc)
        raise _rejected_error(name, exc)


def _rejected_error(name: str, exc: FileRejected) -> InvalidInputError:
    """The error a rejected file raises, its name's secrets masked (as reports show it)."""
    where = shown_path(name) if exc.line is None else f"{shown_path(name)}:{exc.line}"
    return InvalidInputError(f"{where}: {exc.reason}")


def _rejected_file(report: IngestReport | None, name: str, exc: FileRejected) -> None:
    """Count a file rejected as a whole as scanned and failed (a report's counts add up)."""
    if report is not None:
        report.files_scanned += 1
    _file_failed(report, name, exc.reason, exc.line, exc.byte)


def _withhold_for_rejected(
    items: list[SubstrateItem], text: str, parsed: Parsed, redact: bool
) -> None:
    """Withhold the file's hash from its items when a line left out holds a secret."""
    if redact and secret_in_lines(text, (issue.line for issue in parsed.issues)):
        for item in items:
            withhold_hash(item.provenance)


def _finish_file(
    substrate: Substrate,
    name: str,
    meta: dict[str, Any],
    data: bytes,
    parsed: Parsed,
    items: list[SubstrateItem],
    report: IngestReport | None,
    tally: GateTally,
) -> list[str]:
    for issue in parsed.issues:
        _issue(report, name, issue.reason, issue.line, path=meta["path"])
    ids, added, rewritten = _store(substrate, items, report, tally, data)
    if report is not None:
        report.files_scanned += 1
        report.bytes_read += int(meta["size"])
        empty = parsed.dropped + len(parsed.segments) - len(items)
        report.record_file(
            name,
            meta["path"],
            added=added,
            rewritten=rewritten,
            gave_items=bool(items),
            errors=len(parsed.issues),
            empty=empty,
        )
    return ids


def ingest_file(
    substrate: Substrate,
    path: str | os.PathLike[str],
    *,
    kind: str | None = None,
    source: str | None = None,
    scope: str = "local",
    as_format: str | None = None,
    redact: bool = True,
    report: IngestReport | None = None,
) -> list[str]:
    """Ingest one data file; the format comes from the extension unless forced.

    ``.txt``/``.md``: one text item per non-empty line (``index`` counts those lines);
    ``.jsonl``/``.ndjson``: one item per line in file order (a string or a ``{"text": ...}``
    object is a text item, any other object a record); ``.csv``/``.tsv``: one record per row keyed
    by the header; ``.json``: one item per array element (or one for the whole value). An empty
    one (``null``, ``[]``, ``{}``, ``""``, a row of blank cells) is dropped and counted in the
    report, as an empty chunk is. Returns [] when the file does not exist, or is larger than
    ``[ingest] max_file_size`` (skipped and reported, as ``ingest_path`` skips it). For sections,
    chunking, folders and re-ingest that replaces changed files, use ``ingest_path``.

    Args:
        substrate: the shard to write to.
        path: the file.
        kind: the reference's name for the *file format* (``as_format`` is the clearer alias).
        source: ``provenance.source`` (default: the path as given).
        scope: scope of the new items.
        as_format: the file format, overriding the extension.
        redact: mask secrets with the write-time gate.
        report: receives counts and every problem (malformed lines, bad rows).

    Raises:
        InvalidInputError: an unsupported format, invalid UTF-8, a shard's log, or a file
            that cannot be parsed at all (broken CSV quoting, invalid JSON); a path that is a
            folder, or not a path at all.
    """
    refuse_non_text(scope=scope, source="" if source is None else source)  # None: the path
    p = _data_file(path, "path")
    if p is None:
        return []
    name = source or str(path)
    _refuse_shard_file(p, name, report)
    fmt = (as_format or kind or p.suffix.lstrip(".")).lower()
    if fmt not in FILE_FORMATS:
        # a format the folder ingest reads (.rst) is pointed to it
        elsewhere = "; `mixle ingest` (ingest_path) reads it" if detect_format(p.name) else ""
        raise InvalidInputError(
            f"unsupported file format {safe_path(fmt)!r} for {shown_path(str(path))} "
            f"(expected txt, md, jsonl, ndjson, csv, tsv or json{elsewhere})"
        )
    if _skipped_as_too_large(substrate, p, name, report):
        return []
    per_line = normalize_format(fmt) in PER_LINE_FORMATS
    data, meta = _read_source(p, per_line=per_line)
    if normalize_format(fmt) in ROW_FORMATS:  # freshness knows one appended to as fresh
        meta["format"] = normalize_format(fmt)
    text = _decode(data, name, report, lines_apart=per_line)
    ctx = ParseContext(max(len(text), 16), str(p.absolute()), name, redact)
    try:
        parsed = _parse_for_file(fmt, text, ctx)
    except FileRejected as exc:
        _rejected_file(report, name, exc)
        raise _rejected_error(name, exc) from None
    tally = GateTally()
    builder = ItemBuilder(meta["path"], scope=scope, redact=redact, report=tally)
    if report is not None:
        report.items_dropped += parsed.dropped
    now = time.time()
    items = []
    for position, seg in enumerate(parsed.segments):
        index = seg.extra.get("index", position)
        prov = {"source": name, "index": index, "line": seg.line_start, **meta, "ingested_at": now}
        if seg.line_end and seg.line_end != seg.line_start:  # a JSON value over several lines
            prov["line_end"] = seg.line_end
        item = builder.build(seg, prov, locator=f"{fmt}#{position}")
        if item is not None:  # an empty doc (null, [], {}, "") is dropped and counted
            items.append(item)
    builder.mask_copies_across(items)
    _withhold_for_rejected(items, text, parsed, redact)
    return _finish_file(substrate, name, meta, data, parsed, items, report, tally)


def _parse_for_file(fmt: str, text: str, ctx: ParseContext) -> Parsed:
    if fmt in LINE_FORMATS:
        parsed = Parsed("text")
        for n, line in enumerate(text.split("\n")):
            stripped = line.strip()
            if stripped:
                parsed.segments.append(Segment("text", stripped, None, n + 1, n + 1))
        if ctx.redact:
            mark_secrets_across(parsed.segments)
        return parsed
    if fmt in ("jsonl", "ndjson"):
        parsed = Parsed("jsonl")
        add_rows(parsed, json_rows(text, parsed), ctx)
        return parsed
    if fmt == "json":
        return parse_json(text, ctx)
    # a .csv's delimiter is found as `mixle ingest` finds it: Excel writes ";" where a comma
    # is the decimal mark, and read at commas its quoted cells fell apart into rows
    return parse_delimited(text, ctx, "\t" if normalize_format(fmt) == "tsv" else None)


def ingest_artifacts(
    substrate: Substrate,
    registry_root: str | os.PathLike[str],
    *,
    scope: str = "local",
    redact: bool = True,
    report: IngestReport | None = None,
    hidden: bool = False,
) -> list[str]:
    """Index every artifact directory (one holding a ``manifest.json``) under ``registry_root``.

    The item's text summarises the manifest; its payload references the directory
    (``{"ref": dir, "manifest": {...}}``) and copies nothing else. Provenance: ``source``
    ("registry"), ``path`` (the directory), ``artifact_kind``, ``parent``, ``manifest``,
    ``content_hash`` (of the manifest), ``ingested_at``. A manifest that is invalid JSON or not
    an object is reported and left out. The folder is walked as ``ingest_path`` walks one:
    hidden and VCS folders and what the ignore rules name are passed over (where the reference
    read every ``manifest.json`` below; ``hidden`` walks hidden folders too). Returns [] when
    ``registry_root`` is not a directory.
    """
    refuse_non_text(scope=scope)
    if not os.fspath(registry_root):  # Path("") would be the working directory
        return []
    root = Path(registry_root)
    if not root.is_dir():
        return []
    limit = size_limit(substrate)
    manifests = _manifests(substrate, root, report, hidden)
    if not manifests and report is not None:  # said, not silent: the wrong folder, perhaps
        report.tell(str(root), ["no artifact folder here (one holds a manifest.json)"])
    now = time.time()
    ids: list[str] = []
    for manifest_path in manifests:
        name = str(manifest_path)
        where_read = os.path.abspath(name)  # reported as other commands report a file
        if report is not None:
            report.files_scanned += 1
        try:
            info = manifest_path.stat()
            if info.st_size > limit:  # as `ingest --as artifacts` skips it
                _file_skipped(report, name, too_large(info.st_size, limit), where_read)
                continue
            data, meta = _read_source(manifest_path)
            text = decode_text(data)
            if not text.strip():  # as `ingest` skips an empty file of any format
                _file_skipped(report, name, status.NO_CONTENT, where_read)
                continue
            manifest = load_manifest(text)
        except OSError as exc:
            _file_failed(report, name, f"cannot read: {exc.strerror}", path=where_read)
            continue
        except FileRejected as exc:
            _file_failed(report, name, exc.reason, exc.line, exc.byte, path=where_read)
            continue
        # absolute: found again from any working directory, and one id however it is spelt
        directory = Path(os.path.abspath(manifest_path.parent))  # ("..", "./reg" collapsed)
        seg = artifact_segment(directory, manifest)
        where = str(directory)
        prov = {
            "source": "registry",
            "path": where,
            "artifact_kind": seg.extra["artifact_kind"],
            "parent": seg.extra["parent"],
            "manifest": meta["path"],
            "content_hash": meta["content_hash"],
            "size": meta["size"],
            "mtime": meta["mtime"],
            "ingested_at": now,
        }
        if cache_origin(where) != where:  # the gate masks the folder's name: found by this
            prov[DIGEST_KEY] = origin_digest(where)
        tally = GateTally()
        builder = ItemBuilder(where, scope=scope, redact=redact, report=tally)
        try:
            item = builder.build(seg, prov, locator="artifact")
        except InvalidInputError as exc:  # the gate refuses what it cannot check
            _file_failed(report, name, str(exc), path=where_read)
            continue
        assert item is not None
        builder.mask_copies_across([item])  # (one item: only its manifest's hash to withhold)
        stored, added, rewritten = _store(substrate, [item], report, tally)
        ids += stored
        if report is not None:
            report.bytes_read += len(data)
            report.record_file(name, where_read, added=added, rewritten=rewritten, gave_items=True)
    return ids


def _manifests(
    substrate: Substrate, root: Path, report: IngestReport | None, hidden: bool
) -> list[Path]:
    """The ``manifest.json`` files under ``root``, found as ``ingest`` walks a folder: hidden
    and VCS folders, and what the ignore rules name, are left out (a bad manifest is let go
    with a line in ``.mixleignore``, as its failure says); links lead nowhere outside or round.
    Each is named from ``root`` as given (an artifact's id comes from its folder's path)."""
    walked = WalkResult()
    real = Path(os.path.realpath(root))
    extra = [rule for rule in map(compile_rule, ignore_rules(substrate)) if rule]
    exclude = [substrate.root] if substrate.root is not None else []
    found = files_by_folder(
        real, walked, hidden=hidden, exclude=exclude, rules=enclosing_rules(real), extra_rules=extra
    )
    manifests: list[Path] = []
    odd: set[str] = set()  # folders named manifest.json: told once, not walked for artifacts
    for entry in (entry for files in found for entry in files):
        parts = entry.rel.split("/")
        if "manifest.json" in parts[:-1]:
            odd.add("/".join(parts[: parts.index("manifest.json") + 1]))
        elif parts[-1] == "manifest.json":
            manifests.append(root / entry.rel)
    for rel, reason in walked.failed:  # its artifacts are unknown: not silently none
        if report is not None:
            report.files_scanned += 1  # as ``ingest`` counts a folder it cannot read
        _file_failed(report, str(root / rel), reason, path=str(real / rel))
    for rel, reason in walked.skipped:  # a link out of the registry to a folder or manifest
        if not (rel.rpartition("/")[2] == "manifest.json" or os.path.isdir(real / rel)):
            continue  # (weights linked from a blob store are no artifact's to read)
        if report is not None:
            report.files_scanned += 1
        _file_skipped(report, str(root / rel), reason, str(real / rel))
    if report is not None:  # what was left out by name, counted as ingest counts it
        report.entries_hidden += walked.hidden
        report.entries_ignored += walked.ignored
    for rel in sorted(odd):
        if report is not None:
            report.files_scanned += 1
        _file_failed(report, str(root / rel), "a folder, not a manifest file", path=str(real / rel))
    return sorted(manifests)


def _file_skipped(
    report: IngestReport | None, name: str, reason: str, path: str | None = None
) -> None:
    """Record a file left out on purpose (too large) in the report, or say so; ``path`` is
    where it was read, when not ``name``."""
    if report is None:
        log.warning("%s skipped: %s", safe_path(name), reason)
    else:
        report.files.append(FileOutcome(name, status.SKIPPED, path or name, reason))


def _file_failed(
    report: IngestReport | None,
    name: str,
    reason: str,
    line: int | None = None,
    byte: int | None = None,
    *,
    path: str | None = None,
) -> None:
    """Record a file rejected as a whole (a manifest, a data file) in the report; ``path`` is
    where it was read, when not ``name``."""
    if report is None:  # nobody collects the problems: say them
        _issue(report, name, reason, line, byte=byte, fatal=True, path=path)
    else:
        report.failed(name, path or name, reason, line, byte)
