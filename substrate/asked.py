"""What a question asks of the sentences that answer it, read once per question.

A sentence answers a question when it says what the question asks, of what it asks it: the
relation asked of ("Who manages Priya?"), its holder, the event whose time is asked, the
procedure whose steps are, the names and rows asked of. ``read_question`` reads all of it,
and which rows of a context packet's tables are of other things.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from substrate.alternatives import alternatives_named
from substrate.antonyms import prefixed_opposites
from substrate.bridging import before_description, clause_of
from substrate.claims import AUXILIARIES
from substrate.context import ContextPacket
from substrate.context.compress import is_heading, sentences, terms
from substrate.designators import designators, numbered_terms
from substrate.identifiers import IDENTIFIER, identifiers
from substrate.kindnames import KIND_WORDS
from substrate.negated import Sides, sides
from substrate.notestatus import STATES
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
    product_terms,
    said_alike,
    verb_forms,
)
from substrate.recordrows import rows_leaving_out_a_column, rows_of_other_values
from substrate.retrieval import heading_path, innermost_heading
from substrate.siblings import SiblingSections
from substrate.years import year_asked

_WORD = re.compile(r"\w+")


# The question words ("what", "who", "which"...)
WH_WORDS = frozenset("what who whom whose which where when how".split())


@dataclass(frozen=True)
class Asked:
    """What a question asks for, read once for all the sentences of a context packet."""

    question: str
    wanted: frozenset[str]
    # "long" and "take" of "How long does X take?": a sentence giving a duration says them
    frame: Frame
    words: frozenset[str]  # its words as written that are terms
    whose: bool  # a person's heading may be the answer
    # "Is ADR-8 superseded?" (not "Why was it rejected?": the reason, not the status)
    of_status: bool
    of_time: bool  # "When was ADR-5 decided?"
    event: frozenset[str]  # "formed" of "When was the Payments team formed?"
    # "Who owns X?": one saying what else of X ("X is deployed on Kubernetes") names no one
    relation: frozenset[str]
    # "Who manages Priya?": not "Manager: Priya" of another's page, which says whom she does
    sides_asked: tuple[frozenset[str], bool] | None
    marked: frozenset[tuple[str, str]]  # "project B": a sentence of project A answers nothing
    ids: list[tuple[frozenset[str], frozenset[str]]]  # "the search-api service"
    bridged: frozenset[frozenset[str]]  # "owned by team-payments"
    negated: Sides  # "non-defective items": not what defective items take
    chosen_ones: dict[int, frozenset[int]]  # "staging": not what production does
    topic: frozenset[str]
    other_rows: frozenset[int]  # the packet's rows of other things than those asked of
    needed: frozenset[str]
    asked_names: frozenset[str]  # "ADR-002", "web-02"
    said_by_blank: int
    siblings: SiblingSections  # "indexer": not "query-gateway"
    year: int | None  # "hired in 2022": not "hired before 1 January 2020"
    whole: frozenset[str]  # what a sentence must say, with its headings, to say all it asks
    subject: frozenset[str]
    # asked for a procedure, not of one ("the author of the Bunkering procedure")
    steps: bool
    defined: str | None
    # "The VPN gateway is vpn.example.net." says what "What is the VPN gateway?" asks
    stated: re.Pattern[str] | None
    head_stated: re.Pattern[str] | None
    task: frozenset[str]  # "uninstall" of "How do I uninstall ...?": what is to be done
    # the terms of each word of the question, and of its opposites by a prefix ("uninstall":
    # "install"): a sentence saying the second and not the first answers something else;
    # none for a question answered yes or no ("Is the cache independent of ...?"), which
    # a sentence saying the opposite answers too
    opposed: tuple[tuple[frozenset[str], frozenset[str]], ...]
    owned: re.Pattern[str] | None  # "Dana's manager": not "Dana is the release manager"
    about: frozenset[str]
    owns: bool  # "own" says no term: a tie's decider
    # "the retry limit" and "the billing service" of "What is the retry limit for the billing
    # service?": a sentence saying none of either answers something else
    parts: tuple[frozenset[str], frozenset[str]] | None
    # "When was the Azure provider added?": a moment is asked for, which a sentence with none
    # (the plugin's install command) does not say
    moment: bool = False
    # "Why are security reviews required?": a sentence giving no reason restates the rule
    why: bool = False
    # "budget requests" of "Who approves budget requests?": a sentence of production access
    # requests names another thing done to (the kind of thing, "service", need not be said)
    done_to: frozenset[str] = frozenset()


def read_question(question: str, packet: ContextPacket) -> Asked | None:
    """What ``question`` asks for, and which of ``packet``'s rows are of other things; None
    when it asks for nothing a sentence could say."""
    wanted = asked_terms(question)
    if not wanted:
        return None
    frame = frame_of(question, wanted)
    ids = identifiers_in_place(question)
    # "blue widgets in Lisbon": a row of red ones there, or of blue gadgets, is of others
    # ("which port": the kind of value asked names none, though a port's name holds it)
    topic = wanted - frame.keys()
    parts = _value_and_owner(question, topic)
    # (not by the column a value asked is in: "the owner of the billing database")
    other_rows = rows_of_other_values(topic, packet.items, parts[0] if parts else frozenset())
    # "use" of "What port does X use?" need not be said, nor "listen" of a port
    needed = topic - light_verb_terms() - frame_verb_terms(frame)
    # "What is the mem_gb of web-02?": not web-02's row where that cell is blank, nor
    # another row of its table, nor a sentence saying no more than that row does
    # (search-api's latency row, asked which version of it was deployed)
    asked_names = frozenset(name.lower() for name in identifiers(question))
    # ("Which employees have no start date?", "storefront and report-builder": blank rows
    # are rows asked of too)
    several = _OF_SEVERAL_OR_MISSING.search(question) is not None
    # (of several rows, each one the question names by a word is asked of: "storefront")
    named_rows = asked_names | set(_WORD.findall(question.lower())) if several else asked_names
    blank = rows_leaving_out_a_column(wanted, needed, named_rows, packet.items, blanks=not several)
    said_by_blank = max((n for pos, n in blank.said.items() if pos not in other_rows), default=0)
    subject = subject_of(question, topic, bool(frame)) | _titled_identifiers(question, packet)
    return Asked(
        question=question,
        wanted=wanted,
        frame=frame,
        words=frozenset(word for word in _WORD.findall(question.lower()) if terms(word)),
        whose=_WHO.match(question) is not None,
        of_status=_OF_STATUS.search(question) is not None and not _WHY.match(question),
        of_time=_OF_TIME.search(question) is not None,
        event=_event_asked(question),
        relation=_who_does(question),
        sides_asked=_relation_asked(question),
        marked=designators(question),
        ids=ids,
        bridged=_bridged_ids(ids, packet.texts, wanted, clause_of(question)),
        negated=sides(question),
        chosen_ones=alternatives_named(question),
        topic=topic,
        other_rows=other_rows | (blank.said.keys() | blank.others),
        needed=needed,
        asked_names=asked_names,
        said_by_blank=said_by_blank,
        siblings=SiblingSections(wanted, packet.items),
        year=year_asked(question),
        whole=wanted - light_verb_terms() - frame_verb_terms(frame),
        subject=subject,
        steps=_STEPS.search(before_description(question)) is not None,
        defined=defined_term(question),
        stated=_statement_of(question),
        head_stated=_statement_of(question, head=True),
        task=_task_of(question),
        opposed=() if _POLAR.match(question) else _opposites(question),
        owned=_possessed(question),
        # (the kind of thing asked of need not be said: "the ledger service")
        about=needed - subject - _said_anyway(question) if subject else frozenset(),
        owns=_owning_asked(question),
        parts=parts,
        moment=_WHEN_PAST.match(question) is not None,
        why=_WHY.match(question) is not None,
        done_to=_done_to(question),
    )


# A question answered yes or no: it opens with an auxiliary ("Is ...?", "Does ...?")
_POLAR = re.compile(rf"\s*(?:{AUXILIARIES})\b", re.IGNORECASE)


def _opposites(question: str) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """``Asked.opposed`` of ``question``: its English words (letters only) that have an
    opposite by a prefix, as terms, each with its opposites' terms. (A run of Chinese or
    Japanese is cut into pairs of characters: "un" before it gave the same pairs, and every
    sentence saying the question's words read as saying their opposite.)"""
    pairs = []
    for word in dict.fromkeys(_WORD.findall(question.lower())):
        opposites = prefixed_opposites(word) if word.isascii() and word.isalpha() else frozenset()
        said = terms(word) if opposites else frozenset()
        if said:
            pairs.append((said, terms(" ".join(opposites))))
    return tuple(pairs)


