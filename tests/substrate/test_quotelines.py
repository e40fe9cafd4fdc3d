"""The lines of its sources an answer quotes (``substrate.quotelines``)."""

from __future__ import annotations

from substrate import SubstrateItem
from substrate.quotelines import lines_quoted, quoted_lines

SECTION = (
    "# Refund policy\n"  # line 5
    "\n"
    "Customers can ask for a refund within 30 days of delivery. Refunds for defective items are\n"
    "processed within five business days of the returned item reaching the warehouse.\n"
    "\n"
    "See [the returns runbook](ops/returns.md) for the warehouse steps.\n"  # line 10
    "Store credit is offered instead of cash for orders paid with vouchers and gift cards."
)


def section(text: str = SECTION, start: int = 5) -> SubstrateItem:
    end = start + text.count("\n")
    return SubstrateItem(
        "text", text, provenance={"source": "refunds.md", "line_start": start, "line_end": end}
    )


def test_a_sentence_over_two_lines_is_cited_by_them() -> None:
    quote = (
        "Refunds for defective items are processed within five business days of the "
        "returned item reaching the warehouse."
    )
    assert lines_quoted(quote, section()) == (7, 8)
    assert lines_quoted(
        "Customers can ask for a refund within 30 days of delivery.", section()
    ) == (
        7,
        7,
    )


def test_a_quote_shown_without_its_link_target_or_cut_short_is_found() -> None:
    assert lines_quoted("See the returns runbook for the warehouse steps.", section()) == (10, 10)
    cut = "Store credit is offered instead of cash for orders paid with vouch…"
    assert lines_quoted(cut, section()) == (11, 11)


def test_an_entry_led_by_its_heading_name_is_cited_by_its_own_lines() -> None:
    entry = section("## Jonas Weber\n\n- Based in Milan.\n- Joined in 2021.", start=20)
    assert lines_quoted("Jonas Weber: Based in Milan.", entry) == (22, 22)
    assert lines_quoted("Jonas Weber: Joined in 2021.", entry) == (23, 23)


def test_lines_of_settings_joined_into_one_quote_are_cited_from_their_first() -> None:
    # "... = [REDACTED:...] github token:" is no entry's name: the quote starts at line 3
    text = (
        "# Service credentials\n\naws_access_key_id = AKIAEXAMPLE\n"
        "aws_secret_access_key = [REDACTED:aws_secret_key]\ngithub token: [REDACTED:github_token]\n"
        "The staging database password is [REDACTED:sensitive_assignment]"
    )
    quote = (
        "aws_access_key_id = AKIAEXAMPLE aws_secret_access_key = [REDACTED:aws_secret_key] "
        "github token: [REDACTED:github_token] The staging database password is "
        "[REDACTED:sensitive_assignment]"
    )
    assert lines_quoted(quote, section(text, start=1)) == (3, 6)


def test_words_scattered_over_a_section_are_no_passage() -> None:
    text = (
        "# How on-call works\n"  # line 1
        "\n"
        "We run a weekly rotation with a primary and a secondary. The database team\n"
        "keeps its schedule in the roster; see PagerDuty for who is on call.\n"
        "\n"
        "- The database has its own rotation (`db-primary`), see [[runbooks/database]].\n"
    )
    quote = (
        "How on-call works: The database has its own rotation (`db-primary`), "
        "see runbooks/database."
    )
    assert lines_quoted(quote, section(text, start=1)) == (6, 6)
    without_it = section(text.rsplit("\n\n", 1)[0], start=1)  # its words, but strewn
    assert lines_quoted(quote, without_it) is None


def test_of_passages_holding_as_many_words_the_tightest_is_cited() -> None:
    # "the" of the line before opened a passage too, as long in words
    adr = section("We use Kafka as the message broker.\nThe Kafka owner is [[people/marco]].", 3)
    assert lines_quoted("The Kafka owner is people/marco.", adr) == (4, 4)


def test_a_stretch_of_one_word_is_found_or_not() -> None:
    entry = section("## Priya Raman\n\n- Kafka\n- Berlin", start=1)
    assert lines_quoted("Priya Raman: Berlin", entry) == (4, 4)
    assert lines_quoted("30", entry) is None
    assert quoted_lines("30 [1]", [entry]) == {}


