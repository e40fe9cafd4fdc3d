"""Answer from substrate evidence, or abstain when the evidence is too thin.

Only items scoring at least ``min_relevance`` (and at least a third of the best score) count
as evidence: an irrelevant item is never packed, passed to the answerer or cited, and an
abstention lists only relevant evidence.

The confidence is a heuristic estimate that the shard can answer the question, from three
signals: the best retrieval score (the index's idf-weighted query coverage times its fused
relevance), the number of distinct question terms (a long question is rarely covered by one
item, so the same coverage means more), and the largest share of question terms one sentence of
the top evidence carries. They are combined by a logistic function whose weights were fitted on
public test collections (answerable: a collection's questions asked of its own documents;
unanswerable: another domain's questions). It is not a calibrated probability for any other
shard; the command line labels it as a heuristic.

A question largely about what the shard never mentions is then held below the default bar:
when the words no item the caller may read contains carry a share ``s`` of at least a third of
the question's idf mass, the confidence is scaled by ``(1 - s)**2`` (at most 0.44). "What is
the on-call engineer's salary?" on a shard that never says "salary" is not answered by a
sentence about the on-call engineer, however well that sentence matches the rest. Below a
third, an unmentioned word is more often a typo or a filler word of a long question, and
costs nothing.

Words that only make a request ("explain", "tell me about", "how does it work") are neither
looked up nor asked of the evidence, nor counted as unmentioned (``questions.topic_text`` and
``asked_terms``): "Tell me about rollbacks" asks about rollbacks.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from substrate.bridging import relational
from substrate.context import ContextBudget, ContextPacket, pack_context
from substrate.context.compress import sentences, terms
from substrate.context.packet import item_text
from substrate.errors import InvalidInputError, require_count, require_number, require_text
from substrate.factconflict import sources_disagreeing
from substrate.functionwords import FUNCTION_WORDS
from substrate.hops import multihop
from substrate.identifiers import identifiers
from substrate.item import SubstrateItem
from substrate.markdowncode import blanked_code
from substrate.notestatus import not_in_force
from substrate.phrasal import other_spellings, respelt
from substrate.questions import (
    Frame,
    asked_as_a_person,
    asked_terms,
    frame_of,
    frame_phrases,
    frame_verb_terms,
    said_alike,
    said_by,
    states_frame,
    terms_said,
    topic_text,
    without_light_verbs,
    words_for,
)
from substrate.quotelines import CITATION, quoted_lines
from substrate.retrieval import (
    NOISE_FLOOR,
    RELATIVE_FLOOR,
    merge_scopes,
    relevance_floor,
    retrieve,
    unscored_entries,
)
from substrate.search.engine import SearchFilters, unmentioned
from substrate.secrets import masked_repr, safe_text
from substrate.secrets.hits import MASK_PATTERN
from substrate.secrets.scan import detect_and_redact, without_secrets
from substrate.successors import InForce, in_force
from substrate.telemetry import Recorder, emit

if TYPE_CHECKING:
    from substrate.store import Substrate

log = logging.getLogger(__name__)

DEFAULT_MIN_RELEVANCE = NOISE_FLOOR
# Answerability weights (logit = SCORE*top + LENGTH*ln(1+n_terms) + SENTENCE*best_share + BIAS),
# fitted by tests/bench/bench_answers.py --fit.
W_SCORE = 14.0
W_LENGTH = 2.5
W_SENTENCE = 8.2
W_BIAS = -13.7
# The share of a question's idf mass in words no readable item mentions from which the
# confidence is scaled by (1 - share)**2. On the benchmark's questions a third costs 1.4 points
# of answered answerable questions (typos, filler words) and abstains on 0.4 points more of
# the others; a quarter would cost 3.7 points.
UNMENTIONED_SHARE = 1 / 3
# How many of the best evidence items are read for the sentence signal.
SENTENCE_ITEMS = 3

CONFIDENCE_KIND = "heuristic"


@runtime_checkable
class PacketAnswerer(Protocol):
    """An answerer that reads the packet itself (its items, order and sources)."""

    def answer_packet(self, question: str, packet: ContextPacket) -> str: ...


Answerer = Callable[[str, str], str] | PacketAnswerer


def _citation_numbers(text: str | None) -> Iterator[int]:
    """Every number of every ``[n]`` or ``[n, m]`` in ``text``, in order."""
    for group in CITATION.findall(text or ""):
        yield from (int(part) for part in group.split(","))


def cited_numbers(text: str | None, n_sources: int) -> list[int]:
    """The source numbers ``[n]`` (or ``[n, m]``) cited in ``text``, in first-cited order."""
    return list(dict.fromkeys(n for n in _citation_numbers(text) if 1 <= n <= n_sources))


def citations_to_nothing(text: str | None, n_sources: int) -> list[int]:
    """The numbers ``[n]`` in ``text`` that name no source of the ``n_sources`` given."""
    return sorted({n for n in _citation_numbers(text) if not 1 <= n <= n_sources})


def _cited_first(text: str, packet: ContextPacket) -> tuple[str, ContextPacket]:
    """``text`` and ``packet`` with the sources ``text`` cites numbered first, in the
    packet's order, the others after them: an answer quoting only its second source read
    "… [2]" over a list of sources with no [1]. A number naming no source is left as it is,
    and so is code (a code span or block: ``retries: [3]``), which rewritten would say what
    its source does not. A text with a number in brackets glued to a word outside code
    (``argv[3]``, or ``days[1]``) keeps its numbering: code or a citation, it cannot be told.
    """
    prose = blanked_code(text)  # (same offsets)
    if _GLUED_BRACKETS.search(prose):
        return text, packet
    cited = sorted(cited_numbers(prose, len(packet)))
    order = cited + [n for n in range(1, len(packet) + 1) if n not in cited]
    if order == sorted(order):
        return text, packet
    new = {old: at for at, old in enumerate(order, 1)}

    def renumbered(marker: re.Match[str]) -> str:
        numbers = (int(part) for part in marker[1].split(","))
        return "[" + ", ".join(str(new.get(n, n)) for n in numbers) + "]"

    def reordered(values: list[Any]) -> list[Any]:
        return [values[n - 1] for n in order] if len(values) == len(order) else values

    moved = dataclasses.replace(
        packet,
        items=reordered(packet.items),
        scores=reordered(packet.scores),
        texts=reordered(packet.texts),
        sources=reordered(packet.sources),
    )
    pieces, at = [], 0
    for marker in CITATION.finditer(prose):  # markers outside code, at their places in text
        pieces += [text[at : marker.start()], renumbered(marker)]
        at = marker.end()
    return "".join([*pieces, text[at:]]), moved


_GLUED_BRACKETS = re.compile(r"\w\[\d")


def strip_citations(text: str) -> str:
    """``text`` without its ``[n]`` citation markers."""
    return _SPACE_BEFORE_STOP.sub(r"\1", CITATION.sub("", text)).strip()


# White space before punctuation that ends a word (a citation taken out leaves "said ."), from
# the start of its run only: tried from each blank of a long run, the search read the rest of
# the run each time. Not before one that opens a word (":rocket:", "on .NET").
_SPACE_BEFORE_STOP = re.compile(r"(?<!\s)\s++([.,;:!?])(?![^\s\"'`)\]}.,;:!?*_])")
_MASK = re.compile(MASK_PATTERN)


@dataclass
class Answer:
    """A cited answer or an abstention, the evidence it rests on and a heuristic confidence."""

    __repr__ = masked_repr  # a secret typed in is not printed back

    question: str
    answer: str | None
    abstained: bool
    confidence: float
    context: ContextPacket
    note: str = ""
    evidence: list[SubstrateItem] = field(default_factory=list)
    # credentials the answerer stated (masked in ``answer``): the evidence holds none, so
    # they came from elsewhere, and a mask in a quote cannot show they match a stored one
    stated_secrets: int = 0
    # evidence passed over as replaced by a newer note (``supersession``)
    passed_over: list[SubstrateItem] = field(default_factory=list)

    def citations(self) -> list[dict[str, Any]]:
        """The sources of the packet the answer was given, numbered from 1 in this order."""
        return self.context.provenance()

    def cited(self) -> list[int]:
        """The sources the answer cites with its ``[n]`` markers (none when it has none)."""
        return cited_numbers(self.answer, len(self.context))

    def quoted_lines(self) -> dict[int, list[tuple[int, int]]]:
        """For each source the answer cites, the line ranges of it the answer quotes, where
        they could be found (``substrate.quotelines``); the citation's own lines are its
        item's, a whole section."""
        if self.answer is None:
            return {}
        return quoted_lines(self.answer, self.context.items)

    def as_dict(self) -> dict[str, Any]:
        """The answer as plain JSON-ready data: the question (secrets masked), answer,
        abstained, confidence, note and every citation with what the answer quotes of it."""
        cited = set(self.cited())
        quoted = self.quoted_lines()
        citations = [
            {
                "n": n,
                **entry,
                "cited": n in cited,
                "quoted_lines": quoted.get(n, []),
                "not_in_force": not_in_force(item),
            }
            for (n, entry), item in zip(
                enumerate(self.citations(), 1), self.context.items, strict=True
            )
        ]
        return {
            "question": safe_text(self.question),  # a secret typed in is not given back
            "answer": self.answer,
            "abstained": self.abstained,
            "confidence": round(self.confidence, 4),
            "confidence_kind": CONFIDENCE_KIND,
            "note": self.note,
            "citations": citations,
            "stated_secrets": self.stated_secrets,
            "masked_quotes": self.masked_quotes(),
            "passed_over": self.passed_over_sources(),
            "disagreements": [list(pair) for pair in self.disagreements()],
        }

    def disagreements(self) -> list[tuple[int, int]]:
        """The pairs of sources the answer quotes saying the same but for one value ("...
        host is db-stage-1." [1], "... host is db-stage-2." [2]): which is right, the
        answer cannot tell (``substrate.disagreement``); and a quoted sentence beside a graph's
        or a record's fact giving another value (``substrate.factconflict``)."""
        return sources_disagreeing(self.answer or "", list(self.context.items))

    def masked_quotes(self) -> int:
        """How many secrets the answer shows masked as its sources were stored: their values
        never were, so a question asking for one is answered by where it lives (the source
        file), not by the mask. Masks the answerer wrote itself (``stated_secrets``) are not
        counted."""
        if self.answer is None:
            return 0
        return max(0, len(_MASK.findall(self.answer)) - self.stated_secrets)

    def changed_sources(self) -> list[dict[str, Any]]:
        """The cited sources whose file changed or moved since it was ingested: the answer
        quotes it as it was then. Each: the citation's ``n`` and ``signal`` ("changed" or
        "moved"). A ``stat`` per cited file, and a hash where its size or time moved (so
        asked for apart from ``as_dict``: a relative path is looked up from here)."""
        from substrate.freshness import changed_since_ingest

        cited = {n: self.context.items[n - 1] for n in self.cited()}
        changed = changed_since_ingest(cited.values())
        return [{"n": n, "signal": changed[i.id]} for n, i in cited.items() if i.id in changed]

    def names_asked(self) -> list[str]:
        """The identifiers the question gives ("ADR-002"): a note titled by one is evidence
        though a newer note replaced it (the question asks of it)."""
        return identifiers(self.question)

    def cited_not_in_force(self) -> list[tuple[int, str]]:
        """The cited sources whose note says it is not in force, each with the status it
        gives itself ("Proposed", "Deprecated"): the answer quotes what may not be done."""
        found = ((n, not_in_force(self.context.items[n - 1])) for n in self.cited())
        return [(n, status) for n, status in found if status is not None]

    def passed_over_sources(self) -> list[dict[str, Any]]:
        """Where each item passed over came from: id, kind, source (masked) and lines."""
        return unscored_entries(self.passed_over)


