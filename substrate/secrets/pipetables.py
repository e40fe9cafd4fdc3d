"""Secrets in a pipe table's column headed by a secret's name (Markdown and wiki tables).

"| service | user | password |" above "|---|---|---|" makes every cell of the third column a
password, however many rows down. The key = value rules read a line at a time, and a row names
no key, so tables are read here: a header row, the delimiter row under it, then the rows that
follow until a line holds no pipe. A column counts when its name ends in a secret's noun
("DB password", "API key", "Client secret"; not "Password policy" or "Pass rate"), and each of
its cells is judged as a value assigned to that name. (CSV and TSV files, whose headers are
identifiers, are read by ``secrets.tables``.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import pairwise

from substrate.secrets.keynames import classify_key, split_words
from substrate.secrets.placeholders import plain_word, worth_reporting

# The row under a header: cells of dashes, perhaps aligned with colons, at least one pipe;
# or a box's rule, "+------+------+", as the mysql client prints its results, or psql's
# "----+------".
_BOX_RULE = re.compile(r"[ \t]*\+(?:[-=]+\+)+\r?")
_DELIMITER_ROW = re.compile(
    r"[ \t]*+(?:(?=[^\n]*\|)(?:\|[ \t]*)?:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*(?:\|[ \t]*)?"
    r"|\+(?:[-=]+\+)+|-+(?:\+-+)+)\r?"
)
_CELL_EDGE = re.compile(r"(?<!\\)\|")
_NOTE = re.compile(r"\([^()]*\)")  # "Password (prod)"; a cell of "(((" read once
_USER_NOUNS = frozenset(["user", "username", "login", "account"])
_SECRET_NOUNS = frozenset(
    ["password", "passwd", "pwd", "passphrase", "pw", "secret", "token", "key", "apikey"]
    + ["credential", "credentials"]
)


def table_column_secrets(
    text: str, windows: Iterable[tuple[int, int]]
) -> Iterator[tuple[int, int]]:
    """The spans of the values in ``text``'s table columns named for a secret, in order.

    ``windows`` are the spans of the lines that may be a header (those holding a secret's
    keyword; several lines in one span are looked at one by one): a header names its secret
    column, and looking only there keeps a long file with no such table cheap.
    """
    read = 0  # where the last table read ends: a line before it is one of its rows
    for start, end in windows:
        while start < end:
            line_end = text.find("\n", start, end)
            line_end = end if line_end == -1 else line_end
            if start >= read:
                spans, read = _table_under(text, start, line_end)
                yield from spans
            start = line_end + 1


def _table_under(
    text: str, header_start: int, header_end: int
) -> tuple[list[tuple[int, int]], int]:
    """The secret values of the table whose header is the line ``[header_start, header_end)``,
    if a delimiter row follows it, and where the table ends (``header_start`` if none)."""
    if "|" not in text[header_start:header_end] or header_end >= len(text):
        return [], header_start
    rule_end = _line_end(text, header_end + 1)
    if not _DELIMITER_ROW.fullmatch(text, header_end + 1, rule_end):
        return [], header_start
    header = _cells(text, header_start, header_end)
    names = [text[start:end] for start, end in header]
    columns = {i: s for i, name in enumerate(names) if (s := _secret_column(name, names))}
    return _column_values(text, rule_end + 1, header, columns)


def _secret_column(name: str, names: list[str]) -> str | None:
    """``"password"`` or ``"token"`` when a column of this name, among the table's ``names``,
    holds secrets, else None. "Pass" is a password beside a user's column (else a result, as
    in Pass / Fail)."""
    bare = _NOTE.sub(" ", name.strip(" \t*_`")).strip()
    words = split_words(bare)
    if words == ["pass"]:
        users = {w for other in names for w in split_words(other)} & _USER_NOUNS
        return "password" if users else None
    if not words or words[-1] not in _SECRET_NOUNS:
        return None
    return classify_key(bare)


def _column_values(
    text: str, start: int, header: list[tuple[int, int]], columns: dict[int, str]
) -> tuple[list[tuple[int, int]], int]:
    """The spans of the secret values in the rows from the line at ``start`` on to the first
    line without a pipe (a grid table's rule between two rows goes on; two rules in a row end
    the table), and where that line is."""
    spans: list[tuple[int, int]] = []
    while start < len(text):
        end = _line_end(text, start)
        if "|" not in text[start:end]:
            below = end + 1
            if not _BOX_RULE.fullmatch(text, start, end) or _BOX_RULE.fullmatch(
                text, below, _line_end(text, below)
            ):
                return spans, start
        elif columns:
            for i, (cell_start, cell_end) in enumerate(_cells(text, start, end)):
                strength = columns.get(i)
                if strength is not None:
                    key = text[header[i][0] : header[i][1]]
                    span = _value(text, cell_start, cell_end, strength, key)
                    if span is not None:
                        spans.append(span)
        start = end + 1
    return spans, len(text)


def _line_end(text: str, start: int) -> int:
    """Where the line at ``start`` ends (its line break, or the end of ``text``)."""
    end = text.find("\n", start)
    return len(text) if end == -1 else end


def _value(text: str, start: int, end: int, strength: str, key: str) -> tuple[int, int] | None:
    """The span of a cell's value when it is worth reporting (its code or bold marks
    left out)."""
    quoted = False
    for mark in ("`", "**", "*", "_"):
        wrapped = text.startswith(mark, start) and text.endswith(mark, start, end)
        if wrapped and end - start > 2 * len(mark):
            start, end = start + len(mark), end - len(mark)
            quoted = mark == "`"
            break
    value = text[start:end]
    if not value or plain_word(value) or (value.startswith("(") and value.endswith(")")):
        return None  # a word ("changed", "Keycloak") or a note in brackets says where or how
    if worth_reporting(value, strength=strength, quoted=quoted, key=key, assigned=True):
        return start, end
    return None


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of a table line's cells, white space trimmed; the empty cells outside a
    leading and a trailing pipe are not cells."""
    edges = [start - 1, *(start + m.start() for m in _CELL_EDGE.finditer(text[start:end])), end]
    cells = []
    for left, right in pairwise(edges):
        a, b = left + 1, right
        while a < b and text[a] in " \t\r":
            a += 1
        while b > a and text[b - 1] in " \t\r":
            b -= 1
        cells.append((a, b))
    line = text[start:end].strip()
    if line.endswith("|") and not line.endswith("\\|"):
        cells.pop()
    if line.startswith("|"):
        cells.pop(0)
    return cells
