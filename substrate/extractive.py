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

from substrate.alternatives import alternatives_named, names_other_alternative
from substrate.bridging import (
    Quotable,
    before_description,
    bridged_pair,
    outer_terms,
    relational,
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
    terms,
    truncate,
)
from substrate.designators import designators, names_another, numbered_terms
from substrate.identifiers import identifiers
from substrate.item import SubstrateItem
from substrate.linktext import as_shown
from substrate.negated import other_side, sides
from substrate.notestatus import STATES, status_word
from substrate.pronouns import THING_PRONOUN, pronoun_for
from substrate.questions import (
    Frame,
    asked_as_a_person,
    asked_terms,
    defined_term,
    frame_of,
    frame_verb_terms,
    identifiers_in_place,
    light_verb_terms,
    named_terms,
    said_alike,
    terms_said,
    verb_forms,
)
from substrate.quotelines import CITATION
from substrate.recordrows import rows_leaving_out_a_column, rows_of_other_values
from substrate.retrieval import innermost_heading
from substrate.siblings import SiblingSections
from substrate.years import leaves_out, year_asked

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
        wanted = asked_terms(question)
        if not wanted:
            return ""
        # "long" and "take" of "How long does X take?": a sentence giving a duration says them
        frame = frame_of(question, wanted)
        asked = {word for word in _WORD.findall(question.lower()) if terms(word)}
        whose = _WHO.match(question) is not None  # a person's heading may be the answer
        # "Is ADR-8 superseded?" (not "Why was it rejected?": the reason, not the status)
        of_status = _OF_STATUS.search(question) is not None and not _WHY.match(question)
        of_time = _OF_TIME.search(question) is not None  # "When was ADR-5 decided?"
        event = _event_asked(question)  # "formed" of "When was the Payments team formed?"
        # "Who owns X?": one saying what else of X ("X is deployed on Kubernetes") names no one
        relation = _who_does(question)
        # "Who manages Priya?": not "Manager: Priya" of another's page, which says whom she does
        sides_asked = _relation_asked(question)
        marked = designators(question)  # "project B": a sentence of project A answers nothing
        ids = identifiers_in_place(question)  # "the search-api service": not "billing-worker"
        bridged = _bridged_ids(ids, packet.texts, wanted)  # "owned by team-payments"
        negated = sides(question)  # "non-defective items": not what defective items take
        chosen_ones = alternatives_named(question)  # "staging": not what production does
        # "blue widgets in Lisbon": a row of red ones there, or of blue gadgets, is of others
        # ("which port": the kind of value asked names none, though a port's name holds it)
        topic = wanted - frame.keys()
        other_rows = rows_of_other_values(topic, packet.items)
        # "use" of "What port does X use?" need not be said, nor "listen" of a port
        needed = topic - light_verb_terms() - frame_verb_terms(frame)
        # "What is the mem_gb of web-02?": not web-02's row where that cell is blank, nor
        # another row of its table, nor a sentence saying no more than that row does
        # (search-api's latency row, asked which version of it was deployed)
        asked_names = {name.lower() for name in identifiers(question)}  # "ADR-002", "web-02"
        # ("Which employees have no start date?", "storefront and report-builder": blank rows
        # are rows asked of too)
        several = _OF_SEVERAL_OR_MISSING.search(question) is not None
        # (of several rows, each one the question names by a word is asked of: "storefront")
        named_rows = asked_names | set(_WORD.findall(question.lower())) if several else asked_names
        blank = rows_leaving_out_a_column(
            wanted, needed, named_rows, packet.items, blanks=not several
        )
        said_by_blank = max(
            (n for pos, n in blank.said.items() if pos not in other_rows), default=0
        )
        other_rows |= blank.said.keys() | blank.others
        siblings = SiblingSections(wanted, packet.items)  # "indexer": not "query-gateway"
        year = year_asked(question)  # "hired in 2022": not "hired before 1 January 2020"
        # what a sentence must say, with its headings, to say all the question asks
        whole = wanted - light_verb_terms() - frame_verb_terms(frame)
        subject = _subject(question, topic, bool(frame)) | _titled_identifiers(question, packet)
        candidates: list[Quotable] = []
        for n, text in enumerate(packet.texts, 1):
            if n - 1 in other_rows:
                continue
            section = packet.items[n - 1].provenance.get("section")
            path = section if isinstance(section, str) else ""
            heading, headed = path, terms(path)  # the headings above, and their terms
            named = headed & wanted
            title = innermost_heading(packet.items[n - 1])
            open_headings: list[tuple[int, str]] = []  # the headings above, by level
            previous = ""  # the sentence before, whose name a pronoun may stand for
            for sentence in sentences(text, led=True):
                if is_heading(sentence):  # a label of the section, not an answer
                    level = len(sentence) - len(sentence.lstrip("#"))
                    open_headings = [h for h in open_headings if h[0] < level]
                    open_headings.append((level, sentence))
                    heading = " ".join([path, *(title for _, title in open_headings)])
                    headed = terms(heading)
                    named = headed & wanted
                    title = sentence.lstrip("#").strip()
                    previous = ""
                    continue
                before, previous = previous, sentence
                if sentence.rstrip().endswith("?"):
                    continue  # a FAQ's question asks what the question asks; it answers nothing
                if not of_status and _tells_status(sentence, title):
                    continue  # "Supersedes [2. Use RabbitMQ ...]" says what a record is, not what
                if not of_time and _DATE_LINE.match(sentence):
                    continue  # "Date: 2023-09-12" under "5. Use Kafka" tells when, not what
                # what a section's headings name, the sentences under it speak of: they
                # count when they complete the question ("How do I file a refund?" under
                # "Refund policy > How to file"), not for one asking more than the section
                have, said = terms_said(sentence, wanted, frame), sentence
                # "- Production: port 8443" under "billing-worker > Ports" speaks of it
                have |= headed & subject
                if named and have | named >= whole:
                    have, said = have | named, f"{heading} {sentence}"
                if ids and identifiers(heading) and _names_none_of(ids, headed | terms(said)):
                    continue  # "Owner: Core Platform." under "ledger-api": not the billing-worker's
                thing = pronoun_for(heading, title, sentence)
                if thing:  # "It is written in Go." under "billing-worker" speaks of it
                    if ids and _names_none_of(ids, terms(thing)):
                        continue
                    have, said = have | (terms(thing) & wanted), f"{thing} {said}"
                elif THING_PRONOUN.match(sentence):
                    # "It is closed on weekends." after "The Dublin office opens at 8:00.", or
                    # under "Dublin office"; "They are based in Stockholm." under "Payments
                    # team" says nothing of the Core Platform team
                    owner = (named_terms(before, proper=True) | headed) & wanted
                    unsaid = subject - have  # the names asked of that the pronoun must be
                    if unsaid and not owner & unsaid:
                        continue
                    have, said = have | owner, " ".join([*sorted(owner), said])
                if names_another(marked, said) or _names_other_ids(ids, sentence, said, bridged):
                    continue
                if sides_asked and _reads_backwards(sides_asked, subject, heading, sentence):
                    continue
                if other_side(negated, said) or names_other_alternative(chosen_ones, said, wanted):
                    continue
                if siblings.speaks_of_another(packet.items[n - 1], said):
                    continue
                if year is not None and leaves_out(year, sentence):
                    continue
                quote = f"{thing}: {sentence}" if thing else entry_of(title, sentence, whose=whose)
                candidates.append(Quotable(n, sentence, have, said.lower(), quote, heading))
        if not candidates:
            return ""
        df = {t: sum(1 for _, _, have, *_ in candidates if t in have) for t in wanted}
        weight = {t: math.log(1 + len(candidates) / (1 + df[t])) for t in wanted}
        total = sum(weight.values())
        scored = []
        # asked for a procedure, not of one ("the author of the Bunkering procedure")
        steps = _STEPS.search(before_description(question)) is not None
        defined = defined_term(question)
        owned = _possessed(question)  # "Dana's manager": not "Dana is the release manager"
        about = needed - subject if subject else frozenset()
        owns = _owning_asked(question)  # "own" says no term: a tie's decider
        for pos, (n, sentence, have, said, quote, heading) in enumerate(candidates):
            if frame and not have & frame.keys():
                continue  # "How many...?" is answered by a sentence giving a number
            if event and not event & (have | terms(said)):
                continue  # who leads the Payments team says nothing of when it was formed
            if subject and not (have & subject and (not about or have & about)):
                continue
            if relation and not relation & (have | terms(said)):
                continue
            # (in its own words: "95.2" is no version asked; and not as much only: "The
            # search-gateway fronts the product search cluster." is no p99 of it)
            if said_by_blank and len(terms(said) & wanted) <= said_by_blank:
                continue
            share = sum(weight[t] for t in have) / total if total else 0.0
            content = len(have - frame.keys())  # the frame alone answers nothing
            if content and content >= min(self.min_terms, len(needed)):
                verbatim = len(asked.intersection(_WORD.findall(said)))
                verbatim += owns and "own" in terms(said)
                rank = round(share - 0.01 * (n - 1), 9)
                # a procedure's step, which its headings make an answer, over a source's rank
                if steps and is_step(sentence) and not topic <= terms(sentence):
                    rank = round(rank + STEP_PREFERENCE, 9)
                # the entry defining a term, over a sentence that only uses it ("pods")
                if defined and _defines(sentence, defined):
                    rank = round(rank + ENTRY_PREFERENCE, 9)
                # asked who: a sentence under a person's heading names them, a passive
                # one of a source ranked higher ("The model is retrained ...") does not
                if whose and opens_as_an_entry(quote):
                    rank = round(rank + ENTRY_PREFERENCE, 9)
                # ... and one naming no one the question does not ("The Payments team lead
                # salary band tops out at ...") says something of the role, not who holds it
                elif whose and not named_terms(sentence, proper=True) - wanted:
                    rank = round(rank - ENTRY_PREFERENCE, 9)
                # a sentence saying "Dana's manager" as asked says whose, over one that only
                # calls Dana a manager
                if owned and owned.search(said):
                    rank = round(rank + ENTRY_PREFERENCE, 9)
                # under the heading of the record asked of ("ADR-002: ..."), over one of
                # another that names it ("ADR-005 > Supersedes: ADR-002")
                if asked_names & {name.lower() for name in identifiers(heading)}:
                    rank = round(rank + ENTRY_PREFERENCE, 9)
                # "Port: 8080" says which port, over a sentence whose number only may be one
                # ("split out of checkout-api in June 2022")
                if _names_the_kind(candidates[pos], frame):
                    rank = round(rank + ENTRY_PREFERENCE, 9)
                # "Update 2024-01: ... now about 23 days" over the line it updates
                if _UPDATE.match(sentence):
                    rank = round(rank + STEP_PREFERENCE, 9)
                # "Usage: mixle compact [OPTIONS]" names the command as its heading does: a
                # sentence saying as much says what it does ("Rewrite the log ...")
                if is_synopsis(sentence):
                    rank = round(rank - ENTRY_PREFERENCE, 9)
                scored.append((rank, -verbatim, pos, n, sentence, have, round(share, 9)))
        scored.sort(key=lambda row: (-row[0], row[1], row[2]))
        chosen: list[str] = []
        picked: list[int] = []  # the candidate each quote is of
        said_already: set[str] = set()
        covered: set[str] = set()
        sources: set[int] = set()
        best: tuple[frozenset[str], float, int] | None = None
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
            else:  # (as close to the question's words as the best, and by its own words:
                # under a heading that completes the question, every sentence would do)
                entry = candidates[pos].quote != candidates[pos].sentence  # with its heading
                rival = best == (have, share, verbatim) and (n in sources or entry)
                rival = rival and pos not in completed
            if chosen and have <= covered and not rival:
                continue  # adds no question term the answer does not already carry
            if " ".join(shown.split()) in said_already:
                continue  # a copy in another source says nothing new, rival or not
            quote = _quoted(candidates[pos])
            gap = len(_gap(chosen[-1])) if chosen else 0
            if used + gap + len(quote) > self.max_chars:
                continue
            chosen.append(quote)
            picked.append(pos)
            said_already.add(" ".join(shown.split()))
            covered |= have
            sources.add(n)
            if best is None:
                best = (have, share, verbatim)
                kind_named = _names_the_kind(candidates[pos], frame)
            used += gap + len(quote)
        if chosen and steps and _asks_for_the_list(topic, candidates[picked[0]], packet):
            chosen = self._with_all_steps(chosen, picked, candidates, packet.texts)
        elif self.max_sentences > 1:
            # a question through what it describes: one sentence names it, another answers
            pair = [
                candidates[pos]
                for pos in bridged_pair(question, candidates, packet.names(), frame) or ()
            ]
            quotes = [_quoted(c) for c in pair]
            says = set().union(*(c.have | terms(c.heading) for c in pair))
            if quotes and subject <= says and len(_joined(quotes)) <= self.max_chars:
                chosen, covered = quotes, says
        # each sentence speaks of a name asked of; together they must speak of them all
        if not subject <= covered or _only_the_description(question, frame, covered):
            return ""
        return _joined(chosen)

    def _with_all_steps(
        self,
        chosen: list[str],
        picked: list[int],
        candidates: Sequence[Quotable],
        texts: Sequence[str],
    ) -> list[str]:
        """``chosen``, its first quote being a step of a numbered list, with that quote the
        whole list (the others of its steps dropped); a list too long for the answer is cut
        after the steps that fit, and says so with "…"."""
        n, first = candidates[picked[0]][:2]
        # the list it is a step of: a step two lists share ("1. Log in.") by which one it is
        seen = sum(1 for c in candidates[: picked[0]] if c.n == n and c.sentence == first)
        lists = [run for run in numbered_lists(texts[n - 1]) if first in run]
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
        """The names ``question`` asks something of (``_subject``)."""
        wanted = asked_terms(question)
        frame = frame_of(question, wanted)
        return _subject(question, wanted - frame.keys(), bool(frame))

    def __call__(self, question: str, context: str) -> str:
        """Plain-text form: quote from ``context`` as if it were one source, ``[1]``."""
        packet = ContextPacket(task=question, items=[SubstrateItem("context", context)])
        return self.answer_packet(question, packet)


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


