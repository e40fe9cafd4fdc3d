"""Rows of a table giving another value than the one a question names are of something else."""

from __future__ import annotations

from substrate.context import pack_context
from substrate.context.compress import terms
from substrate.extractive import ExtractiveAnswerer
from substrate.item import SubstrateItem
from substrate.recordrows import rows_leaving_out_a_column, rows_of_other_values

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


def _table(source: str, *cells: dict[str, str | None]) -> list[SubstrateItem]:
    """Records of ``source``, one a row of ``cells``."""
    return [SubstrateItem("record", "", payload=c, provenance={"source": source}) for c in cells]


def _said(question: str, items: list[SubstrateItem]) -> str:
    """The extractive answer to ``question`` from ``items``, best first."""
    packet = pack_context(question, items, [0.9 - 0.1 * n for n in range(len(items))])
    return ExtractiveAnswerer().answer_packet(question, packet)


def _blanks(asked: frozenset[str], rows: list[SubstrateItem]) -> tuple[dict[int, int], set[int]]:
    found = rows_leaving_out_a_column(asked, asked - terms("what is the"), (), rows)
    return found.said, set(found.others)


def test_a_row_whose_cell_the_question_names_is_blank_answers_nothing() -> None:
    # "host: web-02; cpu: 0.12; mem_gb: ; region: ..." answered it at confidence 1.00
    rows = _table(
        "h.tsv",
        {"host": "web-01", "cpu": "0.73", "mem_gb": "16", "region": "us-east-1"},
        {"host": "web-02", "cpu": "0.12", "mem_gb": "", "region": "us-east-1"},
        {"host": "web-03", "cpu": "0.40", "mem_gb": None, "region": "eu-west-1"},
    )
    # each with the question's terms its other cells say ("web", "02"; "web"); web-02's is
    # the row asked of, so web-01's is another thing's
    mem = "What is the mem_gb of web-02?"
    assert _blanks(terms(mem), rows) == ({1: 2, 2: 1}, {0})
    assert _blanks(terms("What is the cpu of web-02?"), rows) == ({}, set())
    assert _said(mem, rows[1:2]) == ""
    cpu = _said("What is the cpu of web-02?", rows[1:2])  # the blank shown as it is
    assert cpu == "host: web-02; cpu: 0.12; mem_gb: ; region: us-east-1. [1]"
    # web-01's row answered "What is the mem_gb of web-02?" when web-02's was blank
    assert _said(mem, rows) == ""
    # a sentence saying more than the row answers for it ("GB" is a word of the column)
    for text in ("web-02 was given 64 GB of memory (mem_gb) in May.", "web-02 has 64 GB."):
        assert _said(mem, [rows[1], SubstrateItem("text", text)]) == f"{text} [2]"
    # ... one only naming web-02 does not, though with a number of its own (a date)
    for text in ("web-02 was rebooted on 3 June after a panic.", "web-02 serves the site."):
        assert _said(mem, [rows[1], SubstrateItem("text", text)]) == ""


def test_a_column_is_named_by_its_words_when_no_other_column_shares_them() -> None:
    # "deployed_by" blank, and hidden, answered "Who deployed ledger?" as a whole row
    asked = terms("Who deployed ledger?")
    assert _blanks(asked, _table("d.csv", {"service": "ledger", "deployed_by": ""}))[0] == {0: 1}
    p50 = _table("d.csv", {"service": "auth", "p50_ms": "", "p99_ms": "1200"})  # "ms": both
    assert _blanks(terms("What is the p50 of auth?"), p50)[0] == {0: 1}
    # beside "deployed_at", "deploy" names neither: the blank stays shown, the row answers
    beside = _table("d.csv", {"service": "ledger", "deployed_at": "2024-05-03", "deployed_by": ""})
    assert _blanks(asked, beside)[0] == {}


def test_nothing_saying_less_than_the_blank_row_answers_for_it() -> None:
    # the deploy row of search-api has no version: its latency row, which says less of the
    # question, was quoted as the answer at confidence 1.00
    rows = [
        *_table("events.jsonl", {"service": "search-api", "event": "deploy", "version": ""}),
        *_table("latency.csv", {"service": "search-api", "p50_ms": "40", "p99_ms": "95.2"}),
    ]
    note = SubstrateItem("text", "Version 2.4 of search-api was deployed on Friday.")
    asked = "What version of search-api was deployed?"
    assert _said(asked, rows) == ""
    assert _said(asked, [*rows, note]) == "Version 2.4 of search-api was deployed on Friday. [3]"