def unmentioned_in(
    substrate: Substrate, question: str, readable: SearchFilters
) -> tuple[frozenset[str], float]:
    """The words of ``question``'s topic that no item ``readable`` lets through mentions,
    and their share of its idf mass (``search.engine.unmentioned``)."""
    topic = without_light_verbs(topic_text(question))
    # "es", "el", "del": said by every Spanish note, they would count as mentioned
    topic = " ".join(w for w in topic.split() if w.casefold().strip(_MARKS) not in FUNCTION_WORDS)
    # a frame's verb need not be said ("written" of "What language is X written in?", where
    # the notes say "language: Go"): no note saying it is nothing unmentioned
    verbs = frame_verb_terms(frame_of(question))
    if verbs:
        topic = " ".join(w for w in topic.split() if not (said := terms(w)) or not said <= verbs)
    return unmentioned(substrate, topic, filters=readable, alike=_alike_in(topic))


_MARKS = "¿?¡!.,;:\"'«»()"


def _alike_in(text: str) -> dict[str, frozenset[str]]:
    """Each term of ``text`` with the terms that say it in other words: its other forms
    (``said_alike``), and its verb and particle written the other way ("roll back" and
    "rollback": ``phrasal.other_spellings``)."""
    alike = said_alike()
    by = said_by()  # ("cost" is said by "bought" and "paid")
    alike = {t: alike.get(t, frozenset()) | by.get(t, frozenset()) for t in {*alike, *by}}
    spelt = other_spellings(text)
    return {**alike, **{t: alike.get(t, frozenset()) | other for t, other in spelt.items()}}