def _names_none_of(ids: list[tuple[frozenset[str], frozenset[str]]], said: frozenset[str]) -> bool:
    """Whether the terms ``said`` (of a sentence with its headings, or of the heading a pronoun
    stands for) hold none of the identifiers the question names (``ids``): "Owner: Core
    Platform." under "ledger-api", or "It is written in Python." under "invoice-api", says
    nothing of the billing-worker."""
    return not any(name <= said for name, _ in ids)


_WH_WORDS = frozenset("what who whom whose which where when how".split())
_WH = re.compile(rf"\s*(?:{'|'.join(sorted(_WH_WORDS))})\b", re.IGNORECASE)


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


# A name's possession: "Dana Whitfield's manager" (from the start of a word: a long word of
# capitals would otherwise be tried from each of its letters)
_POSSESSIVE = re.compile(r"(?<![\w-])((?:[A-Z][\w-]*\s+){0,3}[A-Z][\w-]*)['’]s\s+(\w[\w-]*)")


def _possessed(question: str) -> re.Pattern[str] | None:
    """What ``question`` asks of a name's possession ("Dana Whitfield's manager"), as a
    sentence would say it: the possession after any word of the name with "'s"."""
    found = _POSSESSIVE.search(question)
    owner_words = [w for w in found.group(1).split() if w.lower() not in _WH_WORDS] if found else []
    if not found or not owner_words:
        return None  # "What's ...": no name owns it
    owner = "|".join(re.escape(word) for word in owner_words)
    return re.compile(rf"\b(?:{owner})['’]s\s+{re.escape(found.group(2))}\b", re.IGNORECASE)


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


