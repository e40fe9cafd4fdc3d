"""Bridging: following a question through what it does not name.

"Who leads the team that owns the billing-worker?" names neither the team nor its lead. One
sentence answers the inner part ("Payments owns invoicing, the billing-worker, ...") and names
the bridge (Payments); another, about the bridge, answers the rest ("Priya Raman: Payments
lead."). A multi-hop retrieval searches from the first with the bridge's names and the
question's words it leaves unsaid; the extractive answer quotes both sentences.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Sequence
from typing import NamedTuple

from substrate.context import ContextPacket
from substrate.context.compress import is_heading, sentences, terms
from substrate.item import SubstrateItem
from substrate.kindnames import names_a_longer_one
from substrate.notelinks import note_link_targets
from substrate.questions import (
    Frame,
    asked_as_a_person,
    asked_terms,
    frame_verb_terms,
    words_for,
)

# Where a question goes through something it describes rather than names: a relative clause
# ("the team that owns"), a participle ("the runbook used to fix", "the service owned by",
# "the model fine-tuned from"; not a verb's, "What data is exported from billing-api?") or
# a possessive "of" ("the primary owner of eta-service"); after the words that ask.
_RELATIONAL = re.compile(
    r"\s(?:that|which|who|whom|whose|where|of)\s"
    r"|\s(?:[a-z]+-)?[a-z]+(?:ed|en|wn)\s+(?:by|in|to|for|at)\s"
    r"|(?<!\bis)(?<!\bare)(?<!\bwas)(?<!\bwere)(?<!\bbe)(?<!\bbeen)"
    r"\s(?:[a-z]+-)?[a-z]+(?:ed|en|wn)\s+from\s",
    re.IGNORECASE,
)
# The words that ask ("In which", "Who"): a "which" there asks, it describes nothing
_ASKING = re.compile(r"\s*(?:[^\W\d_]+\s+)?(?:which|what|who|whom|whose|where|when|how)\b", re.I)


def _description(question: str) -> re.Match[str] | None:
    """Where ``question`` starts describing what it asks about (``_RELATIONAL``): at its first
    relative clause or participle, else at its first "of" ("the lead of the team that owns"
    describes the team, and asks for its lead)."""
    asking = _ASKING.match(question)
    found = list(_RELATIONAL.finditer(question, asking.end() if asking else 0))
    clauses = [m for m in found if m.group().strip().lower() != "of"]
    first = clauses or found
    return first[0] if first else None


def relational(question: str) -> bool:
    """Whether ``question`` describes something it asks about instead of naming it."""
    return _description(question.strip()) is not None


# What opens the words a description is of ("the incident commander of ...")
_DETERMINERS = frozenset("the a an this that these those its their our your his her".split())


def outer_terms(question: str) -> frozenset[str]:
    """The terms of what ``question`` asks before it describes what it asks about, less the
    words the description is of: "leads" of "Who leads the team that owns the
    billing-worker?", "city" of "In which city is the incident commander of INC-22 based?"
    (the team, the commander, is what an answer names instead). All its terms when it
    describes nothing."""
    return terms(" ".join(_split_at_description(question)[0]))


def before_description(question: str) -> str:
    """What ``question`` asks besides what it describes: "Where is the author" of "Where is
    the author of the Bunkering procedure based?", and "If the store, what is the procedure?"
    of "If the store that holds logins fails, what is the procedure?" (a description ends at
    a comma, a semicolon or a colon); all of it when it describes nothing."""
    question = question.strip()
    found = _description(question)
    if found is None:
        return question
    end = _CLAUSE_END.search(question, found.end())
    return question[: found.start()] + (question[end.start() :] if end else "")


_CLAUSE_END = re.compile(r"[,;:]")


def described_terms(question: str) -> frozenset[str]:
    """The terms of the words a relative clause or participle of ``question`` describes:
    "team" of "Who leads the team that owns the billing-worker?" (a sentence answering the
    question names the team rather than saying the word). Empty for an "of", which names
    what is asked ("the owner of eta-service"), and when it describes nothing."""
    found = _description(question.strip())
    if found is None or found.group().strip().lower() == "of":
        return frozenset()
    return terms(" ".join(_split_at_description(question)[1]))


def clause_of(question: str) -> str:
    """The relative clause or participle of ``question``, to where it ends: "that owns the
    billing-worker" of "Who leads the team that owns the billing-worker?", "fine-tuned from
    llama-base-7b" of "... the model fine-tuned from llama-base-7b?". "" for an "of" (which
    names what is asked) and when it describes nothing."""
    question = question.strip()
    found = _description(question)
    if found is None or found.group().strip().lower() == "of":
        return ""
    end = _CLAUSE_END.search(question, found.end())
    return question[found.start() : end.start() if end else None].strip()


def clause_object_terms(question: str) -> frozenset[str]:
    """The terms of what a relative clause of ``question`` says its thing does something to,
    when the thing is named only by its kind: "gizmo" and "service" of "Who leads the team
    that owns (or "is responsible for") the gizmo service (this quarter)?". An answer must
    say them (``says_the_clause``), or it tells of the owner of another service. Empty for a
    thing named otherwise too ("the session store that holds logins": a runbook of the
    session store need not say what it holds), for a participle or an "of", for a long query
    (read for its topic: "methods that ..."), and when the question describes nothing."""
    question = question.strip()
    if not (asked_as_a_person(question) and _ASKING.match(question)):
        return frozenset()  # (a claim, "... a ligand which signals through ...", asks nothing)
    found = _description(question)
    if found is None or found.group().strip().lower() not in ("that", "which", "who"):
        return frozenset()
    if len(terms(" ".join(_split_at_description(question)[1]))) != 1:
        return frozenset()
    clause = question[found.end() :]
    end = _CLAUSE_END.search(clause)
    verb, *words = [w.rstrip("?.!") for w in clause[: end.start() if end else None].split()]
    # past an article after the verb ("owns the ..."), or after a phrase on "is" to its
    # article ("is responsible for the ...")
    reach = 3 if verb.lower() in _LINKING else 1
    article = next((at for at, w in enumerate(words[:reach]) if w.lower() in _ARTICLES), None)
    words = words[article + 1 :] if article is not None else words
    thing: list[str] = []
    for at, word in enumerate(words):  # to where the thing's name ends
        participle = _PARTICIPLE.fullmatch(word) and (
            at == len(words) - 1 or words[at + 1].lower() in _AFTER_THE_THING
        )
        if word.lower() in _AFTER_THE_THING or participle:
            break  # "this quarter", "at the moment", "written in", "is a ...", "based"
        thing.append(word)
    return terms(" ".join(thing))


def says_the_clause(described: frozenset[str], said: Collection[str]) -> bool:
    """Whether ``said`` says what a clause describes (``clause_object_terms``): one of its
    words that names more than a kind of thing ("gizmo" of "the gizmo service"; "login" says
    "the login system" as "the login service" does)."""
    named = described - _kinds()
    return not named or not named.isdisjoint(said)


@functools.cache
def _kinds() -> frozenset[str]:
    return terms(
        "service system app application api worker job project repo repository library "
        "package tool server cluster database queue bucket pipeline component team bot site "
        "platform page flow process"
    )


_ARTICLES = frozenset(("the", "a", "an"))
_LINKING = frozenset("is are was were has have had".split())
# Words that end a thing's name and go on with the question: its verbs, and what says when
# or where ("this quarter", "at the moment", "during the migration")
_AFTER_THE_THING = frozenset(
    "is are was were be been do does did has have had this these that those now today "
    "currently at in on by for from to of with during since until after before".split()
)
# A participle ("based", "located"; "written", "known"), not a noun that ends alike ("feed",
# "token", "garden")
_PARTICIPLE = re.compile(
    r"(?i:[^\W\d_]{2,}[^\W\d_e]ed|written|known|shown|given|taken|chosen|hidden|broken|built"
    r"|held|kept|sent|found|made|paid|sold|run|led)"
)


def _split_at_description(question: str) -> tuple[list[str], list[str]]:
    """The words of ``question`` before its description, less those it is of, and those."""
    question = question.strip()
    found = _description(question)
    if found is None:
        return question.split(), []
    words = question[: found.start()].split()
    opens = [i for i, w in enumerate(words) if w.lower() in _DETERMINERS or w.endswith("'s")]
    cut = opens[-1] if opens else len(words) - 1
    return words[:cut], words[cut:]


def names_in(text: str) -> frozenset[str]:
    """The index terms of the names ``text`` gives (``names_of``), the word opening a sentence
    among them ("Payments owns ...": often the name it is about)."""
    names = names_of(text)
    return terms(" ".join(names.proper | names.opening))


# A word as a name is compared whole ("inc-2024-022" is not "inc-2024-017"), in small letters
# and without a possessive ending.
_WORD = re.compile(r"[^\W_][\w'’-]*")
_POSSESSIVE = re.compile(r"['’]s?$")
# What may come before a word that opens a sentence, a clause, a label's value or a heading
_OPENERS = ".!?:;>#-*•|"


class Names(NamedTuple):
    """What a text names, as whole words in small letters."""

    proper: frozenset[str]  # hyphenated identifiers, and capitalised words within a sentence
    opening: frozenset[str]  # capitalised words opening one ("Payments owns ..."), not labels


def names_of(text: str) -> Names:
    """The names ``text`` gives. A capitalised word opening a sentence may be a name or not
    ("Payments owns ...", "Action items: ..."): it is told apart; a label ("Role:") and a
    common word ("We", "The") are none."""
    proper: set[str] = set()
    opening: set[str] = set()
    for m in _WORD.finditer(text):
        word = m.group()
        if "-" in word.strip("-") and any(ch.isalpha() for ch in word):
            proper.add(_whole(word))
        elif word[0].isupper() and not text.startswith(":", m.end()) and terms(word):
            at = m.start()  # the character before it, white space aside (looked at, not copied)
            while at and text[at - 1].isspace():
                at -= 1
            (opening if not at or text[at - 1] in _OPENERS else proper).add(_whole(word))
    return Names(frozenset(proper), frozenset(opening - proper))


def words_of(text: str) -> frozenset[str]:
    """The words of ``text`` as ``names_of`` gives them."""
    return frozenset(_whole(word) for word in _WORD.findall(text))


def _parts_said(name: str, spoken: frozenset[str]) -> bool:
    """Whether every word of a hyphenated ``name`` is among the words ``spoken``."""
    parts = [part for part in name.split("-") if part]
    return len(parts) > 1 and all(part in spoken for part in parts)


def _with_runs(text: str) -> frozenset[str]:
    """The words of ``text`` (``words_of``), and each run of two or three of them joined by
    "-": "Team Falcon's pager" speaks of the name a link gives as ``[[team-falcon]]``."""
    words = [_whole(word) for word in _WORD.findall(text)]
    runs = ("-".join(words[i : i + n]) for n in (2, 3) for i in range(len(words) - n + 1))
    return frozenset(words).union(runs)


def _whole(word: str) -> str:
    return _POSSESSIVE.sub("", word.strip("-").lower())


def bridge_query(question: str, text: str) -> str:
    """What to search for next from an item whose ``text`` says part of ``question``: the
    question's words it leaves unsaid and the names of its sentences that say most of the
    question (all of those that say as much: an incident's "- Commander: Leila Haddad" beside
    its "- Date: ..."). Empty for a question that names what it asks about (``relational``),
    and when the text says all of the question, or none of it, or names nothing new."""
    wanted = asked_terms(question)
    missing = wanted - terms(text)
    if not relational(question) or not missing or missing == wanted:
        return ""
    said = {s: len(terms(s) & wanted) for s in sentences(text) if not is_heading(s)}
    most = max(said.values(), default=0)
    saying = " ".join(s for s, n in said.items() if n == most) if most else ""
    bridge = names_in(saying) - wanted
    # a name of several words, each of them asked, is new when the question does not say it
    # whole: "team-payments" beside a question of the team that owns "payments-api"
    asked = _with_runs(question)
    joined = sorted(
        n for n in names_of(saying).proper if "-" in n and n not in asked and terms(n) <= wanted
    )
    if not bridge and not joined:
        return ""
    named = words_for(saying, bridge)
    return " ".join([*words_for(question, missing), *named, *_unsaid(joined, named)])


def _unsaid(names: list[str], words: list[str]) -> list[str]:
    """The ``names`` that none of ``words`` is (in small letters)."""
    said = {word.lower() for word in words}
    return [name for name in names if name not in said]


class Quotable(NamedTuple):
    """A sentence of a context packet that an answer may quote."""

    n: int  # its source's number in the packet
    sentence: str
    have: frozenset[str]  # the question's terms it says
    said: str  # what says them, lower-cased: the sentence, or its headings and it
    quote: str  # as quoted: an entry of its heading ("Marco Bianchi: Owns alerting.")
    heading: str  # the headings it is under


# The sentences saying most of a question that a bridged answer may start from.
BRIDGE_STARTS = 5


def bridged_pair(
    question: str, candidates: Sequence[Quotable], packet: ContextPacket, frame: Frame
) -> tuple[int, int] | None:
    """Two of ``candidates`` that together answer a ``question`` that describes what it asks
    about, where no one of them answers it: "Payments owns the billing-worker." then "Priya
    Raman: Payments lead." for "Who leads the team that owns the billing-worker?".

    The first says part of the question and names something it does not (Payments). The
    second speaks of that name (``_Mentions``) and says, with its headings, what the first
    leaves unsaid of what is asked before the description ("leads"; ``outer_terms``), at
    least half of the rest of what the first leaves unsaid, and what the frame asks for
    ("which port") unless the first says it. Between them the two say every name the
    question gives ("the old RabbitMQ model" is not the ETA model).

    The first is tried among the ``BRIDGE_STARTS`` saying most of the question; the second
    is the one saying most of what is left, then speaking of most names, then the first.
    None when no pair is found, or one candidate says the whole question.
    """
    # ("written" of "What language is ... written in?": "language: Kotlin" says it all)
    wanted = asked_terms(question) - frame_verb_terms(frame)
    headed = [terms(c.heading) for c in candidates]
    told = [c.have | (h & wanted) for c, h in zip(candidates, headed, strict=True)]
    # a sentence answering it all names what the question describes ("the service")
    whole = wanted - described_terms(question)
    if not relational(question) or any(whole <= t for t in told):
        return None
    outer = outer_terms(question) & wanted
    named = names_in(question) & wanted
    described = clause_object_terms(question) & wanted
    starts = sorted(range(len(candidates)), key=lambda pos: -len(told[pos] - frame.keys()))
    mentions = _Mentions(question, candidates, packet)
    for first in starts[:BRIDGE_STARTS]:
        if not told[first] - frame.keys():
            break  # the rest say no more of the question
        missing = wanted - told[first]
        needed = (outer | named) & missing
        links = mentions.links_from(first)
        best: tuple[int, int] | None = None
        second = None
        rest = missing - named  # what is asked, beside the names the question gives
        for pos in range(len(candidates)):
            says = missing & told[pos]
            if pos == first or not needed <= says or 2 * len(says & rest) < len(rest):
                continue
            if not says_the_clause(described, told[first] | told[pos]):
                continue  # of another service than "the gizmo service" asked of
            if frame.keys() & missing and not frame.keys() & says:
                continue
            if names_a_longer_one(candidates[first].sentence, candidates[pos].quote):
                continue  # "owned by the Media team", then of the Media Ops team's lead
            linked = links(pos)
            if linked and (best is None or (len(says), linked) > best):
                best, second = (len(says), linked), pos
        if second is not None:
            return first, second
    return None


class _Mentions:
    """What candidates name and say, worked out once each, to count the names one gives that
    another speaks of."""

    def __init__(
        self, question: str, candidates: Sequence[Quotable], packet: ContextPacket
    ) -> None:
        self.asked = words_of(question)  # a name the question gives bridges nothing
        self.candidates = candidates
        self.sources = packet.names()
        self.items = packet.items
        self.spoken: dict[int, tuple[frozenset[str], frozenset[str]]] = {}

    def _of(self, pos: int) -> tuple[frozenset[str], frozenset[str]]:
        """The words candidate ``pos`` and its headings say, and those they give as names."""
        if pos not in self.spoken:
            c = self.candidates[pos]
            heading = words_of(c.heading)
            own = names_of(c.sentence)
            spoken = _with_runs(c.sentence) | heading
            self.spoken[pos] = (spoken, heading | own.proper | own.opening)
        return self.spoken[pos]

    def links_from(self, first: int) -> Callable[[int], int]:
        """How many names candidate ``first`` gives another speaks of. A name within a
        sentence counts where the other or its headings say it; a word opening one
        ("Payments owns ...") only where they give it as a name too ("Payments has seven
        engineers.", a heading "Payments team"), as common words open sentences too
        ("Backend engineer.", but "the backend"); a name of the title ``first`` is under
        ("Incident: tracker-api outage") only for a sentence of another source, since all
        the sentences under one title share it."""
        start = self.candidates[first]
        own = names_of(f"{start.quote} {start.sentence}")
        proper, opening = own.proper - self.asked, own.opening - self.asked
        title = names_of(_TITLE_END.split(start.heading, 1)[0]).proper - own.proper - self.asked
        # "owned by the [payments team](../teams/payments.md)" names the team's page (as
        # ingest resolved the link, ``note_link_targets``)
        linked = {link.partition("#")[0] for link in note_link_targets(self.items[start.n - 1])}

        def links(pos: int) -> int:
            spoken, named = self._of(pos)
            # "team-mobile" of a link is spoken of under the heading "Mobile team" too
            count = sum(1 for name in proper if name in spoken or _parts_said(name, spoken))
            count += len(opening & named)
            n = self.candidates[pos].n
            if self.sources[n - 1] != self.sources[start.n - 1]:
                count += len(title & spoken) + (_path_of(self.items[n - 1]) in linked)
            return count

        return links


def _path_of(item: SubstrateItem) -> object:
    return item.provenance.get("path") if isinstance(item.provenance, dict) else None


# Where the title of a heading path ends ("Data Platform > People", "Runbook ## Steps")
_TITLE_END = re.compile(r"\s+(?:>|#+)\s*")
