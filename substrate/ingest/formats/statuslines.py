"""Status lines that say a note was replaced, read as the front matter fields that say so.

Architecture decision records and runbooks often say it in the text, not in front matter:
``- Status: Superseded by [ADR-007](adr-007-opensearch.md)``, ``Supersedes: ADR-008``,
``> **Deprecated**: superseded by [the Argo CD procedure](deploy.md)``. ``replacement_fields``
gives them as ``superseded_by`` and ``supersedes``, which ``substrate.supersession`` reads
(an answer is then taken from the newer note). Only a line that starts with such a label
counts: a sentence that mentions a superseded approach in passing says nothing of its note.
"""

from __future__ import annotations

import re

# A label at the start of a line (after list, quote and bold marks), then what it names
_STATUS = re.compile(
    r"^[ \t>*+-]*(?:\*\*|__)?(?:(?P<state>status|deprecated)(?:\*\*|__)?[ \t]*:[ \t]*"
    r"(?:\*\*|__)?[ \t]*(?P<by>superseded|replaced)[ \t]+by"
    r"|(?P<label>superseded[ _-]by|replaced[ _-]by|supersedes|replaces)(?:\*\*|__)?[ \t]*:)"
    r"(?P<rest>[^\n]*)",
    re.IGNORECASE | re.MULTILINE,
)
_LINK = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_WIKI = re.compile(r"\[\[([^\]|#\n]+)")


def replacement_fields(text: str) -> dict[str, list[str]]:
    """``superseded_by`` and ``supersedes`` as the status lines of ``text`` give them (empty
    for a note with none)."""
    if "upersede" not in text and "eplace" not in text:  # (most notes: no regex run)
        return {}
    fields: dict[str, list[str]] = {}
    for m in _STATUS.finditer(text):
        label = (m.group("label") or m.group("by")).lower()
        field = "supersedes" if label in ("supersedes", "replaces") else "superseded_by"
        names = _names(m.group("rest"))
        if names:
            fields.setdefault(field, []).extend(n for n in names if n not in fields[field])
    return fields


def _names(rest: str) -> list[str]:
    """The notes named after a label: its links' targets, else each name of a list ("ADR-009",
    "ADR-005, ADR-006"): a name like a file's ("ADR-009 (March)"), or the words as written
    ("the new flow")."""
    linked = _LINK.findall(rest) + [name.strip() for name in _WIKI.findall(rest)]
    if linked:
        return linked
    names = []
    for part in _LIST.split(rest.replace("*", "").split(";")[0]):
        words = part.strip(" \t.:").split()
        if words:
            first = words[0].strip("()[].,:")
            named = first if _FILE_LIKE.search(first) else " ".join(words)
            names.append(named)
    return names


_LIST = re.compile(r",|\band\b")
_FILE_LIKE = re.compile(r"\d|\w[-./]\w")