def test_the_row_an_identifier_names_rules_out_its_table_s_others() -> None:
    # orders-db-2's os answered "What os_version does orders-db-1 run?" (its cell blank)
    hosts = _table(
        "h.csv",
        {"host_name": "orders-db-1", "region": "eu-west-1", "os_version": ""},
        {"host_name": "orders-db-2", "region": "eu-west-1", "os_version": "ubuntu-22.04"},
    )
    assert _said("What os_version does orders-db-1 run?", hosts) == ""
    assert "ubuntu-22.04" in _said("What os_version does orders-db-2 run?", hosts)
    # orders-db-3, a replica of orders-db-1, answered orders-db-1's os
    replicas = _table(
        "h.csv",
        {"host": "orders-db-3", "replica_of": "orders-db-1", "os": "ubuntu-24.04"},
        {"host": "orders-db-1", "replica_of": "", "os": "debian-12"},
    )
    assert "debian-12" in _said("What is the os of orders-db-1?", replicas)
    assert "orders-db-3" in _said("Which hosts are replicas of orders-db-1?", replicas)
    # a table keyed by "id" first let orders-db-2's row answer for orders-db-1's blank os
    by_id = _table(
        "h.csv",
        {"id": "2", "host": "orders-db-2", "replica_of": "orders-db-1", "os": "ubuntu-24.04"},
        {"id": "1", "host": "orders-db-1", "replica_of": "", "os": ""},
    )
    assert _said("What is the os of orders-db-1?", by_id) == ""
    # nor when the question asks of two columns ("and" asks of several rows' blank cells too)
    assert "orders-db-2" not in _said("What is the os and id of orders-db-1?", by_id)


def test_a_reference_to_a_row_does_not_make_the_row_asked_of() -> None:
    # a replica's "replica_of: pg-main-1", its os blank, ruled out pg-main-1's own row; the
    # ledger's owner "payments", its tier blank, ruled out the payments row
    hosts = _table(
        "db.csv",
        {"host": "pg-main-2", "replica_of": "pg-main-1", "os": ""},
        {"host": "pg-main-1", "replica_of": "", "os": "debian-12"},
    )
    assert "debian-12" in _said("What os does pg-main-1 run?", hosts)
    services = _table(
        "services.csv",
        {"service": "ledger", "owner": "payments", "tier": ""},
        {"service": "payments", "owner": "payments", "tier": "1"},
    )
    assert "tier: 1" in _said("What tier is payments?", services)


def test_no_key_is_taken_where_two_columns_could_be_it_nor_for_rows_around_it() -> None:
    # "upstream" held distinct values among the rows found and passed for the key: core-2's
    # own row (switch: core-2) was ruled out; "under PRJ-4" asks of the rows whose parent it is
    links = _table(
        "t.csv",
        {"upstream": "core-1", "switch": "core-2", "firmware": "10.1.2"},
        {"upstream": "core-2", "switch": "edge-sw-5", "firmware": "9.2.1"},
    )
    assert "10.1.2" in _said("What is the firmware of core-2?", links)
    projects = _table(
        "t.csv",
        {"code": "PRJ-5", "name": "Plover", "parent": "PRJ-4"},
        {"code": "PRJ-4", "name": "Falcon", "parent": ""},
    )
    assert "PRJ-5" in _said("Which projects are under PRJ-4?", projects)


def test_a_question_of_several_rows_or_of_a_missing_value_takes_blank_rows() -> None:
    # "Which employees have no start date?" quoted a row whose start date was given; "Compare
    # the tiers of storefront and report-builder" quoted report-builder's row alone
    staff = _table(
        "staff.csv",
        {"employee_id": "E-1077", "name": "Kwame Osei", "start_date": ""},
        {"employee_id": "E-1188", "name": "Aiko Tanabe", "start_date": "2023-04-03"},
    )
    said = _said("Which employees have no start date?", staff)
    assert "Kwame Osei" in said and "Aiko" not in said
    services = _table(
        "services.tsv", {"name": "report-builder", "tier": "3"}, {"name": "storefront", "tier": "1"}
    )
    said = _said("Compare the tiers of storefront and report-builder.", services)
    assert "storefront" in said and "report-builder" in said


def test_a_record_alone_in_its_file_giving_another_value_in_a_column_asked_of() -> None:
    config = SubstrateItem(
        "record", "", payload={"service": "payments", "retry_limit": "5"}, provenance={}
    )
    events = [
        SubstrateItem(
            "record", "", payload={"service": name, "event": "outage"}, provenance={"source": "e"}
        )
        for name in ("billing", "search")
    ]
    items = [config, *events]
    # "service: billing" of the incident log: the payments config is of another service
    assert rows_of_other_values(
        terms("What is the retry limit for the billing service?"), items
    ) == {
        0,
        2,
    }
    assert rows_of_other_values(terms("What is the retry limit for payments?"), items) == set()
    # a column the question does not name tells nothing of a record alone in its file
    assert rows_of_other_values(terms("What is the retry limit for billing?"), items) == {2}
