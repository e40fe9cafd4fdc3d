"""Per-claim grounding receipts: which claims of an answer the substrate corroborates."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from substrate.alternatives import alternatives_named, names_other_alternative
from substrate.answer import cited_numbers, strip_citations
from substrate.antonyms import prefixed_opposites
from substrate.changes import moved_away, reversed_change
from substrate.claims import quotes_apart, sentence_claims, unwrapped
from substrate.context.compress import (
    ENTRY_WORDS,
    NAME_SHAPE,
    is_heading,
    opens_as_an_entry,
    opens_with_a_name,
    split_sentences,
    terms,
    titled_sentences,
)
from substrate.context.packet import headed_text
from substrate.designators import designators, names_another
from substrate.errors import InvalidInputError, require_number, require_text
from substrate.factconflict import contradicts
from substrate.kindnames import names_a_longer_one
from substrate.linktext import as_shown, link_targets
from substrate.negated import other_side, sides
from substrate.nolonger import no_longer_so, of_the_past
from substrate.notestatus import may_back, not_in_force
from substrate.pronouns import pronoun_for
from substrate.quantities import ONE_BEFORE_A_UNIT, other_units
from substrate.questions import (
    NUMBER_VALUES,
    NUMBER_WORDS,
    identifier_terms,
    named_terms,
    paired_terms,
)
from substrate.retrieval import merge_scopes, provenance_entry, ranked, shown_sources
from substrate.search.tokenize import GROUPED_NUMBER
from substrate.secrets import masked_repr, safe_text
from substrate.secrets.hits import MASK_LEAD
from substrate.supersession import superseded
from substrate.years import leaves_out, year_asked

if TYPE_CHECKING:
    from substrate.item import SubstrateItem
    from substrate.store import Substrate

# Default corroboration: the evidence carries at least half of the claim's content terms.
OVERLAP_THRESHOLD = 0.5


def _grouped_parts(text: str) -> set[str]:
    """The groups of ``text``'s numbers written with thousands separators ("4" and "200" of
    "4,200"), which are terms but no numbers of their own."""
    return {part for m in GROUPED_NUMBER.finditer(text) for part in m.group().split(",")}


def content_overlap(
    evidence: str, claim: str, threshold: float = OVERLAP_THRESHOLD, *, as_it_is: bool = False
) -> bool:
    """Whether ``evidence`` supports ``claim`` (``_overlap``), read with its links as a reader
    sees them (``linktext.as_shown``): an answer quotes "owned by the Platform team" of "owned
    by the [Platform team](platform-team.md)", whose file name would read as another service's.
    A claim that gives where a link leads (its web address, the link as written) is read
    against the evidence as written; where a link leads supports no other claim ("handled by
    [Dana](people/oskar.md)" says nothing of Oskar). With ``as_it_is`` (evidence a proposal
    gives), only a sentence telling of what is now ("Today we run Elasticsearch 7.10") counts.
    """
    shown = as_shown(evidence)
    if _overlap(shown, claim, threshold, as_it_is):
        return True
    if _said_under_heading(shown, claim, threshold, as_it_is):
        return True
    if shown == evidence or not any(target in claim for target in link_targets(evidence)):
        return False
    return _overlap(evidence, claim, threshold, as_it_is)


def _said_under_heading(evidence: str, claim: str, threshold: float, as_it_is: bool) -> bool:
    """Whether ``claim`` is "Heading: sentence" (as the answerer quotes a sentence with the
    heading it stands under) and a section of ``evidence`` under that heading says the
    sentence: "Project Atlas: Atlas is the billing service." of a note titled "Project Atlas"
    saying "Atlas is the billing service."."""
    heading, colon, sentence = claim.partition(": ")
    if not colon or not sentence.strip():
        return False
    section = _section_under(evidence, heading)
    return bool(section) and _overlap(section, sentence, threshold, as_it_is)


def _section_under(text: str, heading: str) -> str:
    """The lines of ``text`` under its Markdown heading ``heading`` (compared without case),
    up to the next heading of the same or a higher level; "" when it has no such heading."""
    wanted = heading.strip().casefold()
    lines = text.splitlines()
    for at, line in enumerate(lines):
        level = _heading_level(line)
        if level and line.lstrip("#").strip().casefold() == wanted:
            rest = lines[at + 1 :]
            end = next((i for i, ln in enumerate(rest) if 0 < _heading_level(ln) <= level), None)
            return "\n".join(rest[:end])
    return ""


def _heading_level(line: str) -> int:
    """The level of a Markdown heading line ("## Ports": 2), 0 for any other line."""
    return len(line) - len(line.lstrip("#")) if is_heading(line) else 0


def _overlap(evidence: str, claim: str, threshold: float, as_it_is: bool = False) -> bool:
    """``_readings``: whether a sentence states the claim, and says more of it than any that
    states another value of it or the other polarity."""
    same, other, value = _readings(evidence, claim, threshold, as_it_is)
    return same >= 0 and same > other and same >= value


# (a claim's sources are read once to find which say it, and again to weigh which say it
# with another value: the second reading is the first's)
@functools.lru_cache(maxsize=256)
def _readings(
    evidence: str, claim: str, threshold: float, as_it_is: bool = False
) -> tuple[float, float, float]:
    """How much of the claim (the share of its words; -1 for none) the sentences of
    ``evidence`` say that state it, that state it with the other polarity, and that give it
    another value. The claim is supported when one sentence carries at least ``threshold``
    of its content words, every number of the claim, and the same polarity, and no sentence
    of the other polarity, or giving another value, says more of the claim.

    At least two words are required when the claim has two or more: one shared word (the
    reference's rule let "The moon is cheese." be grounded by any text about the moon) is a
    topic match, not corroboration. They must meet in one sentence: words scattered over
    a long text do not state the claim. A claim with the wrong port, date or amount is not
    supported by the right one, and "X is not Y" does not support "X is Y", nor the reverse
    (negation words are stopwords, so the terms alone cannot tell): "Refunds are processed on
    weekends" is contradicted by "Refunds are not processed on weekends", though "Refunds are
    processed within five days" shares two of its words. Likewise a sentence that gives
    another value and says more of the claim contradicts it: in a price list, "Cargo costs
    1,890" is not supported by the row "City 1,890" when the row "Cargo 3,450" is there.
    The names of the claim must be in the sentence, and a sentence about another subject
    says nothing of the claim's (``_another_subject``).
    """
    claim, evidence = _refusals_read(_grouped_by_commas(claim), _grouped_by_commas(evidence))
    wanted = _valued_terms(claim)
    if not wanted:
        return -1.0, -1.0, -1.0
    if _uncased(claim):
        # no capitals tell a name in it ("राहुल शर्मा", "김민수", "أحمد الخطيب"): another
        # person's name was half the claim's words, and supported; every word must be said
        threshold = 1.0
    # "12,000" is one number of the claim, and of a sentence: its parts are terms for search
    # only ("costs 4,200 EUR" says nothing of 200 EUR)
    parts = _grouped_parts(claim)
    numbers = {term for term in wanted if _is_number(term)} - parts
    words = wanted - numbers - parts  # a number shared says nothing unless the words around it are
    # "Smith", "France": another one is another claim (the first word too, when a name)
    names = (named_terms(claim) | _spelt_as_a_name(claim)) & words
    opener, by_article = _subject(claim)
    # what a row must name to be the one a claim opens with ("Globex is ..."), as a row names
    # its thing among its values
    first = _first_word(claim)
    row_subject = terms(first) if first[:1].isupper() else frozenset()
    # "search-gateway", "eu-west-1": said of another one ("payments-api"), it is another
    # claim; a sentence naming none may still say it ("long-running": "runs for hours")
    ids = identifier_terms(claim) & words
    # and what the claim says of its names must be said there too: "Lena Park owns the
    # refund policy" is not "Lena Park owns the incident runbook" (two words of five alike)
    proper = named_terms(claim, proper=True) & words
    # "PostgreSQL was rejected for orders": a sentence that does not say so is about the
    # thing, not the decision ("The orders database runs on PostgreSQL")
    turned_down = _TURNED_DOWN.search(claim) is not None
    present = not of_the_past(claim)  # "Dana Kim is the on-call lead": not her former role
    about = words - proper if proper else frozenset()
    reason = _reason_terms(claim) & words
    negated = _negated_about(claim, words)
    prefixed = sides(claim)  # "non-defective items" are another claim's subject
    chosen_ones = alternatives_named(claim)  # "staging": production's figures say nothing of it
    year = year_asked(claim)  # "hired in 2022": what holds before 2020 says nothing of it
    marked = designators(claim)  # "Building C": one naming building E says nothing of it
    # the columns a claim that is a row gives empty ("comment: ."): a row's empty cell says it
    unset = frozenset(key for key, value in _row_fields(claim) if not value)
    best_same, best_other, best_value = -1.0, -1.0, -1.0
    # a list item with its heading, as quoted (any sentence, for a claim quoted as an entry)
    for sentence in _titled(evidence, claim, wanted):
        if sentence.rstrip().endswith("?"):
            continue  # asks, states nothing: "is it 8443 or 9443?" supports neither port
        if as_it_is and not (_AS_IT_IS.search(sentence) and not _TO_BE.search(sentence)):
            continue
        found = _valued_terms(sentence)
        fields = _row_fields(sentence)
        if fields:  # (a column's name said otherwise: "costs" of "price")
            found |= frozenset().union(*(key for key, _ in fields))
        if fields and _another_value(fields, words, wanted, unset):
            # "plan: pro" for "the enterprise plan"
            best_value = max(best_value, len(words & found) / len(words) if words else 1.0)
            continue
        if fields and not row_subject <= found:
            continue  # "Globex is on the enterprise plan": another customer's row says it
        shared = len(words & found)
        share = shared / len(words) if words else 1.0
        said = found - _grouped_parts(sentence) if numbers else found
        if not numbers <= said:
            if numbers and any(_is_number(term) for term in said - numbers):
                best_value = max(best_value, share)  # the same subject with another value
            continue
        if other_units(claim, sentence):  # "15 minutes" for 15 hours, "daily" for weekly
            best_value = max(best_value, share)
            continue
        if _denies(sentence, claim) or reversed_change(claim, sentence):
            # "port 5433, not 5432"; "from 1.30 to 1.28" where it is from 1.28 to 1.30
            best_value = max(best_value, share)
            continue
        if numbers and _said_of_another(words, numbers, sentence):
            best_value = max(best_value, share)
            continue
        if not names <= found or _another_subject(
            opener, found, wanted, sentence, after_article=by_article
        ):
            continue
        if names_another(marked, sentence) or names_a_longer_one(claim, sentence):
            continue
        if not ids <= found and identifier_terms(sentence) - ids:
            continue
        if turned_down and not _SAID_NO.search(sentence):
            continue
        if (
            _negated_about(sentence, words) != negated
            or moved_away(sentence, words, claim)
            or (present and no_longer_so(sentence, proper & terms(sentence) or words))
            or _says_the_opposite(words, sentence, claim)
            or other_side(prefixed, sentence)
            or names_other_alternative(chosen_ones, sentence, words)
            or (year is not None and leaves_out(year, sentence))
        ):
            best_other = max(best_other, share)
        elif not words or (shared >= min(2, len(words)) and share >= threshold):
            if about and len(about & found) < threshold * len(about):
                continue
            if reason and len(reason & found) < threshold * len(reason):
                continue  # "because it was too expensive": the sentence gives another reason
            best_same = max(best_same, share)
    # another value must say more of the claim to contradict it: a year or a version beside
    # a sentence stating the claim word for word does not
    return best_same, best_other, best_value


# What tells of things as they are, in a proposal: "Today we run ...", "We keep ..." (not
# "From now on, invoices are paid within 15 days", nor what "will" be)
_AS_IT_IS = re.compile(
    r"(?i)\b(?:today|currently|current|at present|presently|still|existing|as of|keep|"
    r"remains?|so far|to date)\b"
)
_TO_BE = re.compile(
    r"(?i)\b(?:will|would|shall|should|could|going to|from now on|propos\w*|plan\w*)\b"
)


# A field of a row as a packet shows a record or a table's row: "plan: pro" of "id: 2; name:
# Globex; plan: pro." (a cell of two sentences goes on after a "; " with no name); an empty
# cell's name ends its part ("comment:")
_FIELD = re.compile(r"([^:;.!?]{1,60}):(?: (.*))?", re.DOTALL)


# A column named "price", and the words a claim says a price with ("costs 24.99", "sells for"):
# the claim names that column, so the number it gives must be that column's (a stock of 120
# beside it supported "costs 120 EUR"); a column named otherwise ("cost", "shipping fee",
# "sell by") is only itself
_PRICE = frozenset({"price"})
_PRICE_SAID = frozenset({"price", "cost", "sell"})


def _row_fields(sentence: str) -> list[tuple[frozenset[str], frozenset[str]]]:
    """The (name, value) terms of each field of ``sentence`` when it is a row of two or more
    named fields, else none; a price column's name with the words a price is said with."""
    fields: list[tuple[frozenset[str], frozenset[str]]] = []
    for part in sentence.strip().rstrip(".").split("; "):
        field = _FIELD.fullmatch(part)
        if field is not None:
            name, value = _valued_terms(field.group(1)), _valued_terms(field.group(2) or "")
            fields.append((_PRICE_SAID if name == _PRICE else name, value))
        elif not fields:
            return []  # prose
        else:  # a cell's second sentence
            fields[-1] = (fields[-1][0], fields[-1][1] | _valued_terms(part))
    return fields if len(fields) >= 2 else []


def _another_value(
    fields: list[tuple[frozenset[str], frozenset[str]]],
    words: frozenset[str],
    wanted: frozenset[str],
    unset: frozenset[frozenset[str]],
) -> bool:
    """Whether a claim names a column of a row and none of its values: "Globex is on the
    enterprise plan" against Globex's "plan: pro". A word of several columns' names needs the
    value of one ("previous plan: enterprise" beside "plan: pro"). A column the claim, a row
    itself, leaves empty as the row does (the row quoted whole: "...; comment: .") gives it."""
    named = words & frozenset().union(*(key for key, _ in fields))
    return any(
        not any(
            term in key and (value & wanted or (not value and key in unset))
            for key, value in fields
        )
        for term in named
    )


def _reason_terms(claim: str) -> frozenset[str]:
    """The terms only the reason ``claim`` gives holds ("Kafka replaced RabbitMQ because
    RabbitMQ was too expensive": "expensive"): what supports the claim must give it too."""
    because = _BECAUSE.search(claim)
    if because is None:
        return frozenset()
    return terms(claim[because.end() :]) - terms(claim[: because.start()])


_BECAUSE = re.compile(r"(?i)\b(?:because|due\s+to|owing\s+to|as\s+a\s+result\s+of)\b")


def _titled(evidence: str, claim: str, wanted: frozenset[str]) -> list[str]:
    """The sentences of ``evidence`` a claim is read against (``titled_sentences``). For a
    claim about someone named ("Tomasz Wieczorek works from the Gdańsk office"), a sentence
    under a person's heading is their entry when it has no subject of its own and opens with
    a word of the claim ("Works from the Gdańsk office."), not with another subject ("Aisha
    Okafor works ...", "Marketing works ...")."""
    plain = titled_sentences(evidence)
    with_things = _with_things(plain)
    entry_claim = opens_as_an_entry(claim)
    if not entry_claim and not opens_with_a_name(claim):
        return with_things
    headed = titled_sentences(evidence, whose=True)
    # an entry differs from its sentence only under a person's heading; elsewhere the
    # sentence is read as the answerer quotes it, with the thing a pronoun stands for
    # written in ("Project Atlas: It is owned by ..."), which is no one's entry
    return [
        entry
        if entry != sentence and (entry_claim or _opens_with_one_of(sentence, wanted))
        else thing
        for sentence, thing, entry in zip(plain, with_things, headed, strict=True)
    ]


def _with_things(read: list[str]) -> list[str]:
    """``read`` (the sentences of an evidence, as ``titled_sentences`` gives them) with each
    that opens with a pronoun for a thing written as the answerer quotes it, after the thing
    its headings name: "It runs on Kubernetes." under "## billing-worker" says
    "billing-worker: It runs on Kubernetes."."""
    out: list[str] = []
    title = ""
    open_headings: list[tuple[int, str]] = []  # the headings above, by level
    for sentence in read:  # (an entry of a heading opens with it: no pronoun starts it)
        if is_heading(sentence):
            level = _heading_level(sentence)
            title = sentence.lstrip("#").strip()
            open_headings = [*(h for h in open_headings if h[0] < level), (level, title)]
        else:
            path = " ".join(heading for _, heading in open_headings)
            thing = pronoun_for(path, title, sentence)
            sentence = f"{thing}: {sentence}" if thing else sentence
        out.append(sentence)
    return out


def _opens_with_one_of(sentence: str, wanted: frozenset[str]) -> bool:
    """Whether the first word of ``sentence`` is a word of ``wanted`` (a stopword is none:
    "Most of his reports ..." is said of them)."""
    first = terms(_first_word(sentence))
    return bool(first) and first <= wanted


_NUMBER = re.compile(r"\d")
_FIRST_WORD = re.compile(r"\s*(?:[-*+#]+\s+|\d+[.)]\s+)?([^\W\d_][\w'\-]*)")


def _first_word(text: str) -> str:
    found = _FIRST_WORD.match(text)
    return found.group(1) if found else ""


def _subject(text: str) -> tuple[frozenset[str], bool]:
    """The term of the word ``text`` opens with, when spelt with a capital (a name, or a
    noun opening a sentence), or of the word after an article it opens with ("A rollback
    needs ...": rollback), and whether it is the latter; a number word stands for its value,
    as in the claim's terms."""
    after = _ARTICLE.match(text)
    word = after.group(1) if after else _first_word(text)
    term = _valued_terms(word) if after or word[:1].isupper() else frozenset()
    return term, after is not None


_ARTICLE = re.compile(r"\s*(?:[-*+]+\s+)?(?i:a|an|the|every|each)\s+([^\W\d_][\w'\-]*)")


def _spelt_as_a_name(claim: str) -> frozenset[str]:
    """The term of the claim's first word when it is spelt as a name (a capital or a digit
    after its first letter): ``named_terms`` leaves a first word out, as every first word
    has a capital."""
    word = _first_word(claim)
    return terms(word) if NAME_SHAPE.search(word) else frozenset()


def _another_subject(
    opener: frozenset[str],
    found: frozenset[str],
    wanted: frozenset[str],
    sentence: str,
    *,
    after_article: bool = False,
) -> bool:
    """Whether ``sentence`` speaks of another subject than the claim: the claim opens with
    a capitalised word (``opener``) it lacks, and it opens with one the claim lacks. "Priya
    owns Kafka" is not said by "Marco owns Kafka", nor by "Marco Bianchi: Owns Kafka" (an
    entry of a heading naming someone); "Currently, deploys happen on Tuesdays" is said by
    "Deploys happen on Tuesdays", and "Unfortunately, gift cards are not refundable" by the
    entry "Exceptions: Gift cards are not refundable" (one word heads no one's entry). A
    subject after an article ("A rollback ...") is held against one after an article only ("A
    deploy ...": "The books are closed" under "Month-end close" may tell of the close)."""
    if not opener or opener <= found:
        return False
    head, colon, rest = sentence.partition(": ")
    words = head.split()
    if (
        colon
        and len(words) <= ENTRY_WORDS
        and not (len(words) >= 2 and all(word[:1].isupper() for word in words))
    ):
        sentence = rest  # a heading that names no one: the subject is the entry's
    subject, by_article = _subject(sentence)
    return by_article == after_article and bool(subject) and not subject <= wanted


def _said_of_another(words: frozenset[str], numbers: set[str], sentence: str) -> bool:
    """Whether ``sentence`` gives the claim's ``numbers`` in a clause that fits the claim's
    ``words`` worse than a clause giving another number: "the standby costs 2,500 EUR per
    month and the archive 300 EUR per year" gives 300 for the archive, which does not
    support "the standby costs 300 EUR per year". A clause fits by the claim's words it
    lacks and the words it has that the claim does not (its numbers aside); one that has
    none of the latter names no other subject."""
    clauses = [_valued_terms(clause) for clause in _CLAUSE_BREAK.split(sentence)]
    valued = [found for found in clauses if any(_is_number(term) for term in found)]
    if len(valued) < 2:
        return False

    def extra(found: frozenset[str]) -> set[str]:
        return {term for term in found - words if not _is_number(term)}

    holding = [found for found in valued if numbers <= found]
    others = [len(words - found) + len(extra(found)) for found in valued if not found & numbers]
    # a clause naming nothing else ("and 1,200 servers") speaks of the subject before it
    if not (holding and others) or not all(extra(found) for found in holding):
        return False
    return min(others) < min(len(words - found) + len(extra(found)) for found in holding)


def _denies(sentence: str, claim: str) -> bool:
    """Whether ``sentence`` puts a value of ``claim`` right beside another it says is the
    right one: "5433, not 5432", "14 days rather than 30", "20%, not 10%", "3 instead of 5"
    (not "not more than 30": a bound). Values count whole ("03:00", "2.0"), and only where
    the claim does not hold the right one too ("30 seconds, not 30 minutes" denies no "30
    seconds": units are the other check's, ``other_units``)."""
    if not _DENYING.search(sentence):
        return False
    said = set(_VALUE.findall(claim))
    return any(wrong in said and right not in said for right, wrong in _DENIED.findall(sentence))


_DENYING = re.compile(r"\b(?:not|rather|instead)\b", re.IGNORECASE)
# a whole value (never from inside a run of digits: a run is tried once, not at every digit)
_VALUE = re.compile(r"(?<![\d.:])(\d(?:[\d.:]*\d)?)")
_DENIED = re.compile(  # (possessive: white space is never given back and tried again)
    r"(?<![\d.:])(\d(?:[\d.:]*\d)?)[^\s,;(]{0,4}(?:\s++[^\s,;(]++){0,3}?"
    r"(?:\s*+[,;(]\s*+not|\s++rather\s+than|\s++instead\s+of)\s++[$€£]?(\d(?:[\d.:]*\d)?)",
    re.IGNORECASE,
)


# Words whose opposite a note says in their place: "optional" where it says "mandatory"
_OPPOSITES = (
    ("optional", "mandatory required compulsory obligatory"),
    ("enabled", "disabled"),
    ("allowed permitted", "forbidden prohibited banned disallowed"),
    ("public", "private"),
    ("encrypted", "unencrypted"),
    ("synchronous", "asynchronous"),
    ("minimum", "maximum"),
    ("online", "offline"),
    ("increase increased increases", "decrease decreased decreases"),
    ("upgrade upgraded", "downgrade downgraded"),
    # (decisions)
    (
        "accepted approved adopted agreed chosen selected picked decided",
        "rejected declined refused",
    ),
    ("approved", "postponed scrapped"),
    ("agreed approved accepted decided", "proposed suggested requested"),  # (not yet decided)
    ("open opens opened", "closed closes shut"),
    ("earlier earliest", "later latest"),
    ("first", "last final"),
    ("automatic automated automatically", "manual manually"),
    ("subject", "exempt"),
    ("eligible", "ineligible"),
    ("strongly highly heavily greatly", "weakly slightly mildly marginally barely"),
    ("strong", "weak"),
)


# Thousands grouped as most of Europe writes them: by a space that does not break (no-break,
# narrow no-break, thin), by two groups after dots ("2.500.000"; a third makes an IP address's
# shape), or by spaces beside a currency ("£10 000", "1 200 000 euros", "5 000 €"): spaces
# alone also part lists ("returns 400 401 403", "rooms 101 102 103"), and a lone group after
# a space or a dot ("1 200", "2.500") may be two numbers or a decimal: left as written. No
# match starts inside a run of groups (tried from each, a long run was read to its end each
# time).
_CURRENCY = (
    r"[$€£¥₹₽]|(?i:euros?|eur|usd|dollars?|gbp|pounds?|francs?|chf|yen|yuan|rupees?|kr"
    r"|kronor|kroner|pln|zł|złotych|руб\w*|гривен\w*|грн|lire|lira)(?!\w)"
)
_EUROPEAN_GROUPS = re.compile(
    r"(?<![\d.,])(?<![0-9][ \u00a0\u202f\u2009])"
    r"(?:[0-9]{1,3}(?:[\u00a0\u202f\u2009][0-9]{3})++"
    r"|[0-9]{1,3}(?:\.[0-9]{3}){2}"
    rf"|[0-9]{{1,3}}(?: [0-9]{{3}})++(?=\s*(?:{_CURRENCY}))"
    r"|(?<=[$€£¥₹₽])[0-9]{1,3}(?: [0-9]{3})++)"
    r"(?![.,]?[0-9])"
)
_GROUP_MARK = re.compile(r"[ .\u00a0\u202f\u2009]")


def _grouped_by_commas(text: str) -> str:
    """``text`` with thousands grouped otherwise written with commas ("1 200 000 euros":
    "1,200,000 euros"), so that each is one number: "1 200 euros" is not said by it."""
    return _EUROPEAN_GROUPS.sub(lambda m: _GROUP_MARK.sub(",", m.group()), text)


def _uncased(text: str) -> bool:
    """Whether ``text`` is written in letters with no capitals (Devanagari, Arabic, Hebrew,
    Hangul, CJK...), none of them cased."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and not any(c.lower() != c.upper() for c in letters)


def _refusals_read(claim: str, evidence: str) -> tuple[str, str]:
    """``claim`` and ``evidence`` with their refusals said as "rejected": "turned down" and
    "decided against" always (their opposites are "approved" and "decided to"), and "not
    approved", "said no to" where the claim tells of a thing turned down (where it tells of
    one chosen, they are a negation still)."""
    claim, evidence = _REFUSED.sub("rejected", claim), _REFUSED.sub("rejected", evidence)
    if _TURNED_DOWN.search(claim) or _NOT_CHOSEN.search(claim):
        claim, evidence = _NOT_CHOSEN.sub("rejected", claim), _NOT_CHOSEN.sub("rejected", evidence)
    return claim, evidence


_REFUSED = re.compile(r"(?i)\b(?:turn(?:ed|s)?\s+down|decided\s+against)\b")
_NOT_CHOSEN = re.compile(
    r"(?i)\b(?:not\s+(?:approved|chosen|accepted|adopted|selected)|said\s+no\s+to)\b"
)
# A claim that a thing was turned down (its refusals read as "rejected"): its point, which the
# sentence must make too, in its own words ("declined" and "dropped" need not be a decision:
# "traffic declined by 20%")
_TURNED_DOWN = re.compile(r"(?i)\b(?:reject\w*|abandon\w*|withdrawn|cancell?ed|vetoed)\b")
_SAID_NO = re.compile(
    r"(?i)\b(?:reject\w*|declin\w*|refus\w*|abandon\w*|withdr[ae]wn?|cancel\w*|veto\w*"
    r"|scrap\w*|drop\w*|ruled?\s+out|said\s+no|not\s+pursued)\b"
)
# The same for words that are no index terms (or not all of them), told as written
_WORD_OPPOSITES = (
    ("after", "before"),
    ("above", "below"),
    ("over", "under"),
    ("inside", "outside"),
    ("more", "less fewer"),
    ("same", "next previous"),
)


@functools.cache
def _opposite_terms() -> dict[str, frozenset[str]]:
    return paired_terms(_OPPOSITES)


@functools.cache
def _opposite_words() -> dict[str, frozenset[str]]:
    return paired_terms(_WORD_OPPOSITES, spelt=lambda side: frozenset(side.split()))


def _says_the_opposite(words: frozenset[str], sentence: str, claim: str) -> bool:
    """Whether a clause of ``sentence`` says, in place of a word of the claim, its opposite
    ("mandatory" for "optional", "before" for "after"), and says all the rest of the claim's
    ``words``: only then is it about the same thing ("other formats are rejected" is not about
    "accepted uploads"). A clause saying both words is judged on the rest."""
    table, word_table = _opposite_terms(), _opposite_words()
    claimed = set(_WORD.findall(claim.lower()))
    written = {word for word in claimed if word in word_table}
    # "independent" where the clause says "dependent", "decrypted" where it says "encrypted"
    prefixed = {word: prefixed_opposites(word) for word in claimed}
    # (and each part between ";" and ":" whole: "and" may join names, "EC2 and EKS nodes")
    clauses = _JOINED_CLAUSE.split(sentence)
    for clause in clauses + (_CLAUSE_MARK.split(sentence) if len(clauses) > 1 else []):
        found = terms(clause)
        swapped = {
            word for word in words if word not in found and table.get(word, frozenset()) & found
        }
        lowered = clause.lower()
        # "non-prod" is the "nonprod" of a claim too
        said = set(_WORD.findall(lowered)) | set(_WORD.findall(lowered.replace("-", "")))
        turned = {word for word in written - said if word_table[word] & said}
        # (not when the clause says the claim's word too, another way: "Release signing is
        # mandatory because unsigned artifacts are blocked" says releases are signed)
        turned |= {
            word for word in claimed - said if prefixed[word] & said and not terms(word) <= found
        }
        if (swapped or turned) and words - swapped - terms(" ".join(turned)) <= found:
            return True
    return False


_WORD = re.compile(r"[a-z]+")
_CLAUSE_MARK = re.compile(r"[;:]\s")


_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|nowhere|neither|nor|cannot|without)\b|n't\b"
    # and in the languages notes are often written in besides English: German, French (its
    # "pas", "jamais": "ne" goes with them, and would cancel them out), Italian (not the
    # prefix of "non-profit"), Portuguese, Dutch, Swedish, Polish, Russian, Turkish
    # (one word of the pairs these languages negate with: "non ... mai", "nigdy nie",
    # "никогда не" are one negation each; "pas" in small letters, not English "PAs")
    r"|\b(?:nicht|kein|keine|keinen|keinem|keiner|keines|nie|niemals|nichts|niemand|(?-i:pas)"
    r"|jamais|aucun|aucune|rien|non(?![-\w])|não|nunca|niet|geen|nooit|inte|aldrig"
    r"|не|нет|değil)\b",
    re.IGNORECASE,
)


# Numbers written as words are values too: "five minutes" is not "fifteen minutes", and is
# "5 minutes".
_TENS = [word for word, value in NUMBER_VALUES.items() if value >= 20]
_ONES = [word for word, value in NUMBER_VALUES.items() if 1 <= value <= 9]
# "twenty-one" is one number, 21, not 20 and 1
_COMPOUND_NUMBER = re.compile(
    rf"\b(?P<tens>{'|'.join(_TENS)})[- ](?P<unit>{'|'.join(_ONES)})\b", re.IGNORECASE
)


def _compound_value(found: re.Match[str]) -> str:
    return str(NUMBER_VALUES[found["tens"].lower()] + NUMBER_VALUES[found["unit"].lower()])


@functools.cache
def _number_values() -> dict[str, str]:
    """The term of each number word up to ninety ("five", "twenty") -> its digits; not "one",
    a pronoun as often ("one from the platform team")."""
    return {
        term: str(value)
        for word, value in NUMBER_VALUES.items()
        if word != "one"
        for term in terms(word)
    }


def _valued_terms(text: str) -> frozenset[str]:
    """``terms(text)`` with the number words as digits: "five days" says "5 days", and "one
    business day" "1 business day" (before a unit, "one" is no pronoun)."""
    found = terms(ONE_BEFORE_A_UNIT.sub("1", _COMPOUND_NUMBER.sub(_compound_value, text)))
    values = _number_values()
    if values.keys().isdisjoint(found):
        return found
    return frozenset(values.get(term, term) for term in found)


