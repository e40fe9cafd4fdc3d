"""The analyzer: Unicode words, folding, stopwords, stemming, CJK bigrams, item surfaces."""

from __future__ import annotations

from pathlib import Path

import pytest

from substrate.item import SubstrateItem
from substrate.search.tokenize import Analyzer, item_surface, word_spans


@pytest.fixture(scope="module")
def analyzer() -> Analyzer:
    return Analyzer()


def test_folds_case_and_stems(analyzer: Analyzer) -> None:
    assert analyzer.terms("Running RUNS runner") == ["run", "run", "runner"]
    assert analyzer.terms("Refunds refund") == ["refund", "refund"]


def test_drops_stopwords_and_single_letters(analyzer: Analyzer) -> None:
    assert analyzer.terms("What is the policy of a refund?") == ["polici", "refund"]
    assert analyzer.terms("the of and to which") == []
    assert analyzer.terms("") == []


def test_keeps_digits_and_splits_on_punctuation(analyzer: Analyzer) -> None:
    assert analyzer.terms("refund-router: 30 days. v2 x 5") == [
        "refund",
        "router",
        "30",
        "day",
        "v2",
        "5",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Written in C++ and C#, built with g++", ["written", "c++", "c#", "built", "g++"]),
        ("C++17 and C++/CLI; F# on .NET", ["c++", "17", "c++", "cli", "f#", "net"]),
        ("ünd C# über", ["und", "c#", "uber"]),  # (the pattern for text that is not ASCII)
        # a letter and marks inside a word, an increment, a single letter: no term
        ("i++ x++ ++c++ c#d A#B vitamin C", ["vitamin"]),
    ],
)
def test_languages_a_letter_and_its_marks_spell_are_terms(
    analyzer: Analyzer, text: str, expected: list[str]
) -> None:
    assert analyzer.terms(text) == expected
    spans = [text[a:b] for a, b in word_spans(text)]  # a match is shown where it is
    assert [w.casefold() for w in spans if "+" in w or "#" in w] == [
        t for t in expected if "+" in t or "#" in t
    ]


def test_a_language_is_found_by_its_name(tmp_path: Path) -> None:
    from substrate.store import Substrate

    store = Substrate(tmp_path / "shard")
    for item in (
        SubstrateItem("text", "The render engine is written in C++.", id="engine"),
        SubstrateItem("text", "The desktop tools are written in C#.", id="tools"),
        SubstrateItem("text", "Oranges are written about for their vitamin C.", id="c"),
    ):
        store.put(item)
    assert [h.item.id for h in store.hits("C++", 5)] == ["engine"]
    assert [h.item.id for h in store.hits("written in C#", 5)][0] == "tools"


def test_a_number_with_thousands_separators_is_one_term_and_its_parts(analyzer: Analyzer) -> None:
    assert analyzer.terms("4,200 EUR") == ["4200", "4", "200", "eur"]
    assert set(analyzer.terms("4200 EUR")) <= set(analyzer.terms("4,200 EUR"))
    assert analyzer.terms("ports 80,443") == ["port", "80443", "80", "443"]  # or two ports
    assert analyzer.terms("1,234,567") == ["1234567", "1", "234", "567"]
    # a list of numbers, a decimal comma and a comma between words stay apart
    assert analyzer.terms("10,100,1000") == ["10", "100", "1000"]
    assert analyzer.terms("1,23 and 2024, 300") == ["1", "23", "2024", "300"]
    assert [span for span in word_spans("costs 4,200")] == [(0, 5), (6, 11)]
    assert analyzer.terms("état 4,200") == ["etat", "4200", "4", "200"]


