"""Rows of a table that give another value than the one a question names.

"How many blue widgets are in stock in Lisbon?" is not answered by the row of the red widgets
in Lisbon, nor by that of the blue gadgets there, though each says two of its three words: in
a column where the question names a value ("blue" of colour), a row giving another one is about
something else. ``rows_of_other_values`` finds them among the records of a context packet.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

from substrate.context.compress import terms
from substrate.item import SubstrateItem

# A column whose values run to more terms than this holds text (a note, a description), not
# the kind of a thing: a word of the question found in one of them names no value
CATEGORY_TERMS = 3

_Cells = dict[str, frozenset[str]]


def rows_of_other_values(
    wanted: frozenset[str], items: Sequence[SubstrateItem], asked: frozenset[str] = frozenset()
) -> frozenset[int]:
    """The positions in ``items`` of the table rows (records of one source with the same
    columns) that give, in a column of which the question's ``wanted`` terms name values, none
    of those values. A row giving one of them ("red or blue widgets") is kept, and a term
    found in two columns names no value of either ("Dana" of a name and a manager column).
    A record alone in its table is told apart by the columns the other tables' rows name
    (``_lone_rows_of_other_values``), not by the column of the value ``asked`` for ("the
    owner of the billing database": an owner named "billing-team" is no other database's)."""
    other: set[int] = set()
    tables = _tables(items)
    for rows in tables.values():
        if len(rows) < 2:
            continue  # one row: nothing to tell its values from (``_lone_rows_of_other_values``)
        columns = {
            column: [cells[column] for _, cells in rows]
            for column in rows[0][1]
            if all(len(cells[column]) <= CATEGORY_TERMS for _, cells in rows)
        }
        seen_in: dict[str, int] = {}
        for values in columns.values():
            for term in wanted & frozenset().union(*values):
                seen_in[term] = seen_in.get(term, 0) + 1
        for values in columns.values():
            named = {t for t in wanted & frozenset().union(*values) if seen_in[t] == 1}
            if named:
                kept = zip(rows, values, strict=True)
                other.update(pos for (pos, _), value in kept if not value & named)
    return frozenset(other | _lone_rows_of_other_values(wanted, tables, asked))


def _cell_names(cell: frozenset[str], wanted: frozenset[str]) -> bool:
    """Whether a cell's terms name a value a question's ``wanted`` terms say: a short cell
    (a kind, a name), not a text, holding one of them."""
    return len(cell) <= CATEGORY_TERMS and bool(cell & wanted)


def _lone_rows_of_other_values(
    wanted: frozenset[str], tables: dict[_Table, list[tuple[int, _Cells]]], asked: frozenset[str]
) -> set[int]:
    """The positions of the records alone in their table (a JSON file of one object) that
    give, in a column the question names ("the retry limit of the billing service":
    ``service``), none of the values the question names there, as the packet's other records
    give them in a column so named ("service: billing" of an incident log): the record of
    the payments service is of another. A column the value ``asked`` for names is left out."""
    named: dict[str, set[str]] = {}  # a column the question names -> the values it names
    for rows in tables.values():
        for _, cells in rows:
            for column, cell in cells.items():
                said = terms(column)  # (an "id" column says no term, and names nothing)
                if said and said <= wanted and not said & asked and _cell_names(cell, wanted):
                    named.setdefault(column, set()).update(cell & wanted - said)
    other: set[int] = set()
    for rows in tables.values():
        if len(rows) == 1:
            pos, cells = rows[0]
            if any(
                values and column in cells and not cells[column] & values
                for column, values in named.items()
            ):
                other.add(pos)
    return other


_Row = dict[str, object]  # a record's cells by column


class BlankCells(NamedTuple):
    """Records whose cell the question asks for is blank (``rows_leaving_out_a_column``)."""

    said: dict[int, int]  # their positions, each with how many question terms its cells say
    others: frozenset[int]  # the other rows of a table whose blank row is of the thing asked of


def rows_leaving_out_a_column(
    wanted: frozenset[str],
    needed: frozenset[str],
    names: Collection[str],
    items: Sequence[SubstrateItem],
    *,
    blanks: bool = True,
) -> BlankCells:
    """The records of ``items`` whose cell is blank in a column the question's ``wanted``
    terms name: "What is the mem_gb of web-02?" is not answered by web-02's row when its
    mem_gb is blank, though it names web-02 (its cells say 2 of the terms). When such a row
    is of the thing asked of (its first cell gives every other term the question
    ``needed``), the other rows of its table are of other things: "the p99 of payments" is
    not the ledger's, whose owner is the payments team. So are, whatever is blank, the rows of
    a table that one row names by an identifier the question ``names``
    (``_rows_of_other_keys``). Without ``blanks`` (a question of several rows, or of what a
    row leaves out), blank cells rule out nothing; other keys' rows still are others.
    """
    said: dict[int, int] = {}
    others: set[int] = set()
    tables = _rows_by_source(items)
    for rows in tables.values() if blanks else ():
        asked_of = False  # whether a blank row of this table is the thing asked of
        for pos, cells in rows:
            blank = {column for column, value in cells.items() if not _text(value)}
            asked = [column for column in blank if _names(column, cells, wanted)]
            if asked:
                given = terms(" ".join(f"{k} {v}" for k, v in cells.items() if k not in blank))
                said[pos] = len(given & wanted)
                columns = set().union(*(terms(c) | _words(c) for c in asked))
                key = str(next(iter(cells.values())) or "").strip()
                asked_of = asked_of or bool(key and needed - columns <= terms(key))
        if asked_of:
            others.update(pos for pos, _ in rows if pos not in said)
    return BlankCells(said, frozenset(others) | _rows_of_other_keys(wanted, names, tables))


def _rows_of_other_keys(
    wanted: frozenset[str], names: Collection[str], tables: dict[object, list[tuple[int, _Row]]]
) -> frozenset[int]:
    """The positions of the rows of a table (``tables``: the rows by source) in which one row
    is named by an identifier the question ``names`` ("orders-db-1" in the column that names
    each row: every row has its own value there) that are other rows: another key, and the
    identifier, if anywhere, in a column the question does not name (a replica's
    ``replica_of: orders-db-1`` is no answer to "What os does orders-db-1 run?", but is to
    "Which hosts are replicas of orders-db-1?")."""
    if not names:
        return frozenset()
    other: set[int] = set()
    for rows in tables.values():
        for name in names:
            key = _key_column([cells for _, cells in rows], name)
            if key is None or not _asks_a_cell(rows, key, name, wanted):
                continue
            for pos, cells in rows:
                if _text(cells.get(key)) in names:
                    continue
                holding = [c for c, v in cells.items() if _text(v) == name]
                if not any(_names(c, cells, wanted) for c in holding):
                    other.add(pos)
    return frozenset(other)


def _rows_by_source(items: Sequence[SubstrateItem]) -> dict[object, list[tuple[int, _Row]]]:
    tables: dict[object, list[tuple[int, _Row]]] = {}
    for pos, item in enumerate(items):
        if item.kind == "record" and isinstance(item.payload, dict):
            cells = {str(column): value for column, value in item.payload.items()}
            tables.setdefault(item.provenance.get("source"), []).append((pos, cells))
    return tables


def _key_column(rows: list[_Row], name: str) -> str | None:
    """The one column of ``rows`` in which one of them is ``name`` and each has a value of its
    own (not ``replica_of``, which repeats, or is blank); None when two columns could be it
    (``upstream`` and ``switch`` of a table of links: of the few rows found, either may hold
    distinct values)."""
    keys = []
    for column in rows[0]:
        values = [_text(cells.get(column)) for cells in rows]
        if name in values and all(values) and len(set(values)) == len(values):
            keys.append(column)
    return keys[0] if len(keys) == 1 else None


def _asks_a_cell(rows: list[tuple[int, _Row]], key: str, name: str, wanted: frozenset[str]) -> bool:
    """Whether the question asks for a cell of the row ``name`` keys ("What is the os of
    orders-db-1?"), not of the rows around it ("Which projects are under PRJ-4?", where
    ``parent`` is asked of in other words)."""
    row = next(cells for _, cells in rows if _text(cells.get(key)) == name)
    return any(_names(column, row, wanted) for column in row if column != key)


def _text(value: object) -> str:
    return "" if value is None else str(value).strip().lower()


def _names(column: str, cells: dict[str, object], wanted: frozenset[str]) -> bool:
    """Whether ``wanted`` names ``column`` of a row of ``cells``: all its terms ("mem_gb"),
    or words of it no other column has ("p50" of "p50_ms"; "deploy" of "deployed_by" asked
    "Who deployed ledger?", but not beside a "deployed_at")."""
    named = terms(column)
    if named and named <= wanted:
        return True
    words = _words(column) & wanted
    return bool(words) and not any(_words(other) & words for other in cells if other != column)


def _words(column: str) -> frozenset[str]:
    return terms(column.replace("_", " ").replace("-", " "))


_Table = tuple[object, tuple[str, ...]]  # a source and its columns


def _tables(items: Sequence[SubstrateItem]) -> dict[_Table, list[tuple[int, _Cells]]]:
    """The records of ``items`` by table: (position, each cell's terms)."""
    tables: dict[_Table, list[tuple[int, _Cells]]] = {}
    for pos, item in enumerate(items):
        if item.kind != "record" or not isinstance(item.payload, dict):
            continue
        cells = {
            str(column): terms(str(value))
            for column, value in item.payload.items()
            if isinstance(value, str | int | float) and not isinstance(value, bool)
        }
        table = (item.provenance.get("source"), tuple(sorted(cells)))
        tables.setdefault(table, []).append((pos, cells))
    return tables