@functools.cache
def _number_terms() -> frozenset[str]:
    return terms(NUMBER_WORDS)


def _is_number(term: str) -> bool:
    return _NUMBER.search(term) is not None or term in _number_terms()


# Where a sentence joins statements, each of which may say no on its own.
_JOINERS = r"\s(?:and|but|while|whereas|although|though|yet)\s"
_CLAUSE_BREAK = re.compile(rf"[,;:]\s|{_JOINERS}")
# clauses joined by a word or a semicolon (not a comma: "During maintenance, the service is
# offline" says its subject and its state on either side of one)
_JOINED_CLAUSE = re.compile(rf"[;:]\s|{_JOINERS}")


def _negated_about(sentence: str, words: set[str] | frozenset[str]) -> bool:
    """Whether ``sentence`` (evidence, or the claim itself) says no about the claim's
    ``words``, clause by clause: when the clause holding most of them says no, or when one
    of them is said only in a clause that says no.

    "Rollbacks take eight minutes and do not need approval" does not deny that rollbacks take
    eight minutes, nor "…the same day, and orders placed later do not" that orders placed
    before 16:00 leave the same day; "It is not the pager but the phone that wakes the
    engineer" denies that the pager does.
    """
    clauses = [
        (clause, terms(clause), _negated(clause)) for clause in _CLAUSE_BREAK.split(sentence)
    ]
    if len(clauses) == 1 or not any(words & held for _, held, _ in clauses):
        return _negated(sentence)
    _, _, main_says_no = max(clauses, key=lambda clause: len(words & clause[1]))
    plainly = frozenset().union(*(held for _, held, no in clauses if not no))
    return main_says_no or any(no and (words & held) - plainly for _, held, no in clauses)


