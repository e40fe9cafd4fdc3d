"""Chunking at sentence boundaries under a size bound."""

from __future__ import annotations

import re

import pytest

from substrate.errors import InvalidInputError
from substrate.ingest.chunk import (
    check_limit,
    chunk_lines,
    chunk_spans,
    sentence_spans,
    text_segments,
)


def _chunks(text: str, limit: int) -> list[str]:
    return [text[s:e] for s, e in chunk_spans(text, limit)]


def test_short_text_is_one_stripped_chunk() -> None:
    assert _chunks("  Hello there.  \n", 100) == ["Hello there."]


def test_blank_text_gives_no_chunk() -> None:
    assert chunk_spans("", 100) == []
    assert chunk_spans(" \n\t \n", 100) == []


def test_chunks_end_at_sentence_boundaries_under_the_bound() -> None:
    sentences = [f"Sentence number {i} says something useful." for i in range(40)]
    text = " ".join(sentences)
    chunks = _chunks(text, 200)
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(chunk) <= 200
        assert chunk.endswith(".")
        assert chunk.startswith("Sentence")
    # nothing lost, nothing duplicated: the chunks are the sentences, in order
    assert " ".join(chunks) == text


def test_paragraph_break_is_a_boundary_without_punctuation() -> None:
    text = ("word " * 30).strip() + "\n\n" + ("other " * 30).strip()
    chunks = _chunks(text, 200)
    assert chunks == [("word " * 30).strip(), ("other " * 30).strip()]


def test_closing_quote_stays_with_its_sentence() -> None:
    text = 'He said "stop." Then he left the room quickly and quietly.'
    spans = sentence_spans(text, 0, len(text))
    assert text[spans[0][0] : spans[0][1]] == 'He said "stop."'


def test_abbreviations_and_initials_do_not_end_a_sentence() -> None:
    text = "Dr. Smith met J. R. Tolkien. Then e.g. this one. I said no. Then he left."
    spans = sentence_spans(text, 0, len(text))
    assert [text[s:e] for s, e in spans] == [
        "Dr. Smith met J. R. Tolkien.",
        "Then e.g. this one.",
        "I said no.",
        "Then he left.",
    ]
    text = "Made in the U.S.\n\nShipped by Dr.\n\nNext."
    spans = sentence_spans(text, 0, len(text))
    assert [text[s:e] for s, e in spans] == ["Made in the U.S.", "Shipped by Dr.", "Next."]
    # a chunk is not cut after "Dr." when a sentence end is near
    text = "The visit was long. Dr. Jones wrote the report on the visit."
    assert _chunks(text, 50) == ["The visit was long.", "Dr. Jones wrote the report on the visit."]


@pytest.mark.parametrize("month", ["Jan", "Feb", "Mar", "Apr", "Aug", "Sep", "Sept", "Dec"])
def test_a_month_s_abbreviation_and_a_m_p_m_end_no_sentence(month: str) -> None:
    text = f"We met on {month}. 5 at 3 p.m. in the hall, and left at 9 a.m. on the 6th. Then rain."
    spans = sentence_spans(text, 0, len(text))
    assert [text[s:e] for s, e in spans] == [text.removesuffix(" Then rain."), "Then rain."]


def test_a_numbered_list_item_keeps_its_number() -> None:
    steps = "".join(f"{n}. Step {n}: restart stage {n} and check its log.\n" for n in range(1, 13))
    text = "Steps:\n" + steps + "Done in 2024. Then rest."
    spans = [text[s:e] for s, e in sentence_spans(text, 0, len(text))]
    assert spans[1:3] == [
        "2. Step 2: restart stage 2 and check its log.",
        "3. Step 3: restart stage 3 and check its log.",
    ]
    assert spans[-2:] == ["Done in 2024.", "Then rest."]  # a number ending a sentence ends it
    for wrapped in ("The project started in\n2024. Then it grew.", "Room\n12. We met there."):
        assert len(sentence_spans(wrapped, 0, len(wrapped))) == 2  # wrapped, not a list
    for listed in (  # items without a period, a list after a line without ":"
        "Steps:\n1. Stop the service\n2. Start it\n3. Check the log",
        "To deploy, run these\n1. Stop the service\n2. Start it\n3. Check the log.",
        "Items:\n10. Ten\n11. Eleven",
    ):
        assert len(sentence_spans(listed, 0, len(listed))) == 1
    text = "# Runbook\n1. Stop the service.\n2. Start it."
    spans = [text[s:e] for s, e in sentence_spans(text, 0, len(text))]
    assert spans == ["# Runbook\n1. Stop the service.", "2. Start it."]
    for chunk in _chunks(text, 150):
        assert not re.search(r"(?:^|\n)\d+\.$", chunk)


def test_a_line_of_inline_code_opens_no_fenced_block() -> None:
    text = "```js const x = 1```\nThen stop. And go."
    spans = [text[s:e] for s, e in sentence_spans(text, 0, len(text))]
    assert spans[-1] == "And go."


