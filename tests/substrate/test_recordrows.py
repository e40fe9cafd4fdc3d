"""Rows of a table giving another value than the one a question names are of something else."""

from __future__ import annotations

from substrate.answerers import ExtractiveAnswerer
from substrate.context import pack_context
from substrate.context.compress import terms
from substrate.item import SubstrateItem
from substrate.recordrows import rows_of_other_values

STOCK = [
    {"product": "widget", "color": "red", "city": "Lisbon", "stock": "40"},
    {"product": "widget", "color": "blue", "city": "Porto", "stock": "12"},
    {"product": "gadget", "color": "blue", "city": "Lisbon", "stock": "7"},
]


def _rows(source: str = "stock.csv") -> list[SubstrateItem]:
    return [
        SubstrateItem("record", " ".join(row.values()), payload=row, provenance={"source": source})
        for row in STOCK
    ]


def test_rows_giving_another_value_in_a_column_named() -> None:
    rows = _rows()
    assert rows_of_other_values(terms("blue widgets in Lisbon"), rows) == {0, 1, 2}
    assert rows_of_other_values(terms("blue widgets in Porto"), rows) == {0, 2}
    assert rows_of_other_values(terms("red or blue widgets"), rows) == {2}
    assert rows_of_other_values(terms("how many are in stock"), rows) == frozenset()


def test_a_term_found_in_two_columns_names_no_value_of_either() -> None:
    people = [
        {"name": "Dana Whitfield", "manager": "Omar Haddad", "team": "Payments"},
        {"name": "Lee Chen", "manager": "Dana Whitfield", "team": "Payments"},
        {"name": "Priya Nair", "manager": "Omar Haddad", "team": "Search"},
    ]
    rows = [SubstrateItem("record", "", payload=p, provenance={"source": "p.csv"}) for p in people]
    assert rows_of_other_values(terms("Who is Dana Whitfield's manager?"), rows) == frozenset()
    assert rows_of_other_values(terms("Who is on the Search team?"), rows) == {0, 1}


def test_text_columns_and_other_tables_name_no_value() -> None:
    notes = [
        SubstrateItem("record", "", payload={"id": "1", "note": "blue widgets ship from Porto"}),
        SubstrateItem("record", "", payload={"id": "2", "note": "red ones wait in Lisbon today"}),
    ]
    assert rows_of_other_values(terms("blue widgets"), notes) == frozenset()
    mixed = [_rows("a.csv")[0], _rows("b.csv")[1]]  # one row of each table: nothing to compare
    assert rows_of_other_values(terms("blue widgets"), mixed) == frozenset()


def test_the_answer_quotes_no_row_of_other_values() -> None:
    rows = _rows()
    question = "How many blue widgets are in stock in Lisbon?"
    packet = pack_context(question, rows, [1.0, 0.9, 0.8])
    assert ExtractiveAnswerer().answer_packet(question, packet) == ""
    porto = "How many blue widgets are in stock in Porto?"
    answer = ExtractiveAnswerer().answer_packet(porto, pack_context(porto, rows, [1.0] * 3))
    assert answer == "product: widget; color: blue; city: Porto; stock: 12. [2]"