def unmentioned_weight(unseen_share: float) -> float:
    """How much a confidence or score still counts when ``unseen_share`` of the question is
    about what the shard never mentions: one word in common ("the parking policy" and a note
    of the refund policy) is not an answer."""
    if unseen_share < UNMENTIONED_SHARE:
        return 1.0
    return (1.0 - min(unseen_share, 1.0)) ** 2


def answerability(
    question: str,
    top_score: float,
    evidence: Sequence[SubstrateItem],
    *,
    unseen_share: float = 0.0,
) -> float:
    """Heuristic confidence (0..1) that ``evidence`` answers ``question`` (see module doc).

    Args:
        question: the question.
        top_score: the best retrieval score among the evidence.
        evidence: the evidence items, most relevant first.
        unseen_share: the share of the question's idf mass in words no readable item
            mentions (``search.engine.unmentioned``).
    """
    wanted = asked_terms(question)
    if not wanted or top_score <= 0 or not evidence:
        return 0.0
    # "long" and "take" of "How long does X take?" are said by a sentence giving a duration,
    # "many" by one giving a number
    frame = frame_of(question, wanted)
    best_share = max(
        (len(terms_said(sentence, wanted, frame)) for sentence in _top_sentences(evidence)),
        default=0,
    ) / len(wanted)
    z = (
        W_SCORE * min(top_score, 1.0)
        + W_LENGTH * math.log1p(len(wanted))
        + W_SENTENCE * best_share
        + W_BIAS
    )
    confidence = 1.0 / (1.0 + math.exp(-z)) * unmentioned_weight(unseen_share)
    return round(confidence, 4)