def _bridged_ids(
    ids: list[tuple[frozenset[str], frozenset[str]]],
    texts: Sequence[str],
    wanted: frozenset[str],
) -> frozenset[frozenset[str]]:
    """The terms of each identifier that a sentence of ``texts`` names beside one the
    question names, and whose every word the question says ("payments-api is owned by
    team-payments", asked who leads the team that owns payments-api). Not "srv-008 is a
    replica of srv-010": srv-010's facts are no answer about srv-008."""
    if not ids:
        return frozenset()
    bridged = set()
    for text in texts:
        for sentence in sentences(text):
            held = {other for other, _ in identifiers_in_place(sentence) if other <= wanted}
            if any(name in held for name, _ in ids):
                bridged.update(held)
    return frozenset(bridged - {name for name, _ in ids})


def _joined(quotes: Sequence[str]) -> str:
    """The quotes of an answer, one after another (``_gap``)."""
    return "".join(_gap(quotes[i - 1]) + quote if i else quote for i, quote in enumerate(quotes))


def _gap(before: str) -> str:
    """What comes between the quote ``before`` and the next: a space, or, after one that ends
    no sentence (a list item, a table row), a paragraph break, so that the two read as two
    statements (a line break alone reads as a sentence wrapped when the next opens in small
    letters)."""
    return " " if ends_sentence(_CITATION.sub("", before)) else "\n\n"