def test_a_paraphrase_or_a_text_that_is_not_its_lines_points_to_none() -> None:
    assert lines_quoted("Broken goods are refunded in under a week.", section()) is None
    row = SubstrateItem(  # a record's text, built from one row: one line, its row's
        "record", "name: Ana\ncity: Lisbon", provenance={"line_start": 4, "line_end": 4}
    )
    assert lines_quoted("name: Ana", row) is None
    unplaced = SubstrateItem("text", SECTION)
    assert (
        lines_quoted("Customers can ask for a refund within 30 days of delivery.", unplaced) is None
    )


def test_each_stretch_goes_to_the_sources_its_markers_name() -> None:
    answer = (
        "Refunds for defective items are processed within five business days of the returned "
        "item reaching the warehouse. [1] Customers can ask for a refund within 30 days of "
        "delivery. [1] [2] See the returns runbook for the warehouse steps. [3] Nothing. [9]"
    )
    other = section(start=40)
    got = quoted_lines(answer, [section(), other, SubstrateItem("text", "unplaced")])
    assert got == {1: [(7, 8)], 2: [(42, 42)]}  # 7 and 7-8 merged; [3] has no lines; no [9]


def test_only_the_start_of_a_very_long_text_is_looked_through() -> None:
    from substrate.quotelines import SCAN_CHARS

    filler = "the same words on every line of it\n" * (SCAN_CHARS // 35 + 10)
    long = section("Refunds take five days.\n" + filler + "Gift cards never expire.", start=1)
    assert lines_quoted("Refunds take five days.", long) == (1, 1)
    assert lines_quoted("Gift cards never expire.", long) is None  # its section's lines stand


def test_a_table_row_quoted_with_its_column_names_is_cited_by_its_own_line() -> None:
    table = section(
        "# Teams\n"  # line 1
        "\n"
        "| Team | Lead | Slack channel | Services |\n"
        "|---|---|---|---|\n"
        "| Payments | Priya Raman | #team-payments | checkout-api, refund-service |\n"  # line 5
        "| Platform | Tomás Ortega | #team-platform | auth-service, CI |\n"
        "| Fulfillment | Dev Okafor | #team-fulfillment | inventory-sync |",
        start=1,
    )
    row = "Team: Fulfillment; Lead: Dev Okafor; Slack channel: #team-fulfillment; Services: "
    assert lines_quoted(row + "inventory-sync.", table) == (7, 7)
    assert lines_quoted("Team: Payments; Lead: Priya Raman.", table) == (5, 5)


def _every_passage(wanted: list[str], text: str) -> tuple[int, int] | None:
    """``_passage`` as it was: every lead and every place of its word walked, none passed
    over (the reference the pruned search must agree with)."""
    import math

    from substrate.quotelines import _WORD, MIN_SHARE, SCAN_CHARS, _walk

    if not wanted:
        return None
    found = [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text, 0, SCAN_CHARS)]
    need = math.ceil(MIN_SHARE * len(wanted))
    best: tuple[int, int, int] | None = None
    for lead in range(len(wanted) - need + 1):
        for first, (word, _, _) in enumerate(found):
            if word != wanted[lead]:
                continue
            matched, last = _walk(wanted, lead, first, found)
            if matched >= need and (
                best is None or (matched, first - last) > (best[0], best[1] - best[2])
            ):
                best = (matched, first, last)
    return None if best is None else (found[best[1]][1], found[best[2]][2] - 1)


def test_the_search_for_a_passage_finds_what_trying_every_place_finds() -> None:
    import random

    from substrate.quotelines import _passage

    rng = random.Random(7)
    vocab = ["the", "a", "refund", "days", "store", "credit", "cards", "x", "y"]
    for _ in range(3000):
        text_words = [rng.choice(vocab) for _ in range(rng.randrange(0, 40))]
        text = " ".join(text_words)
        if text_words and rng.random() < 0.7:  # a quote of the text, perhaps altered
            start = rng.randrange(len(text_words))
            wanted = text_words[start : start + rng.randrange(1, 30)]
            for _ in range(rng.randrange(0, 4)):
                at = rng.randrange(len(wanted) + 1)
                wanted.insert(at, rng.choice(vocab))
        else:
            wanted = [rng.choice(vocab) for _ in range(rng.randrange(0, 30))]
        assert _passage(wanted, text) == _every_passage(wanted, text), (wanted, text)


def test_a_stretch_of_more_words_than_its_source_holds_is_no_quote_of_it() -> None:
    words = [f"w{i % 37}" for i in range(300)]
    text = "\n".join(" ".join(words[i : i + 12]) for i in range(0, len(words), 12))
    long = section(text, start=1)
    assert lines_quoted(" ".join(words + words), long) is None
    assert lines_quoted(" ".join(words), long) == (1, text.count("\n") + 1)
