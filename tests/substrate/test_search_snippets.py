"""Snippets: the passage that shows why an item matched, with the matched words marked."""

from __future__ import annotations

import unicodedata

from substrate.search.snippets import make_snippet


def marked(text: str, query: str, width: int = 200) -> tuple[str, list[str], list[str]]:
    s = make_snippet(text, query, width=width)
    return s.text, [s.text[a:b] for a, b in s.spans], s.matches


def test_matches_follow_the_analyzer() -> None:
    text, spans, matches = marked("Extract a tar ARCHIVE; extracting archives", "extract archive")
    assert text == "Extract a tar ARCHIVE; extracting archives"
    assert spans == ["Extract", "ARCHIVE", "extracting", "archives"]
    assert matches == ["Extract", "ARCHIVE", "extracting", "archives"]


def test_a_word_with_a_character_that_prints_nothing_is_marked_whole() -> None:
    # search found "Zü\u200brich" for "zurich" (the analyzer drops the character), but the
    # snippet marked nothing: its spans split the word there
    text, spans, _ = marked(
        "Office in Z\u00fc\u200brich, a co\u00adoperative.", "zurich cooperative"
    )
    assert spans == ["Z\u00fc\u200brich", "co\u00adoperative"]


def test_case_variants_are_one_match() -> None:
    assert marked("Refund refund REFUND", "refund")[2] == ["Refund"]


def test_window_goes_where_the_query_terms_are() -> None:
    filler = "lorem ipsum dolor " * 40
    text = filler + "the refund policy allows returns within thirty days. " + filler
    snippet, spans, _ = marked(text, "refund days", width=80)
    assert snippet.startswith("…") and snippet.endswith("…") and len(snippet) <= 84
    assert spans == ["refund", "days"]


def test_the_context_before_a_window_leaves_its_last_match_in_it() -> None:
    # the window with both terms ended on the rare one, which the lead-in pushed out
    text = "".join(
        f"Step {i} uses the widget number W2{i:02d} and filler words.\n" for i in range(12)
    )
    snippet, spans, matches = marked(text, "widget W207")
    assert matches == ["widget", "W207"] and spans[-1] == "W207"
    assert len(snippet) <= 202
    edge = "alpha " * 30 + "beta gamma " + "delta " * 30  # a window ending right after it
    for width in range(30, 60):
        assert "gamma" in marked(edge, "alpha gamma", width=width)[2], width


def test_a_match_near_the_end_shows_what_fits_before_it() -> None:
    text = "# Storage costs\nThe standby database costs 4,200 EUR per year. Backups are kept."
    assert marked(text, "4200")[0] == " ".join(text.split())  # short: shown whole
    text = "lorem ipsum dolor " * 20 + "the refund policy"
    snippet, spans, _ = marked(text, "refund", width=80)
    assert snippet.startswith("…") and snippet.endswith("refund policy")
    assert len(snippet) >= 70 and spans == ["refund"]


def test_whitespace_is_collapsed_and_spans_still_line_up() -> None:
    snippet, spans, _ = marked("first\n\n   line about\tquokkas\n", "quokka")
    assert snippet == "first line about quokkas" and spans == ["quokkas"]


def test_no_match_gives_the_opening_and_stopwords_mark_nothing() -> None:
    assert marked("nothing to see here", "zebra") == ("nothing to see here", [], [])
    assert marked("the cat and the hat", "the and")[1] == []
    long = "word " * 200
    snippet = make_snippet(long, "absent", width=50).text
    assert snippet.endswith("…") and not snippet.startswith("…")


def test_cjk_bigrams_are_marked_where_they_are() -> None:
    snippet, spans, matches = marked("中文字典和数据库", "数据")
    assert snippet == "中文字典和数据库" and spans == ["数据"] and matches == ["数据"]
    assert marked("数据库数据", "数据库")[1] == ["数据库", "数据"]


def test_a_match_deep_in_text_without_spaces_stays_in_the_window() -> None:
    import json

    fields = {f"k{i}": i for i in range(300)} | {"error": "quokka"}
    minified = json.dumps(fields, separators=(",", ":"))  # not one space in it
    snippet = make_snippet(minified, "quokka", width=60)
    assert "quokka" in snippet.text


def test_a_title_s_underline_and_a_break_are_no_words_of_a_snippet() -> None:
    text = "Paging policy\n-------------\n\nCall the owner within 15 minutes.\n\n***\n\nThen wait."
    snippet = make_snippet(text, "paging owner")
    assert snippet.text == "Paging policy Call the owner within 15 minutes. Then wait."
    assert [snippet.text[a:b] for a, b in snippet.spans] == ["Paging", "owner"]


def test_a_word_written_decomposed_is_matched_and_marked() -> None:
    # NFD, as macOS writes file names: its accents cut the word in two, and nothing was marked
    text = unicodedata.normalize("NFD", "Le résumé du projet est prêt.")
    snippet = make_snippet(text, "résumé")
    assert snippet.matches == [unicodedata.normalize("NFD", "résumé")]
    assert [snippet.text[s:e] for s, e in snippet.spans] == snippet.matches


def test_a_snippet_is_never_cut_inside_a_character() -> None:
    # it began with a lone voiced-sound mark, or ended in a joiner of an emoji family
    kana = "word " * 60 + unicodedata.normalize("NFD", "バックアップドライブの交換") + " more" * 40
    family = "billing outage " + "\U0001f468\u200d\U0001f469\u200d\U0001f467" * 40
    for text, query in ((kana, "ドライブ"), (family, "billing")):
        for width in range(20, 60):
            shown = make_snippet(text, query, width=width).text.strip("…")
            assert not unicodedata.combining(shown[0]) and shown[-1] != "\u200d", width
            start = text.index(shown)  # (nor just past a joiner, at either end)
            assert "\u200d" not in (shown[0], text[start - 1 : start], text[start + len(shown)])


def test_a_window_ending_in_a_hyphenated_word_ends_after_it() -> None:
    # the window's last match ("boundary" of "boundary-layer") was followed by no space
    # before its end, which then fell inside "layer"
    head = "boundary-layer growth on a swept wing in supersonic flow .\n\n"
    tail = (
        " boundary-layer growth on a swept wing in supersonic flow . the solution is found for "
        "the turbulent boundary-layer equations on a swept wing with suction and more text"
    )
    for pad in range(40):
        text = head + "x" * pad + tail
        last = make_snippet(text, "boundary layer").text.rstrip("…").split()[-1]
        assert last in text.split(), (pad, last)
