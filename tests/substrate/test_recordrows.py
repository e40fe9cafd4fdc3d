"""Rows of a table giving another value than the one a question names are of something else."""

from __future__ import annotations

from substrate.answerers import ExtractiveAnswerer
from substrate.context import pack_context
from substrate.context.compress import terms
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


def test_a_row_whose_cell_the_question_names_is_blank_answers_nothing() -> None:
    # "host: web-02; cpu: 0.12; mem_gb: ; region: ..." answered it at confidence 1.00
    hosts = [
        {"host": "web-01", "cpu": "0.73", "mem_gb": "16", "region": "us-east-1"},
        {"host": "web-02", "cpu": "0.12", "mem_gb": "", "region": "us-east-1"},
        {"host": "web-03", "cpu": "0.40", "mem_gb": None, "region": "eu-west-1"},
    ]
    rows = [SubstrateItem("record", "", payload=h, provenance={"source": "h.tsv"}) for h in hosts]
    # each with the question's terms its other cells say ("web", "02"; "web"); web-02's is
    # the row asked of, so web-01's is another thing's
    asked = terms("What is the mem_gb of web-02?")
    assert blanks(asked, rows) == ({1: 2, 2: 1}, {0})
    assert blanks(terms("What is the cpu of web-02?"), rows) == ({}, set())
    answer = ExtractiveAnswerer().answer_packet
    only_web_02 = pack_context("web-02", rows[1:2], [0.9])
    assert answer("What is the mem_gb of web-02?", only_web_02) == ""
    cpu = answer("What is the cpu of web-02?", only_web_02)  # the blank shown as it is
    assert cpu == "host: web-02; cpu: 0.12; mem_gb: ; region: us-east-1. [1]"
    # web-01's row answered "What is the mem_gb of web-02?" when web-02's was blank
    assert answer("What is the mem_gb of web-02?", pack_context("web", rows, [0.9, 0.8, 0.7])) == ""
    # a sentence saying more than the row answers for it; one only naming web-02 does not
    moved = SubstrateItem("text", "web-02 was given 64 GB of memory (mem_gb) in May.")
    both = pack_context("web-02", [rows[1], moved], [0.9, 0.8])
    assert answer("What is the mem_gb of web-02?", both) == f"{moved.text} [2]"
    # ... not as much only, though with a number of its own (a date, a kernel's version)
    rebooted = SubstrateItem("text", "web-02 was rebooted on 3 June after a kernel panic.")
    reboot = pack_context("web-02", [rows[1], rebooted], [0.9, 0.8])
    assert answer("What is the mem_gb of web-02?", reboot) == ""
    resized = SubstrateItem("text", "web-02 was resized to 64 GB in May.")  # "GB": more
    given = pack_context("web-02", [rows[1], resized], [0.9, 0.8])
    assert answer("What is the mem_gb of web-02?", given) == f"{resized.text} [2]"
    named = SubstrateItem("text", "web-02 serves the marketing site.")
    only_named = pack_context("web-02", [rows[1], named], [0.9, 0.8])
    assert answer("What is the mem_gb of web-02?", only_named) == ""


def blanks(asked: frozenset[str], rows: list[SubstrateItem]) -> tuple[dict[int, int], set[int]]:
    found = rows_leaving_out_a_column(asked, asked - terms("what is the"), (), rows)
    return found.said, set(found.others)


def test_a_column_is_named_by_its_words_when_no_other_column_shares_them() -> None:
    # "deployed_by" blank, and hidden, answered "Who deployed ledger?" as a whole row
    def rows(**cells: str) -> list[SubstrateItem]:
        return [SubstrateItem("record", "", payload=cells, provenance={"source": "d.csv"})]

    asked = terms("Who deployed ledger?")
    assert blanks(asked, rows(service="ledger", deployed_by=""))[0] == {0: 1}
    p50 = rows(service="auth", p50_ms="", p99_ms="1200")  # "ms" is the other column's too
    assert blanks(terms("What is the p50 of auth?"), p50)[0] == {0: 1}
    # beside "deployed_at", "deploy" names neither: the blank stays shown, the row answers
    beside = rows(service="ledger", deployed_at="2024-05-03", deployed_by="")
    assert blanks(asked, beside)[0] == {}


def test_nothing_saying_less_than_the_blank_row_answers_for_it() -> None:
    # the deploy row of search-api has no version: its latency row, which says less of the
    # question, was quoted as the answer at confidence 1.00
    deploy = {"service": "search-api", "event": "deploy", "version": ""}
    latency = {"service": "search-api", "p50_ms": "40", "p99_ms": "95.2"}
    rows = [
        SubstrateItem("record", "", payload=deploy, provenance={"source": "events.jsonl"}),
        SubstrateItem("record", "", payload=latency, provenance={"source": "latency.csv"}),
    ]
    note = SubstrateItem("text", "Version 2.4 of search-api was deployed on Friday.")
    answer = ExtractiveAnswerer().answer_packet
    asked = "What version of search-api was deployed?"
    assert answer(asked, pack_context("search-api", rows, [0.9, 0.8])) == ""
    said = "Version 2.4 of search-api was deployed on Friday. [3]"
    assert answer(asked, pack_context("search-api", [*rows, note], [0.9, 0.8, 0.7])) == said


