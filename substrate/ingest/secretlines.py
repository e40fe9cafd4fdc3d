"""A log that held a secret, read as one that only grows: its digest without the lines that
held one (``linesdigest``), kept when it is read whole, and checked when only lines were
added, its secret lines gated again beside them."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import orjson

from substrate.ingest.build import is_blank
from substrate.itemline import decode, encode
from substrate.linesdigest import (
    MOST_SKIPPED,
    PROVENANCE_KEY,
    LinesDigest,
    bytes_without,
    line_spans,
)
from substrate.secrets.hits import MASK_LEAD

if TYPE_CHECKING:
    from substrate.ingest.prepare import Prepared
    from substrate.ingest.segment import Parsed
    from substrate.item import SubstrateItem

_MASK = MASK_LEAD.encode()


def keep_lines_digest(done: Prepared, text: str, secrets: Iterable[str], parsed: Parsed) -> None:
    """Give ``done``, a document per line read whole whose hash was withheld (it held a
    secret), the digest of its bytes without the lines that held one (those of items the gate
    masked, and the lines rejected), as its ``lines_digest``, and its items that digest, when
    what it hashes holds none of the ``secrets`` found; else it keeps none, as before."""
    if any(seg.secrets is not None for seg in parsed.segments):
        return  # a secret cut across segments: its parts are not known to lie in one line
    lines: set[int] = set()
    for _, number in done.issues:  # (no item holds them: a secret may)
        if number is None:
            return
        lines.add(number)
    for item in _masked_items(done):
        span = _lines_of(item)
        if span is None:
            return
        lines.update(span)
    lines |= _unheld_lines(text, parsed)
    if not 0 < len(lines) <= MOST_SKIPPED:
        return
    data = text.encode("utf-8", "surrogateescape")  # (the bytes read)
    if len(data) != done.bytes_read or not data.endswith(b"\n"):
        return
    spans = line_spans(data, sorted(lines))
    if spans is None:
        return
    rest = bytes_without(data, spans)
    if _holds_any(rest, secrets):
        return
    digest = LinesDigest(hashlib.sha256(rest).hexdigest()[:32], tuple(spans), ())
    told = str(digest)  # (as the items record it: ``LinesDigest.for_items``)
    ids = []
    if done.encoded is None:
        for item in done.items:
            item.provenance[PROVENANCE_KEY] = told
            if _on_lines(item, lines):
                ids.append(item.id)
    else:
        stamped = []
        for item_id, line in done.encoded:  # (one at a time: a log of a million rows)
            item = decode(line)
            item.provenance[PROVENANCE_KEY] = told
            if _on_lines(item, lines):
                ids.append(item_id)
            stamped.append((item_id, encode(item)))
        done.encoded = stamped
    done.lines_digest = str(LinesDigest(digest.digest, digest.skipped, tuple(ids)))


def relooked(
    done: Prepared,
    known: LinesDigest,
    after: int,
    text: str,
    parsed: Parsed,
    secrets: Iterable[str],
) -> bool:
    """Whether the lines of a document per line that held secrets (``known``), gated again
    beside the lines added since (past line ``after``), hold what they did: their items have
    the ids stored, and what the digest hashes holds none of the ``secrets``; and whether the
    lines added hold none (no item of theirs masked, none rejected): a new secret may stand
    bare in an earlier line, whose item must be masked too, so the file is read whole. The
    items of the lines gated again are then taken out of ``done``: they are stored."""
    if any(line is None or line > after for _, line in done.issues):
        return False
    lines = known.lines()
    items = done.built_items()  # (those of the lines added and of the secret lines: few)
    again = [item.provenance.get("line_start") in lines for item in items]
    if sorted(item.id for item, on in zip(items, again, strict=True) if on) != sorted(known.ids):
        return False
    if any(_masked(item) for item, on in zip(items, again, strict=True) if not on):
        return False
    data = text.encode("utf-8", "surrogateescape")  # (the bytes read)
    if len(data) != done.bytes_read or _holds_any(
        bytes_without(data, list(known.skipped)), secrets
    ):
        return False
    added = data[done.grown_from :].decode("utf-8", "surrogateescape")  # (its lines past after)
    if _unheld_lines(added, parsed, after):
        return False  # (a line added that no item holds whole: the gate never saw it all)
    if done.encoded is not None:
        done.encoded = [pair for pair, on in zip(done.encoded, again, strict=True) if not on]
    else:
        done.items = [item for item, on in zip(items, again, strict=True) if not on]
    return True


def _masked_items(done: Prepared) -> Iterator[SubstrateItem]:
    """The items of ``done`` in whose content the gate masked something (a log line holding
    no mask at all is not decoded)."""
    if done.encoded is None:
        yield from (item for item in done.items if _masked(item))
        return
    for _, line in done.encoded:
        if _MASK in line and _masked(item := decode(line)):
            yield item


def _masked(item: SubstrateItem) -> bool:
    """Whether the gate masked something in ``item``'s content (not in its file's names)."""
    content = (item.text, orjson.dumps(item.payload).decode(), *item.tags)
    return any(MASK_LEAD in field for field in content)


def _lines_of(item: SubstrateItem) -> set[int] | None:
    start, end = item.provenance.get("line_start"), item.provenance.get("line_end")
    if type(start) is not int or type(end) is not int or not 0 < start <= end:
        return None
    return set(range(start, end + 1))


def _on_lines(item: SubstrateItem, lines: set[int]) -> bool:
    span = _lines_of(item)
    return span is not None and not span.isdisjoint(lines)


def _unheld_lines(text: str, parsed: Parsed, after: int = 0) -> set[int]:
    """The lines of ``text`` (a file's lines past its line ``after``: a log's lines added are
    asked of, not the whole file at each append) whose content no item holds whole, which the
    gate never saw: a row dropped as empty (its tags, its other fields), and a row giving a
    key twice (the first value is in no item). A digest leaves them out, as it does the lines
    that held a secret."""
    held: set[int] = set()
    for seg in parsed.segments:
        if seg.line_end and seg.line_end > after and not (is_blank(seg.text) and not seg.payload):
            held.update(range(seg.line_start or seg.line_end, seg.line_end + 1))
    return {
        number
        for number, line in enumerate(text.split("\n"), after + 1)
        if line.strip() and (number not in held or _a_key_twice(line))
    }


# A JSON object's key: its quoted name, then a colon
_KEY = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')


def _a_key_twice(line: str) -> bool:
    """Whether the JSON ``line`` gives one of its objects a key twice (the parser keeps the
    last value alone); a name met twice in the line may be two objects' (asked of the parser
    then)."""
    names = _KEY.findall(line)
    if len(names) == len(set(names)):
        return False
    twice = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal twice
        twice = twice or len({name for name, _ in items}) != len(items)
        return dict(items)

    try:
        json.loads(line, object_pairs_hook=pairs)
    except ValueError:
        return True
    return twice


def _holds_any(data: bytes, secrets: Iterable[str]) -> bool:
    """Whether ``data`` holds one of ``secrets`` as it is, or as JSON writes it: escaped (with
    or without its non-ASCII characters as ``\\u`` escapes), or with any character escaped so
    (Go writes ``&`` as ``\\u0026``, PHP ``/`` as ``\\/``)."""
    texts = (data, _unescaped(data)) if b"\\" in data else (data,)
    for secret in secrets:
        forms = {secret.encode(), orjson.dumps(secret)[1:-1], json.dumps(secret)[1:-1].encode()}
        if any(form in text for form in forms for text in texts):
            return True
    return False


# JSON's escapes of one character each: ``\u0041``, ``\/``
_ESCAPED = re.compile(rb"\\u([0-9a-fA-F]{4})|\\/")


def _unescaped(data: bytes) -> bytes:
    """``data`` with JSON's escapes of one character written as the character."""

    def character(m: re.Match[bytes]) -> bytes:
        if m[1] is None:
            return b"/"
        return chr(int(m[1], 16)).encode("utf-8", "surrogatepass")

    return _ESCAPED.sub(character, data)
