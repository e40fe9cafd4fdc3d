"""Sources that disagree: two sentences saying the same thing but for one value ("The staging
database host is db-stage-1." and "... is db-stage-2."). An answer quoting one of them picked
a side at full confidence; it quotes both, and says that they disagree.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence

from substrate.markdowncode import blanked_code
from substrate.quantities import unit_named
from substrate.quotelines import CITATION

# Words as a value is written: "db-stage-1", "10.0.0.5", "v2.3" whole
VALUE_WORD = re.compile(r"[^\W_]+(?:[.\-/:][^\W_]+)*")
# The fewest words two sentences must share around the value they differ in: "is 5" and "is
# 6" say too little to be the same statement
MIN_SHARED = 3
# The most words of a value: more is another statement, not another value ("Tuesday at 10:00")
MAX_VALUE_WORDS = 3


def differ_in_one_value(one: str, other: str) -> bool:
    """Whether ``one`` and ``other`` are the same sentence but for one run of a few words at
    the same place: the same statement with another value. Two quotes led by labels that
    differ only in their dates or numbers ("Meeting 2026-09-14: ..." and "Meeting 2026-10-12:
    ...", two meetings' minutes) are compared without them."""
    one, other = _without_dated_labels(one, other)
    a, b = _words(one), _words(other)
    changes = _joined_changes(difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes())
    if len(changes) != 1 or changes[0][0] != "replace":
        return False
    _, a0, a1, b0, b1 = changes[0]
    if len(a) - (a1 - a0) < MIN_SHARED or max(a1 - a0, b1 - b0) > MAX_VALUE_WORDS:
        return False
    if _in_the_subject(a, a0):
        return False
    return _as_valued(a[a0:a1]) != _as_valued(b[b0:b1])


# A quote's label: a few words before a colon that opens it ("Meeting 2026-09-14: ")
_LABEL = re.compile(r"\s*([^:.!?\n]{1,60}):\s+(?=\S)")


def _without_dated_labels(one: str, other: str) -> tuple[str, str]:
    """``one`` and ``other`` without their labels, when both have one and the two differ
    only in words holding a digit (dates, numbers); else as they are."""
    a, b = _LABEL.match(one), _LABEL.match(other)
    if a is None or b is None or a[1] == b[1]:
        return one, other
    undated = [[w for w in _words(m[1]) if not any(c.isdigit() for c in w)] for m in (a, b)]
    if undated[0] != undated[1]:  # ("billing-api: ..." and "billing-worker: ...": two things)
        return one, other
    return one[a.end() :], other[b.end() :]


def _joined_changes(
    opcodes: Sequence[tuple[str, int, int, int, int]],
) -> list[tuple[str, int, int, int, int]]:
    """The changes between two word lists, two replacements one shared word apart taken as
    one: "Tuesday at 10:00" and "Monday at 09:00" are one value, a day and its time."""
    joined: list[tuple[str, int, int, int, int]] = []
    for n, op in enumerate(opcodes):
        if op[0] == "equal":
            continue
        gap = opcodes[n - 1] if n >= 2 else None  # the shared words before this change
        if (
            joined
            and gap is not None
            and gap[2] - gap[1] == 1
            and op[0] == joined[-1][0] == "replace"
            and joined[-1][2] == gap[1]
        ):
            kind, a0, _, b0, _ = joined[-1]
            joined[-1] = (kind, a0, op[2], b0, op[4])
        else:
            joined.append(op)
    return joined


def _in_the_subject(words: list[str], at: int) -> bool:
    """Whether the word at ``at`` is in what the sentence is about, before its first
    auxiliary verb ("The checkout service is owned by ..." and "The billing service ...":
    two statements, which may both hold), or its first word where it has none ("Alice leads
    the team", "Bob leads the team"). A statement's value follows."""
    verb = next((n for n, word in enumerate(words) if word in _AUXILIARIES), None)
    return at < verb if verb is not None else at == 0


_AUXILIARIES = frozenset(
    "is are was were be been has have had will would can could must should may might does do "
    "did".split()
)


def _as_valued(words: list[str]) -> tuple[str, ...]:
    """``words`` as the value they give: a unit or an ordinal as one spelling ("30 s" and "30
    seconds", "fourth" and "4th"), without the words that give none ("is" and "was")."""
    return tuple(_ORDINALS.get(w) or unit_named(w) or w for w in words if w not in _NO_VALUE)


_NO_VALUE = _AUXILIARIES | {"being", "the", "a", "an"}
# ("second" stays a unit: "a 30 second timeout" is more often written than "every second week")
_ORDINALS = {"first": "1st", "third": "3rd", "fourth": "4th", "fifth": "5th", "sixth": "6th"}
_ORDINALS |= {"seventh": "7th", "eighth": "8th", "ninth": "9th", "tenth": "10th"}


def disagreements(answer: str, n_sources: int) -> list[tuple[int, int]]:
    """The source numbers of each pair of sentences of ``answer`` that cite different
    sources and differ in one value (``differ_in_one_value``), each pair once."""
    quoted = list(cited_sentences(answer, n_sources))
    found: list[tuple[int, int]] = []
    for i, (first, one) in enumerate(quoted):
        for second, other in quoted[i + 1 :]:
            pair = (min(first, second), max(first, second))
            if first != second and pair not in found and differ_in_one_value(one, other):
                found.append(pair)
    return found


def cited_sentences(answer: str, n_sources: int) -> Iterator[tuple[int, str]]:
    """Each stretch of ``answer`` before a marker citing one source (``… db-stage-2. [1]``),
    with that source's number."""
    at = 0
    for marker in CITATION.finditer(blanked_code(answer)):  # ([1] in code cites nothing)
        quote, at = answer[at : marker.start()].strip(), marker.end()
        numbers = {int(n) for n in marker[1].split(",")}
        if quote and len(numbers) == 1 and 1 <= min(numbers) <= n_sources:
            yield min(numbers), quote


def _words(text: str) -> list[str]:
    return [word.casefold() for word in VALUE_WORD.findall(text)]