# "How do I uninstall ...?", "How to rotate ...?": the verb of the task asked about
_HOW_TO = re.compile(
    r"\s*how\s+(?:(?:do|does|can|could|should|would)\s+(?:i|we|you|one)|to)\s+(?P<verb>[a-z][\w-]*)",
    re.IGNORECASE,
)
# Verbs that say little of the task ("How do I get ...", "How do I make ...")
_VAGUE_TASKS = frozenset("get make do be have go use see know find".split())


def _task_of(question: str) -> frozenset[str]:
    """The terms of the verb a how-to question asks to do ("uninstall" of "How do I uninstall
    a Python version?"): a sentence saying none of it, in its words or its headings', tells
    how to do something else. None for a vague verb ("How do I get ...")."""
    found = _HOW_TO.match(question)
    if found is None or found.group("verb").lower() in _VAGUE_TASKS:
        return frozenset()
    return terms(found.group("verb"))


# "What is the VPN gateway?", "What's our staging URL?": a thing named by a short phrase
_WHAT_IS_THE = re.compile(
    r"\s*what(?:['’]s|\s+(?:is|are))\s+(?:the|our|your)\s+"
    r"(?P<phrase>[^\W_][\w.-]*(?:\s+[^\W_][\w.-]*){0,3})\s*\?*\s*",
    re.IGNORECASE,
)


