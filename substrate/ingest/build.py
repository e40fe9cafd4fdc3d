"""Turn segments into items: provenance, the write-time gate, and a stable id."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from typing import Any
from unicodedata import category, normalize

from substrate.gate import REDACTIONS_KEY, UNREDACTED_KEY, admit
from substrate.ingest.cutsecrets import ChunkSecrets, mask_cut
from substrate.ingest.report import GateTally, IngestReport
from substrate.ingest.segment import Segment, canonical, derive_id
from substrate.item import SubstrateItem
from substrate.secrets.copies import Copies, copies_across, mask_copies, mask_copies_in_fields
from substrate.secrets.engine import find_secrets

# Characters that show nothing and are never typed in a tag: zero-width space and word joiner,
# byte-order mark, soft hyphen, and the bidirectional controls (zero-width joiners, which some
# scripts need, are kept).
_INVISIBLE = frozenset("\u200b\u2060\ufeff\u00ad\u200e\u200f\u061c") | frozenset(
    map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
)


# ... and, to tell a text that shows nothing, the joiners too
_NO_WIDTH = _INVISIBLE | {"\u200c", "\u200d"}
_WITHOUT_NO_WIDTH = dict.fromkeys(map(ord, _NO_WIDTH))
# A character that shows: neither white space nor one of no width (a parser's "is there any
# text here", as ``is_blank`` answers it for a whole text)
VISIBLE = re.compile("[^\\s" + "".join(map(re.escape, sorted(_NO_WIDTH))) + "]")


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing: empty, white space, or characters of no width (a
    paragraph of zero-width spaces, a byte-order mark that joining files left inside)."""
    if not text or text.isspace():
        return True
    if text.lstrip()[0] not in _NO_WIDTH:  # most texts: the first character shows
        return False
    return not text.translate(_WITHOUT_NO_WIDTH).strip()


def tidy_tags(tags: Iterable[str]) -> list[str]:
    """Tags found in content as one could type them to find them again (``ls -t``, ``search
    --tag``): composed (NFC), white space inside one space and none around, control and
    invisible characters (``_INVISIBLE``) left out; an empty one is dropped, and each is kept
    once."""
    out: list[str] = []
    for tag in tags:
        if not (tag.isascii() and tag.isprintable() and " " not in tag):  # most are
            kept = (ch for ch in normalize("NFC", tag) if ch not in _INVISIBLE)
            tag = " ".join("".join(" " if category(ch) == "Cc" else ch for ch in kept).split())
        if tag and tag not in out:
            out.append(tag)
    return out


def merge_tags(first: Iterable[str], second: Iterable[str]) -> list[str]:
    """Tags of both lists in order, each once."""
    out: list[str] = []
    for tag in (*first, *second):
        if tag not in out:
            out.append(tag)
    return out


