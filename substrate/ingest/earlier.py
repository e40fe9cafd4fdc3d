"""What a re-ingested item keeps of its stored version, and what is said of versions that go.

An item ingested again with the same id has the same content, so what happened to it since
belongs to it still: its age (``created_at``), its proposals (``proposal``, the one under
review, and ``proposals``, the history approvers rely on) and its versions (a merge into it
that kept its text, with what the merge took in). Re-ingesting a file where another
section changed must not withdraw a proposal nobody withdrew. An item whose content changed
has a new id: a pending proposal of its old version cannot carry over (the reviewers saw other
content), so the run says so, for the new version to be proposed again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from substrate.itemline import decode, encode

if TYPE_CHECKING:
    from substrate.item import SubstrateItem

# provenance written by `propose`, `approve`, `reject` and `merge` on the item itself
CARRIED_KEYS = ("proposal", "proposals", "version", "version_history", "merged")
_WORD = re.compile(r"\w+")


def carry_over(items: Iterable[SubstrateItem], stored: dict[str, SubstrateItem]) -> list[str]:
    """Give each item with a stored version of the same content, in the same scope, that
    version's creation time and proposals; returns what to tell of the pending proposals that
    cannot carry over (the item's tags changed, and the reviewers saw other content)."""
    from substrate.governance import PENDING
    from substrate.proposals import proposal_of, proposed_content

    notices = []
    for item in items:
        old = stored.get(item.id)
        if old is None or old.text != item.text or old.scope != item.scope:
            continue
        item.created_at = old.created_at
        for key in CARRIED_KEYS:
            if key in old.provenance:
                item.provenance[key] = old.provenance[key]
        proposal = proposal_of(item)
        if proposal is None or proposal.get("status") != PENDING:
            continue
        if proposal.get("content") != proposed_content(item):  # kept: its history only
            del item.provenance["proposal"]
            why = "its file changed it (its tags); propose it again to send it"
            notices.append(_withdrawn(item, proposal, why))
    return notices


def same_as_stored(item: SubstrateItem, stored: SubstrateItem | None) -> bool:
    """Whether ``item`` (after ``carry_over``) is its stored version, but for the time it was
    ingested: writing it again would change nothing."""
    if stored is None:
        return False
    fields = (item.kind, item.text, item.payload, item.scope, item.tags, item.links)
    before = (stored.kind, stored.text, stored.payload, stored.scope, stored.tags, stored.links)
    if fields != before:
        return False
    if item.created_at != stored.created_at:
        return False
    return _timeless(item.provenance) == _timeless(stored.provenance)


def _timeless(provenance: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in provenance.items() if key != "ingested_at"}


def carried_line(
    pair: tuple[str, bytes], stored: dict[str, SubstrateItem], notices: list[str]
) -> tuple[str, bytes]:
    """``carry_over`` for an item given as ``(id, log line)``: only the line of an item stored
    before is decoded and encoded again; what to tell is added to ``notices``."""
    item_id, line = pair
    if item_id not in stored:
        return pair
    item = decode(line)
    notices += carry_over([item], stored)
    return item_id, encode(item)


def withdrawn_proposals(removed: Iterable[SubstrateItem], why: str) -> list[str]:
    """What to tell of the pending proposals of ``removed`` items, which go with them; ``why``
    says why the items go, and what to do ("replaced by ...: propose the new version ...")."""
    from substrate.governance import PENDING
    from substrate.proposals import proposal_of

    notices = []
    for item in removed:
        proposal = proposal_of(item)
        if proposal is not None and proposal.get("status") == PENDING:
            notices.append(_withdrawn(item, proposal, why))
    return notices


def _withdrawn(item: SubstrateItem, proposal: dict[str, object], why: str) -> str:
    return f"{withdrawal_lead(item.id)}{proposal.get('to')} is withdrawn: {why}"


def withdrawal_lead(item_id: str) -> str:
    """How what ``withdrawn_proposals`` tells of the item ``item_id`` begins."""
    return f"the pending proposal of item {item_id} for "


def held_by_rejected_lines(
    removes: Iterable[str],
    stored: dict[str, SubstrateItem],
    lines: Iterable[int | None],
    words: frozenset[str] = frozenset(),
) -> list[str]:
    """The ids of ``removes`` whose stored version may have come from a line the file now
    has rejected (a JSON Lines row or a CSV record turned malformed): what such a line held is
    not known to be gone, so the item stays until the line parses again. An item is taken for
    one of those lines when it came from the same line number, or when every word of its text
    is among ``words``, those of the rejected lines (the line may have moved); a false match
    keeps an item a while longer, it never loses one."""
    rejected = {line for line in lines if line}
    if not rejected:
        return []
    held = []
    for item_id in removes:
        item = stored.get(item_id)
        if item is None:
            continue
        span = _lines_of(item)
        if any(n in span for n in rejected) or _worded(item.text, words):
            held.append(item_id)
    return held


def words_of_lines(text: str, lines: Iterable[int | None]) -> frozenset[str]:
    """The words (lower-cased) of the 1-based ``lines`` of ``text``."""
    wanted = {n for n in lines if n}
    if not wanted:
        return frozenset()
    rows = text.split("\n")
    return frozenset(
        w for n in wanted if n <= len(rows) for w in _WORD.findall(rows[n - 1].lower())
    )


def _worded(text: str, words: frozenset[str]) -> bool:
    own = _WORD.findall(text.lower())
    return bool(words and own) and words.issuperset(own)


def _lines_of(item: SubstrateItem) -> range:
    """The lines of its file ``item`` came from (none when it does not say)."""
    first = item.provenance.get("line_start")
    last = item.provenance.get("line_end", first)
    if isinstance(first, int) and isinstance(last, int):
        return range(first, last + 1)
    return range(0)