def _statement_of(question: str, *, head: bool = False) -> re.Pattern[str] | None:
    """For "What is the VPN gateway?", what a sentence stating it says: the phrase, then
    "is", "are" or a colon ("The VPN gateway is vpn.example.net.", "VPN gateway: ...").
    With ``head``, the last word of a phrase of several for it ("the daily limit is ..." of
    "the daily email limit"); None for a phrase of one word."""
    found = _WHAT_IS_THE.fullmatch(question)
    if found is None:
        return None
    words = found.group("phrase").split()
    if head and len(words) < 2:
        return None
    phrase = r"\s+".join(re.escape(word) for word in (words[-1:] if head else words))
    return re.compile(rf"\b{phrase}\s*(?::|\b(?:is|are|was|were)\b)", re.IGNORECASE)


# "What is the retry limit for the billing service?", "Who is the primary on-call for
# billing?": a value, then what it is of, in one phrase each (no clause in either, nor a
# description: "the team that owns X", "the vendor used by X" are found through another
# sentence, which names them but not the value)
_VALUE_OF = re.compile(
    r"\s*(?:what|which|who)(?:['’]s|\s+(?:is|are|was|were))\s+(?:the\s+)?"
    r"(?P<value>(?:(?!\b(?:of|for|that|which|who|whose|where|when|and|or)\b)[^?,;])+?)"
    r"\s+(?:of|for)\s+(?:the\s+|an?\s+)?"
    r"(?P<owner>(?:(?!\b(?:of|for|that|which|who|whose|where|when|and|or|by|with|from|to|in|on"
    r"|at|under)\b)[^?,;])+?)\s*\??\s*",
    re.IGNORECASE,
)


# Nouns that ask for an aspect of a thing, which a sentence answering need not name ("the
# effect of sweep on the flow", "the basic mechanism of aileron buzz"), not for a value of it
_ASPECTS = frozenset(
    """effect effects mechanism mechanisms magnitude nature cause causes role purpose
    significance importance influence impact relation relationship difference meaning basis
    theory method methods result results solution solutions correction corrections property
    properties behaviour behavior performance structure characteristics""".split()
)


def _value_and_owner(
    question: str, topic: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]] | None:
    """The terms of the value a question asks for and of what it is asked of, when it asks
    so in a short phrase each ("What is the retry limit for the billing service?"); None
    else, and for an aspect asked of ("What is the effect of ..."), or long phrases, which a
    sentence may answer in other words."""
    found = _VALUE_OF.fullmatch(question)
    if found is None:
        return None
    value_words, owner_words = found.group("value").split(), found.group("owner").split()
    if not value_words or not owner_words:
        return None  # "What is   for billing?"
    if len(value_words) > 3 or len(owner_words) > 4 or value_words[-1].lower() in _ASPECTS:
        return None
    value, owner = terms(found.group("value")) & topic, terms(found.group("owner")) & topic
    # "billing" of "the billing service" names it; "service" only says what kind it is
    owner = owner - _kinds() or owner
    return (value, owner) if value and owner else None


# Nouns that say what kind of thing an owner is, not which one
_KIND_NOUNS = """service services database databases db team teams server servers cluster
    clusters system systems app apps application applications file files folder directory
    project projects repo repository api tool job pipeline queue bucket instance host
    machine node network site page account"""