def _quoted(candidate: Quotable) -> str:
    """A candidate as an answer quotes it: its sentence (as an entry of its heading), cited."""
    return _unbracketed(truncate(as_shown(candidate.quote), 300)) + f" [{candidate.n}]"


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


_WHO = re.compile(r"\s*(?:who|whom|whose)\b", re.IGNORECASE)
# A question of several rows ("Compare the tiers of storefront and report-builder"), or of
# what a row leaves out ("Which employees have no start date?"): a blank cell may answer it
_OF_SEVERAL_OR_MISSING = re.compile(
    r"\b(?:and|or|vs|versus|compare\w*|both|between|no|not|without|missing|blank|empty|unknown|"
    r"unset|none)\b",
    re.IGNORECASE,
)
# A question of a record's status ("Is Project Plover approved?"), or of what replaced what
_OF_STATUS = re.compile(
    r"\b(?:status|supersed\w*|replac\w*|deprecat\w*|amend\w*|in force|still (?:valid|current)|"
    + "|".join(sorted(STATES))
    + r")\b",
    re.IGNORECASE,
)
# A question of a reason
_WHY = re.compile(r"\s*(?:why|for what reason|how come)\b", re.IGNORECASE)
# A question of when, and a record's date line ("Date: 2023-09-12", as adr-tools dates one; not
# "Date: 2 July 2024, 14:00 in room Ada", which tells the time and the place too)
_OF_TIME = re.compile(r"\b(?:when|date[sd]?|year|month|day|since|until)\b", re.IGNORECASE)
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