def _negated(text: str) -> bool:
    """Whether ``text`` says no: an odd number of negation words (two cancel out)."""
    return len(_NEGATION.findall(text.replace("\u2019", "'"))) % 2 == 1


@dataclass
class ClaimVerdict:
    """One claim, whether the substrate supports it, and the evidence that does.

    ``nearest`` is, for an unsupported claim, the best evidence that does not say it (scoring
    at least the floor): where to see what the shard says instead (of a claim it contradicts,
    or one it only comes near); a note a newer one replaced that says it comes first, its entry
    naming the successor (``replaced_by``). None otherwise.
    """

    claim: str
    supported: bool
    score: float
    citations: list[dict[str, Any]] = field(default_factory=list)
    nearest: dict[str, Any] | None = None


@dataclass
class FactualityReceipt:
    """The per-claim grounding of an answer against the substrate."""

    answer: str
    verdicts: list[ClaimVerdict] = field(default_factory=list)

    __repr__ = masked_repr  # the text checked, as given, may hold a secret

    @property
    def grounded_fraction(self) -> float:
        """Supported claims over all claims (1.0 when there are none)."""
        if not self.verdicts:
            return 1.0
        return round(sum(v.supported for v in self.verdicts) / len(self.verdicts), 4)

    def unsupported(self) -> list[ClaimVerdict]:
        """The claims the substrate could not corroborate."""
        return [v for v in self.verdicts if not v.supported]

    def is_grounded(self, threshold: float = 1.0) -> bool:
        """True when at least ``threshold`` of the claims are supported (by default, all)."""
        return self.grounded_fraction >= threshold

    def as_dict(self) -> dict[str, Any]:
        """The receipt as plain data: the grounded fraction, the claim counts and each claim
        with its verdict, score and citations."""
        return {
            "grounded_fraction": self.grounded_fraction,
            "n_claims": len(self.verdicts),
            "n_unsupported": len(self.unsupported()),
            "claims": [
                {
                    "claim": v.claim,
                    "supported": v.supported,
                    "score": round(v.score, 4),
                    "citations": v.citations,
                    "nearest": v.nearest,
                }
                for v in self.verdicts
            ],
        }