@functools.cache
def _kinds() -> frozenset[str]:
    return terms(_KIND_NOUNS)


# A name's possession: "Dana Whitfield's manager" (from the start of a word: a long word of
# capitals would otherwise be tried from each of its letters)
_POSSESSIVE = re.compile(r"(?<![\w-])((?:[A-Z][\w-]*\s+){0,3}[A-Z][\w-]*)['’]s\s+(\w[\w-]*)")


def _possessed(question: str) -> re.Pattern[str] | None:
    """What ``question`` asks of a name's possession ("Dana Whitfield's manager"), as a
    sentence would say it: the possession after any word of the name with "'s"."""
    found = _POSSESSIVE.search(question)
    owner_words = [w for w in found.group(1).split() if w.lower() not in WH_WORDS] if found else []
    if not found or not owner_words:
        return None  # "What's ...": no name owns it
    owner = "|".join(re.escape(word) for word in owner_words)
    return re.compile(rf"\b(?:{owner})['’]s\s+{re.escape(found.group(2))}\b", re.IGNORECASE)


def _bridged_ids(
    ids: list[tuple[frozenset[str], frozenset[str]]],
    texts: Sequence[str],
    wanted: frozenset[str],
    clause: str,
) -> frozenset[frozenset[str]]:
    """The terms of each identifier that a sentence of ``texts`` names beside one the
    question names, and whose every word the question says ("payments-api is owned by
    team-payments", asked who leads the team that owns payments-api); or, where the
    question's ``clause`` describes what it asks of by an identifier, the one a sentence
    relates to that identifier in the clause's other words, said between the two
    ("Orca-ft-v2 is fine-tuned from llama-base-7b", asked of the model fine-tuned from
    llama-base-7b; not falcon-base-40b, "compared against" it after that). Not "srv-008 is
    a replica of srv-010": srv-010's facts are no answer about srv-008."""
    if not ids:
        return frozenset()
    objects = [terms(m.group()) for m in IDENTIFIER.finditer(clause)]
    anchor = objects[-1] if objects else None  # what the clause relates the thing to
    relation = terms(clause) - anchor if anchor else frozenset()
    bridged = set()
    for text in texts:
        for sentence in sentences(text):
            named = {other for other, _ in identifiers_in_place(sentence)}
            held = {other for other in named if other <= wanted}
            if any(name in held for name, _ in ids):
                bridged.update(held)
            if anchor is not None and relation and anchor in named:
                bridged.update(_related(sentence, anchor, relation))
    return frozenset(bridged - {name for name, _ in ids})


def _related(
    sentence: str, anchor: frozenset[str], relation: frozenset[str]
) -> Iterator[frozenset[str]]:
    """The identifiers of ``sentence`` with every word of ``relation`` between them and
    ``anchor`` (an identifier's terms)."""
    found = [(m.start(), m.end(), terms(m.group())) for m in IDENTIFIER.finditer(sentence)]
    places = [(start, end) for start, end, name in found if name == anchor]
    for start, end, name in found:
        if name == anchor:
            continue
        for at, to in places:
            between = sentence[end:at] if end <= at else sentence[to:start]
            if relation <= terms(between):
                yield name
                break


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


# A question of when
_OF_TIME = re.compile(r"\b(?:when|date[sd]?|year|month|day|since|until)\b", re.IGNORECASE)
# A moment asked of the past ("When was ...", "When did ..."), or of what happens at one
# ("When does the freeze start?", "When do deploys happen?"): "When is a review needed?",
# "When do I use staging?" and "When do we open an incident?" ask for a case as often
_WHEN_PAST = re.compile(
    r"\W*when\s+(?:(?:was|were|did)\b|(?:do|does|will)\s+(?!i\b|we\b|you\b|they\b|one\b)"
    r".*\b(?:start|starts|begin|begins|end|"
    r"ends|happen|happens|occur|occurs|open|opens|close|closes|run|runs|expire|expires|renew|"
    r"renews|take\s+place|kick\s+off)\b)",
    re.IGNORECASE,
)


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


def _done_to(question: str) -> frozenset[str]:
    """The terms of what a "who" question's verb is done to ("budget", "request" of "Who
    approves budget requests?"), less the kind of thing it is ("service", "team")."""
    found = _WHO_DOES.match(question)
    if not found:
        return frozenset()
    # (what a clause says of it is the clause's to say: "the team that owns the gizmo")
    rest = _CLAUSE_START.split(question[found.end() :], maxsplit=1)[0]
    # (the kind of thing need not be said: "the billing-worker" of "the billing-worker service")
    return terms(" ".join(w for w in rest.split() if w.lower().strip("?.!,") not in _SAID_WITHOUT))


