"""The built-in answerer: quotes the sentences of a context packet that answer a question,
each cited as ``[n]``, or none when none does. It needs no model.

Most of this module reads what a question asks for (a relation, a holder, an event's time, a
procedure's steps, a record's status) so that the sentence quoted says that, not only the
question's words."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from substrate.alternatives import names_other_alternative
from substrate.asked import WH_WORDS, Asked, alike, read_question, subject_of
from substrate.bridging import (
    Quotable,
    bridged_pair,
    clause_object_terms,
    outer_terms,
    relational,
    says_the_clause,
)
from substrate.context import ContextPacket
from substrate.context.compress import (
    ends_sentence,
    entry_of,
    is_heading,
    is_step,
    is_synopsis,
    numbered_lists,
    opens_as_an_entry,
    sentences,
    stretch_saying,
    terms,
    truncate,
)
from substrate.context.packet import used_text
from substrate.designators import names_another
from substrate.disagreement import differ_in_one_value
from substrate.identifiers import identifiers
from substrate.item import SubstrateItem
from substrate.kindnames import names_a_longer_one
from substrate.linktext import as_shown
from substrate.negated import other_side
from substrate.nolonger import no_longer_so, of_the_past
from substrate.notestatus import status_word
from substrate.pronouns import THING_PRONOUN, pronoun_for
from substrate.questions import (
    Frame,
    asked_as_a_person,
    asked_terms,
    frame_of,
    identifiers_in_place,
    named_terms,
    states_frame,
    states_moment,
    terms_said,
)
from substrate.quotelines import CITATION
from substrate.retrieval import heading_path, innermost_heading
from substrate.years import leaves_out

_WORD = re.compile(r"\w+")


def _unbracketed(quote: str) -> str:
    """A quoted sentence with its own "[2]" (a reference of the source's) written "(2)": in
    the answer, brackets are the answer's citations, and would cite the packet's source 2."""
    return CITATION.sub(r"(\1)", quote)


@dataclass
class ExtractiveAnswerer:
    """Quotes the evidence sentences that best answer the question, each cited as ``[n]``.

    A sentence's score is the share of the question's terms it carries, each term weighted by
    how rare it is among the packet's sentences (a term every sentence has says little), plus a
    small preference for sentences of higher-ranked sources. A sentence under a heading
    carries the heading's words too when with them it has every term of the question ("Open a
    ticket" under "Refund policy > How to file" answers "How do I file a refund?").
    Between sentences that score alike, the one using more of the question's own words as
    written wins ("deploys" over "deployed", which share a stem), then the first.

    Attributes:
        max_sentences: the most sentences quoted.
        max_chars: the most characters of the answer.
        min_terms: the fewest question terms a quoted sentence must carry (fewer when the
            question has fewer terms).
    """

    max_sentences: int = 3
    max_chars: int = 600
    min_terms: int = 2
    label: str = "extractive"

    def answer_packet(self, question: str, packet: ContextPacket) -> str:
        asked = read_question(question, packet)
        if asked is None:
            return ""
        candidates = _candidates(asked, packet)
        if asked.moment:
            candidates = _saying_when(candidates)
        if not candidates:
            return ""
        scored = _scored(asked, candidates, self.min_terms)
        chosen, picked, covered = self._choose(asked, candidates, scored)
        if (
            chosen
            and asked.steps
            and _asks_for_the_list(asked.topic, candidates[picked[0]], packet)
        ):
            chosen = self._with_all_steps(chosen, picked, candidates, packet)
        elif self.max_sentences > 1:
            # a question through what it describes: one sentence names it, another answers
            pair = [
                candidates[pos]
                for pos in bridged_pair(question, candidates, packet, asked.frame) or ()
            ]
            quotes = [_quoted(c, asked) for c in pair]
            says = set().union(*(c.have | terms(c.heading) for c in pair))
            if quotes and asked.subject <= says and len(_joined(quotes)) <= self.max_chars:
                chosen, covered = quotes, says
        # each sentence speaks of a name asked of; together they must speak of them all, and
        # of what a clause describes ("the team that owns the gizmo service")
        if not asked.subject <= covered or _only_the_description(question, asked.frame, covered):
            return ""
        if not says_the_clause(clause_object_terms(question) & asked.wanted, covered):
            return ""
        if _leaves_out_an_identifier(question, chosen, covered):
            return ""
        if any(names_a_longer_one(one, other) for one in chosen for other in chosen):
            return ""  # "owned by the Media team" beside what the Media Ops team does
        return _joined(chosen)

    def _choose(
        self, asked: Asked, candidates: list[Quotable], scored: list[_Scored]
    ) -> tuple[list[str], list[int], set[str]]:
        """The quotes of the best candidates, best first, each adding a question term the
        others do not carry (or a rival's value), within ``max_sentences`` and ``max_chars``;
        with the candidate each is of, and the question terms they carry together."""
        frame = asked.frame
        chosen: list[str] = []
        picked: list[int] = []  # the candidate each quote is of
        said_already: set[str] = set()
        covered: set[str] = set()
        sources: set[int] = set()
        best: tuple[frozenset[str], float, int] | None = None
        best_shown = ""  # the best's sentence, as a reader sees it
        kind_named = False  # the best names the kind of value asked ("Port: 8080")
        completed = {pos for pos, c in enumerate(candidates) if c.said != c.sentence.lower()}
        used = 0
        for _, verbatim, pos, n, _, have, share in scored:
            if len(chosen) >= self.max_sentences:
                break
            # another source answering "how many" as fully as the best may give another
            # value: both are quoted, so that the reader sees the sources disagree; and where
            # no number is asked, a sentence saying as much as the best is another fact of the
            # kind asked for, of the same source ("Kenji manages Ana." beside "Kenji manages
            # Marco.") or an entry of another heading ("Luca Rossi: Based in Milan.")
            shown = as_shown(candidates[pos].quote)
            if frame:
                rival = best is not None and best[:2] == (have, share) and n not in sources
                # one whose number only may be of the kind asked is no rival of one naming it
                rival = rival and (not kind_named or _names_the_kind(candidates[pos], frame))
                # one source saying it twice with two values (a merge left unresolved)
                rival = rival or (
                    best is not None
                    and best[:2] == (have, share)
                    and differ_in_one_value(best_shown, shown)
                )
            else:  # (as close to the question's words as the best, and by its own words:
                # under a heading that completes the question, every sentence would do)
                entry = candidates[pos].quote != candidates[pos].sentence  # with its heading
                rival = best == (have, share, verbatim) and (n in sources or entry)
                rival = rival and pos not in completed
                # another source saying the same but for one value ("... is db-stage-1."
                # beside "... is db-stage-2."): both are quoted, as the sources disagree
                rival = rival or (
                    best is not None
                    and best[:2] == (have, share)
                    and n not in sources
                    and differ_in_one_value(best_shown, shown)
                )
            if chosen and have <= covered and not rival:
                continue  # adds no question term the answer does not already carry
            if " ".join(shown.split()) in said_already:
                continue  # a copy in another source says nothing new, rival or not
            quote = _quoted(candidates[pos], asked)
            gap = len(_gap(chosen[-1])) if chosen else 0
            if used + gap + len(quote) > self.max_chars:
                continue
            chosen.append(quote)
            picked.append(pos)
            said_already.add(" ".join(shown.split()))
            covered |= have
            sources.add(n)
            if best is None:
                best, best_shown = (have, share, verbatim), shown
                kind_named = _names_the_kind(candidates[pos], frame)
            used += gap + len(quote)
        return chosen, picked, covered

    def _with_all_steps(
        self,
        chosen: list[str],
        picked: list[int],
        candidates: Sequence[Quotable],
        packet: ContextPacket,
    ) -> list[str]:
        """``chosen``, its first quote being a step of a numbered list, with that quote the
        whole list (the others of its steps dropped); a list too long for the answer is cut
        after the steps that fit, and says so with "…"."""
        n, first = candidates[picked[0]][:2]
        # the list it is a step of: a step two lists share ("1. Log in.") by which one it is
        seen = sum(1 for c in candidates[: picked[0]] if c.n == n and c.sentence == first)
        lists = [run for run in numbered_lists(packet.texts[n - 1]) if first in run]
        if not lists:  # the packet's budget cut the item to the step: its whole list
            whole = used_text(packet.items[n - 1], "", packet.budget.shape)
            lists = [run for run in numbered_lists(whole) if first in run]
        steps = lists[seen] if seen < len(lists) else []
        if len(steps) < 2:
            return chosen
        rest = [
            q
            for q, pos in zip(chosen[1:], picked[1:], strict=True)
            if not (candidates[pos].n == n and candidates[pos].sentence in steps)
        ]
        room = self.max_chars - sum(len(q) + 1 for q in rest) - len(f" … [{n}]")
        kept = " ".join(as_shown(step) for step in steps)
        while len(kept) > room and len(steps) > 1:
            steps = steps[:-1]
            kept = " ".join(as_shown(step) for step in steps) + " …"
        if len(steps) < 2 or len(kept) > room:
            return chosen
        return [_unbracketed(kept) + f" [{n}]", *rest]

    def asked_of(self, question: str) -> frozenset[str]:
        """The names ``question`` asks something of (``subject_of``)."""
        wanted = asked_terms(question)
        frame = frame_of(question, wanted)
        return subject_of(question, wanted - frame.keys(), bool(frame))

    def __call__(self, question: str, context: str) -> str:
        """Plain-text form: quote from ``context`` as if it were one source, ``[1]``."""
        packet = ContextPacket(task=question, items=[SubstrateItem("context", context)])
        return self.answer_packet(question, packet)


# A sentence that opens as an example: what it gives is not the value asked for
_AN_EXAMPLE = re.compile(r"\W*(?:for\s+(?:example|instance)|e\.\s?g\.|say,)", re.IGNORECASE)
# How a sentence gives a reason or a purpose: "because ...", "so that ...", "to avoid ...",
# "..., which means ...", "Reason: ..."
_GIVES_A_REASON = re.compile(
    r"\b(?:because|since|as\s+a\s+result|due\s+to|owing\s+to|thanks\s+to|so\s+that|so\s+as\s+to|"
    r"in\s+order\s+to|to\s+(?:ensure|avoid|prevent|keep|make\s+sure|protect|reduce|limit|allow|"
    r"enable|meet|comply|satisfy|catch|stop)|for\s+the\s+sake\s+of|therefore|hence|thus|"
    r"which\s+(?:means|is\s+why)|that\s+is\s+why|this\s+is\s+why|caused\s+by|causes?|"
    r"leads?\s+to|results?\s+(?:in|from)|reasons?|rationale|motivation|why|explains?|"
    r"required\s+by|mandated\s+by|worth|too\s+(?:slow|costly|expensive|complex|risky|hard|big|"
    r"small|few|many|much|little)|costs?\s+(?:more|less)|cheaper|faster|slower|simpler|safer|"
    r"better|worse)\b"
    # a decision, then its grounds after a colon: "We rejected it: maintaining C costs ..."
    r"|\b(?:rejected|chose|chosen|decided|picked|dropped|moved|switched|adopted)\b[^.:]*:\s",
    re.IGNORECASE,
)


def _saying_when(candidates: list[Quotable]) -> list[Quotable]:
    """Of ``candidates`` to a question asking when, those saying when (a sentence saying no
    time, "Install it with ...", does not answer it); none when they say less of the question
    than one that does not: "When does the design workshop start?" is not answered by "The
    onboarding workshop starts in March." because the design workshop's sentence gives no
    time."""
    timed = [c for c in candidates if states_moment(f"{c.heading} {c.sentence}")]
    if not timed or max(len(c.have) for c in timed) < max(len(c.have) for c in candidates):
        return []
    return timed


def _leaves_out_an_identifier(question: str, chosen: list[str], covered: set[str]) -> bool:
    """Whether the quotes say nothing of an identifier with a digit the question names
    ("INC-101", "ADR-2"), neither in their words nor in the headings over them: "Who leads
    the team that owns the service that had incident INC-101?" answered by another team's
    lead, the chain from the incident to its team being one the quotes do not show."""
    if not question.rstrip().endswith("?"):  # a claim to find evidence on: its passage
        return False  # may speak of one of its names alone
    said = covered | terms(" ".join(chosen))
    named = (name for name in identifiers(question) if any(ch.isdigit() for ch in name))
    return any(not terms(name) <= said for name in named)  # ("two-dimensional": a word)


def _candidates(asked: Asked, packet: ContextPacket) -> list[Quotable]:
    """The sentences of ``packet`` that may answer: each with the question terms it says,
    with its headings where they complete it, less those that speak of something else."""
    candidates: list[Quotable] = []
    for n, text in enumerate(packet.texts, 1):
        if n - 1 in asked.other_rows:
            continue
        item = packet.items[n - 1]
        path = heading_path(item)
        heading, headed = path, terms(path)  # the headings above, and their terms
        title = innermost_heading(item)
        open_headings: list[tuple[int, str]] = []  # the headings above, by level
        previous = ""  # the sentence before, whose name a pronoun may stand for
        for sentence in sentences(text, led=True):
            if is_heading(sentence):  # a label of the section, not an answer
                level = len(sentence) - len(sentence.lstrip("#"))
                open_headings = [h for h in open_headings if h[0] < level]
                open_headings.append((level, sentence))
                heading = " ".join([path, *(title for _, title in open_headings)])
                headed = terms(heading)
                title = sentence.lstrip("#").strip()
                previous = ""
                continue
            before, previous = previous, sentence
            under = _Under(n, item, heading, headed, title, before)
            candidate = _candidate(asked, under, sentence)
            if candidate is not None:
                candidates.append(candidate)
    return candidates


def _says_the_opposite(opposed: Sequence[tuple[frozenset[str], frozenset[str]]], said: str) -> bool:
    """Whether ``said`` leaves out a word of the question and says its opposite by a prefix,
    in any form ("installed" for "uninstall", "enabled" for "disabled"): ``Asked.opposed``."""
    stems = terms(said)
    return any(not word <= stems and opposites & stems for word, opposites in opposed)


def _says_value_and_owner(
    parts: tuple[frozenset[str], frozenset[str]], have: frozenset[str], item: SubstrateItem
) -> bool:
    """Whether a sentence saying the question terms ``have`` speaks of what the value asked is
    of (``Asked.parts``: a word of its name, "billing" of "the billing service"); a record,
    whose fields are named, names the value too ("retry_limit"): a sentence may say it in
    other words ("Kept for: 400 days" of a retention period), a record's field would not."""
    value, owner = parts
    return bool(owner & have) and (item.kind != "record" or bool(value & have))


class _Under(NamedTuple):
    """Where a sentence stands in a packet: its source, the headings above it, the sentence
    before it."""

    n: int  # its source's number in the packet
    item: SubstrateItem
    heading: str  # the headings above, as one text
    headed: frozenset[str]  # their terms
    title: str  # the innermost heading
    before: str  # the sentence before, whose name a pronoun may stand for


def _candidate(asked: Asked, under: _Under, sentence: str) -> Quotable | None:
    """``sentence`` as a quote that may answer, or None when it answers nothing asked (a
    question, a status or date line) or speaks of something else than what is asked of."""
    wanted, heading, headed, title = asked.wanted, under.heading, under.headed, under.title
    if sentence.rstrip().endswith("?"):
        return None  # a FAQ's question asks what the question asks; it answers nothing
    if not asked.of_status and _tells_status(sentence, title):
        return None  # "Supersedes [2. Use RabbitMQ ...]" says what a record is, not what
    if not asked.of_time and _DATE_LINE.match(sentence):
        return None  # "Date: 2023-09-12" under "5. Use Kafka" tells when, not what
    if asked.frame and _AN_EXAMPLE.match(sentence) and "example" not in asked.question.lower():
        return None  # "For example, you might set retries to 3 in a test." is no setting
    if asked.why and not _GIVES_A_REASON.search(f"{heading} {sentence}"):
        return None  # asked why, "Security reviews are required for every vendor." says not
    # what a section's headings name, the sentences under it speak of: they count when they
    # complete the question ("How do I file a refund?" under "Refund policy > How to file"),
    # not for one asking more than the section
    # a badge's text and address say nothing: a README's badges ("[![npm version](…)](…)
    # [![CI](…)](…)") name the package, not what it does
    prose = _BADGE.sub(_badge_less, sentence) if "![" in sentence else sentence
    have, said = terms_said(prose, wanted, asked.frame), sentence
    # "- Production: port 8443" under "billing-worker > Ports" speaks of it
    have |= headed & asked.subject
    named = headed & wanted
    if named and have | named >= asked.whole:
        have, said = have | named, f"{heading} {sentence}"
    lead = _lead_in(asked, under, sentence, have)
    if lead:  # "Returns the default watermark." then "Defaults to `65536`."
        have, said = have | (terms(lead) & asked.whole), f"{lead} {said}"
    ids = asked.ids
    if ids and identifiers(heading) and _names_none_of(ids, headed | terms(said), asked.bridged):
        return None  # "Owner: Core Platform." under "ledger-api": not the billing-worker's
    thing = pronoun_for(heading, title, sentence)
    if thing:  # "It is written in Go." under "billing-worker" speaks of it
        if ids and _names_none_of(ids, terms(thing)):
            return None
        have, said = have | (terms(thing) & wanted), f"{thing} {said}"
    elif THING_PRONOUN.match(sentence):
        # "It is closed on weekends." after "The Dublin office opens at 8:00.", or under
        # "Dublin office"; "They are based in Stockholm." under "Payments team" says nothing
        # of the Core Platform team
        owner = (named_terms(under.before, proper=True) | headed) & wanted
        unsaid = asked.subject - have  # the names asked of that the pronoun must be
        if unsaid and not owner & unsaid:
            return None
        have, said = have | owner, " ".join([*sorted(owner), said])
    if names_another(asked.marked, said) or _names_other_ids(ids, sentence, said, asked.bridged):
        return None
    if names_a_longer_one(asked.question, said):
        return None  # of the Media team, "The Media Ops team is led by ..." names another
    if not of_the_past(asked.question) and no_longer_so(
        sentence, asked.subject or wanted, quoted=True
    ):
        return None  # "Who is the on-call lead?": not "Bob was on-call lead until March"
    if asked.sides_asked and _reads_backwards(asked.sides_asked, asked.subject, heading, sentence):
        return None
    if other_side(asked.negated, said) or names_other_alternative(asked.chosen_ones, said, wanted):
        return None
    if asked.siblings.speaks_of_another(under.item, said):
        return None
    if asked.parts and not _says_value_and_owner(asked.parts, have, under.item):
        return None  # the billing service's outage, or another's retry limit
    if asked.year is not None and leaves_out(asked.year, sentence):
        return None
    if asked.opposed and _says_the_opposite(asked.opposed, said):
        return None  # "To install a Python version ..." of how to uninstall one
    # (a procedure's step is the list's, which a label or heading names: "**Removing a user**")
    # (said as the question says it, "roll back" by "Rollback ...": ``terms_said``)
    if asked.task and not is_step(sentence) and not asked.task <= terms(said) | have | headed:
        return None  # how to create a virtualenv, asked how to uninstall a version
    quote = f"{thing}: {sentence}" if thing else entry_of(title, sentence, whose=asked.whose)
    return Quotable(under.n, sentence, have, said.lower(), f"{lead} {quote}".lstrip(), heading)


def _lead_in(asked: Asked, under: _Under, sentence: str, have: frozenset[str]) -> str:
    """The sentence before ``sentence`` when it names what ``sentence`` gives the value of
    (what the question's frame asks, "Defaults to `65536`." after "Returns the default
    watermark used by streams."), which it does not: quoted together, "" otherwise."""
    before = under.before
    if not (asked.frame and before and states_frame(sentence, asked.frame)):
        return ""
    # "The forklift cost $18,000." gives the value of a thing of its own, not of the van the
    # sentence before names
    own = _OWN_SUBJECT.match(sentence)
    if own is not None and not terms(own.group(1)) & asked.wanted:
        return ""
    named = terms(before) & (asked.whole - have)
    return before if named and not states_frame(before, asked.frame) else ""


# A sentence's subject, when a determiner opens it ("The forklift ...")
_OWN_SUBJECT = re.compile(r"\s*(?:the|a|an|our|this|that|its|their)\s+([^\W\d_][\w-]*)", re.I)


# A candidate's rank, less the question's words it uses as written, its place among the
# candidates, its source's number, the sentence, the question terms it says and their share
_Scored = tuple[float, int, int, int, str, frozenset[str], float]


def _scored(asked: Asked, candidates: list[Quotable], min_terms: int) -> list[_Scored]:
    """The ``candidates`` that say enough of the question, best first: by the share of its
    terms each says, weighted by how rare each is among the candidates, then its own
    preferences (``_preferences``), then the question's words as written, then order."""
    wanted, frame = asked.wanted, asked.frame
    df = {t: sum(1 for _, _, have, *_ in candidates if t in have) for t in wanted}
    weight = {t: math.log(1 + len(candidates) / (1 + df[t])) for t in wanted}
    total = sum(weight.values())
    subject, about = asked.subject, asked.about
    scored: list[_Scored] = []
    for pos, candidate in enumerate(candidates):
        n, sentence, have, said = candidate[:4]
        if frame and not have & frame.keys():
            continue  # "How many...?" is answered by a sentence giving a number
        if asked.event and not asked.event & (have | terms(said)):
            continue  # who leads the Payments team says nothing of when it was formed
        if subject and not (have & subject and (not about or have & about)):
            continue
        if asked.relation and not asked.relation & (have | terms(said)):
            continue
        if asked.done_to - (have | terms(said) | terms(candidate.heading)):
            continue  # who approves budget requests: not who approves access requests
        # (in its own words: "95.2" is no version asked; and not as much only: "The
        # search-gateway fronts the product search cluster." is no p99 of it)
        if asked.said_by_blank and len(terms(said) & wanted) <= asked.said_by_blank:
            continue
        share = sum(weight[t] for t in have) / total if total else 0.0
        content = len(have - frame.keys())  # the frame alone answers nothing
        if content and content >= min(min_terms, len(asked.needed)):
            verbatim = len(asked.words.intersection(_WORD.findall(said)))
            verbatim += asked.owns and "own" in terms(said)
            rank = round(share - 0.01 * (n - 1), 9)
            for preference in _preferences(asked, candidate):
                rank = round(rank + preference, 9)
            scored.append((rank, -verbatim, pos, n, sentence, have, round(share, 9)))
    scored.sort(key=lambda row: (-row[0], row[1], row[2]))
    return scored


def _preferences(asked: Asked, candidate: Quotable) -> Iterator[float]:
    """What ``candidate``'s rank gains (or loses), one preference at a time, for being the
    kind of sentence asked for."""
    sentence, said = candidate.sentence, candidate.said
    # a procedure's step, which its headings make an answer, over a source's rank
    if asked.steps and is_step(sentence) and not asked.topic <= terms(sentence):
        yield STEP_PREFERENCE
    # the entry defining a term, over a sentence that only uses it ("pods")
    if asked.defined and _defines(sentence, asked.defined):
        yield ENTRY_PREFERENCE
    # "The VPN gateway is vpn.example.net.", over one that names a VPN and a gateway
    if asked.stated and asked.stated.search(sentence):
        yield ENTRY_PREFERENCE
    # "... the daily limit is 250,000 messages." says what "the daily email limit" is, as
    # one that only mentions a daily limit does not (a little: the words may name another)
    elif asked.head_stated and asked.head_stated.search(sentence):
        yield STEP_PREFERENCE
    # asked who: a sentence under a person's heading names them, a passive one of a source
    # ranked higher ("The model is retrained ...") does not, unless the entry gives a role
    # of another kind ("on-call lead" for who leads the team): that one counts against it
    another_role = asked.whose and _role_of_another(sentence, asked.wanted)
    if asked.whose and opens_as_an_entry(candidate.quote) and not another_role:
        yield ENTRY_PREFERENCE
    # ... and one naming no one the question does not ("The Payments team lead salary band
    # tops out at ...") says something of the role, not who holds it
    elif asked.whose and not named_terms(sentence, proper=True) - asked.wanted:
        yield -ENTRY_PREFERENCE
    if another_role:
        yield -ENTRY_PREFERENCE
    # a sentence saying "Dana's manager" as asked says whose, over one that only calls Dana
    # a manager
    if asked.owned and asked.owned.search(said):
        yield ENTRY_PREFERENCE
    # under the heading of the record asked of ("ADR-002: ..."), over one of another that
    # names it ("ADR-005 > Supersedes: ADR-002")
    if asked.asked_names & {name.lower() for name in identifiers(candidate.heading)}:
        yield ENTRY_PREFERENCE
    # "Port: 8080" says which port, over a sentence whose number only may be one ("split
    # out of checkout-api in June 2022")
    if _names_the_kind(candidate, asked.frame):
        yield ENTRY_PREFERENCE
    # the entry of an option list led by the name asked of ("**keepAliveTimeout** - Default:
    # `4e3`"), over its neighbour that mentions it ("**keepAliveMaxTimeout** - ... the most
    # `keepAliveTimeout` may be")
    if _led_by_what_is_asked(sentence, asked.wanted):
        yield ENTRY_PREFERENCE
    # "Update 2024-01: ... now about 23 days" over the line it updates
    if _UPDATE.match(sentence):
        yield STEP_PREFERENCE
    # "Usage: mixle compact [OPTIONS]" names the command as its heading does: a sentence
    # saying as much says what it does ("Rewrite the log ...")
    if is_synopsis(sentence):
        yield -ENTRY_PREFERENCE
    # "See [restarting ledger](../runbooks/restart-ledger.md)." only points to where it is
    # said: the page it points to, or any sentence saying it, answers
    if _POINTER.match(sentence):
        yield -ENTRY_PREFERENCE


# A list entry's lead: a name in bold or code at its start ("- **keepAliveTimeout** `number`")
_ENTRY_LEAD = re.compile(r"\s*(?:[-*+]\s+)?(?:\*\*|__|`)([^*_`\n]{1,80}?)(?:\*\*|__|`)")


def _led_by_what_is_asked(sentence: str, wanted: frozenset[str]) -> bool:
    """Whether ``sentence`` is a list entry led by a name made of terms the question asks."""
    lead = _ENTRY_LEAD.match(sentence)
    named = terms(lead.group(1)) if lead else frozenset()
    return bool(named) and named <= wanted


# A sentence that only points to another note ("See [x](x.md).", "See also [[x]]")
_POINTER = re.compile(
    r"[-*+>\s]*(?:see(?:\s+also)?|refer\s+to)\s*:?\s*"
    r"(?:\[[^\[\]\n]*\]\([^()\n]*\)|\[\[[^\[\]\n]*\]\])[\s.]*$",
    re.IGNORECASE,
)


def _role_of_another(sentence: str, wanted: frozenset[str]) -> bool:
    """Whether a sentence is a person's entry (a list's item too) giving the word asked of
    ("lead") after a word the question does not say: "Raj Patel: Senior engineer, on-call
    lead." holds a role of another kind than "Who leads the Payments team?" asks for (where
    "Payments lead" would be the one). One saying all the question asks ("Tech lead of the
    Payments team") says whose role it is."""
    entry = sentence.lstrip("-*+• ")
    if not opens_as_an_entry(entry):
        return False
    value = entry.partition(": ")[2]
    if wanted <= terms(value):
        return False
    words = _WORD.findall(value)
    return any(
        terms(word) & wanted and (before_said := terms(before)) and not before_said & wanted
        for before, word in zip(words, words[1:], strict=False)
    )


# A question asking how something is done: its answer is a procedure, all of its steps; a
# step of one outranks a sentence of a source ranked one place higher that says as much.
STEP_PREFERENCE = 0.015
# The entry a question asks for (the one defining the term of "What does POD mean?", a
# person's of "Who ...?") outranks a sentence of a source ranked up to ten places higher
# that only uses the word, or says the fact without the name.
ENTRY_PREFERENCE = 0.1
# A line a note adds to update what it said before ("Update 2024-02: lowered hydration to
# 70%"), outranking it as a step does
_UPDATE = re.compile(
    r"[-*+>\s]*(?:\*\*|__)?(?:update[sd]?|edit(?:ed)?|correction|changed?)\b[^:\n]{0,40}:",
    re.IGNORECASE,
)


# An answer's quote ends with its citation ("... [2]")
_CITATION = re.compile(r"\s*\[\d+\]$")


def _names_the_kind(candidate: Quotable, frame: Frame) -> bool:
    """Whether a sentence says the frame's words itself ("Port: 8080" of "which port"), not
    only a value that may be of that kind (a number)."""
    return bool(frame.keys() & terms(candidate.said))


def _names_none_of(
    ids: list[tuple[frozenset[str], frozenset[str]]],
    said: frozenset[str],
    bridged: frozenset[frozenset[str]] = frozenset(),
) -> bool:
    """Whether the terms ``said`` (of a sentence with its headings, or of the heading a pronoun
    stands for) hold none of the identifiers the question names (``ids``), nor one bridged to
    them (``Asked.bridged``): "Owner: Core Platform." under "ledger-api", or "It is written in
    Python." under "invoice-api", says nothing of the billing-worker."""
    return not any(name <= said for name, _ in ids) and not any(b <= said for b in bridged)


_WH = re.compile(rf"\s*(?:{'|'.join(sorted(WH_WORDS))})\b", re.IGNORECASE)


def _only_the_description(question: str, frame: Frame, covered: set[str]) -> bool:
    """Whether the quotes chosen for a question that describes what it asks about ("Which
    office does the team that owns Borealis work from?") say only of what it describes: none
    of what it asks before the description ("office"; the kind of value a frame asks for is
    said by a value, not its name). Only a question asked as one asks a person, opening with
    "who", "which"... in a few words: a long query ("what role does the effect of ... play
    in ...") is read for its topic, and any passage on it may serve."""
    if not asked_as_a_person(question) or not _WH.match(question):
        return False
    if not relational(question):
        return False
    asked = outer_terms(question) & asked_terms(question) - frame.keys()
    return bool(asked) and not asked & covered


def _names_other_ids(
    ids: list[tuple[frozenset[str], frozenset[str]]],
    sentence: str,
    said: str,
    bridged: frozenset[frozenset[str]],
) -> bool:
    """Whether ``sentence`` names, where the question names a hyphenated identifier, another
    of its kind (beside the same word: "the billing-worker service" for "the search-api
    service"; or of its family: "srv-008" for "srv-010"), and names the question's nowhere,
    with its headings (``said``) either. One ``bridged`` to the question's is no other: the
    team "payments-api is owned by team-payments" names is the one asked of."""
    if not ids:
        return False
    found = terms(said)
    asked = [(name, place) for name, place in ids if not name <= found]
    return any(
        name != other and (place & beside or name & other)
        for other, beside in identifiers_in_place(sentence)
        if other not in bridged
        for name, place in asked
    )


def _joined(quotes: Sequence[str]) -> str:
    """The quotes of an answer, one after another (``_gap``)."""
    return "".join(_gap(quotes[i - 1]) + quote if i else quote for i, quote in enumerate(quotes))


def _gap(before: str) -> str:
    """What comes between the quote ``before`` and the next: a space, or, after one that ends
    no sentence (a list item, a table row), a paragraph break, so that the two read as two
    statements (a line break alone reads as a sentence wrapped when the next opens in small
    letters)."""
    return " " if ends_sentence(_CITATION.sub("", before)) else "\n\n"


def _quoted(candidate: Quotable, asked: Asked) -> str:
    """A candidate as an answer quotes it: its sentence (as an entry of its heading), cited;
    a long one cut to the part of it that says what is asked (``_part_asked``)."""
    shown = as_shown(candidate.quote)
    return _unbracketed(_part_asked(shown, asked)) + f" [{candidate.n}]"


# The longest quote of one sentence; a longer one is cut
_QUOTE_CHARS = 300
# Where a clause may start within a sentence: after a comma, colon or semicolon, or at a
# conjunction
_CLAUSE_START = re.compile(
    r"(?<=[,;:] )\S|(?<= )(?=(?:and|but|or|so|when|while|where|which|unless|if|then)\b)", re.I
)


def _part_asked(text: str, asked: Asked) -> str:
    """``text`` cut to ``_QUOTE_CHARS`` characters: its start, unless the value the
    question's frame asks for lies past the cut: then the stretch from a clause on that gives
    it and says most of the question's terms, "…" for what is left out before it ("… and when
    neither is given the timeout defaults to 120 seconds."). Nor when the start says fewer of
    the question's terms than a later stretch (``stretch_saying``)."""
    head = truncate(text, _QUOTE_CHARS)
    if head == text:
        return head
    if asked.frame and not states_frame(head, asked.frame):
        best, most = head, -1
        for start in _CLAUSE_START.finditer(text):
            part = truncate(text[start.start() :], _QUOTE_CHARS - 2)
            said = len(asked.whole & terms(part))
            if said > most and states_frame(part, asked.frame):
                best, most = f"… {part}", said
        if best is not head:
            return best
    # a later stretch may say more of what is asked: a long sentence with no punctuation to
    # cut it, its start quoted and cited, would say nothing of it
    return stretch_saying(text, asked.whole, _QUOTE_CHARS)


def _defines(sentence: str, term: str) -> bool:
    """Whether ``sentence`` defines ``term``: an entry led by it ("- **POD**: proof of
    delivery"), or it then "is", "means", "stands for", a dash or brackets."""
    return _definition_of(term).match(sentence) is not None


@functools.lru_cache(maxsize=64)
def _definition_of(term: str) -> re.Pattern[str]:
    # after an article or as a plural ("The POD is uploaded ...") the term is only used,
    # unless it is then said to be one ("An SLO is a target")
    return re.compile(
        r"[-*+\s]*(?P<art>(?:an?|the)\s+)?[*_`]*" + re.escape(term) + r"(?P<pl>s)?[*_`]*\s*"
        r"(?::|[\u2013\u2014-]\s|\(|(?:means|stands\s+for)\b"
        r"|(?:is|are)\b(?(art)\s+(?:an?|the|one)\b|(?(pl)\s+(?:an?|the|one)\b|)))",
        re.IGNORECASE,
    )


# An image, alone or as a link's text, its end perhaps cut off by the packet: "![CI](ci.svg)",
# "[![npm version](v.svg)](https://npm.im/x)", "[![CI -…"
_BADGE = re.compile(r"(?P<linked>\[)?!\[(?P<alt>[^\]]*)(?:\]\([^)]*\)?)?(?:\]\([^)]*\)?)?")
# The most words of a badge's text ("npm version", "CI - libnpmdiff"); a longer one describes
# a figure ("Architecture: checkout calls billing ...")
_BADGE_WORDS = 4


def _badge_less(image: re.Match[str]) -> str:
    """An image as its text says something: nothing for a badge (an image as a link's text,
    or one of a few words), its text for a figure described."""
    alt = image.group("alt")
    return " " if image.group("linked") or len(alt.split()) <= _BADGE_WORDS else f" {alt} "


_DATE_LINE = re.compile(
    r"[\s>*+-]*(?:\*\*|__)?date(?:\*\*|__)?\s*:\s*\d[\d./ -]*\.?\s*$", re.IGNORECASE
)
# A line naming what replaced a record, or what it replaced, by a link or a record's name:
# "Superseded by [5. ...](...)", "Supersedes: ADR-008"; not a note's prose ("Replaces the
# Logstash hosts with Vector agents on every node.")
_REPLACEMENT_LINE = re.compile(
    r"[\s>*+-]*(?:\*\*|__)?(?:(?:superseded|replaced|amended)\s+by\b|supersedes\b|"
    r"replaces\b|amends\b)(?:\*\*|__)?\s*:?\s*(?P<what>.*)",
    re.IGNORECASE | re.DOTALL,
)
_NAMES_A_RECORD = re.compile(r"\]\(|\[\[|^\W*(?:[A-Z]{2,6}[- ]?\d+|[a-z]{2,6}-\d+)\b")
_STATUS_LABEL = re.compile(r"[\s>*+-]*(?:\*\*|__)?status(?:\*\*|__)?\s*:\s*", re.IGNORECASE)


def _tells_status(sentence: str, title: str) -> bool:
    """Whether ``sentence`` (under the heading ``title``) tells its record's status: a line
    naming what replaced it (by a link or a record's name, or any such line under a "Status"
    heading), "Status: Accepted", or a status word alone under a "Status" heading; not a
    project's news there ("Battery life is now about 23 days."), nor "Status: running in
    three regions"."""
    under_status = title.strip().lower() == "status"
    replacement = _REPLACEMENT_LINE.match(sentence)
    if replacement:
        return under_status or _NAMES_A_RECORD.search(replacement.group("what")) is not None
    label = _STATUS_LABEL.match(sentence)
    said = sentence[label.end() :] if label else sentence
    word_alone = len(said.split()) <= 3 and status_word(said) is not None
    return word_alone and (label is not None or under_status)


# A label and its value, the last of a cell of a sentence ("- Manager: Dana Whitfield", the
# "Manager: Priya" of a table's row "Name: Tomasz Nowak; Manager: Priya.")
_LABEL = re.compile(
    r"(?:.*:)?[-*+>\s]*((?:[^\W\d_][\w'-]*\s+){0,2}[^\W\d_][\w'-]*)\s*:(.*)", re.DOTALL
)


def _holders(sentence: str, relation: frozenset[str]) -> Iterator[tuple[str, str]]:
    """For each label of ``sentence`` whose value names who holds ``relation`` ("Manager:
    Dana", "Tech lead: Ana", "Owned by: Payments"), that value and the rest of the sentence;
    not a label saying what its owner does ("Manages: Tomasz", "Owner of: ledger-api"), nor
    a plural one ("Reports: Tomasz, Ines"), nor one naming what is done rather than who does
    it ("Cost: 1,800 EUR", "Lead: Project Atlas" on a person's page)."""
    cells = sentence.replace("*", "").replace("`", "").split(";")
    for n, cell in enumerate(cells):
        found = _LABEL.fullmatch(cell)
        if found is None or not found.group(2).strip():
            continue
        words = found.group(1).lower().split()
        if words[-1] == "by" and len(words) > 1:  # "Managed by: Dana"
            words.pop()
        elif not _names_a_holder(words):
            continue
        if alike(terms(words[-1])) & relation:
            rest = [*cells[:n], cell[: found.start(2)], *cells[n + 1 :]]
            yield found.group(2), ";".join(rest)


def _names_a_holder(label: list[str]) -> bool:
    """Whether a label's words name one who does a thing: a noun of the doer ("Manager",
    "Owner", "Approver", "Custodian"), or a lead or head of something ("Tech lead")."""
    last = label[-1]
    if last in ("lead", "head"):
        return len(label) > 1
    return last.endswith(("er", "or", "ian", "ist"))  # (not "Managers": a plural is many)


def _reads_backwards(
    asked: tuple[frozenset[str], bool], subject: frozenset[str], heading: str, sentence: str
) -> bool:
    """Whether ``sentence`` (under ``heading``) states the relation ``asked`` (its terms, and
    whether the names asked of, ``subject``, hold it) the other way round: "Tomasz Nowak:
    Manager: Priya" names Priya as who manages, and answers "Whom does Priya manage?", not
    "Who manages Priya?"; "Priya Raman: Manager: Dana" answers the one, not the other."""
    relation, holds = asked
    for value, rest in _holders(sentence, relation):
        in_value = bool(subject & terms(value))
        elsewhere = bool(subject & (terms(heading) | terms(rest)))
        if in_value != elsewhere and in_value != holds:
            return True
    return False


def _asks_for_the_list(
    topic: frozenset[str],
    best: Quotable,
    packet: ContextPacket,
) -> bool:
    """Whether a question asking how (``topic``: what about) asks for the whole procedure the
    ``best`` sentence is a step of: the step alone does not say all it asks about, or the
    list's headings name some of it ("How do I deploy a service?" under "Deploying a service
    > Steps"). "How do I page the DBA?" is answered by the one step of a list of contacts
    that says how."""
    n, sentence = best.n, best.sentence
    if not topic <= terms(sentence):
        return True
    section = heading_path(packet.items[n - 1])
    headings = [h for h in sentences(packet.texts[n - 1]) if is_heading(h)]
    return bool(topic & terms(" ".join([section, *headings])))