_OWN_ASKED = re.compile(r".*\b(?:do|does|did)\s.*?(\w+)\s+own\W*$", re.IGNORECASE | re.DOTALL)
_POSSESSIVES = frozenset("my your his her its our their whose".split())


def _owning_asked(question: str) -> bool:
    """Whether ``question`` asks what one owns ("What does the Platform team own?", not "...
    run on its own?"). "own" is a stopword, though "owns" says the term "own": of sentences
    that say as much, the one saying it owns answers."""
    found = _OWN_ASKED.match(question)
    return found is not None and found.group(1).lower() not in _POSSESSIVES


# "When was ...", "When does ...": a question asking when something is or happens
_WHEN = re.compile(
    r"\s*when\s+(?:is|was|are|were|do|does|did|will|would|should|can|could|has|have|had|must)\b",
    re.IGNORECASE,
)


def _event_asked(question: str) -> frozenset[str]:
    """The terms of the last word a "When ...?" question asks of, a light verb aside: what
    happens or is ("formed" of "When was the Payments team formed?", "retro" of "When is the
    retro?"). A sentence answering it says it, or its headings do; others only share the
    question's subject."""
    if not _WHEN.match(question):
        return frozenset()
    for word in reversed(_WORD.findall(question)):
        found = terms(word) - light_verb_terms()
        if found:
            return found
    return frozenset()