def test_cjk_full_stop_needs_no_space() -> None:
    text = "这是第一句。这是第二句。这是第三句。"
    spans = sentence_spans(text, 0, len(text))
    assert [text[s:e] for s, e in spans] == ["这是第一句。", "这是第二句。", "这是第三句。"]


def test_overlong_sentence_is_cut_at_white_space() -> None:
    text = " ".join(["alpha"] * 100)  # 599 characters, no sentence end
    chunks = _chunks(text, 64)
    assert all(len(c) <= 64 for c in chunks)
    assert all(not c.startswith(" ") and not c.endswith(" ") for c in chunks)
    assert " ".join(chunks) == text


def test_run_without_white_space_is_cut_into_even_pieces() -> None:
    text = "x" * 100
    assert _chunks(text, 30) == ["x" * 25] * 4


def test_an_overlong_paragraph_is_cut_evenly_and_keeps_its_heading() -> None:
    words = " ".join(f"word{i % 7}" for i in range(300))  # 1,799 characters, no sentence end
    chunks = _chunks(f"# Note\n\n{words}", 1500)
    # two halves, each cut at the space nearest its share: not "# Note", 1,498 and a scrap
    assert len(chunks) == 2 and all(abs(len(c) - 903) <= 6 for c in chunks)
    assert chunks[0].startswith("# Note\n\nword0") and " ".join(chunks).endswith(words[-40:])
    # a paragraph that fits the bound alone, but not with its heading: still no lone heading
    fits = f"# Note\n\n{words[:1495]}"
    assert [c.startswith("# Note\n\nword0") for c in _chunks(fits, 1500)] == [True, False]
    closing = _chunks(f"{words}\n\nA short closing line.", 1500)  # joins the last piece
    assert len(closing) == 2 and closing[1].endswith("\n\nA short closing line.")
    intro = "An opening sentence. " * 10  # several sentences: they stand as a chunk
    assert _chunks(intro + words[:1400], 1500)[0] == intro.strip()
    lead = "A sentence long enough to stand as a chunk of its own here. " * 8
    alone = _chunks(lead + words, 1500)
    assert alone[0] == lead.strip() and all(len(c) <= 1500 for c in alone)


def test_chunk_lines_are_exact_file_lines() -> None:
    text = "First sentence here.\nSecond one on line two.\n\nThird after a gap."
    chunks = chunk_lines(text, 10, 30)
    assert [(c.text, c.line_start, c.line_end) for c in chunks] == [
        ("First sentence here.", 10, 10),
        ("Second one on line two.", 11, 11),
        ("Third after a gap.", 13, 13),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "One line.",
        "\n\n  Two lines\nof text.\t\n\n",
        "\u3000\x1c\x85\n Margins of every kind of white space.\xa0\u2028\n",
        "\u200bA zero-width space is no white space.\u200b",
        "x" * 100,  # as long as the bound
    ],
)
def test_a_text_of_one_chunk_is_its_stripped_self_on_its_own_lines(text: str) -> None:
    (only,) = chunk_lines(text, 7, 100)
    start = len(text) - len(text.lstrip())
    assert only == (text.strip(), 7 + text.count("\n", 0, start), only.line_end, None, start)
    assert only.line_end == only.line_start + text.strip().count("\n")
    (seg,) = text_segments(text, 7, 100, secrets=True, section="S")
    assert (seg.text, seg.section, seg.line_start, seg.line_end, seg.chunk, seg.secrets) == (
        only.text, "S", only.line_start, only.line_end, 0, None)  # fmt: skip


def test_a_blank_text_has_no_segment_and_a_longer_one_several() -> None:
    assert text_segments(" \n\u3000\n", 1, 100, secrets=True) == []
    chunks = text_segments("y" * 101, 1, 100, secrets=True)
    assert [(c.text, c.chunk) for c in chunks] == [("y" * 51, 0), ("y" * 50, 1)]


def test_limit_is_validated() -> None:
    assert check_limit(1500) == 1500
    with pytest.raises(InvalidInputError):
        check_limit(3)


def test_a_fenced_code_block_is_cut_between_its_lines() -> None:
    # ". " in a comment ended a sentence: a line of code was cut in two across chunks
    code = [f"x{i} = compute_value({i})  # step. number {i}" for i in range(6)]
    text = "\n".join(["Intro one. Intro two.", "", "```python", *code, "```", "", "After it."])
    chunks = [text[s:e] for s, e in chunk_spans(text, 120)]
    assert all(len(c) <= 120 for c in chunks)
    lines = [line for c in chunks for line in c.splitlines()]
    assert all(line in lines for line in code)  # every line whole, in one chunk
    assert sentence_spans("a. b\n~~~\nc. d\n~~~", 0, 17) == [(0, 2), (3, 4), (5, 8), (9, 13),
                                                           (14, 17)]  # fmt: skip
    unclosed = "Text.\n```\nx = 1. y\nz = 2"
    assert [unclosed[s:e] for s, e in sentence_spans(unclosed, 0, len(unclosed))] == [
        "Text.", "```", "x = 1. y", "z = 2"]  # fmt: skip