class ItemBuilder:
    """Builds the items of one source, counting drops and redactions in a report.

    Args:
        origin: the source key ids are derived from (an absolute path or a stream name).
        scope: the scope of every item.
        tags: tags added to every item (before the content's own tags).
        redact: let the gate mask secrets (counted in the report).
        report: where drops and redactions are counted (a run's report, or one file's
            tally; None: not counted).
        drop_empty: drop text items whose text shows nothing (``is_blank``) and that have no
            payload.

    ``secrets`` gathers the secrets the gate masked in the items built (value -> rule): a
    password found in one section may stand bare, with nothing to show it is one, in the
    next. Once all are built, their copies are masked in every item and the ids derived again:
    by the caller, with what ``masking_copies`` gives, or by ``mask_copies_across`` for items
    built with explicit locators.
    """

    def __init__(
        self,
        origin: str,
        *,
        scope: str,
        tags: Iterable[str] = (),
        redact: bool = True,
        report: IngestReport | GateTally | None = None,
        drop_empty: bool = True,
        created_at: float | None = None,
    ) -> None:
        self.origin = origin
        self.scope = scope
        self.tags = list(tags)
        self.redact = redact
        self.report = report
        self.drop_empty = drop_empty
        self.created_at = created_at
        self.secrets: dict[str, str] = {}
        self._locators: list[str] = []  # the explicit ones, in the order their items were built
        self._seen: dict[tuple[str, str, str, bytes], int] = {}

    def build(
        self,
        seg: Segment,
        provenance: dict[str, Any],
        locator: str | None = None,
        *,
        computed: dict[str, Any] | None = None,
        screened: bool = False,
    ) -> SubstrateItem | None:
        """The gated item of ``seg``, or None when it is dropped as empty.

        Args:
            seg: the parsed segment.
            provenance: the item's provenance (taken as is, not copied).
            locator: where in the source; None derives it from the section and how many
                identical segments came before (so ids survive edits elsewhere in the file).
            computed: provenance fields computed by ingestion itself (format name, hashes,
                option fingerprint, line numbers, sizes, times), added after the gate:
                nothing in them comes from the content, and scanning them for every item
                would only cost time.
            screened: the caller has shown that no string of the item can hold a secret
                (see ``prepare.FileScreen``), so the gate would return it untouched.
        """
        # a document of fields alone ({"payload": {...}}) is no empty one
        if self.drop_empty and seg.kind == "text" and is_blank(seg.text) and not seg.payload:
            if self.report is not None:
                self.report.items_dropped += 1
            return None
        tags = merge_tags(self.tags, tidy_tags(seg.tags)) if seg.tags else list(self.tags)
        text, payload = seg.text, seg.payload
        if seg.secrets is not None and self.redact:
            text = self._mask_cut_secrets(seg.text, seg.secrets, provenance)
            payload = mask_copies_in_fields(payload, seg.secrets.copies)
            tags = mask_copies(tags, seg.secrets.copies)
        item = SubstrateItem(
            seg.kind,
            text,
            payload,
            provenance,
            self.scope,
            tags,
            [],
            "",  # the id: derived below, once the gate has had its say
            time.time() if self.created_at is None else self.created_at,
        )
        gated = item if screened else self._admitted(item)
        if computed:
            gated.provenance.update(computed)
        # the id hashes what is stored (after redaction): an id must not let anyone test
        # guesses of a redacted secret offline
        body = canonical(gated.payload)
        if locator is None:
            locator = _occurrence(self._seen, gated, body)
        else:
            self._locators.append(locator)
        gated.id = derive_id(self.origin, locator, seg.kind, self.scope, gated.text, body)
        return gated

    def pass_over(self, seg: Segment, provenance: dict[str, Any]) -> None:
        """Count ``seg``, whose item ``build`` gave before and the gate passed untouched (a
        line of a file that has only grown since: stored already), as ``build`` counts the
        items it gives: the ids of identical segments after it depend on it."""
        if self.drop_empty and seg.kind == "text" and is_blank(seg.text) and not seg.payload:
            return
        section = str(provenance.get("section") or "")
        _counted(self._seen, seg.kind, section, seg.text, canonical(seg.payload))

    def _admitted(self, item: SubstrateItem) -> SubstrateItem:
        """``item`` through the gate, its secrets noted and its redactions counted."""
        result = admit(item, redact=self.redact)
        if result.secrets:
            self.secrets.update(result.secrets)
        if result.rules and self.report is not None:
            self.report.redaction_rules.update(result.rules)
            if result.redactions:
                self.report.redactions += result.redactions
            else:  # redact=False: stored verbatim, and the gate noted how many secrets
                noted = result.item.provenance.get(UNREDACTED_KEY)
                count = noted.get("count") if isinstance(noted, dict) else None
                self.report.unredacted_secrets += count if isinstance(count, int) else 1
        return result.item

    def masking_copies(
        self, copies: Copies, computed: frozenset[str]
    ) -> Callable[[SubstrateItem], None]:
        """What makes each item ``build`` gave with no explicit locator, called on them in the
        order they were built, the item it would have given had the ``copies`` (of secrets
        found in other items) been masked after the gate: masked in its fields, except the
        provenance fields ``computed`` by ingestion, and its id derived again. Cheaper than
        building them all again: the gate does not run twice."""
        seen: dict[tuple[str, str, str, bytes], int] = {}

        def mask(item: SubstrateItem) -> None:
            _mask_copies(item, copies, computed)
            body = canonical(item.payload)
            locator = _occurrence(seen, item, body)
            item.id = derive_id(self.origin, locator, item.kind, self.scope, item.text, body)

        return mask

    def mask_copies_across(self, items: list[SubstrateItem]) -> None:
        """Mask in ``items`` (every item built, each with an explicit locator, in order) the
        copies of the secrets the gate found in any of them, and derive their ids again; and,
        when one was in the content, not only in the names, withhold the hash of the file they
        came from (``withhold_hash``)."""
        for item in items if self.secrets else ():
            names = f"{self.origin}\n{item.provenance.get('source')}"
            if any(secret not in names for secret in self.secrets):  # one from the content
                withhold_hash(item.provenance)
        if len(items) < 2 or not self.secrets:
            return
        copies = copies_across(self.secrets, "\n".join(item.text for item in items))
        if copies is None:
            return
        for item, locator in zip(items, self._locators, strict=True):
            _mask_copies(item, copies)
            body = canonical(item.payload)
            item.id = derive_id(self.origin, locator, item.kind, self.scope, item.text, body)

    def _mask_cut_secrets(self, text: str, known: ChunkSecrets, provenance: dict[str, Any]) -> str:
        """The text of a chunk with the parts of the secrets found in the whole text it was cut
        from masked (the gate could not see them whole), and their copies in the text and the
        provenance (its section title); each secret is counted with its first part."""
        rules = sorted(part.rule for part in known.parts if part.first)
        if known.copies is not None:  # (None: every secret too short for copies to be masked)
            self.secrets.update(known.copies.forms)
            masked = mask_copies_in_fields(provenance, known.copies)
            provenance.clear()
            provenance.update(masked)
        if rules:
            provenance[REDACTIONS_KEY] = {"count": len(rules), "rules": sorted(set(rules))}
            if self.report is not None:
                self.report.redactions += len(rules)
                self.report.redaction_rules.update(rules)
        return str(mask_copies(mask_cut(text, known.parts), known.copies))