REPLACED_UNSAID = (
    "the notes that matched best were replaced by newer ones, which do not say it; "
    "the answer found rests on a weaker match"
)


def _answers_for_the_replaced(text: str, evidence: _Gathered) -> bool:
    """Whether the answer ``text`` cites no note in force that replaced one passed over, only
    sources that matched the question less than a replaced note the search found did: the
    question was of what is decided, the note deciding it now does not say it in the
    question's words ("What database does the ledger use?" of "Move the ledger to
    CockroachDB"), and the answer quotes a side match ("If the database connection pool is
    exhausted, ..."). A replaced note a link led to (a chain's hop) is no match. A source
    matching almost as well may have answered rightly: the abstention lists it as a nearest
    source."""
    packet, kept = evidence.packet, evidence.in_force
    cited = cited_numbers(text, len(packet))
    if not evidence.replaced_top or not cited:
        return False
    if any(packet.items[n - 1].id in kept.successors for n in cited):
        return False
    return max(packet.scores[n - 1] for n in cited) < evidence.replaced_top


class _Gathered(NamedTuple):
    top: float  # the best score
    items: list[SubstrateItem]
    ranked_evidence: list[SubstrateItem]  # the items most relevant first
    packet: ContextPacket  # for the answerer
    in_force: InForce  # what was passed over as replaced, and what replaced it
    replaced_top: float  # the best score of a replaced note the search found (0.0: none)


