"""The budget a receiver can take and the packet assembled for it."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

from substrate.context import render
from substrate.context.compress import compress_text, is_heading, query_coverage, sentences
from substrate.errors import InvalidInputError
from substrate.item import MAP_KEY, SubstrateItem, fact_part, facts_of
from substrate.limits import CHARS_PER_TOKEN, DEFAULT_PACKET_CHARS
from substrate.retrieval import (
    innermost_heading,
    one_score_each,
    provenance_entry,
    shown_sources,
    unscored_entries,
)
from substrate.secrets import masked_repr, safe_repr, safe_text

# Token estimate used for ``max_tokens``: one token per CHARS_PER_TOKEN (4) characters, rounded
# up. It is the usual rule of thumb for English with BPE tokenizers, needs no tokenizer, and
# makes a token budget an exact character budget (``tokens <= T`` iff ``chars <= 4 * T``).


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: ``ceil(len(text) / 4)``."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def item_text(item: SubstrateItem) -> str:
    """The text an item contributes to a packet: its text, and the facts of a graph item
    (its ``triples``, one sentence each) or the fields of a record, else its payload as
    JSON."""
    facts = _facts(item) or _fields(item) or _manifest_fields(item)
    if facts:
        facts_text = "\n".join(facts)
        if not item.text or _only_values(item.text, facts_text):
            return facts_text
        return f"{item.text}\n\n{facts_text}"
    if item.text:
        return item.text
    if item.payload:
        return render._json(item.payload)
    return ""


def headed_text(item: SubstrateItem, text: str | None = None) -> str:
    """``text`` (else ``item_text(item)``) opened by its section's last heading when it does
    not open with a heading itself (a section's second chunk): the heading its list items
    are entries of, as the answerer reads them (``compress.titled_sentences``)."""
    text = item_text(item) if text is None else text
    heading = innermost_heading(item)
    return f"# {heading}\n\n{text}" if heading and not text.lstrip().startswith("#") else text


def _facts(item: SubstrateItem) -> list[str]:
    """ "Marta manages Jonas." for each ``(head, relation, tail)`` of a graph item: a title
    such as "org chart" says none of them, and the answer lies in them."""
    return [" ".join(map(_fact_word, triple)) + "." for triple in facts_of(item)]


def _fact_word(part: object) -> str:
    """A part of a triple as a sentence says it: ``true``, not Python's ``True``."""
    return ("true" if part else "false") if isinstance(part, bool) else str(part)


_CLOSING = frozenset(".!?")
_WORD = re.compile(r"\w+")


def _fields(item: SubstrateItem) -> list[str]:
    """ "city: Paris; population: 2100000" for a record: its text is often its values alone
    ("Paris 2100000"), which names nothing a question asks about. An empty cell is shown
    empty: a row quoted without it would read as a whole answer ("Who deployed ledger?")."""
    payload = item.payload if item.kind == "record" else None
    if not isinstance(payload, dict) or not payload:
        return []
    shown = "; ".join(
        f"{key}: {value if isinstance(value, str) else render._json(value)}"
        for key, value in payload.items()
    )
    name = item.provenance.get(MAP_KEY)  # (a map's key names its record: "svc42: owner: ann")
    if isinstance(name, str) and name:
        shown = f"{name}: {shown}"
    return [shown if shown[-1:] in _CLOSING else shown + "."]


def _manifest_fields(item: SubstrateItem) -> list[str]:
    """ "name: router-v2; kind: classifier; parent: router-v1; trained_on: tickets-2024" for
    an artifact: its text names its manifest's keys, not their values, and the answer to
    "What was router-v2 trained on?" lies in them. Its manifest's fields and those of its
    ``meta`` that hold one value, each once."""
    manifest = item.payload.get("manifest") if item.kind == "artifact" else None
    if not isinstance(manifest, dict):
        return []
    ref = item.payload.get("ref")
    fields: dict[str, object] = {"name": os.path.basename(ref)} if isinstance(ref, str) else {}
    meta = manifest.get("meta")
    for key, value in [*manifest.items(), *(meta.items() if isinstance(meta, dict) else ())]:
        if key != "mixle_artifact" and fact_part(value) and not isinstance(value, bool):
            fields.setdefault(str(key), value)
    if len(fields) < 2:
        return []
    return ["; ".join(f"{key}: {value}" for key, value in fields.items()) + "."]


def _only_values(text: str, fields: str) -> bool:
    """Whether every word of ``text`` is in ``fields`` (the text says nothing more)."""
    return set(_WORD.findall(text)) <= set(_WORD.findall(fields))


def used_text(item: SubstrateItem, task: str, shape: str) -> str:
    """What of ``item`` a packet holds before any compression: its text masked, and for the
    ``brief`` shape one line of its sentences about ``task`` (not its first words)."""
    text = safe_text(item_text(item))
    if shape == "brief":
        return compress_text(_plain_sentences(text), task, render.BRIEF_WIDTH)
    return text


def says_less(item: SubstrateItem, text: str) -> bool:
    """Whether ``text`` leaves out words of ``item``'s text (masked, as ``text`` is): a brief
    line of it, or a summary."""
    return not set(_WORD.findall(safe_text(item_text(item)))) <= set(_WORD.findall(text))


# a list or quote mark where a line starts, or after the colon that introduces the list
# ("To fail over: - Promote the replica"); "CPU load > 90" and "10 - 30 days" keep theirs
_LIST_MARK = re.compile(
    r"(?:^[ \t]*(?:[-*+•>]|\d{1,9}[.)])|(?<=:)[ \t]*(?:[-*+•]|\d{1,9}[.)]))[ \t]+", re.MULTILINE
)


def _plain_sentences(text: str) -> str:
    """``text``'s sentences on one line, without its headings and list marks: a brief line
    of "## After - Announce the failover" read as Markdown written flat."""
    kept = (_LIST_MARK.sub(_unmarked, part) for part in sentences(text) if not is_heading(part))
    return " ".join(kept)


def _unmarked(mark: re.Match[str]) -> str:
    """What a list mark gives way to: nothing at a line's start, a space after a colon."""
    return " " if mark.start() and mark.string[mark.start() - 1] == ":" else ""


@dataclass
class ContextBudget:
    """What a receiver can take.

    Attributes:
        max_chars: the most characters the rendered packet may have (header included).
        max_items: the most items it may hold.
        shape: ``passages`` (for a model), ``brief`` (one line per item, for a person) or
            ``features`` (rendered like passages).
        max_tokens: optional token budget, estimated as ``ceil(chars / 4)``.
        format: ``markdown``, ``xml`` or ``json``.
    """

    max_chars: int = DEFAULT_PACKET_CHARS
    max_items: int = 20
    shape: str = "passages"
    max_tokens: int | None = None
    format: str = "markdown"

    def __post_init__(self) -> None:
        for name in ("max_chars", "max_items", "max_tokens"):
            value = getattr(self, name)
            if value is None and name == "max_tokens":
                continue
            # a count: 2.5 items, an infinite or NaN budget are mistakes, not limits
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInputError(f"{name} must be a whole number >= 1, got {value!r}")
        if self.shape not in render.SHAPES:
            raise InvalidInputError(
                f"unknown shape {self.shape!r}; expected one of {', '.join(render.SHAPES)}"
            )
        if self.format not in render.FORMATS:
            raise InvalidInputError(
                f"unknown format {self.format!r}; expected one of {', '.join(render.FORMATS)}"
            )

    @classmethod
    def given(cls, budget: object) -> ContextBudget:
        """The budget a caller passed (None: the default one); anything else is refused by
        name, not met later as a missing attribute."""
        if budget is None:
            return cls()
        if not isinstance(budget, ContextBudget):
            raise InvalidInputError(
                f"budget must be a ContextBudget (ContextBudget(max_chars=...)), not "
                f"{type(budget).__name__}"
            )
        return budget

    @property
    def char_limit(self) -> int:
        """The character limit that honours both ``max_chars`` and ``max_tokens``."""
        if self.max_tokens is None:
            return self.max_chars
        return min(self.max_chars, self.max_tokens * CHARS_PER_TOKEN)


@dataclass
class ContextPacket:
    """A budgeted, provenanced view of the substrate assembled for one task.

    ``texts`` holds the text actually used per item (the whole item, or an extractive summary
    when the packet was compressed). ``used_chars`` is the length of ``render()``.
    """

    __repr__ = masked_repr  # a secret typed in is not printed back

    task: str
    items: list[SubstrateItem] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)  # one per item (none: each 0.0)
    budget: ContextBudget = field(default_factory=ContextBudget)
    used_chars: int = 0
    n_candidates: int = 0
    texts: list[str] = field(default_factory=list)
    compressed: bool = False
    # fields beyond the seed's come after them, so that positional construction keeps working
    # each item's source as the packet names it (``shown_sources``); worked out when not given
    sources: list[str | None] = field(default_factory=list)
    skipped: int = 0
    # the most relevant candidate had text but no room: what is packed is not the best evidence
    best_left_out: bool = False
    # notes found but not packed, as replaced by newer ones (``substrate.successors``)
    passed_over: list[SubstrateItem] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.scores = one_score_each(self.items, self.scores)
        if not self.texts:
            self.texts = [used_text(i, self.task, self.budget.shape) for i in self.items]
        if self.budget.shape == "brief" and not self.compressed:  # one line of each item
            self.compressed = any(map(says_less, self.items, self.texts))

    def names(self) -> list[str | None]:
        """Each item's source as the packet names it: as packed (``sources``), or else told
        apart among the packet's items (``shown_sources``)."""
        if len(self.sources) == len(self.items):
            return self.sources
        return shown_sources(self.items)

    def render(self, *, header: bool = True, fmt: str | None = None) -> str:
        """The text the receiver consumes, in the budget's format (or ``fmt``).

        A packet built by packing never renders longer than its budget in its own format.
        """
        fmt = fmt or self.budget.format
        if fmt not in render.FORMATS:
            raise InvalidInputError(f"unknown format {safe_repr(fmt)}")
        limit = self.budget.char_limit
        fr = render.frame(safe_text(self.task), fmt, self.budget.shape, header=header, limit=limit)
        if fr is None:
            return ""
        pieces = [
            render.piece(item, text, n, fmt, self.budget.shape, name)
            for n, (item, text, name) in enumerate(
                zip(self.items, self.texts, self.names(), strict=True), 1
            )
        ]
        return render.join(fr, pieces)

    def preservation(self) -> list[float]:
        """Per item, the share of the task's terms (present in the item) the used text kept."""
        return [
            round(query_coverage(text, self.task, full=item_text(item)), 4)
            for item, text in zip(self.items, self.texts, strict=True)
        ]

    @property
    def compression_ratio(self) -> float:
        """Used characters over full characters of the selected items (1.0: uncompressed),
        both as masked: a masked secret is not compression."""
        full = sum(len(safe_text(item_text(i))) for i in self.items)
        if full == 0:
            return 1.0
        return round(sum(len(t) for t in self.texts) / full, 4)

    @property
    def used_tokens(self) -> int:
        """Estimated tokens of the rendered packet (``ceil(used_chars / 4)``)."""
        return math.ceil(self.used_chars / CHARS_PER_TOKEN)

    def provenance(self) -> list[dict[str, Any]]:
        """Where every included piece came from: ids, kinds, sources (masked, as in the
        rendered packet), lines, scores."""
        return [
            provenance_entry(i, s, name)
            for i, s, name in zip(self.items, self.scores, self.names(), strict=True)
        ]

    def as_dict(self) -> dict[str, Any]:
        """A summary of the packet as plain data: the task, counts, the characters and tokens
        used against the budget, whether it was compressed, and each item's provenance (the
        text itself is ``render()``'s)."""
        return {
            "task": safe_text(self.task),  # as render() names it
            "n_items": len(self.items),
            "n_candidates": self.n_candidates,
            "used_chars": self.used_chars,
            "budget_chars": self.budget.char_limit,  # max_tokens may be the tighter one
            "used_tokens": self.used_tokens,
            "budget_tokens": self.budget.max_tokens,
            "shape": self.budget.shape,
            "format": self.budget.format,
            "compressed": self.compressed,
            "compression_ratio": self.compression_ratio,
            "skipped": self.skipped,
            "best_left_out": self.best_left_out,
            "provenance": self.provenance(),
            "passed_over": self.passed_over_sources(),
        }

    def passed_over_sources(self) -> list[dict[str, Any]]:
        """Where each item passed over came from: id, kind, source (masked) and lines."""
        return unscored_entries(self.passed_over)

    def to_knowledge_dict(
        self,
        *,
        id: str,  # noqa: A002 - the field name consumers expect
        project_id: str,
        target_kind: str,
        target_id: str | None = None,
        expected_output_schema: dict[str, Any] | None = None,
        factuality: Any = None,
    ) -> dict[str, Any]:
        """The packet as a knowledge-exchange record (exactly twelve keys)."""
        payload: dict[str, Any] = {
            "rendered": self.render(),
            "shape": self.budget.shape,
            "compressed": self.compressed,
            "compression_ratio": self.compression_ratio,
            "preservation": self.preservation(),
        }
        if factuality is not None:
            payload["factuality"] = factuality.as_dict()
        return {
            "id": id,
            "project_id": project_id,
            "task": safe_text(self.task),  # as render() names it
            "target_kind": target_kind,
            "target_id": target_id,
            "token_budget": self.budget.max_tokens,
            "byte_budget": self.budget.max_chars,
            "evidence_item_ids": [i.id for i in self.items],
            "constraints": [],
            "citations": [
                {"uri": name or f"substrate:{i.id}", "media_type": i.kind}
                for i, name in zip(self.items, self.names(), strict=True)
            ],
            "expected_output_schema": expected_output_schema or {},
            "payload": payload,
        }

    def __len__(self) -> int:
        return len(self.items)