# Evidence looked up beyond ``k`` per claim, for the notes replaced by others among it.
_SPARE = 4


def check_factuality(
    substrate: Substrate,
    answer: str,
    *,
    extract: Callable[[str], list[str]] | None = None,
    corroborates: Callable[[str, str], bool] | None = None,
    min_score: float = 0.2,
    k: int = 4,
    scope: str | None = None,
    scopes: Iterable[str] | None = None,
    masked_credentials: bool = False,
    asked_of: Collection[str] = (),
    proposals_back: bool = False,
) -> FactualityReceipt:
    """Ground each claim of ``answer`` against ``substrate``.

    Secrets in ``answer`` are masked, and citation markers such as ``[1]`` removed, before
    claims are extracted: the claims hold no secret, and one that stated a secret is
    unsupported (the shard keeps secrets masked, so nothing could confirm it).

    Args:
        substrate: the shard holding the evidence.
        answer: the text to check.
        extract: ``answer -> [claim, ...]`` (default: sentences of two or more words).
        corroborates: ``(evidence_text, claim) -> bool`` (default: content-term overlap >= 0.5).
        min_score: retrieval-score floor; evidence below it does not count.
        k: evidence items retrieved per claim.
        scope: restrict to one access scope.
        scopes: the scopes the caller may read (None: all).
        masked_credentials: ``answer`` stated credentials, masked since (``Answer.
            stated_secrets``): a claim holding a mask is as unconfirmable as one stating one.
        asked_of: identifiers the question gave ("ADR-002"): a replaced note titled by one
            backs claims still, as ``current_evidence`` keeps it for the answer.
        proposals_back: whether a note never in force (a proposal, a draft, one turned down)
            backs a claim stating what it says as done (an answer that warns of citing one);
            by default it backs only a claim telling of it as such (``notestatus.may_back``).
    """
    require_text(answer, "the text to check")
    require_number(min_score, "min_score")
    if k < 1:
        raise InvalidInputError(f"k must be >= 1, got {k}")
    extract = extract or sentence_claims
    says = corroborates or content_overlap
    allowed = merge_scopes(scope, scopes)
    # each claim: its best score, the evidence shown, and None when it is supported, else
    # what the nearest entry says of why it does not back the claim
    checked: list[tuple[str, float, list[tuple[SubstrateItem, float]], dict[str, str] | None]] = []
    # masked as a whole before it is cut into claims: what shows a value to be a secret (a
    # table's header, a key's armor lines, its first finding) may lie in another claim
    masked = safe_text(answer)
    # a claim the masking changed stated a secret (one quoting a stored mask did not), each
    # copy counted: a claim quoting the mask and one stating the secret read alike once masked
    changed = masked != answer
    as_given = Counter(extract(strip_citations(quotes_apart(answer)))) if changed else Counter()
    for claim in extract(strip_citations(quotes_apart(masked))):
        introduced = changed and as_given[claim] <= 0
        as_given[claim] -= 1
        # the shard keeps credentials masked: a claim stating one cannot be confirmed (masked
        # alike, any key would read as the one stored)
        stated = MASK_LEAD in claim and (masked_credentials or introduced)
        found = [] if stated else ranked(substrate, claim, k + _SPARE, scopes=allowed)
        replaced = superseded(
            [item for item, _ in found], asked_of=asked_of, confined=scopes is not None
        )
        hits = [(i, s) for i, s in found if i.id not in replaced][:k]
        best = max((score for _, score in hits), default=0.0)
        backing = _saying(hits, claim, min_score, says, in_force=not proposals_back)
        if backing and says is content_overlap:
            backing = _uncontradicted(backing, hits, claim, min_score)
        # a graph's or a record's fact giving it another value: the sources disagree, and
        # which is right no text can tell (an agent's trace says 9999, the table 7070)
        against = [(i, s) for i, s in hits if s >= min_score and contradicts(claim, i)]
        if backing and against:
            checked.append((claim, best, against[:1], {"contradicted": "true"}))
            continue
        if backing:
            checked.append((claim, best, backing, None))
            continue
        # else the nearest: a replaced note saying it (the claim is out of date: its entry
        # names the successor), a proposal saying it (it is not done: the status it gives
        # itself), or any
        stale = _saying([(i, s) for i, s in found if i.id in replaced], claim, min_score, says)
        unsettled = _saying([h for h in hits if not may_back(h[0], claim)], claim, min_score, says)
        why: dict[str, str]
        if stale:
            closest, why = stale[:1], {"replaced_by": replaced[stale[0][0].id]}
        elif unsettled:
            closest, why = unsettled[:1], {"not_in_force": str(not_in_force(unsettled[0][0]))}
        else:
            closest, why = [(i, s) for i, s in hits if s >= min_score][:1], {}
        checked.append((claim, best, closest, why))
    # one name per item across the receipt; masked, as receipts travel with answers
    named = {item.id: item for _, _, shown, _ in checked for item, _ in shown}
    names = dict(zip(named, shown_sources(list(named.values())), strict=True))
    receipt = FactualityReceipt(answer)
    for claim, best, shown, unsaid in checked:
        entries = [provenance_entry(item, score, names[item.id]) for item, score in shown]
        if unsaid is None:
            verdict = ClaimVerdict(claim, True, float(best), entries)
        else:
            nearest = (
                {**entries[0], **{k: safe_text(v) for k, v in unsaid.items()}} if entries else None
            )
            verdict = ClaimVerdict(claim, False, float(best), [], nearest)
        receipt.verdicts.append(verdict)
    return receipt


