"""A quoted sentence that a stored fact gives another value: "Dan Wu is based in Lisbon." [1]
beside the triple (Dan Wu, based_in, Berlin) [2], or "notify-service uses port 9999." (an
agent's trace) beside the record {service: notify-service, port: 7070}. Sentences are compared
with sentences in ``substrate.disagreement``; a fact of a graph or a record is no sentence,
so an answer quoting one side of such a pair looked settled.

A fact (subject, attribute, value) contradicts a sentence that names its subject, then says
its attribute's words, gives no part of its value, and right after the attribute (past "in",
"is", "the"...) gives another value of the same shape: a number for a number, a name for a
name. Relations that hold many values ("Payments owns billing-api", "... owns the ledger")
then seldom conflict: their other value stands elsewhere, or is of another shape. A graph's
facts are its triples; a record's, its other fields, of the subject its first field names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from substrate.context.compress import terms
from substrate.disagreement import VALUE_WORD as _WORD
from substrate.disagreement import cited_sentences, disagreements
from substrate.item import SubstrateItem, fact_part, facts_of

# What may stand between an attribute's words and its value: "based in Berlin", "port is 7070"
_BETWEEN = frozenset(
    "in at by of on to from as is are was were be been being the a an its their now still "
    "currently uses use used using runs run".split()
)
# Words a relation's name joins that say nothing of what it is ("led_by", "based_in", "has_port")
_LINKING = frozenset(
    "by in of on at to for from with has have had is are was were the a an".split()
)
# Past forms whose stems do not meet the present's ("led by" and "leads")
_IRREGULAR = {"led": "lead", "held": "hold", "kept": "keep", "built": "build", "ran": "run"}
# A record's field values longer than this are text, not a subject or a value
_SHORT = 60


def sources_disagreeing(answer: str, items: list[SubstrateItem]) -> list[tuple[int, int]]:
    """The pairs of sources (numbers over ``items``, the lower first) of which ``answer``
    quotes one side: sentences differing in one value (``disagreements``), and a sentence
    and a stored fact giving another value (``fact_conflicts``)."""
    pairs = disagreements(answer, len(items))
    for quoted, fact in fact_conflicts(answer, items):
        pair = (min(quoted, fact), max(quoted, fact))
        if pair not in pairs:
            pairs.append(pair)
    return pairs


def fact_conflicts(answer: str, items: list[SubstrateItem]) -> list[tuple[int, int]]:
    """``(quoted, fact)``: the source numbers (1-based over ``items``) of each sentence of
    ``answer`` citing one source and of another source, a graph or a record, whose fact gives
    what the sentence says another value; each pair once."""
    found: list[tuple[int, int]] = []
    for n, sentence in cited_sentences(answer, len(items)):
        for m, item in enumerate(items, 1):
            if m != n and (n, m) not in found and contradicts(sentence, item):
                found.append((n, m))
    return found


def contradicts(sentence: str, item: SubstrateItem) -> bool:
    """Whether a fact of ``item`` (a graph's, a record's) gives what ``sentence`` says
    another value."""
    words = _WORD.findall(sentence)
    folded = {word.casefold() for word in words}
    # (a fact whose subject's first word the sentence lacks is not read further: a graph of
    # thousands of triples costs a set look-up each)
    facts = (f for f in _facts(item, words) if _first_word(f[0]) in folded)
    return any(_contradicts(words, fact) for fact in facts)


def _first_word(phrase: str) -> str:
    first = _WORD.search(phrase)
    return first.group().casefold() if first else ""


def _facts(item: SubstrateItem, words: list[str]) -> Iterator[tuple[str, str, str]]:
    """``(subject, attribute, value)`` of ``item``: a graph's triples, and a record's other
    fields where its first (the row's key, as a table's first column is: a service, a
    person, an incident) names what the sentence of ``words`` speaks of."""
    if item.kind == "graph":
        for head, relation, tail in facts_of(item):
            yield str(head), str(relation), str(tail)
    elif item.kind == "record":
        fields = {
            str(name): str(value)
            for name, value in item.payload.items()
            if fact_part(value) and not isinstance(value, bool) and len(str(value)) <= _SHORT
        }
        first = next(iter(item.payload.values()), None)  # (a value another field shares,
        # "sev1" of an incident, is no subject: the row is not about it)
        subject = str(first) if first is not None else ""
        if (
            subject in fields.values()
            and _a_name(subject)
            and _phrase_at(words, subject) is not None
        ):
            for name, value in fields.items():
                if value != subject:
                    yield subject, name, value


def _a_name(value: str) -> bool:
    """Whether a record's field value names something (``notify-service``, ``Dan Wu``,
    ``INC-7``), not a state or a word (``open``, ``platform``) many rows share."""
    return any(ch.isupper() or ch.isdigit() or ch in "-." for ch in value)


def _contradicts(words: list[str], fact: tuple[str, str, str]) -> bool:
    subject, attribute, value = fact
    named = _attribute_terms(attribute)
    at = _phrase_at(words, subject)
    if not named or at is None or _phrase_at(words, value) is not None:
        return False
    said = [_IRREGULAR.get(word.casefold(), word) for word in words]
    # the attribute after the subject, as the fact reads: in "Carol manages Alice Smith",
    # Alice Smith is who is managed, and (Alice Smith, manages, Bob) says nothing against it
    after_subject = at + len(_WORD.findall(subject))
    places = [i for i, word in enumerate(said) if i >= after_subject and terms(word) & named]
    if not named <= terms(" ".join(said)) or not places:
        return False
    after = places[-1] + 1
    while after < len(words) and words[after].casefold() in _BETWEEN:
        after += 1
    return after < len(words) and _shape(words[after]) == _shape(value.split()[0]) is not None


def _attribute_terms(attribute: str) -> frozenset[str]:
    """The terms of what a relation or field names ("based" of "based_in", "owner team" of
    "owner_team", "port" of "hasPort")."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])|[_\-.]", " ", attribute)
    words = [_IRREGULAR.get(w, w) for w in spaced.casefold().split() if w not in _LINKING]
    return terms(" ".join(words))


def _phrase_at(words: list[str], phrase: str) -> int | None:
    """Where the words of ``phrase`` stand together in ``words`` (case aside), or None."""
    wanted = [w.casefold() for w in _WORD.findall(phrase)]
    if not wanted:
        return None
    folded = [w.casefold() for w in words]
    for i in range(len(folded) - len(wanted) + 1):
        if folded[i : i + len(wanted)] == wanted:
            return i
    return None


def _shape(word: str) -> str | None:
    """What kind of value ``word`` opens: a number, a name (capitalised), an identifier (with
    a digit, dash or dot), or None for a plain word, which says no value."""
    if word[:1].isdigit():
        return "number"
    if word[:1].isupper():
        return "name"
    if any(ch.isdigit() or ch in "-." for ch in word):
        return "identifier"
    return None