def _gathered(
    substrate: Substrate,
    lookup: str,
    *,
    question: str,
    hops: int,
    budget: ContextBudget,
    compress: bool,
    scopes: frozenset[str] | None,
    min_relevance: float,
    telemetry: Recorder | None,
) -> _Gathered:
    """The evidence ``lookup`` finds for ``question``, with the notes in force
    (``successors``)."""
    if hops > 1:
        chain = multihop(
            substrate,
            lookup,
            max_hops=hops,
            min_score=min_relevance,
            min_relative=RELATIVE_FLOOR,
            scopes=scopes,
            telemetry=telemetry,
        )
        hits = list(zip(chain.items, [step.score for step in chain.steps], strict=True))
        seeds = [(step.item, step.score) for step in chain.steps if step.depth == 0]
        if not relational(question):
            # it names what it asks about: the search's best come first, then the chain's
            # hops (its seeds are the search's first three: chunks of one long page matching
            # every word may take them all, and leave out the note saying it in a sentence)
            # (not recorded: a call records one retrieval, the chain, then its answer)
            found = _searched(substrate, lookup, budget, scopes, min_relevance, None)
            first = {item.id for item, _ in found}
            hits = found + [(item, score) for item, score in hits if item.id not in first]
            seeds = found + [(item, score) for item, score in seeds if item.id not in first]
    else:
        hits = seeds = _searched(substrate, lookup, budget, scopes, min_relevance, telemetry)
    items, scores = [item for item, _ in hits], [score for _, score in hits]
    top = max((s for _, s in seeds), default=0.0)
    # a note whose successor is in the evidence too is no answer's source: the successor is,
    # brought in when the search did not find it
    found_ids = {item.id for item in items}
    kept = in_force(
        substrate, question, items, scores, scopes=scopes, asked_of=identifiers(question)
    )
    items, scores = kept.items, kept.scores
    gone = {item.id for item in kept.passed_over}
    brought = [(i, s) for i, s in zip(items, scores, strict=True) if i.id not in found_ids]
    current = [(i, s) for i, s in seeds if i.id not in gone] + brought
    current = current or list(zip(items, scores, strict=True))
    ranked_evidence = [i for i, _ in sorted(current, key=lambda pair: -pair[1])]
    frame = frame_of(question)  # a sentence saying what it asks keeps its place in a summary
    packet = pack_context(
        question,
        items,
        scores,
        budget=budget,
        compress=compress,
        telemetry=telemetry,
        also_relevant=(lambda sentence: states_frame(sentence, frame)) if frame else None,
    )
    replaced_top = max((s for i, s in seeds if i.id in kept.replaced), default=0.0)
    return _Gathered(top, items, ranked_evidence, packet, kept, replaced_top)


def _searched(
    substrate: Substrate,
    lookup: str,
    budget: ContextBudget,
    scopes: frozenset[str] | None,
    min_relevance: float,
    telemetry: Recorder | None,
) -> list[tuple[SubstrateItem, float]]:
    """What one retrieval finds for ``lookup``, above the relevance floor, best first whatever
    the kind: the retrieval takes each kind's best in turn, and a packet filled in that order
    left a note's sentence out for records scoring less."""
    found = retrieve(
        substrate,
        lookup,
        k=max(budget.max_items, 6),
        scopes=scopes,
        min_score=min_relevance,
        telemetry=telemetry,
    )
    floor = relevance_floor(max(found.scores, default=0.0), min_relevance)
    best_first = sorted(zip(found.items, found.scores, strict=True), key=lambda hit: -hit[1])
    return [(item, score) for item, score in best_first if score >= floor]