def _uncontradicted(
    backing: list[tuple[SubstrateItem, float]],
    hits: list[tuple[SubstrateItem, float]],
    claim: str,
    min_score: float,
) -> list[tuple[SubstrateItem, float]]:
    """The ``backing`` items that say more of ``claim`` than any of the ``hits`` that gives it
    another value: as within one text (``_readings``), so across texts. "Refunds for defective
    items take 30 days" is not backed by "Other items are refunded within 30 days" where the
    section on defective items says 14. An item that backs the claim by another reading (a
    sentence quoted under its heading) is kept."""
    read = {
        # (called as ``content_overlap`` calls it, so that the cache knows the call)
        item.id: _readings(as_shown(headed_text(item)), claim, OVERLAP_THRESHOLD, False)
        for item, score in hits
        if score >= min_score and may_back(item, claim)
    }
    other_value = max((value for _, _, value in read.values()), default=-1.0)
    kept = []
    for item, score in backing:
        said = read[item.id][0] if item.id in read else -1.0
        if said < 0 or said >= other_value:
            kept.append((item, score))
    return kept


def _saying(
    hits: list[tuple[SubstrateItem, float]],
    claim: str,
    min_score: float,
    corroborates: Callable[[str, str], bool],
    *,
    in_force: bool = False,
) -> list[tuple[SubstrateItem, float]]:
    """The ``hits`` scoring at least ``min_score`` that say ``claim``, as a packet and the
    answerer read them (a graph item's facts, its heading). With ``in_force``, a note never
    in force says it only as ``notestatus.may_back`` allows, or by a sentence of what is now
    (``content_overlap``'s ``as_it_is``)."""
    return [
        (i, s)
        for i, s in hits
        if s >= min_score and _says(i, claim, corroborates, in_force=in_force)
    ]