def test_an_acronym_s_plural_is_its_singular_whatever_its_case(analyzer: Analyzer) -> None:
    # Snowball keeps these s: "How many CPUs" found no note of the cpu column
    assert analyzer.terms("CPUs VMs PDFs KPIs") == ["cpu", "vm", "pdf", "kpi"]
    spellings = ("cpu", "CPU", "CPUs", "cpus", "CPUS", "--cpus")
    assert {tuple(analyzer.terms(word)) for word in spellings} == {("cpu",)}
    # not a plural of a common acronym: a word, Kubernetes, an identifier, acronyms ending in S
    # (once merged with the "tl" of "TL;DR", "gc" and "gbp"), a name
    words = "Status K8s numCPUs CSS TLS GCS Gbps plus Chris"
    assert analyzer.terms(words) == [word.lower() for word in words.split()]


def test_characters_that_print_nothing_do_not_split_a_word(analyzer: Analyzer) -> None:
    # a zero-width space pasted inside "Zürich" made "zü" and "rich": nothing matched
    assert analyzer.terms("Z\u00fc\u200brich") == analyzer.terms("Zürich") == ["zurich"]
    assert analyzer.terms("\ufeffdata\u00adbase\u2060s") == analyzer.terms("databases")


def test_snake_case_gives_whole_and_parts(analyzer: Analyzer) -> None:
    assert analyzer.terms("array_merge") == ["array_merge", "array", "merg"]


def test_unicode_letters_are_words_and_latin_accents_are_dropped(analyzer: Analyzer) -> None:
    assert analyzer.terms("Über café naïve") == ["uber", "cafe", "naiv"]
    assert analyzer.terms("München") == analyzer.terms("munchen")  # typed without them
    assert analyzer.terms("Ελλάδα") == ["ελλαδα"]  # Greek's accents go as Latin's do
    assert analyzer.terms("йод") != analyzer.terms("иод")  # Cyrillic "й" is a letter


@pytest.mark.parametrize(
    ("written", "typed"),
    [
        ("IŞIK", "ışık"),  # Turkish dotless i
        ("Yıldız", "YILDIZ"),
        ("Łodzi", "lodzi"),  # Polish l with a stroke
        ("ΑΘΗΝΑ", "αθηνα"),
        ("محمّد", "محمد"),  # Arabic, its shadda unwritten
        ("הַחוֹזֶה", "החוזה"),  # Hebrew, pointed and not
        ("Ёлка", "елка"),  # Russian "ё", most often written "е"
        ("أحمد", "احمد"),  # Arabic alef with a hamza
        ("إسلام آمن", "اسلام امن"),  # with a hamza below, with a madda
        ("المكتبة", "المكتبه"),  # taa marbuta written as haa
        ("مستشفى", "مستشفي"),  # alef maksura written as yaa
        ("الكتـــاب", "الكتاب"),  # a tatweel stretching the line
        ("٣٠ يوما", "30 يوما"),  # Arabic-Indic digits
        ("۱۲ روز", "12 روز"),  # Persian ones
        ("الفريق", "فريق"),  # Arabic's article, joined to its word
        ("المدرسة", "مدرسة"),
        ("والاجتماع", "اجتماع"),  # "and the meeting"
        ("१५ दिन", "15 दिन"),  # Devanagari ones
    ],
)
def test_letters_typed_without_their_marks_find_them(
    analyzer: Analyzer, written: str, typed: str
) -> None:
    assert analyzer.terms(written) == analyzer.terms(typed) != []


def test_combining_marks_belong_to_their_word(analyzer: Analyzer) -> None:
    # Indic vowel signs and viramas are marks: the words fell apart into dropped letters
    assert analyzer.terms("हिन्दी भाषा") == ["हिन्दी", "भाषा"]
    assert analyzer.terms("தமிழ் மொழி") == ["தமிழ்", "மொழி"]
    text = "पुस्तकालय"
    assert [text[a:b] for a, b in word_spans(text)] == [text]
    # marks elsewhere end a word, as they did: an emoji's variation selector, Arabic points
    assert analyzer.terms("\u26a0\ufe0fWarning: disk full") == ["warn", "disk", "full"]
    assert analyzer.terms("شكراً") == analyzer.terms("شكرا")