def withhold_hash(provenance: dict[str, Any]) -> None:
    """Drop the hash of the file's bytes from an item in which the gate masked a secret: the
    rest of the file is stored, so the hash would confirm a guess of the secret offline (a
    password such as ``Summer2024!`` falls to a short word list). Freshness checks then tell
    a change of that file by its size and modification time."""
    provenance.pop("content_hash", None)


def secret_in_lines(text: str, numbers: Iterable[int | None]) -> bool:
    """Whether one of the lines ``numbers`` (1-based; those a parser rejected) of ``text``
    holds a secret: no item holds it, but a hash of the file is of its bytes too, so that it
    must be withheld (``withhold_hash``). Rare: only files with rejected lines look."""
    return bool(secrets_in_lines(text, numbers))


def secrets_in_lines(text: str, numbers: Iterable[int | None]) -> set[str]:
    """The secrets the scanner finds in the lines ``numbers`` (1-based) of ``text``."""
    wanted = sorted({n for n in numbers if n})
    if not wanted:
        return set()
    lines = text.split("\n")
    found: set[str] = set()
    for n in wanted:
        line = lines[n - 1] if n <= len(lines) else ""
        found.update(line[hit.start : hit.end] for hit in find_secrets(line))
    return found


def _occurrence(
    seen: dict[tuple[str, str, str, bytes], int], item: SubstrateItem, body: bytes
) -> str:
    """The locator of an item with none given: its section, and how many items of the same
    section, kind, text and payload (``body``) came before it in its file (counted in
    ``seen``), so that its id survives edits elsewhere in the file."""
    section = str(item.provenance.get("section") or "")
    return f"{section}#{_counted(seen, item.kind, section, item.text, body)}"


def _counted(
    seen: dict[tuple[str, str, str, bytes], int], kind: str, section: str, text: str, body: bytes
) -> int:
    """How many items of this ``kind``, ``section``, ``text`` and payload (``body``) came
    before in the file, as ``seen`` counts them; this one is counted too."""
    # kept for the whole file: a right-sized copy, as orjson's result holds ~4 KB
    key = (kind, section, text, bytes(memoryview(body)))
    n = seen.get(key, 0)
    seen[key] = n + 1
    return n


def _mask_copies(
    item: SubstrateItem, copies: Copies, computed: frozenset[str] = frozenset()
) -> None:
    """Mask the ``copies`` in a gated item's fields, but for the provenance fields
    ``computed`` by ingestion (new values: none is shared with its segment's)."""
    item.text = mask_copies(item.text, copies)
    item.payload = mask_copies_in_fields(item.payload, copies)
    item.provenance = mask_copies_in_fields(item.provenance, copies, computed)
    item.tags = mask_copies(item.tags, copies)
