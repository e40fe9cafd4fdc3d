"""CSV and TSV: one record per row, keyed by the header row (all values are strings).

The delimiter of a ``.csv`` file (a comma, a semicolon, a tab or a bar) is the one that splits
the first rows alike: the first row (the header) into two fields or more, and as many of the
rows after it as can be into as many fields, counting only the delimiters outside quotes (a
comma in ``"Smith, J"`` or in ``Notes (a, b)`` separates nothing). A delimiter whose quotes
cannot be read (``"Smith, J";40`` split at commas) is passed over; of two that split alike,
the one giving more fields wins, then the comma. Quoting rules are always the standard ones.
A first line ``sep=;``, which Excel writes to name the separator, is read as that: no row. A
row with more fields than the header is reported (file:line) and left out; one with fewer
has its last cells empty (spreadsheets and many exports leave empty trailing cells out). A
file the csv module cannot parse at all (an unterminated quote, a NUL byte) is rejected, at the
line where the row that cannot be read starts.

TSV has no quoting (as IANA defines it), but many exports quote cells as CSV does. So a
``.tsv`` file's quotes are CSV quoting when they read as such and either every quoted cell
closes on the line it opens on, or the line breaks inside quoted cells are what gives every row
the first row's number of fields (an exported cell of several lines). Else they are plain
characters: a cell opening a quote it does not close (``"quoted start``) keeps it, and the
rows after it stay rows.

Header cells name the fields: an empty one is named after its column (``column 3``), and a
repeated one gets its rank (``a (2)``), so that no value is lost under another's name. A first
row of numbers only is no header but the first record, its fields named after their columns:
taken as a header, its values would have been lost.

A two-column file whose first row is a secret setting (``DB_PASSWORD,s3cr3t``) has no header:
it is a list of settings, read as ``key`` / ``value`` records, so that the write-time gate
judges each value by the name beside it (taken as a header, the first secret would be stored
as a field name, and every value would be judged by it). The same first row may be a header
all the same (``password,region``): then the first column holds secrets, read as keys. So when
the first row's value reads as a column's name (a plain word: ``region``, ``owner``), every
key after it is masked as the secret it may be; else each key that does not read as a
setting's name (``DB_HOST``, ``smtp.host``, ``Max connections``) is.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from contextlib import contextmanager

from substrate.ingest.cutsecrets import ChunkSecrets, CutSecret
from substrate.ingest.formats.context import ParseContext
from substrate.ingest.formats.records import record_text
from substrate.ingest.segment import FileRejected, LineIssue, Parsed, Segment
from substrate.limits import SNIFF_CHARS
from substrate.secrets.copies import copies_of
from substrate.secrets.fields import KEYED_RULE, holds_secret

_SNIFF_DELIMITERS = ",;\t|"  # the comma first: it wins a tie
_SNIFF_ROWS = 20  # the rows a delimiter is judged on ...
# ... within the file's start (``limits.SNIFF_CHARS``)
# The first line Excel writes where a list separator is not a comma ("sep=;")
_SEPARATOR_LINE = re.compile(r"sep=([^\r\n])(?:\r\n|\n|\r|$)")


def sniff_delimiter(text: str) -> str:
    """The delimiter of a CSV text: of those that split the header in two or more, the one
    giving most rows the header's number of fields, then the most fields; else a comma."""
    sample, cut = text[:SNIFF_CHARS], len(text) > SNIFF_CHARS
    best, best_score = ",", (0.0, 1)
    for delimiter in _SNIFF_DELIMITERS:
        counts = _field_counts(sample, delimiter, cut)
        if counts and counts[0] > 1:
            alike = sum(count == counts[0] for count in counts) / len(counts)
            if (alike, counts[0]) > best_score:
                best, best_score = delimiter, (alike, counts[0])
    return best