_CLAUSE_START = re.compile(r"\b(?:that|which|who|whom|whose|where|when|while)\b", re.IGNORECASE)
# The kinds a thing is named with (``kindnames``), and the words that end a name of one's parts
# ("the billing-worker" of "the billing-worker job"): each may go unsaid
_SAID_WITHOUT = KIND_WORDS | {
    *("repo", "repository", "tool", "system", "job", "worker", "component", "api", "site"),
    "platform",
}


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
    return (alike(relation), holds) if relation else None


def alike(said: frozenset[str]) -> frozenset[str]:
    """``said`` with the terms that say each in other words (``said_alike``)."""
    alike = said_alike()
    return said.union(*(alike[term] for term in said & alike.keys()))


_STEPS = re.compile(
    r"\b(?:steps?|procedure|instructions?|how\s+to|how\s+(?:do|does|can|should|would)\s+"
    r"(?:i|we|you|one|they)|what\s+(?:do|should|must)\s+(?:i|we|you)\s+do)\b",
    re.IGNORECASE,
)


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
    paths = (heading_path(item) for item in packet.items)
    # every heading of a section's path ("billing-worker > Ports"), and those in the texts
    titles.update(terms(part) for path in paths for part in path.split(" > "))
    titles.update(
        terms(line.lstrip("#"))
        for text in packet.texts
        for line in sentences(text)
        if is_heading(line)
    )
    return frozenset().union(*(name for name in named if name in titles))


def subject_of(question: str, topic: frozenset[str], framed: bool) -> frozenset[str]:
    """The names of ``topic`` that ``question`` asks something of ("the Tokyo office", "Oskar
    Brandt's salary"): what it asks is not said by a sentence about another name, nor by one
    that only names them. A number saying which one ("week 14", "floor 2") is such a name: a
    sentence of week 12, or of every week, says nothing of week 14. A text of several
    sentences (a paper's title and abstract) is asked of no name in particular."""
    if framed:
        return (named_terms(question) | numbered_terms(question) | _which_one(question)) & topic
    if len(sentences(question)) <= 1:
        named = named_terms(question, proper=True) | product_terms(question)
        named |= numbered_terms(question)
        return (named | _which_one(question)) & topic
    return frozenset()


# "the billing service", "our staging database": the words between "the" and a noun of a kind
# of thing say which one is asked of, where a name would ("the Billing service")
_KIND_OF_THING = re.compile(
    r"\b(?i:the|our|your)\s+(?P<which>[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)\s+"
    rf"(?P<kind>{'|'.join(_KIND_NOUNS.split())})\b"
)
# Words before such a noun that tell no one of them from another: notes speak of "the
# database" where a question asks of "the main database"
_UNTELLING = frozenset(
    "main primary new old current whole entire same other default existing actual overall "
    "usual various different specific particular given only first last next previous "
    "one two three four five six seven eight nine ten several many few all both each every "
    "some any".split()
)


def _which_one(question: str) -> frozenset[str]:
    """The terms of the words saying which thing of a kind ``question`` asks of ("billing" of
    "What port does the billing service listen on?"): a sentence about the auth service
    answers nothing of it."""
    return frozenset().union(*(which for which, _ in _things_of_a_kind(question)))


def _said_anyway(question: str) -> frozenset[str]:
    """The terms of the words around what ``question`` asks of by ``_which_one`` that a
    sentence about it need not say: its kind ("service") and the words telling nothing
    ("new" of "the new billing service")."""
    return frozenset().union(*(rest for _, rest in _things_of_a_kind(question)))


def _things_of_a_kind(question: str) -> list[tuple[frozenset[str], frozenset[str]]]:
    """Each thing of a kind ``question`` says which one it asks of, as the terms of the words
    saying which and of the others (its kind, words telling nothing). Only of a question as a
    person asks one."""
    if not asked_as_a_person(question):
        return []
    found = []
    for m in _KIND_OF_THING.finditer(question):
        # ("the new billing service": "billing" tells which, "new" nothing)
        words = m["which"].split()
        telling = " ".join(w for w in words if w not in _UNTELLING)
        untelling = " ".join(w for w in words if w in _UNTELLING)
        found.append((terms(telling) - _kinds(), terms(f"{m['kind']} {untelling}")))
    return [(which, kind) for which, kind in found if which]
