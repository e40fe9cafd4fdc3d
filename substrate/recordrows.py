"""Rows of a table that give another value than the one a question names.

"How many blue widgets are in stock in Lisbon?" is not answered by the row of the red widgets
in Lisbon, nor by that of the blue gadgets there, though each says two of its three words: in
a column where the question names a value ("blue" of colour), a row giving another one is about
something else. ``rows_of_other_values`` finds them among the records of a context packet.
"""

from __future__ import annotations

from collections.abc import Sequence

from substrate.context.compress import terms
from substrate.item import SubstrateItem

# A column whose values run to more terms than this holds text (a note, a description), not
# the kind of a thing: a word of the question found in one of them names no value
CATEGORY_TERMS = 3

_Cells = dict[str, frozenset[str]]


def rows_of_other_values(wanted: frozenset[str], items: Sequence[SubstrateItem]) -> frozenset[int]:
    """The positions in ``items`` of the table rows (records of one source with the same
    columns) that give, in a column of which the question's ``wanted`` terms name values, none
    of those values. A row giving one of them ("red or blue widgets") is kept, and a term
    found in two columns names no value of either ("Dana" of a name and a manager column)."""
    other: set[int] = set()
    for rows in _tables(items).values():
        if len(rows) < 2:
            continue  # one row: nothing to tell its values from
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
    return frozenset(other)


def rows_leaving_out_a_column(
    wanted: frozenset[str], items: Sequence[SubstrateItem]
) -> frozenset[int]:
    """The positions in ``items`` of the records whose cell is empty in a column the
    question's ``wanted`` terms name: "What is the mem_gb of web-02?" is not answered by
    web-02's row when its mem_gb is blank, though it names web-02."""
    empty: set[int] = set()
    for pos, item in enumerate(items):
        if item.kind != "record" or not isinstance(item.payload, dict):
            continue
        for column, value in item.payload.items():
            blank = value is None or (isinstance(value, str) and not value.strip())
            named = terms(str(column))
            if blank and named and named <= wanted:
                empty.add(pos)
                break
    return frozenset(empty)


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
