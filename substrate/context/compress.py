"""Extractive compression and the query-coverage receipts that measure it.

Query terms are the index terms of the search analyzer (Unicode words, stopwords dropped,
Snowball-stemmed), so "refunds" covers "refund" and a stray "a" covers nothing: the reference's
prefix rule let a one-letter word cover every query word beginning with that letter.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Iterable
from itertools import zip_longest

from substrate.abbreviations import MONTH_AFTER_A_DAY, ends_in_abbreviation
from substrate.errors import require_count, require_text
from substrate.linktext import as_shown
from substrate.search.snippets import lead_in
from substrate.search.tokenize import Analyzer, word_spans
from substrate.secrets.hits import MASK_PATTERN

ELLIPSIS = "…"

# A sentence ends at whitespace after ., ! or ?. Line breaks inside a paragraph are wrapping,
# except before a line that starts a block of its own (list item, heading, quote, code).
# (not before "=>": a trace's "who owns the billing-worker? => Payments team" is one)
# After ".", "!" or "?" and white space (not a day's number before its month: "am 14. Oktober"),
# or Arabic's question mark, Urdu's full stop and Hindi's danda ("؟", "۔", "।", "॥") and white
# space, and after the full stops Chinese and Japanese write with none ("。", "！", "？")
_SENTENCE_SPLIT = re.compile(
    r"(?<=[.!?\u061f\u06d4\u0964\u0965])(?<![0-9]\.)(?!\s*=>)\s+"
    # after a number that is no day's ("Q3.", "4.2.", "2024.")
    r"|(?<=[0-9]\.)(?<!\s[0-9]\.)(?<!\s[0-9][0-9]\.)(?<!^[0-9]\.)(?<!^[0-9][0-9]\.)"
    r"(?!\s*=>)\s+"
    # after a day's, but before its month
    r"|(?:(?<=\s[0-9]\.)|(?<=\s[0-9][0-9]\.)|(?<=^[0-9]\.)|(?<=^[0-9][0-9]\.))"
    r"(?!\s*=>)\s+(?!" + MONTH_AFTER_A_DAY.pattern + r")"
    r"|(?<=[。！？])(?![。！？」』）])"
)
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# A fence line: ``` or ~~~ and an info string (a ```make install``` line is code, not a fence).
_FENCE = re.compile(r"\s*(?:`{3,}[^`]*|~{3,}.*)$")
# The lines git writes around the two sides of a conflict it could not merge
_CONFLICT_MARK = re.compile(r"(?:<{7}|>{7}|\|{7})(?:\s.*)?$|={7}\s*$")
_HEADING = re.compile(r"#{1,6}\s")
# A line of one punctuation character repeated (not indented as code): a title's underline or
# overline, a transition, a thematic break.
_RULE = re.compile(r" {0,3}([=\-~^\"'`#*+_:<>])\1{2,}\s*$")


# A Markdown table: rows of cells between pipes, the header row underlined by a rule of dashes
_TABLE_ROW = re.compile(r"\s{0,3}\|")
_TABLE_RULE = re.compile(r"\|?(?:\s*:?-+:?\s*\|)*\s*:?-+:?\s*\|?")
_CELL_BORDER = re.compile(r"(?<!\\)\|")  # "\|" is a pipe inside a cell
_CELL_ORDINAL = re.compile(r"(?<![\w.])(\d{1,9})\.(?=\s)")  # "1. Stop": "1) Stop", no sentence end


def _cells(row: str) -> list[str]:
    inner = row.strip().removeprefix("|")
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in _CELL_BORDER.split(inner)]


def _table_header(lines: list[str], at: int) -> bool:
    """Whether the row at ``at`` is a table's header: a rule under it, and a row under that
    (a header with no row names nothing, and stays a line)."""
    return (
        at + 2 < len(lines)
        and _TABLE_RULE.fullmatch(lines[at + 1].strip()) is not None
        and _TABLE_ROW.match(lines[at + 2]) is not None
    )


def _labelled(header: list[str], cells: list[str]) -> str:
    """A table row as one sentence naming each cell by its column ("Level: SEV2; Status page
    updates: every 60 min."): a row says what its cells are only with its header, and a cell
    of two sentences is one clause, so that no part of the row is read without its name."""
    named = [
        f"{name}: {_clause(cell)}" if name else _clause(cell)
        for name, cell in zip_longest(header, cells, fillvalue="")  # a ragged row: all kept
        if cell
    ]
    row = "; ".join(named)
    return row if not row or row.endswith((".", "!", "?")) else f"{row}."


def _clause(cell: str) -> str:
    parts = split_sentences(_CELL_ORDINAL.sub(r"\1)", cell))
    return "; ".join([part.rstrip().removesuffix(".") for part in parts[:-1]] + parts[-1:])


def _underlines(rule: re.Match[str], line: str) -> bool:
    """Whether ``rule`` makes ``line`` above it a title: a Markdown setext one (= or -), or a
    reStructuredText one, whose underline is at least as long as the title."""
    if _BLOCK_START.match(line):
        return False
    return rule.group(1) in "=-" or len(rule.group().strip()) >= len(line.strip())


# A label in bold ("**Removing a user**"): short, and no sentence (a bold warning is one).
_BOLD_LINE = re.compile(r"(\*\*|__)([^*_\n]{0,60}[^*_\n.!?])\1:?")
# "1.", reStructuredText's "#.", and a numbered title's "# 5." (adr-tools: "# 5. Use Kafka")
_ORDINAL = re.compile(r"\s*(?:\d{1,9}|#|#{1,6}[ \t]+\d{1,9})[.)]")
# A link's text opening with a record's number: "Superseded by [5. Use Kafka](0005-....md)"
_LINKED_ORDINAL = re.compile(r"\[\d{1,9}\.$")
_BLOCK_START = re.compile(r"\s*(?:[-*+•]\s|#{1,6}\s|\d+[.)]\s|>|\$\s|\|)|\s{4}")
_MARKED_START = re.compile(r"\s*(?:[-*+•]\s|#{1,6}\s|\d+[.)]\s|>|\$\s|\|)")
_INDENTED = re.compile(r"\s{4}")


def split_sentences(text: str) -> list[str]:
    """``text`` (one block) cut after ".", "!" or "?" and white space, except after an
    abbreviation, a numbered list item's number ("1. Page the owner." is one sentence) or a
    record's number opening a link's text ("Superseded by [5. Use Kafka](0005-....md)")."""
    sentences: list[list[str]] = []  # the parts of each sentence, joined at the end
    for part in _SENTENCE_SPLIT.split(text):
        if sentences and _goes_on(sentences[-1]):
            sentences[-1].append(part)
        else:
            sentences.append([part])
    return [" ".join(parts) for parts in sentences]


def _goes_on(parts: list[str]) -> bool:
    """Whether the sentence made of ``parts`` so far goes on into the next part. Every part
    but the text's last ends in ".", "!" or "?": an abbreviation lies in the last part, and
    a sentence of two parts or more is no list item's number. (Reading the sentence so far
    instead took, for a long run of initials, time growing as the square of its length.)"""
    if ends_in_abbreviation(parts[-1]) or _LINKED_ORDINAL.search(parts[-1]):
        return True
    return len(parts) == 1 and _ORDINAL.fullmatch(parts[0]) is not None


def _blocks(text: str) -> list[str]:
    """Paragraphs and list items with their wrapped lines joined; each line of a code block
    is a block of its own (its fences are marks, not words), the first joined to a line
    ending with ":" that introduces it. A line a rule of punctuation underlines
    (reStructuredText, or a Markdown setext heading) is a heading, written as a Markdown
    one; the rule is a mark. So is a line all in bold that starts a block, as notes often
    label what follows."""
    blocks: list[str] = []
    for paragraph in _PARAGRAPH_BREAK.split(text):
        lines = paragraph.splitlines()
        if _line_records(lines):
            blocks += [line.strip() for line in lines if line.strip()]
            continue
        current: list[str] = []
        fenced = False
        header: list[str] | None = None  # the column names of the table being read
        for at, line in enumerate(lines):
            if _FENCE.match(line):
                opening = not fenced
                fenced = opening
                if current and not (opening and current[-1].endswith(":")):
                    blocks.append(" ".join(current))
                    current = []
                continue
            if not fenced and _TABLE_ROW.match(line):
                if current:
                    blocks.append(" ".join(current))
                    current = []
                if _table_header(lines, at):
                    header = _cells(line)  # names each row's cells, and is no sentence itself
                elif not _TABLE_RULE.fullmatch(line.strip()):  # a rule has no words
                    row = _labelled(header, _cells(line)) if header else line.strip()
                    if row:  # a row of empty cells says nothing
                        blocks.append(row)
                continue
            header = None
            label = None if fenced or current else _BOLD_LINE.fullmatch(line.strip())
            if label is not None:  # "**Removing a user**" alone on its line: a heading
                blocks.append(f"# {label.group(2).strip()}")
                continue
            if not fenced and _CONFLICT_MARK.match(line):  # a merge left unresolved: each
                if current:  # side a block of its own, the marks no words of either
                    blocks.append(" ".join(current))
                    current = []
                continue
            rule = None if fenced else _RULE.match(line)
            if rule is not None:
                if len(current) == 1 and _underlines(rule, current[0]):
                    current[0] = f"# {current[0]}"
                if current:
                    blocks.append(" ".join(current))
                    current = []
                continue
            starts_block = _starts_block(line, lines[at - 1] if at else "")
            after_heading = bool(current) and current[0].startswith("#")
            if current and (starts_block or after_heading):
                blocks.append(" ".join(current))
                current = []
            if line.strip():
                current.append(line.strip())
                if fenced:  # a line of code is a block of its own: two commands joined by a
                    blocks.append(" ".join(current))  # space read as one other command
                    current = []
                elif len(current) > 1 and current[-2].endswith(":"):
                    # "Do this:" + the command: the pair is one block, whatever follows.
                    blocks.append(" ".join(current))
                    current = []
        if current:
            blocks.append(" ".join(current))
    return blocks


# The least lines of a paragraph whose lines are records of their own (``_line_records``)
MIN_RECORD_LINES = 3
# A line's end that ends a sentence, or leads on to the next line
_LINE_END_MARK = re.compile(r"[.!?:;,…]\W*$")


def _line_records(paragraph: list[str]) -> bool:
    """Whether the lines of ``paragraph`` are each a record of its own (a log, a plain list of
    values): several lines, and none ending a sentence or leading on to the next. Joined as
    wrapped prose is, a log was one "sentence" of hundreds of lines, quoted from its start, and
    a claim stitched from three of its lines was found "supported"."""
    lines = [line for line in paragraph if line.strip()]
    if len(lines) < MIN_RECORD_LINES:
        return False
    # (a list, a table, headings, code and rules are read as blocks already)
    marked = (_FENCE, _MARKED_START, _INDENTED, _RULE)
    if any(mark.match(line) for line in lines for mark in marked):
        return False
    # (its last characters only: a run of marks tried from each of them took the square of
    # its length)
    return not any(_LINE_END_MARK.search(line, max(0, len(line) - 16)) for line in lines)


def _starts_block(line: str, before: str) -> bool:
    """Whether ``line``, under ``before``, starts a block: a list item, a heading, a quote, a
    table's row, a command; or an indented line (code), unless it carries on the sentence of
    a line of prose above it (a hanging indent, as Markdown's lazy continuation reads one)."""
    if _MARKED_START.match(line):
        return True
    if not _INDENTED.match(line):
        return False
    return not before.strip() or _INDENTED.match(before) is not None or before.rstrip()[-1] == ":"


@functools.lru_cache(maxsize=1)
def _analyzer() -> Analyzer:
    return Analyzer()


@functools.lru_cache(maxsize=1024)
def terms(text: str) -> frozenset[str]:
    """The distinct index terms of ``text`` (stemmed, case-folded, stopwords dropped);
    remembered, as packing and answering ask them of the same passages again and again (of a
    record of a megabyte, a second's work each time)."""
    return frozenset(_analyzer().terms(text))


def sentences(text: str, *, led: bool = False) -> list[str]:
    """Split ``text`` into stripped, non-empty sentences.

    A part ending with ":" introduces the next one (a command, a value, a list item), so the
    two stay together as one sentence. With ``led``, the later sentences of a list item led
    by a name ("- Jonas Weber: Security. Based in Berlin.") are led by it too ("Jonas Weber:
    Based in Berlin."), and labelled ones that give a value ("Sonarvik AS: Contact: Kari
    Nygaard.", not "Note: backups run nightly."): the item says whose they are, as its first
    sentence does.
    """
    out: list[str] = []
    for block in _blocks(text):
        lead = None
        for n, part in enumerate(split_sentences(block)):
            part = part.strip()
            if not part:
                continue
            if out and out[-1].endswith(":"):
                out[-1] = f"{out[-1]} {part}"
            elif n == 0 or lead is None:
                out.append(part)
                lead = lead_of(part) if led and n == 0 else None
            else:
                # a part naming whose it is, or with a label of its own that says more than
                # a value ("Note: backups run nightly.") is the item's only as it stands
                said = terms(lead) & terms(part) or _own_label(part) and not _a_value(part)
                out.append(part if said else f"{lead}: {part}")
    return out


# A label in bold ("**Location**: Lisbon", "**Location:** Lisbon") or as Dataview writes a
# field ("Location:: Dublin"), opening a sentence or a list item: "Location: Lisbon" as what
# a question's frame looks for reads it (``questions.states_frame``); quoted as written
_BOLD_LABEL = re.compile(
    r"^((?:[-*+]\s+)?)(?:\*\*|__)([^*_:\n]{1,40}?)(?::(?:\*\*|__)|(?:\*\*|__):)(?=\s)"
)
_FIELD_LABEL = re.compile(r"^((?:[-*+]\s+)?)([^\s:*][^:\n]{0,40}?)::(?=\s)")


def plain_label(sentence: str) -> str:
    if ":" not in sentence:
        return sentence
    sentence = _BOLD_LABEL.sub(r"\1\2:", sentence, count=1)
    return _FIELD_LABEL.sub(r"\1\2:", sentence, count=1)


def lead_of(sentence: str) -> str | None:
    """The name a bulleted list item is led by ("Jonas Weber" of "- Jonas Weber: Security."),
    or None: a name of a few words (``ENTRY_WORDS``), each capitalised, before a colon; one
    word only when spelt as a name or code is ("SEV1", "MySQL"), not a label ("Note", "Pros",
    "Q") nor a phrase ("Alice said")."""
    found = _LEAD.match(sentence)
    if found is None or not _BULLET.match(sentence):
        return None
    words = found.group(1).split()
    # (a word of a script without capitals, 李明, is no lower-case word either)
    if not (0 < len(words) <= ENTRY_WORDS and not any(w[:1].islower() for w in words)):
        return None
    return " ".join(words) if len(words) > 1 or NAME_SHAPE.search(words[0]) else None


def _own_label(sentence: str) -> bool:
    """Whether ``sentence`` opens with a label of its own, a few words and a colon ("Cons:
    expensive."), not a clause that holds one further on."""
    found = _LEAD.match(sentence)
    return found is not None and len(found.group(1).split()) <= ENTRY_WORDS


def _a_value(labelled: str) -> bool:
    """Whether a labelled sentence gives a value, not a clause: a name, an address or a
    number, every word of it capitalised or holding "@" or a digit ("Contact: Kari Nygaard.",
    "Email: kari@example.org"; not "Note: backups run nightly.")."""
    words = labelled.partition(":")[2].strip().rstrip(".").split()
    return bool(words) and all(
        w[:1].isupper() or "@" in w or any(ch.isdigit() for ch in w) for w in words
    )


def titled_sentences(text: str, *, whose: bool = False) -> list[str]:
    """``sentences(text)``, with each list item or short phrase that does not name the
    heading above it written as an entry of it: "- Based in Milan." or "DBA." under "# Jonas
    Weber" is "Jonas Weber: DBA.", which says whose it is, as the note does by its layout.
    With ``whose``, any sentence under a person's heading is (``entry_of``)."""
    out: list[str] = []
    title = ""
    for sentence in sentences(text, led=True):
        if is_heading(sentence):
            title = sentence.lstrip("#").strip()
        out.append(entry_of(title, sentence, whose=whose))
    return out


def opens_as_an_entry(sentence: str) -> bool:
    """Whether ``sentence`` opens with a person's name and a colon, as the answer to "who"
    quotes a sentence under a person's heading ("Marco Bianchi: Owns alerting.")."""
    name, colon, _ = sentence.partition(": ")
    return bool(colon) and len(name.split()) > 1 and _a_name(name)


def opens_with_a_name(sentence: str) -> bool:
    """Whether ``sentence`` opens with a name, as a claim about someone or something named
    does ("Tomasz Wieczorek works from ...", "Billing Service runs on ..."): two capitalised
    words, not an article's ("The Fulfillment team ...")."""
    words = sentence.split()[:2]
    return len(words) == 2 and _a_name(" ".join(words)) and not _OWN_SUBJECT.match(sentence)


def entry_of(title: str, sentence: str, *, whose: bool = False) -> str:
    """``sentence`` as an entry of the heading ``title`` when it does not name it and is a
    list item, or a phrase of a few words (``ENTRY_WORDS``) under a heading that is a name
    (each word capitalised: "Jonas Weber", not "How to file"); else as it is (see
    ``titled_sentences``). A heading that only says what kind of section it is ("Steps",
    "Notes") names no one whose entry it is.

    A sentence opening with "He" or "She" under a heading of two or more capitalised words
    ("Tobias Rennick") is its entry too: the pronoun stands for the heading's person.

    ``whose``: the question asks who, and the heading may be the answer: a sentence with no
    subject of its own ("Owns alerting.", not "The on-call engineer restarted it.") under a
    heading of two or more capitalised words ("Marco Bianchi", not "People") is its entry.
    """
    named = terms(title)
    # (by its words as shown: "- [ledger](../services/ledger.md)" does not say "services")
    if not title or named & terms(as_shown(sentence)) or named <= _generic_headings():
        return sentence
    listed = _LIST_ITEM.match(sentence) is not None
    short = len(sentence.split()) <= ENTRY_WORDS
    people = len(title.split()) > 1  # "Marco Bianchi", not "People"
    # "He ..." under a person's heading is theirs, whatever is asked
    person = people and (_PERSONAL.match(sentence) or whose and not _OWN_SUBJECT.match(sentence))
    if not (listed or ((short or person) and _a_name(title))):
        return sentence
    if is_heading(sentence):
        return sentence
    return f"{title}: {_LIST_ITEM.sub('', sentence, count=1)}"


# A sentence opening with a pronoun that stands for a person
_PERSONAL = re.compile(r"[-*+\s]*(?:he|she)(?=[\s'\u2019])", re.IGNORECASE)
# A sentence opening with its own subject: an article, a pronoun, a possessive
_OWN_SUBJECT = re.compile(
    r"[-*+\s]*(?:the|a|an|this|that|these|those|we|our|they|their|it|its|he|his|she|her|i|"
    r"my|you|your|there|someone|everyone|nobody)(?=[\s'\u2019])",  # not "A/B testing"
    re.IGNORECASE,
)


def _a_name(title: str) -> bool:
    words = title.split()
    return 0 < len(words) <= ENTRY_WORDS and all(word[:1].isupper() for word in words)


@functools.cache
def _generic_headings() -> frozenset[str]:
    return terms(
        "steps procedure instructions notes details overview summary usage examples glossary "
        "terms definitions"
    )


_LIST_ITEM = re.compile(r"[-*+•]\s+|\d+[.)]\s+")
# A name and a colon leading a sentence (a list item's, perhaps in bold): "- **SEV1**: ..."
_LEAD = re.compile(r"(?:[-*+•]\s+|\d+[.)]\s+)?(?:\*\*|__)?([^:*_`\[\]]{1,60}?)(?:\*\*|__)?:\s+\S")
# A sentence of at most this many words says whose only by the heading above it ("DBA.",
# "Based in Milan.", "Engineer, owns notifications.")
ENTRY_WORDS = 4
# A step's number: "1." or "1)" or "(1)", or "#." (numbered in order), after a lead-in that
# introduces the list ("Steps for a restart: 1. Drain the queue.").
_NUMBERED = re.compile(r"(?:[^:]{0,200}:\s+)?(?:(\d{1,9})[.)]|\((\d{1,9})\)|(#)[.)])\s")
_NEXT = -1  # the number of a "#." step: the one after the step before
_BULLET = re.compile(r"[-*+•]\s")  # an item of another list: this one ends
# A capital or a digit after a word's first letter (SEV1, MySQL, K8s): no common word is spelt so.
NAME_SHAPE = re.compile(r".[A-Z0-9]")


def _step_number(sentence: str) -> int | None:
    found = _NUMBERED.match(sentence)
    if found is None:
        return None
    number = found.group(1) or found.group(2)
    return int(number) if number else _NEXT


def numbered_lists(text: str) -> list[list[str]]:
    """The numbered lists of ``text``, each as its sentences in order: from a step numbered 1
    through the steps numbered one more each (or each 1, as Markdown numbers them too, or
    "#."), with the sentences of a step that come after its first (kept when the next step
    follows them)."""
    lists: list[list[str]] = []
    current: list[str] = []
    numbers: list[int] = []
    pending: list[str] = []  # sentences after a step: its own, if another step follows
    for sentence in sentences(text):
        number = _step_number(sentence)
        # "1." each, as Markdown numbers them too; not across another list's items
        lazy = number == 1 and set(numbers) == {1} and not any(map(_BULLET.match, pending))
        follows = number == _NEXT or number == len(numbers) + 1 or lazy
        if current and number is not None and follows:
            current += [*pending, sentence]
            numbers.append(number)
            pending = []
        elif number in (1, _NEXT):
            if len(current) > 1:
                lists.append(current)
            current, numbers, pending = [sentence], [number], []
        elif current and number is None and not is_heading(sentence):
            pending.append(sentence)  # a step's own sentences and sub-items
        else:
            if len(current) > 1:
                lists.append(current)
            current, numbers, pending = [], [], []
    if len(current) > 1:
        lists.append(current)
    return lists


def is_step(sentence: str) -> bool:
    """Whether ``sentence`` (of ``sentences``) is a step of a numbered list."""
    return _step_number(sentence) is not None


def is_heading(sentence: str) -> bool:
    """Whether a sentence (of ``sentences``) is a Markdown heading: a label of what follows,
    which shares the question's words without answering it."""
    return _HEADING.match(sentence) is not None


# A command's synopsis as its help prints it ("Usage: mixle compact [OPTIONS]", "usage: git
# [-v] <command>"): a "usage:" line naming a command and the placeholders of its arguments, no
# sentence ("Usage: run it once a week." is one)
_SYNOPSIS = re.compile(r"\s*usage:\s+\S+(?=\s).*?(?:[\[<{]|\s-)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[^\W\d_][\])\"'”’]*[.!?]$")  # "... a week [at night]."


def is_synopsis(sentence: str) -> bool:
    """Whether a sentence (of ``sentences``) is a command's synopsis: like a heading, it names
    what the text after it is about (the command) and says nothing of what it does."""
    line = sentence.strip()
    return _SYNOPSIS.match(line) is not None and _SENTENCE_END.search(line) is None


def _a_label(sentence: str) -> bool:
    """Whether a sentence only labels what follows it: a heading or a synopsis."""
    return is_heading(sentence) or is_synopsis(sentence)


def query_coverage(text: str, task: str, full: str | None = None) -> float:
    """The share of the task's terms that ``text`` still carries.

    With ``full``, only the task terms present in ``full`` count (what compression could have
    kept); the result is 1.0 when the task has no terms or ``full`` carries none of them.
    """
    wanted = terms(task)
    if full is not None:
        wanted = wanted & terms(full)
    if not wanted:
        return 1.0
    return len(wanted & terms(text)) / len(wanted)


def truncate(text: str, max_chars: int) -> str:
    """``text`` cut to at most ``max_chars`` characters, at a word boundary, ending in "…"."""
    if len(text) <= max_chars:
        return text
    if max_chars <= 0:
        return ""
    if max_chars == 1:
        return ELLIPSIS
    cut = text[: _outside_masks(text, max_chars - 1)]
    space = cut.rfind(" ")
    if space >= max_chars // 2:  # a word boundary, unless it would throw away half the room
        cut = cut[:space]
    return cut.rstrip() + ELLIPSIS


# A secret's mask ("[REDACTED:github_token]") is kept whole or left out: half of one reads as
# neither the text nor a mask.
_MASK = re.compile(MASK_PATTERN)


def _outside_masks(text: str, end: int) -> int:
    """``end``, or the start of the mask it would cut through."""
    for mask in _MASK.finditer(text, max(0, end - 64), end + 64):
        if mask.start() < end < mask.end():
            return mask.start()
    return end


# A test of a sentence that says what a task asks without its words (a place, a number)
Relevant = Callable[[str], object]


def _gains(parts: list[str], task: str, also_relevant: Relevant | None) -> list[int]:
    """How many of ``task``'s terms each of ``parts`` carries, one more for a part
    ``also_relevant`` finds relevant. The part after a command's synopsis carries the
    synopsis's terms too: it says what the command the synopsis names does ("Usage: mixle
    compact [OPTIONS]", then "Rewrite the log with only the live items.")."""
    wanted = terms(task)
    said = [terms(p) for p in parts]
    said = [t | said[i - 1] if i and is_synopsis(parts[i - 1]) else t for i, t in enumerate(said)]
    gains = [len(wanted & t) for t in said]
    if also_relevant is not None:
        gains = [g + bool(also_relevant(p)) for g, p in zip(gains, parts, strict=True)]
    return gains


def lead_sentence(text: str, task: str, also_relevant: Relevant | None = None) -> str:
    """The sentence of ``text`` that compression would keep first for ``task``."""
    parts = sentences(text, led=True)
    if not parts:
        return ""
    gain = _gains(parts, task, also_relevant)
    return parts[
        min(range(len(parts)), key=lambda i: (_a_label(parts[i]), -gain[i], len(parts[i])))
    ]


def compress_text(
    text: str, task: str, max_chars: int, also_relevant: Relevant | None = None
) -> str:
    """Extractive summary of ``text`` keeping the sentences most relevant to ``task``.

    Sentences are ranked by how many task terms they carry (then shorter first) and kept while
    they fit; one that does not fit is skipped, not a reason to stop. The result never exceeds
    ``max_chars``: when the best sentence is too long, and those that fit carry fewer of the
    task's terms, it is truncated with "…".

    Args:
        text: the text to compress.
        task: the question or task whose terms decide what to keep.
        max_chars: the most characters the summary may have.
        also_relevant: a test of a sentence saying what ``task`` asks without its words
            (a place, a number): such a sentence counts one term more.

    Returns:
        ``text`` itself when it fits, else the kept sentences in their original order (a
        list item's later sentence led by the item's name: ``sentences(led=True)``); ""
        when ``max_chars`` is 0 or less.

    Raises:
        InvalidInputError: ``text`` or ``task`` is not text, or ``max_chars`` is not a whole
            number.
    """
    require_text(text, "the text to compress")
    require_text(task, "the task")
    require_count(max_chars, "max_chars", minimum=None)
    if max_chars <= 0:
        return ""
    if len(text) <= max_chars:
        return text
    parts = sentences(text, led=True)  # a sentence kept alone still says whose it is
    if len(parts) <= 1:
        return around_match(" ".join(text.split()), task, max_chars)
    wanted = terms(task)
    gain = _gains(parts, task, also_relevant)
    heading = [_a_label(p) for p in parts]
    order = sorted(range(len(parts)), key=lambda i: (heading[i], -gain[i], len(parts[i]), i))
    # Sentences carrying no task term only pad a summary out; they are used only when no
    # sentence carries one (then the shortest are kept, as the reference did). A heading, or
    # a command's synopsis, carries the task's words without a fact: it comes last, and is
    # never kept for them ("Usage: mixle compact [OPTIONS]" says nothing of what it does).
    relevant = [i for i in order if gain[i] > 0 and not heading[i]]
    kept: list[int] = []  # in text order
    used = 0  # the length of the kept sentences joined
    for i in relevant or order:
        at = bisect.bisect(kept, i)
        before = parts[kept[at - 1]] if at else None
        after = parts[kept[at]] if at < len(kept) else None
        cost = len(parts[i]) + _gap(before, parts[i]) + _gap(parts[i], after)
        if used + cost - _gap(before, after) <= max_chars:
            kept.insert(at, i)
            used += cost - _gap(before, after)
    best = order[0]
    summary = _joined([parts[i] for i in kept])
    # the start of the sentence that says most of the task says more than whole ones that
    # say less ("refund" alone, where it says "refunds for defective items take")
    if not kept or (best not in kept and len(wanted & terms(summary)) < gain[best]):
        return around_match(parts[best], task, max_chars)
    return summary


def _joined(parts: list[str]) -> str:
    """Sentences as one text, each read back by ``sentences`` as it was (``_gap``)."""
    out: list[str] = []
    for i, part in enumerate(parts):
        if i:
            out.append("\n\n" if _gap(parts[i - 1], part) == 2 else " ")
        out.append(part)
    return "".join(out)


def _gap(before: str | None, after: str | None) -> int:
    """The characters between two kept sentences: a blank line around a list item, a
    heading or a table row ("- Slack: @tomas" followed by "He is away." on its line would be
    one list item) and after a line that ends no sentence (a label's line, a line of code:
    "rev: v2" then "hooks: ..." would read as one sentence), else a space; none at either
    end."""
    if before is None or after is None:
        return 0
    if _BLOCK_START.match(before) or _BLOCK_START.match(after):
        return 2
    return 1 if ends_sentence(before) else 2


# A sentence's end: its stop, perhaps inside a closing quote or bracket
_ENDS_SENTENCE = re.compile(r"[.!?…\u061f\u06d4\u0964\u0965。！？][\"'”’)\]]*\s*$")


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends a sentence (a list item's or a label's line, code, need not)."""
    return _ENDS_SENTENCE.search(text) is not None


_WORD = re.compile(r"\w+")


def _wanted_spans(
    text: str, spans: Iterable[tuple[int, int]], wanted: frozenset[str]
) -> list[tuple[int, frozenset[str]]]:
    """``(start, terms)`` of each of ``spans`` of ``text`` holding a term of ``wanted``, each
    distinct stretch analysed once (a 2 MB cell held 741,000 words, of five kinds)."""
    asked: dict[str, frozenset[str]] = {}
    found = []
    for start, end in spans:
        said = text[start:end]
        if (hit := asked.get(said)) is None:
            hit = asked[said] = wanted & terms(said)
        if hit:
            found.append((start, hit))
    return found


def _window_bounds(
    starts: list[int], found: list[tuple[int, frozenset[str]]], max_chars: int
) -> list[int]:
    """For each of ``starts`` (in order), how many terms asked of hold the stretches of
    ``found`` (the analyzer's, in order: "C++", a CJK run's pairs) that start from it within
    ``max_chars``: at least what a window from it says. In one pass."""
    bounds = []
    counts: dict[str, int] = {}
    lo = hi = 0
    for start in starts:
        while hi < len(found) and found[hi][0] < start + max_chars:
            for term in found[hi][1]:
                counts[term] = counts.get(term, 0) + 1
            hi += 1
        while lo < hi and found[lo][0] < start:
            for term in found[lo][1]:
                counts[term] -= 1
                if not counts[term]:
                    del counts[term]
            lo += 1
        bounds.append(len(counts))
    return bounds


def around_match(text: str, task: str, max_chars: int) -> str:
    """``text`` cut to ``max_chars`` where it says the task's terms (``stretch_saying``): in
    one long sentence (a log line, minified JSON) the part that matched may lie far from the
    opening."""
    return stretch_saying(text, terms(task), max_chars)


def stretch_saying(text: str, wanted: frozenset[str], max_chars: int) -> str:
    """``text`` cut to ``max_chars``: its start, unless a later stretch says more of
    ``wanted``; then the first stretch saying the most, from the word asked of that opens it
    with as much before it (``lead_in``, up to a quarter) as leaves it saying as much, "…"
    for what is cut before it."""
    wanted = wanted & terms(text)
    head = truncate(text, max_chars)
    most = len(wanted & terms(head))
    if most == len(wanted):
        return head

    def said_from(start: int) -> int:
        return len(wanted & terms(truncate(text[start:], max_chars - 1)))

    best = None
    words = ((m.start(), m.end()) for m in _WORD.finditer(text))
    starts = [at for at, _ in _wanted_spans(text, words, wanted)]  # (where a stretch may open)
    said_in = _wanted_spans(text, word_spans(text), wanted)
    for start, bound in zip(starts, _window_bounds(starts, said_in, max_chars), strict=True):
        # (a window is read only where the words asked of in its reach could say more: each
        # read of every one was quadratic in a long text saying one of them often)
        if bound > most and (said := said_from(start)) > most:
            best, most = start, said
            if most == len(wanted):  # (none says more)
                break
    if best is None:
        return head
    leads = (lead_in(text, best, max_chars >> shift) for shift in (2, 3, 4))
    start = next((at for at in leads if said_from(at) == most), best)
    return head if start == 0 else ELLIPSIS + truncate(text[start:], max_chars - 1)