def _as_the_shard_says(substrate: Substrate, lookup: str, readable: SearchFilters) -> str:
    """``lookup`` with the other forms of its words that no readable item uses added where
    items use them (``said_alike``): "Who leads the team ...?" looks up "led" too when the
    notes say "is led by", and the next hop searches for it with the names found."""
    alike = _alike_in(lookup)
    forms = {term: alike[term] for term in terms(lookup) & alike.keys()}
    if not forms:
        return lookup
    every = " ".join([lookup, *(form for alike_forms in forms.values() for form in alike_forms)])
    unseen, _ = unmentioned(substrate, every, filters=readable)  # one look at the index
    # "roll back" is looked up as "rollback" where the notes write it so: added beside it,
    # two words no note says would weigh down the one they do
    lookup = respelt(lookup, unseen)
    used = {form for term in forms.keys() & unseen for form in forms[term] - unseen}
    return " ".join([lookup, *sorted(used - terms(lookup))])


_WORDS = re.compile(r"[^\W_][\w'’-]*")


def _said_of_another(
    question: str, unseen: frozenset[str], texts: Sequence[str]
) -> tuple[str, str] | None:
    """A word of ``question`` no readable item mentions, with the noun it qualifies, when the
    evidence ``texts`` qualify that noun by another word ("payments" of "the payments outage",
    where the evidence tells of "the checkout outage"); None when there is none. Only of a
    question of a few words, as one asks: a long text (a paper's abstract) asked as a question
    holds words no item uses that qualify nothing asked."""
    if not asked_as_a_person(question):
        return None
    words = _WORDS.findall(question)
    for word, noun in zip(words, words[1:], strict=False):
        said = terms(word)
        if not said or not said <= unseen or not terms(noun) or terms(noun) & unseen:
            continue
        before_noun = re.compile(rf"([^\W_][\w'’-]*)\s+{re.escape(noun)}\b", re.IGNORECASE)
        for text in texts:
            for m in before_noun.finditer(text):
                other = terms(m.group(1))
                if other and not other & said:
                    return word, noun
    return None


# A hyphenated name as a question names a thing: after "the", and ending the question or
# before the kind of thing it is ("the zebra-service?", "the fraud-scorer service"); not a
# word qualifying another ("cross-team changes", "the max-retry limit", "a sev-2 incident")
_HYPHENATED = re.compile(
    r"(?i:\bthe)\s+(?P<name>[^\W_]+(?:-[^\W_]+)+)(?=\s*(?:[?.!,;]|$|\s(?i:and|or|in|on|for|to"
    r"|of|at|with|from|is|are|was|were|service|api|app|worker|job|project|repo|repository"
    r"|library|package|tool|system|server|cluster|database|queue|bucket|pipeline|component"
    r"|team|bot|site|platform|\w+ed)\b))"
)
_ASKING = re.compile(r"\s*(?i:who|whom|whose|what|which|where|when|why|how)\b")


def _unknown_name(question: str, unseen: frozenset[str]) -> str | None:
    """A hyphenated name of ``question`` that no readable item mentions, as a part of it is
    a word none uses ("zebra" of "the zebra-service"); None when there is none. Its other parts
    ("service") match well enough for an answer about something else, where the name is what
    the question is about. Only of a question of a few words, as one asks: a claim checked
    against papers ("4-PBA treatment decreases ...") is answered from what its other words
    match, the papers naming the compound otherwise."""
    asking = question.rstrip().endswith("?") or _ASKING.match(question)
    if not (asking and asked_as_a_person(question)):
        return None
    for m in _HYPHENATED.finditer(question):
        if any((said := terms(part)) and said <= unseen for part in m["name"].split("-")):
            return m["name"]
    return None


def _found_nothing(question: str, answerer: object) -> str:
    """Why the answerer gave no answer: for one that quotes only sentences about the names a
    question asks of (``asked_of``), what it was asked of ("Tokyo")."""
    asked_of = getattr(answerer, "asked_of", None)
    names = words_for(question, asked_of(question)) if asked_of is not None else []
    if names:
        asked_of = " ".join(names)
        return (
            f"no readable item found says what is asked of '{asked_of}' -- escalate rather "
            "than guess"
        )
    return "the answerer found no answer in the evidence"


def _unmentioned_note(
    substrate: Substrate, question: str, unseen: frozenset[str], filters: SearchFilters
) -> str:
    """What an abstention adds when the question names what no readable item mentions: the
    words, and the words readable items spell alike ("migraton": "migration")."""
    from substrate.search.engine import spelling_suggestions

    words = words_for(question, unseen)
    if not words:
        return ""
    meant = spelling_suggestions(substrate, " ".join(words), filters=filters)
    shown = [f"'{w}' (did you mean '{meant[w]}'?)" if w in meant else f"'{w}'" for w in words]
    return "; no readable item mentions " + ", ".join(shown)