def _field_counts(sample: str, delimiter: str, cut: bool) -> list[int] | None:
    """The number of fields of each of the first rows of ``sample`` (``cut``: the start of a
    longer text), split at ``delimiter`` outside quotes; None when its quotes cannot be read
    so (a quote closed before no ``delimiter``: a quoted cell of another delimiter)."""
    source = io.StringIO(sample, newline="")
    reader = csv.reader(source, delimiter=delimiter, strict=True)
    counts: list[int] = []
    try:
        for row in reader:
            if any(cell.strip() for cell in row):  # blank rows are no rows (see _records)
                counts.append(len(row))
            if len(counts) == _SNIFF_ROWS:
                break
    except csv.Error:
        # a quoted cell cut at the sample's end is no fault of the delimiter
        if not (cut and source.tell() == len(sample)):
            return None
    return counts


def field_names(cells: list[str]) -> list[str]:
    """The header row's cells as distinct field names (see the module docstring)."""
    names: list[str] = []
    seen: set[str] = set()
    # the rank last given to each name: the ranks below it are all taken (``seen`` only
    # grows), so a header of a thousand cells of one name is not counted up from 1 each time
    ranks: dict[str, int] = {}
    for column, cell in enumerate(cells, 1):
        base = name = cell.strip() or f"column {column}"
        rank = ranks.get(base, 1)
        while name in seen:
            rank += 1
            name = f"{base} ({rank})"
        ranks[base] = rank
        seen.add(name)
        names.append(name)
    return names


_NUMBER = re.compile(r"[-+]?(?:\d+(?:[.,]\d+)*|[.,]\d+)(?:[eE][-+]?\d+)?%?")


def _numbers_only(row: list[str]) -> bool:
    """Whether a first row holds nothing but numbers: data, not a header."""
    return all(_NUMBER.fullmatch(cell.strip()) for cell in row)


def _secret_setting(row: list[str]) -> bool:
    """Whether a first row is a name and the secret it names, not a header."""
    return len(row) == 2 and holds_secret(row[1], row[0].strip())


# A column's name: a plain word or two. A setting's name: words joined by _ . - or a space, in
# one case or camelCase, with few digits.
_COLUMN_NAME = re.compile(r"[A-Za-z][a-z]*(?:[_ ][a-z]+)?")
_SETTING_NAME = re.compile(r"[A-Za-z_][A-Za-z_.\- ]*[0-9]{0,2}(?:[_.\-][A-Za-z0-9]+)*")


def _keys_masked(parsed: Parsed, first_value: str) -> None:
    """Mask the keys of the records after the first that may be secrets, the first row
    being read as a setting whose ``first_value`` may be a column's name (see the module
    docstring)."""
    table = _COLUMN_NAME.fullmatch(first_value.strip()) is not None
    for seg in parsed.segments[1:]:
        key = str(seg.payload.get("key", "")).strip()
        named = _SETTING_NAME.fullmatch(key) is not None
        if not key or (named and not table):
            continue
        at = seg.text.find(key)
        if at >= 0:  # masked in the text (and counted), its copies in the fields
            part = CutSecret(at, at + len(key), KEYED_RULE, first=True)
            seg.secrets = ChunkSecrets((part,), copies_of({key: KEYED_RULE}))


def parse_delimited(
    text: str, ctx: ParseContext, delimiter: str | None = None, *, quoted: bool = True
) -> Parsed:
    """Parse delimited text into records (``delimiter`` None: sniff, as for ``.csv``;
    ``quoted`` False: quotes are plain characters)."""
    with _cells_of(text):
        return _records(text, ctx, delimiter, quoted=quoted)