def test_the_row_a_question_names_by_identifier_stands_for_its_table() -> None:
    # orders-db-2's os answered "What os_version does orders-db-1 run?" (its cell blank)
    hosts = [
        {"host_name": "orders-db-1", "region": "eu-west-1", "os_version": ""},
        {"host_name": "orders-db-2", "region": "eu-west-1", "os_version": "ubuntu-22.04"},
    ]
    rows = [SubstrateItem("record", "", payload=h, provenance={"source": "h.csv"}) for h in hosts]
    packet = pack_context("orders-db-1", rows, [0.9, 0.8])
    assert ExtractiveAnswerer().answer_packet("What os_version does orders-db-1 run?", packet) == ""
    said = ExtractiveAnswerer().answer_packet("What os_version does orders-db-2 run?", packet)
    assert "ubuntu-22.04" in said


def test_only_a_row_s_first_cell_makes_it_the_row_asked_of() -> None:
    # a replica's "replica_of: pg-main-1", its os blank, ruled out pg-main-1's own row; the
    # ledger's owner "payments", its tier blank, ruled out the payments row
    def table(source: str, *cells: dict[str, str]) -> list[SubstrateItem]:
        return [
            SubstrateItem("record", "", payload=c, provenance={"source": source}) for c in cells
        ]

    answer = ExtractiveAnswerer().answer_packet
    hosts = table(
        "db.csv",
        {"host": "pg-main-2", "replica_of": "pg-main-1", "os": ""},
        {"host": "pg-main-1", "replica_of": "", "os": "debian-12"},
    )
    said = answer("What os does pg-main-1 run?", pack_context("pg", hosts, [0.9, 0.8]))
    assert "debian-12" in said
    services = table(
        "services.csv",
        {"service": "ledger", "owner": "payments", "tier": ""},
        {"service": "payments", "owner": "payments", "tier": "1"},
    )
    said = answer("What tier is payments?", pack_context("tier", services, [0.9, 0.8]))
    assert "tier: 1" in said


def test_the_row_an_identifier_names_rules_out_its_table_s_others() -> None:
    # orders-db-3, a replica of orders-db-1, answered orders-db-1's os; and a table keyed by
    # "id" first let orders-db-2's row answer for orders-db-1's blank os
    def table(*cells: dict[str, str]) -> list[SubstrateItem]:
        return [
            SubstrateItem("record", "", payload=c, provenance={"source": "h.csv"}) for c in cells
        ]

    answer = ExtractiveAnswerer().answer_packet
    replicas = table(
        {"host": "orders-db-3", "replica_of": "orders-db-1", "os": "ubuntu-24.04"},
        {"host": "orders-db-1", "replica_of": "", "os": "debian-12"},
    )
    packet = pack_context("orders", replicas, [0.9, 0.8])
    assert "debian-12" in answer("What is the os of orders-db-1?", packet)
    assert "orders-db-3" in answer("Which hosts are replicas of orders-db-1?", packet)
    by_id = table(
        {"id": "2", "host": "orders-db-2", "replica_of": "orders-db-1", "os": "ubuntu-24.04"},
        {"id": "1", "host": "orders-db-1", "replica_of": "", "os": ""},
    )
    assert answer("What is the os of orders-db-1?", pack_context("os", by_id, [0.9, 0.8])) == ""


def test_no_key_is_taken_where_two_columns_could_be_it_nor_for_rows_around_it() -> None:
    # "upstream" held distinct values among the rows found and passed for the key: core-2's
    # own row (switch: core-2) was ruled out; "under PRJ-4" asks of the rows whose parent it is
    def table(*cells: dict[str, str]) -> list[SubstrateItem]:
        return [
            SubstrateItem("record", "", payload=c, provenance={"source": "t.csv"}) for c in cells
        ]

    answer = ExtractiveAnswerer().answer_packet
    links = table(
        {"upstream": "core-1", "switch": "core-2", "firmware": "10.1.2"},
        {"upstream": "core-2", "switch": "edge-sw-5", "firmware": "9.2.1"},
    )
    said = answer("What is the firmware of core-2?", pack_context("core", links, [0.9, 0.8]))
    assert "10.1.2" in said
    projects = table(
        {"code": "PRJ-5", "name": "Plover", "parent": "PRJ-4"},
        {"code": "PRJ-4", "name": "Falcon", "parent": ""},
    )
    said = answer("Which projects are under PRJ-4?", pack_context("prj", projects, [0.9, 0.8]))
    assert "PRJ-5" in said


def test_a_question_of_several_rows_or_of_a_missing_value_takes_blank_rows() -> None:
    # "Which employees have no start date?" quoted a row whose start date was given; "Compare
    # the tiers of storefront and report-builder" quoted report-builder's row alone
    def table(source: str, *cells: dict[str, str]) -> list[SubstrateItem]:
        return [
            SubstrateItem("record", "", payload=c, provenance={"source": source}) for c in cells
        ]

    answer = ExtractiveAnswerer().answer_packet
    staff = table(
        "staff.csv",
        {"employee_id": "E-1077", "name": "Kwame Osei", "start_date": ""},
        {"employee_id": "E-1188", "name": "Aiko Tanabe", "start_date": "2023-04-03"},
    )
    said = answer("Which employees have no start date?", pack_context("s", staff, [0.9, 0.8]))
    assert "Kwame Osei" in said and "Aiko" not in said
    services = table(
        "services.tsv",
        {"name": "report-builder", "tier": "3"},
        {"name": "storefront", "tier": "1"},
    )
    packet = pack_context("tiers", services, [0.9, 0.8])
    said = answer("Compare the tiers of storefront and report-builder.", packet)
    assert "storefront" in said and "report-builder" in said
