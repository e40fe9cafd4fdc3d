"""Secrets in CSV and TSV files, judged by their column's name.

In ``id,username,password`` then ``1,alice,Tr0ub4dor&3x!``, nothing on the row's line says
which value is a password: its header does. Ingestion judges records by their field names
(``secrets.fields``); the pre-commit scan and ``mixle redact`` read a ``.csv`` or ``.tsv``
file as text, so they judge its cells here, by the header's names, as ingestion would.

Cells are read line by line (a quoted cell running over several lines is judged in its first
line's part), and only columns whose name holds a secret stem are looked at: a table without
such a column costs the reading of its first line.

A table may also stand in another text, pasted into a note or a README: the scan reads one
under each line that holds a secret stem and looks like a header (``embedded_table_hits``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath

from substrate.secrets.headers import header_value_hits, is_header_key
from substrate.secrets.hits import Hit, shifted_hit
from substrate.secrets.keynames import classify_key
from substrate.secrets.names import slashed
from substrate.secrets.placeholders import worth_reporting

_RULE = "sensitive_assignment"


def table_delimiter(path: str, text: str) -> str | None:
    """The delimiter of ``path`` when it is a CSV or TSV file (None: it is neither)."""
    suffix = PurePosixPath(slashed(path)).suffix.lower()
    if suffix == ".tsv":
        return "\t"
    if suffix != ".csv":
        return None
    return _delimiter(text, 0, text.find("\n") if "\n" in text else len(text))


def _delimiter(text: str, start: int, end: int) -> str:
    """The delimiter of a table whose header is ``text[start:end]``: a comma, or a semicolon
    where the header holds more of them."""
    return ";" if text.count(";", start, end) > text.count(",", start, end) else ","


def with_table_hits(hits: list[Hit], text: str, path: str) -> list[Hit]:
    """``hits`` of ``text`` (in order) and, when ``path`` names a table, its cells judged by
    their column, those not overlapping a hit already, in order."""
    delimiter = table_delimiter(path, text)
    if delimiter is None:
        return hits
    starts = [h.start for h in hits]
    extra = []
    for cell in table_hits(text, delimiter):
        # hits do not overlap: of those starting before the cell ends, the last ends last
        before = bisect.bisect_left(starts, cell.end)
        if not (before and hits[before - 1].end > cell.start):
            extra.append(cell)
    return sorted(hits + extra, key=lambda h: h.start) if extra else hits


def table_hits(text: str, delimiter: str) -> list[Hit]:
    """The cells of ``text`` (a table) that hold a secret by their column's name, in order."""
    start = 0
    while start < len(text) and text[start] == "\n":  # blank lines before the header
        start += 1
    end = text.find("\n", start)
    end = len(text) if end == -1 else end
    header = [text[a:b].strip().strip('"') for a, b in _cells(text, start, end, delimiter)]
    keyed = {i: (name, classify_key(name)) for i, name in enumerate(header)}
    keyed = {i: (name, strength) for i, (name, strength) in keyed.items() if strength}
    headers = {i for i, name in enumerate(header) if is_header_key(name)}
    if not (keyed or headers):
        return []
    hits: list[Hit] = []
    while end < len(text):
        start = end + 1
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        for column, (a, b) in enumerate(_cells(text, start, end, delimiter)):
            if column in headers:  # "Basic dXNl...": judged as the header line it was
                hits += [shifted_hit(h, a) for h in header_value_hits(text[a:b])]
            elif column in keyed and _secret(text[a:b], *keyed[column]):
                hits.append(Hit(_RULE, a, b, 0, a, b))
    return hits


def _secret(cell: str, name: str, strength: str | None) -> bool:
    value = cell.rstrip("\r").replace('""', '"')
    return bool(value.strip()) and worth_reporting(
        value, strength=strength or "token", quoted=True, key=name
    )


def _cells(text: str, start: int, end: int, delimiter: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each cell's value in ``text[start:end]`` (one line), inside its
    quotes when it is quoted."""
    pos = start
    while pos <= end:
        if text.startswith('"', pos):
            close = pos + 1
            while True:
                close = text.find('"', close, end)
                if close == -1 or not text.startswith('""', close):
                    break
                close += 2
            if close == -1:  # runs on to the next line: its part on this one
                yield pos + 1, end
                return
            yield pos + 1, close
            after = text.find(delimiter, close, end)
            if after == -1:
                return
            pos = after + 1
        else:
            after = text.find(delimiter, pos, end)
            if after == -1:
                yield pos, end
                return
            yield pos, after
            pos = after + 1


# A header's cell in a table written into a text: a name of at most three words, not prose
_HEADER_NAME = re.compile(r"[A-Za-z_][\w.\-]*(?: [\w.\-]+){0,2}")


def embedded_table_hits(text: str, lines: Iterable[tuple[int, int]]) -> list[Hit]:
    """The cells of CSV tables written into ``text`` (pasted into a note, shown in a
    README's code block) that hold a secret by their column's name, in order.

    ``lines`` are the lines holding a secret stem, in order: a table's header names its
    secret column, so only they may open one. A header is a line of two or more names
    (``_HEADER_NAME``) parted by commas or semicolons, and its table the lines under it with as
    many cells; a header with no such line under it opens none.
    """
    hits: list[Hit] = []
    read = 0  # where the last table read ends: a line before it is one of its rows
    for start, end in lines:
        if start < read:
            continue
        delimiter = _delimiter(text, start, end)
        header = [text[a:b].strip() for a, b in _cells(text, start, end, delimiter)]
        if len(header) < 2 or not all(_HEADER_NAME.fullmatch(name) for name in header):
            continue
        stop = end
        while stop < len(text):
            after = text.find("\n", stop + 1)
            after = len(text) if after == -1 else after
            if sum(1 for _ in _cells(text, stop + 1, after, delimiter)) != len(header):
                break
            stop = after
        if stop > end:
            hits += [shifted_hit(hit, start) for hit in table_hits(text[start:stop], delimiter)]
            read = stop
    return hits