def _says(
    item: SubstrateItem, claim: str, corroborates: Callable[[str, str], bool], *, in_force: bool
) -> bool:
    text = headed_text(item)
    if not in_force or may_back(item, claim):
        return corroborates(text, claim)
    return corroborates is content_overlap and content_overlap(text, claim, as_it_is=True)


def miscited_claims(
    receipt: FactualityReceipt,
    answer: str,
    sources: Sequence[SubstrateItem],
    texts: Sequence[str],
) -> list[tuple[str, list[int]]]:
    """The claims of ``answer`` that the shard supports (``receipt``) but none of the
    sources they cite does: the answer points its reader at the wrong evidence. Each comes
    with the numbers it cites; ``sources`` are the items numbered ``[1]``, ``[2]``... and
    ``texts`` what the answerer was given of each. A claim nothing supports is the receipt's
    to report, not a citation's fault.

    Markers between two sentences of a line (``… weekdays. [1] Next …``) may close the one
    before or open the one after (answers are written both ways): a claim cited only by such
    markers is called miscited only when they do not fit its neighbour either."""
    supported = {v.claim: v for v in receipt.verdicts if v.supported}

    def backs(numbers: Iterable[int], claim: str) -> bool:
        verdict = supported.get(claim)
        backing = {entry["id"] for entry in verdict.citations} if verdict else set()
        return any(
            sources[n - 1].id in backing
            or content_overlap(headed_text(sources[n - 1], texts[n - 1]), claim)
            for n in numbers
        )

    claims = _cited_claims(answer, len(sources))
    wrong = []
    for k, (claim, own, before) in enumerate(claims):
        after = claims[k + 1][2] if k + 1 < len(claims) else []
        cited = [*own, *before, *after]
        if claim not in supported or not cited or backs(cited, claim):
            continue
        if not own:  # only shared markers: wrong only if they fit no neighbour
            prev_fits = bool(before) and k > 0 and backs(before, claims[k - 1][0])
            next_fits = bool(after) and backs(after, claims[k + 1][0])
            if prev_fits or next_fits:
                continue
        wrong.append((claim, list(dict.fromkeys(cited))))
    return wrong


