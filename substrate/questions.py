"""What a question asks beyond its content words.

"How long does a refund take?" is about refunds: "long" and "take" only frame it, and the
sentence that answers it says "within five business days", not "long". Looking the frame words
up would find other durations and make a covered question look uncovered; the answer is a
sentence about refunds that states a duration.

Words that make a request ("explain", "tell me", "how does it work") are no topic either: a
shard need not contain them to answer, so they never count as something it fails to mention.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from substrate.context.compress import terms

# Numbers written as words are values too ("five minutes").
NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million billion"
)
_DURATION_FRAME = re.compile(
    r"\b(how\s+long)\b(.*?)\b(take|takes|took|taking|last|lasts|lasted)\b",
    re.IGNORECASE | re.DOTALL,
)
_UNITS = r"(?:second|sec|minute|min|hour|hr|day|business day|working day|week|month|year)s?"
# "a day", "an hour", but not "a second factor": after "a" or "an", a whole unit of its own
_DURATION = re.compile(
    rf"\b(?:(?:\d+(?:[.,]\d+)?|few|several|{'|'.join(NUMBER_WORDS.split())})"
    rf"(?:[\s-]+\w+)?[\s-]+{_UNITS}|an?\s+(?:minute|hour|day|week|month|year))\b",
    re.IGNORECASE,
)


# Words that make a request, compared by index term, so "Explaining" and "works" count too.
# Not "mean" ("the mean latency") nor "use" ("which engine do we use"): they are topics as often.
REQUEST_WORDS = (
    "explain describe tell summarize summarise summary give get show list find know want need "
    "please meant happen work example detail"
)
_WORD = re.compile(r"[^\W_]+(?:['’./-][^\W_]+)*")  # "on-call", "notes.md" whole
# What an abstention may name: plain words, never one with digits or of token length (a
# credential the secret rules miss is such a word), at most MAX_NAMED of them.
_NAMEABLE = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
MAX_NAME_CHARS = 32
MAX_NAMED = 5


@functools.cache
def _request_terms() -> frozenset[str]:
    return terms(REQUEST_WORDS)


def _requests_only(word: str) -> bool:
    said = terms(word)
    return bool(said) and said <= _request_terms()


def asked_terms(question: str) -> frozenset[str]:
    """The terms an answer to ``question`` must say: its own, less the words of a request
    ("Explain how refunds work" asks about refunds). The frame of "how long ... take" stays:
    a sentence giving a duration says it (``terms_said``)."""
    asked = terms(question)
    return asked - _request_terms() or asked


def topic_text(question: str) -> str:
    """``question`` without the words that frame it or make a request: what it is about."""
    unframed = _DURATION_FRAME.sub(r"how\2", question)
    return _WORD.sub(lambda m: " " if _requests_only(m[0]) else m[0], unframed)


def words_for(question: str, wanted: frozenset[str]) -> list[str]:
    """The plain words of ``question`` (``_NAMEABLE``) whose index terms are in ``wanted``,
    each once (whatever its case or ending), in order; at most ``MAX_NAMED``."""
    named: dict[frozenset[str], str] = {}
    for word in _WORD.findall(unicodedata.normalize("NFC", question)):
        said = terms(word) & wanted
        plain = len(word) <= MAX_NAME_CHARS and _NAMEABLE.fullmatch(word)
        if said and plain and said not in named:
            named[said] = word
    return list(named.values())[:MAX_NAMED]


def frame_terms(question: str) -> frozenset[str]:
    """The terms of ``question`` that frame it ("long", "take"), empty for most questions."""
    found = _DURATION_FRAME.search(question)
    return terms(f"{found.group(1)} {found.group(3)}") if found else frozenset()


def terms_said(sentence: str, wanted: frozenset[str], frame: frozenset[str]) -> frozenset[str]:
    """The ``wanted`` terms ``sentence`` says: a sentence giving a duration says the question's
    ``frame`` ("long", "take") too."""
    said = wanted & terms(sentence)
    return said | frame if frame and states_duration(sentence) else said


def states_duration(sentence: str) -> bool:
    """Whether ``sentence`` gives a length of time ("five business days", "30 minutes")."""
    return _DURATION.search(sentence) is not None