def test_a_thai_phrase_is_found_by_a_part_of_it(analyzer: Analyzer) -> None:
    # cut at its marks it gave fragments ("ภาษาไทยง", "ายมาก") a query's own seldom matched
    phrase = set(analyzer.terms("ภาษาไทยง่ายมาก สำหรับคนไทย"))
    assert set(analyzer.terms("ภาษาไทย")) <= phrase and set(analyzer.terms("ง่ายมาก")) <= phrase


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("中文搜索", ["中文", "文搜", "搜索"]),
        ("中", ["中"]),
        ("日本語のテキスト", ["日本", "本語", "語の", "のテ", "テキ", "キス", "スト"]),
        ("한국어", ["한국", "국어"]),
        ("abc中文def", ["abc", "中文", "def"]),
        ("ง่ายมาก", ["ง่", "่า", "าย", "ยม", "มา", "าก"]),  # Thai: no spaces between words
    ],
)
def test_cjk_runs_become_bigrams(analyzer: Analyzer, text: str, expected: list[str]) -> None:
    assert analyzer.terms(text) == expected


def test_surface_includes_payload_keys_values_and_tags() -> None:
    surface = item_surface(
        "body", {"owner": "alice", "nested": {"list": ["x1", 7, None, True]}}, ["urgent"]
    )
    for word in ("body", "owner", "alice", "nested", "list", "x1", "7", "urgent"):
        assert word in surface.split()
    assert "None" not in surface and "True" not in surface


def test_an_items_section_is_searched_with_its_text(tmp_path: Path) -> None:
    from substrate.ingest import ingest_path
    from substrate.store import Substrate

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "f.md").write_text(
        "# Postgres failover\n\n## Steps\n\n1. Page the database owner.\n"
    )
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "notes")
    (hit,) = store.hits("postgres", 5)  # said by the note's title alone
    assert hit.item.provenance["section"] == "Postgres failover > Steps"
    assert "Postgres" in item_surface("", {}, [], "Postgres failover > Steps").split()
    assert item_surface("x", {}, [], None) == "x"


def test_a_records_table_is_searched_with_its_cells(tmp_path: Path) -> None:
    # "What is the p99 latency of search-api?" abstained: no item mentioned "latency"
    from substrate.answer import answer_from_substrate
    from substrate.extractive import ExtractiveAnswerer
    from substrate.ingest import ingest_path
    from substrate.search.tokenize import table_name
    from substrate.store import Substrate

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "latency.csv").write_text(
        "service,p50,p99\nauth,30,1200\nsearch-api,40,95.2\nledger,12,80\n"
    )
    store = Substrate(tmp_path / "shard")
    ingest_path(store, tmp_path / "data")
    assert len(store.hits("latency", 5)) == 3  # said by the table's name alone
    answer = answer_from_substrate(
        store, "What is the p99 latency of search-api?", ExtractiveAnswerer()
    )
    assert answer.answer is not None and "95.2" in answer.answer
    assert [table_name(s) for s in ("a/b/hosts.tsv", "lat", ".env", None)] == [
        "hosts",
        "lat",
        ".env",
        "",
    ]


def test_surface_survives_deep_nesting() -> None:
    deep: dict[str, object] = {"leaf": "bottom"}
    for _ in range(50):
        deep = {"k": deep}
    assert "k" in item_surface("", deep, [])


def test_text_is_normalised_before_it_is_split() -> None:
    analyzer = Analyzer()
    composed = analyzer.terms("Brûlée")
    assert analyzer.terms("Bru\u0302le\u0301e") == composed == ["brule"]  # decomposed: NFD
    assert analyzer.terms("ｓｅａｒｃｈ ｉｎｄｅｘ") == analyzer.terms("search index")  # full width
    assert analyzer.terms("ﬁle") == analyzer.terms("file")  # a ligature