# "Who owns ...", "Who maintains ...": the verb after "who", unless it only helps another
_WHO_DOES = re.compile(
    r"\s*who\s+(?:(?:[a-z]+ly|now|still|also|else|ever|then)\s+)?"
    r"(?!(?:is|are|was|were|be|been|does|do|did|can|could|will|would|should|shall|"
    r"may|might|must|has|have|had)\b)(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)


def _who_does(question: str) -> frozenset[str]:
    """The terms of the verb a "who" question asks the doer of, in each of its forms ("own"
    of "Who owns X?"; "wrote", "written" and "write" of "Who wrote X?")."""
    found = _WHO_DOES.match(question)
    if not found:
        return frozenset()
    return verb_forms(found.group("verb"))


# "Whom does Priya manage?", "Which team does Dana Whitfield lead?": the name asked of does
# what the verb, the question's last word, says (not "Which port does the billing-worker
# listen on in staging?", whose last word is no verb)
_WHOM_DOES = re.compile(
    r"\s*(?:whom?|(?:what|which)(?:\s+[\w-]+)?)\s+(?:does|do|did)\s+"
    r"(?-i:(?:[A-Z][\w'’-]*\s+){1,4})(?P<verb>[a-z]+)\W*$",
    re.IGNORECASE,
)
# "Who is the manager of Priya?", "Who is the account manager for Parcelwise?"
_WHO_IS_THE = re.compile(
    r"\s*who\s+(?:is|was|are|were)\s+the\s+(?:[\w-]+\s+){0,2}?(?P<noun>[\w-]+)\s+(?:of|for)\b",
    re.IGNORECASE,
)


def _relation_asked(question: str) -> tuple[frozenset[str], bool] | None:
    """The relation ``question`` asks one side of, as terms in each of their forms ("owner"
    and "own" of "owns"), and whether the names it asks of are the ones holding it: "Whom
    does Priya manage?" (True); "Who manages Priya?", "Who is Priya's manager?" (False).
    None for another question."""
    found = _WHOM_DOES.match(question)
    if found:
        relation, holds = verb_forms(found.group("verb")), True
    else:
        relation, holds = _who_does(question), False
        if not relation and _WHO.match(question):  # "Priya's manager", "the manager of Priya"
            owned = _POSSESSIVE.search(question)
            of = None if owned else _WHO_IS_THE.match(question)
            relation = terms(owned.group(2) if owned else of.group("noun") if of else "")
    return (_alike(relation), holds) if relation else None


def _alike(said: frozenset[str]) -> frozenset[str]:
    """``said`` with the terms that say each in other words (``said_alike``)."""
    alike = said_alike()
    return said.union(*(alike[term] for term in said & alike.keys()))


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
        if _alike(terms(words[-1])) & relation:
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


_STEPS = re.compile(
    r"\b(?:steps?|procedure|instructions?|how\s+to|how\s+(?:do|does|can|should|would)\s+"
    r"(?:i|we|you|one|they)|what\s+(?:do|should|must)\s+(?:i|we|you)\s+do)\b",
    re.IGNORECASE,
)


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
    section = packet.items[n - 1].provenance.get("section")
    headings = [h for h in sentences(packet.texts[n - 1]) if is_heading(h)]
    return bool(topic & terms(" ".join([section if isinstance(section, str) else "", *headings])))


def _titled_identifiers(question: str, packet: ContextPacket) -> frozenset[str]:
    """The terms of the identifiers a short question names ("the refund-service"), outside
    what it describes, that title a note of the packet: things of the shard, which a sentence
    answering of one must name, as it must a person's name ("wind-tunnel" titles none)."""
    if not asked_as_a_person(question):
        return frozenset()
    named = [terms(name) for name in identifiers(before_description(question))]
    if not named:
        return frozenset()
    titles = {terms(innermost_heading(item)) for item in packet.items}
    paths = (item.provenance.get("section") for item in packet.items)
    # every heading of a section's path ("billing-worker > Ports"), and those in the texts
    titles.update(
        terms(part) for path in paths if isinstance(path, str) for part in path.split(" > ")
    )
    titles.update(
        terms(line.lstrip("#"))
        for text in packet.texts
        for line in sentences(text)
        if is_heading(line)
    )
    return frozenset().union(*(name for name in named if name in titles))


def _subject(question: str, topic: frozenset[str], framed: bool) -> frozenset[str]:
    """The names of ``topic`` that ``question`` asks something of ("the Tokyo office", "Oskar
    Brandt's salary"): what it asks is not said by a sentence about another name, nor by one
    that only names them. A number saying which one ("week 14", "floor 2") is such a name: a
    sentence of week 12, or of every week, says nothing of week 14. A text of several
    sentences (a paper's title and abstract) is asked of no name in particular."""
    if framed:
        return (named_terms(question) | numbered_terms(question)) & topic
    if len(sentences(question)) <= 1:
        return (named_terms(question, proper=True) | numbered_terms(question)) & topic
    return frozenset()