def _states(evidence: Sequence[SubstrateItem], frame: Frame) -> bool:
    """Whether a sentence of ``evidence`` states what ``frame`` asks (a number...)."""
    return any(states_frame(s, frame) for item in evidence for s in sentences(item_text(item)))


def _top_sentences(evidence: Sequence[SubstrateItem]) -> Iterator[str]:
    """The sentences of the evidence ``answerability`` reads: those of the top items."""
    for item in evidence[:SENTENCE_ITEMS]:
        yield from sentences(item_text(item))


def answer_text(reply: object) -> str:
    """What an answerer returned, stripped: "" for None (it gave nothing).

    Raises:
        InvalidInputError: the answerer returned something other than text.
    """
    if reply is None:
        return ""
    if not isinstance(reply, str):
        raise InvalidInputError(f"the answerer must return text, not {type(reply).__name__}")
    return reply.strip()


def answer_from_substrate(
    substrate: Substrate,
    question: str,
    answerer: Answerer,
    *,
    budget: ContextBudget | None = None,
    hops: int = 1,
    min_evidence: int = 1,
    min_confidence: float = 0.5,
    compress: bool = True,
    scope: str | None = None,
    scopes: Iterable[str] | None = None,
    min_relevance: float = DEFAULT_MIN_RELEVANCE,
    telemetry: Recorder | None = None,
) -> Answer:
    """Answer ``question`` from ``substrate`` through ``answerer``, or abstain.

    Args:
        substrate: the shard holding the evidence.
        question: what to answer.
        answerer: ``(question, context_text) -> answer``, or an object with
            ``answer_packet(question, packet)``; called only when the evidence clears the bar.
        budget: the context budget for the answerer (default 2000 characters).
        hops: 1 (or 0) for a single retrieval; more for a multi-hop chain of that many hops.
        min_evidence: fewest relevant items needed to attempt an answer.
        min_confidence: heuristic confidence (see ``answerability``) below which the answer is
            withheld. The reference defaulted to 0.1 on a different scale; 0.5 is the decision
            boundary of this one.
        compress: compress the context so more sources fit.
        scope: restrict to one access scope.
        scopes: the scopes the caller may read (None: all).
        min_relevance: retrieval-score floor for evidence.
        telemetry: an optional recorder.
    """
    require_text(question, "a question")
    if not (callable(answerer) or isinstance(answerer, PacketAnswerer)):
        raise InvalidInputError(
            "answerer must be a function (question, context) -> answer, or an object with "
            f"answer_packet (ExtractiveAnswerer()), not {type(answerer).__name__}"
        )
    require_count(hops, "hops")
    require_count(min_evidence, "min_evidence")
    require_number(min_confidence, "min_confidence")
    require_number(min_relevance, "min_relevance")
    budget = ContextBudget.given(budget)
    allowed = merge_scopes(scope, scopes)
    asked = question  # the question as given is what the answer reports (masked)
    # nothing stored holds a secret: one pasted into the question would only dilute it
    question = without_secrets(question)
    gather = functools.partial(
        _gathered,
        substrate,
        question=question,
        hops=hops,
        budget=budget,
        compress=compress,
        scopes=allowed,
        min_relevance=min_relevance,
        telemetry=telemetry,
    )
    # "Please explain refunds" and "How long does a refund take?" look up refunds...
    topic = topic_text(question)
    readable = SearchFilters(scopes=allowed)
    lookup = _as_the_shard_says(substrate, topic if terms(topic) else question, readable)
    gathered = gather(lookup)
    top, evidence, ranked_evidence, packet, kept, _ = gathered
    frame = frame_of(question)
    # the best items must say what the frame asks; any a chain packs, for a question through
    # what it describes: the answer lies a hop from what it names ("the city of the
    # commander of INC-22")
    chained = hops > 1 and relational(question)

    def says_frame() -> bool:
        return _states(packet.items if chained else ranked_evidence[:SENTENCE_ITEMS], frame)

    unstated = bool(frame) and not says_frame()
    if unstated:  # ... unless nothing found says how long (how many...): then it is looked
        # up as asked, and if nothing says it still, the question is not answered
        gathered = gather(question)
        top, evidence, ranked_evidence, packet, kept, _ = gathered
        unstated = not says_frame()
    unseen, unseen_share = unmentioned_in(substrate, question, readable)
    confidence = answerability(question, top, ranked_evidence, unseen_share=unseen_share)
    text: str | None = None
    n_cited = stated = 0
    weak = len(evidence) < min_evidence or confidence < min_confidence
    # "the payments outage" where the evidence tells of the checkout outage, and nothing
    # readable of payments: the evidence is about another one
    otherwise = _said_of_another(question, unseen, packet.texts) if unseen else None
    unknown = _unknown_name(question, unseen) if unseen else None
    if weak or not len(packet) or unstated or otherwise or unknown:
        matching = f"{len(evidence)} matching item(s)"
        if not evidence and kept.passed_over:  # (each passed over is named beside the note)
            matching = f"{len(kept.passed_over)} matching item(s), each replaced by a newer one,"
        note = (
            f"abstained: {matching} at confidence {confidence:.2f} "
            f"(needs >= {min_evidence} items and confidence >= {min_confidence}) "
            "-- escalate rather than guess"
        )
        if not weak and unstated:
            how = " or ".join(frame_phrases(question))
            note = f"abstained: no readable item found says {how} -- escalate rather than guess"
        elif not weak and not len(packet):
            note = "abstained: no relevant item fits the context budget -- raise the budget"
        elif not weak and unknown:  # (with the names readable items spell alike)
            told = _unmentioned_note(substrate, question, unseen, readable).removeprefix("; ")
            told = told or f"no readable item mentions {unknown!r}"
            note = f"abstained: {told} -- escalate rather than guess"
        elif not weak and otherwise:
            word, noun = otherwise
            note = (
                f"abstained: no readable item mentions {word!r}; the evidence tells of another "
                f"{noun} -- escalate rather than guess"
            )
        elif unseen and (not evidence or unseen_share >= UNMENTIONED_SHARE):
            # what held the evidence back, or what nothing matched (a typo?)
            note += _unmentioned_note(substrate, question, unseen, readable)
    else:
        if isinstance(answerer, PacketAnswerer):
            text = answerer.answer_packet(question, packet)
        else:
            text = answerer(question, packet.render())
        # the evidence holds no secret, but an answerer may add one (from its own context)
        found, masked = detect_and_redact(answer_text(text))
        stated, text = len(found.findings), masked or None
        if text and _answers_for_the_replaced(text, gathered):
            text, note = None, f"abstained: {REPLACED_UNSAID} -- escalate rather than guess"
        elif text:
            text, packet = _cited_first(text, packet)
            n_cited = len(cited_numbers(text, len(packet)))  # what Answer.cited() gives
            note = f"answered from {len(packet)} source(s), citing {n_cited}"
            if not n_cited:  # (no "[n]" in the answer: which source says it is not told)
                note = f"answered from {len(packet)} source(s), citing none of them"
            for one, other in sources_disagreeing(text, list(packet.items)):
                note += f"; [{one}] and [{other}] disagree"
            dangling = citations_to_nothing(text, len(packet))
            if dangling:
                note += "; " + ", ".join(f"[{n}]" for n in dangling) + " names no source"
        else:
            note = "abstained: " + _found_nothing(question, answerer)
    abstained = text is None
    result = Answer(
        question=asked,
        answer=text,
        abstained=abstained,
        confidence=confidence,
        context=packet,
        note=note,
        evidence=list(evidence) if abstained else list(packet.items),
        stated_secrets=stated,
        passed_over=kept.passed_over,
    )
    emit(
        telemetry,
        "reason",
        features={"action": "answer", "n_evidence": len(evidence)},
        choice="abstain" if abstained else "answer",
        outcome={"confidence": confidence, "n_cited": n_cited},
    )
    return result