def _cited_claims(answer: str, n_sources: int) -> list[tuple[str, list[int], list[int]]]:
    """The sentences of ``answer``, each with the source numbers it holds and those that open
    it after another sentence of its line (shared with that one); a line that opens with
    markers (a list of sources) cites its own sentence, and a line of markers alone the
    sentence before it. Markers glued to the full stop before them (``delivery.[2]``) are
    that sentence's."""
    claims: list[tuple[str, list[int], list[int]]] = []
    for line in unwrapped(quotes_apart(answer)):
        line = _GLUED_CITATIONS.sub(r" \2\1", line)  # "delivery.[2]" reads "delivery [2]."
        for i, sentence in enumerate(split_sentences(line)):
            lead = _LEADING_CITATIONS.match(sentence) if i else None
            shared = cited_numbers(lead.group(), n_sources) if lead else []
            rest = sentence[lead.end() :] if lead else sentence
            claim = strip_citations(rest)
            if claim:
                claims.append((claim, cited_numbers(rest, n_sources), shared))
            elif claims:  # "… weekdays. [1]" at the end of the line, or on a line of its
                # own after it: the markers are that sentence's
                claims[-1][1].extend(shared or cited_numbers(rest, n_sources))
    return claims


_LEADING_CITATIONS = re.compile(r"\s*(?:\[\d+(?:\s*,\s*\d+)*\]\s*)+")
# markers glued to a full stop that ends a sentence: a capital opens the next (or the line ends)
_GLUED_CITATIONS = re.compile(r"([.!?])((?:\[\d+(?:\s*,\s*\d+)*\])+)(?=\s+[A-ZÀ-ÖØ-Þ]|\s*$)")