@contextmanager
def _cells_of(text: str) -> Iterator[None]:
    """The csv module made to read any cell of ``text``."""
    # it refuses a cell over 128 KB (the whole file failed); no cell is longer than the text.
    # The limit is the module's own: it is put back for other readers.
    previous = csv.field_size_limit()
    csv.field_size_limit(max(previous, len(text)))
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _records(text: str, ctx: ParseContext, delimiter: str | None, *, quoted: bool) -> Parsed:
    hint = _SEPARATOR_LINE.match(text)
    skipped = 0  # lines before the rows
    if hint is not None:  # Excel's note of the separator: no row, and the delimiter
        delimiter, text, skipped = delimiter or hint.group(1), text[hint.end() :], 1
    delim = delimiter or sniff_delimiter(text)
    parsed = Parsed("tsv" if delim == "\t" else "csv")
    source = io.StringIO(text, newline="")
    if quoted:
        reader = csv.reader(source, delimiter=delim, strict=True)
    else:
        reader = csv.reader(source, delimiter=delim, strict=True, quoting=csv.QUOTE_NONE)
    header: list[str] | None = None
    first_value: str | None = None  # of a first row read as a setting
    previous = skipped  # the last line read
    ordinal = 0
    try:
        for row in reader:
            first, last = previous + 1, skipped + reader.line_num
            previous = last
            if not row:  # an empty line
                continue
            if not any(cell.strip() for cell in row):
                parsed.dropped += 1
                continue
            if header is None:
                if _numbers_only(row):  # no header: the first record
                    header = field_names([""] * len(row))
                elif not _secret_setting(row):
                    header = field_names(row)
                    continue
                else:
                    header = ["key", "value"]  # a headerless list of settings: a record too
                    first_value = row[1]  # ... unless it was a header after all
            if len(row) < len(header):  # its last cells left out, as spreadsheets write them
                row += [""] * (len(header) - len(row))
            if len(row) > len(header):  # (a cell with no name would be lost, or misplaced)
                fields = f"{len(row)} field{'' if len(row) == 1 else 's'}"
                parsed.issues.append(
                    LineIssue(first, f"row has {fields}, the header has {len(header)}")
                )
                continue
            record = dict(zip(header, row, strict=True))
            parsed.segments.append(
                Segment(
                    "record",
                    record_text(record),
                    None,
                    first,
                    last,
                    0,
                    record,
                    [],
                    {"index": ordinal},
                )
            )
            ordinal += 1
    except csv.Error as exc:  # reported where the row that cannot be read starts
        raise FileRejected(f"malformed {parsed.format.upper()}: {exc}", line=previous + 1) from None
    if first_value is not None:
        _keys_masked(parsed, first_value)
    return parsed


def parse_csv(text: str, ctx: ParseContext) -> Parsed:
    """Parse a ``.csv`` file (delimiter sniffed cautiously)."""
    return parse_delimited(text, ctx)


def parse_tsv(text: str, ctx: ParseContext) -> Parsed:
    """Parse a ``.tsv`` file (quoted as CSV is, or else with quotes as plain characters)."""
    with _cells_of(text):
        quoted = _tsv_quoting(text)
    return parse_delimited(text, ctx, "\t", quoted=quoted)


def _tsv_quoting(text: str) -> bool:
    """Whether the quotes of a TSV text are CSV quoting: they read as such, and either every
    quoted cell closes on the line it opens on, or the line breaks in quoted cells are needed
    to give every row as many fields as the first (see the module docstring)."""
    if '"' not in text:
        return True  # either reading gives the same rows
    try:
        alike, across = _tsv_shape(text, quoted=True)
        return not across or (alike and not _tsv_shape(text, quoted=False)[0])
    except csv.Error:  # a quote closed mid-cell ("big" box) or never; read as plain text
        return False


def _tsv_shape(text: str, *, quoted: bool) -> tuple[bool, bool]:
    """Whether every row of a TSV text has the first row's number of fields, and whether a
    row runs over several lines, read with quotes as CSV's or as plain characters."""
    source = io.StringIO(text, newline="")
    if quoted:
        reader = csv.reader(source, delimiter="\t", strict=True)
    else:
        reader = csv.reader(source, delimiter="\t", strict=True, quoting=csv.QUOTE_NONE)
    width, alike, across, line = 0, True, False, 0
    for row in reader:
        across = across or reader.line_num > line + 1
        line = reader.line_num
        if any(cell.strip() for cell in row):  # blank rows are no rows (see _records)
            width = width or len(row)
            alike = alike and len(row) == width
    return alike, across
