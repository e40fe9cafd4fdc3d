"""The claims of a text, as ``verify`` and the check of every answer read them: its
sentences of two words or more, a sentence wrapped over lines joined, a quote an answer cut
short ending its claim; questions and short headings, which state nothing, left out.
"""

from __future__ import annotations

import re
from collections import Counter

from substrate.context.compress import is_heading, split_sentences


def sentence_claims(text: str) -> list[str]:
    """Claims of ``text``: its sentences (and lines) of at least two words; a sentence
    wrapped over lines is one claim (``unwrapped``), a numbered list item's number is none
    of its words. A question states nothing, nor does a short Markdown heading ("## Code"):
    neither is a claim ("Was the upgrade done without downtime?" is not backed by a note
    saying it was); a statement with a question tagged on ("..., right?") is one."""
    return [_unheaded(claim) for claim in _sentences(text) if not _states_nothing(claim)]


def _unheaded(sentence: str) -> str:
    return sentence.lstrip("#").strip() if is_heading(sentence) else sentence


def unchecked_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that ``sentence_claims`` reads as no claim: questions and
    short headings."""
    return [claim for claim in _sentences(text) if _states_nothing(claim)]


def _sentences(text: str) -> list[str]:
    parts = [part for line in unwrapped(text) for part in split_sentences(line)]
    sentences = (_untagged(_LIST_NUMBER.sub("", p, count=1).strip()) for p in parts)
    return [sentence for sentence in sentences if len(sentence.split()) >= 2]


def _untagged(sentence: str) -> str:
    """``sentence`` without a question tagged on a statement ("We use Kafka, right?" says "We
    use Kafka."); a question that asks ("Which one do we use, ok?") stays one."""
    return sentence if _ASKS.match(sentence) else _TAGGED_QUESTION.sub(".", sentence)


def _states_nothing(sentence: str) -> bool:
    if is_heading(sentence):  # (a sentence is stripped: its marks open it)
        return len(_unheaded(sentence).split()) < HEADING_CLAIM_WORDS
    return sentence.rstrip("*_ ").endswith("?")


# A heading of this many words or more states something ("## Secrets moved to Vault")
HEADING_CLAIM_WORDS = 4
# The words that open a question answered yes or no ("Is ...?", "Does ...?")
AUXILIARIES = (
    "is|are|was|were|do|does|did|can|could|will|would|should|shall|has|have|had|must|may|might"
)
_ASKS = re.compile(rf"(?i)\s*(?:what|which|who|whom|whose|when|where|why|how|{AUXILIARIES})\b")
# "..., right?", "..., isn't it?": a statement, asked to be confirmed
_TAGGED_QUESTION = re.compile(
    r"(?i),\s*(?:right|correct|true|no|yes|ok|okay|isn't it|aren't they|don't we|didn't we"
    r"|doesn't it|wasn't it|weren't they|haven't we|hasn't it)\s*\?\s*$"
)


def quotes_apart(answer: str) -> str:
    """``answer`` with a line break after each "…" that ends a claim: one an answer cut a quote
    short with ("… [1]"), or one a capital follows outside quotation marks ("takes about 5
    minutes… The primary runs"). As one claim, the two would say what no source says; a "…"
    inside a quotation ("Promoting… Done") ends nothing. The marks are counted once, from one
    "…" to the next (counted again from the start for each, a text of many took time growing
    as the square of its length)."""
    parts: list[str] = []
    marks: Counter[str] = Counter()
    done = 0
    for m in _CLAIM_ELLIPSIS.finditer(answer):
        _count_marks(marks, answer, done, m.start())  # (a match holds no quotation mark)
        ends = m[2] or not _in_quotation(marks)
        parts += [answer[done : m.start()], f"{m[1]}\n" if ends else m[0]]
        done = m.end()
    parts.append(answer[done:])
    return "".join(parts)


def _count_marks(marks: Counter[str], text: str, start: int, end: int) -> None:
    """Add the quotation marks and code spans of ``text[start:end]`` to ``marks``."""
    marks['"'] += text.count('"', start, end)
    marks["`"] += len(_BACKTICKS.findall(text, start, end))
    marks["'"] += len(_SINGLE_OPEN.findall(text, start, end))
    marks["'."] += len(_SINGLE_CLOSE.findall(text, start, end))
    for pair in _PAIRED_QUOTES:
        for mark in pair:
            marks[mark] += text.count(mark, start, end)


def _in_quotation(marks: Counter[str]) -> bool:
    """Whether the text whose ``marks`` were counted leaves a quotation or a code span open:
    double quotes and runs of backticks by their parity; single quotes, curly quotes and
    guillemets by their balance (a ' opening a word opens a quotation; one closing a word, as
    "the users'" does, closes one or is an apostrophe)."""
    if marks['"'] % 2 or marks["`"] % 2 or marks["'"] > marks["'."]:
        return True
    return any(marks[a] > marks[b] for a, b in _PAIRED_QUOTES)


_BACKTICKS = re.compile(r"`+")
_SINGLE_OPEN = re.compile(r"(?<![\w'])'(?=[^\W\d_])")  # not "the '90s"
_SINGLE_CLOSE = re.compile(r"(?<=[\w.!?…])'(?![^\W_])")
_PAIRED_QUOTES = (("\u201c", "\u201d"), ("\u2018", "\u2019"), ("\u00ab", "\u00bb"))


# "…", the citation markers right after it if any, and the white space before the next claim
_CLAIM_ELLIPSIS = re.compile(r"(…((?:\s*,?\s*\[\d+(?:\s*,\s*\d+)*\])+)?)[ \t]+(?=(?(2)\S|[A-Z]))")


def unwrapped(text: str) -> list[str]:
    """The lines of ``text``, a sentence wrapped over several of them joined into one: a
    line of wrapped width that ends no sentence goes on at the next when that one opens in
    lower case or with a number ("... acknowledges a page" + "within fifteen minutes.").
    Headings, labels, list items and lines of citations stay lines of their own."""
    lines: list[str] = []
    for line in text.splitlines():
        if lines and _wraps(lines[-1]) and _continues(line):
            lines[-1] = f"{lines[-1].rstrip()} {line.strip()}"
        else:
            lines.append(line)
    return lines


def _wraps(line: str) -> bool:
    return len(line.strip()) >= MIN_WRAPPED_CHARS and not _ENDS.search(line)


def _continues(line: str) -> bool:
    start = line.lstrip()[:1]
    return (start.islower() or start.isdigit()) and not _LIST_NUMBER.match(line)


# Text is wrapped at 60 to 100 columns: a shorter line ending no sentence is a heading or a
# label ("[1] (runbook.md)"), not the first part of a sentence.
MIN_WRAPPED_CHARS = 40


# A line ending a sentence (or a label, or a quote cut short: "… [1]", which
# ``quotes_apart`` ended its line at), whatever citations follow; a numbered list item
_ENDS = re.compile(r"[.!?:;…]\s*(?:\[\d+(?:\s*,\s*\d+)*\]\s*)*$")
_LIST_NUMBER = re.compile(r"^\s*\d+[.)]\s")
