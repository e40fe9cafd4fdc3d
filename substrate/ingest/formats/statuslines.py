"""Status lines that say a note was replaced, read as the front matter fields that say so.

Architecture decision records and runbooks often say it in the text, not in front matter:
``- Status: Superseded by [ADR-007](adr-007-opensearch.md)``, ``Supersedes: ADR-008``,
``> **Deprecated**: superseded by [the Argo CD procedure](deploy.md)``. ``replacement_fields``
gives them as ``superseded_by`` and ``supersedes``, which ``substrate.supersession`` reads
(an answer is then taken from the newer note); under a "## Status" heading, adr-tools' own
``Superseded by [5. Use Kafka](0005-use-kafka.md)`` (no colon) too. Only a line of the
note's head (its first ``HEAD_LINES`` lines, fenced code aside) that starts with such a
label counts: a sentence that mentions a superseded approach in passing, or a template's
example, says nothing of its note.
"""

from __future__ import annotations

import re

from substrate.ingest.formats.notelinks import INLINE_LINK, WIKI_LINK
from substrate.notestatus import status_word

# Where notes put their status: under the title, or in a short "Status" section below it
HEAD_LINES = 40
# What of a status line is read: its names are near the label
_REST_CHARS = 300
# The most of a note's text looked at (its head is seldom more)
_HEAD_CHARS = 16384

# A label at the start of a line (after list, quote and bold marks), then what it names
_LEAD = r"[ \t>*+-]*+(?:\*\*|__)?"
_LABEL = r"(?P<label>superseded[ _-]by|replaced[ _-]by|supersedes|replaces)\b(?:\*\*|__)?[ \t]*+"
_STATUS = re.compile(
    rf"{_LEAD}(?:(?P<state>status|deprecated)(?:\*\*|__)?[ \t]*+:[ \t]*+"
    rf"(?:\*\*|__)?[ \t]*+(?P<by>superseded|replaced)[ \t]++by|{_LABEL}:)",
    re.IGNORECASE,
)
# In a "## Status" section, adr-tools' own lines, with no colon: "Superseded by [5. Use
# Kafka](0005-use-kafka.md)", "Supersedes [2. ...](0002-....md)"
_SECTION_LABEL = re.compile(rf"{_LEAD}{_LABEL}:?", re.IGNORECASE)
# "- **Status**: Proposed", "> Status: Draft" (the word is read by ``status_word``)
_STATE_LABEL = re.compile(r"[ \t>*+-]*+(?:\*\*|__)?status(?:\*\*|__)?[ \t]*+:", re.IGNORECASE)
# "## Status", its word on the first line after it (a decision record's usual form)
_STATE_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+status[ \t#]*$", re.IGNORECASE)
_FENCE = re.compile(r"[ \t]{0,3}(?:`{3,}(?![^\n]*`)|~~~)")  # (```x``` is inline code)
# Names in a list: "ADR-5, ADR-6 and ADR-7" ("and" only before another numbered name)
_LIST = re.compile(r",|\band\b(?=\s+\S*\d)")
_FILE_LIKE = re.compile(r"\d|\w[-./]\w")


def replacement_fields(text: str, start: int = 0) -> dict[str, list[str]]:
    """``superseded_by`` and ``supersedes`` as the status lines of ``text`` from ``start`` (its
    front matter's end) give them; empty for a note with none."""
    text = text[start : start + _HEAD_CHARS]
    if "upersede" not in text and "eplace" not in text:  # (most notes: nothing to look at)
        return {}
    fields: dict[str, list[str]] = {}
    in_status = False  # under a "## Status" heading
    for line in _head(text):
        if line.lstrip().startswith("#"):
            in_status = _STATE_HEADING.match(line) is not None
            continue
        m = _STATUS.match(line) or (_SECTION_LABEL.match(line) if in_status else None)
        if m is None:
            continue
        label = (m.group("label") or m.group("by")).lower()
        field = "supersedes" if label in ("supersedes", "replaces") else "superseded_by"
        known = fields.setdefault(field, [])
        known.extend(n for n in _names(line[m.end() : m.end() + _REST_CHARS]) if n not in known)
    return {field: names for field, names in fields.items() if names}


def note_status(text: str, start: int = 0) -> str | None:
    """The status the head of ``text`` from ``start`` gives its note, as written ("Proposed"
    of "- Status: Proposed" or of a "## Status" section saying "Proposed"), or None."""
    text = text[start : start + _HEAD_CHARS]
    if "tatus" not in text and "TATUS" not in text:  # (most notes: nothing to look at)
        return None
    lines = _head(text)
    for at, line in enumerate(lines):
        label = _STATE_LABEL.match(line)
        if label is not None:
            return status_word(line[label.end() : label.end() + _REST_CHARS])
        if _STATE_HEADING.match(line):
            said = next((rest for rest in lines[at + 1 :] if rest.strip()), "")
            return status_word(said[:_REST_CHARS])
    return None


def _head(text: str) -> list[str]:
    """The first ``HEAD_LINES`` lines of ``text`` outside fenced code."""
    lines: list[str] = []
    fenced = False
    for line in text.split("\n", HEAD_LINES)[:HEAD_LINES]:
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _names(rest: str) -> list[str]:
    """The notes named after a label: its links' targets, else each name of a list ("ADR-009",
    "ADR-005, ADR-006"): a name like a file's ("ADR-009 (March)"), or the words as written
    ("the new flow")."""
    linked = [m.group("angled") or m.group("bare") for m in INLINE_LINK.finditer(rest)]
    linked += [(m.group("name") or "") for m in WIKI_LINK.finditer(rest)]
    named = [name.partition("#")[0].strip() for name in linked]  # the note, not its heading
    if any(named):
        return [name for name in named if name]
    names = []
    for part in _LIST.split(rest.replace("*", "").split(";")[0]):
        words = part.strip(" \t.:").split()
        if words:
            first = words[0].strip("()[].,:")
            names.append(first if _FILE_LIKE.search(first) else " ".join(words))
    return names
