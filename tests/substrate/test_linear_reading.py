"""Texts that were read again from each of their characters or parts: stored items and
questions whose reading took time growing with the square of their length. Each pattern
changed for it is checked against the one before on many random texts (same matches), and
one guard runs them all at a length the old ones took minutes over."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from substrate import answer_types, quantities, questions
from substrate.abbreviations import ends_in_abbreviation
from substrate.answer import CITATION, strip_citations
from substrate.claims import _CLAIM_ELLIPSIS, quotes_apart
from substrate.context.compress import _ORDINAL, _SENTENCE_SPLIT, split_sentences
from substrate.ingest.formats import frontmatter
from substrate.search import tokenize


def _texts(pieces: list[str], count: int = 3000, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(pieces, k=rng.randint(0, 24))) for _ in range(count)]


def _same_matches(new: re.Pattern[str], old: re.Pattern[str], texts: list[str]) -> int:
    """Assert that ``new`` finds what ``old`` finds in every text; returns how many found any."""
    found = 0
    for text in texts:
        got = [(m.span(), m.groups()) for m in new.finditer(text)]
        assert got == [(m.span(), m.groups()) for m in old.finditer(text)], text
        found += bool(got)
    return found


def _with_part_as_before(pattern: re.Pattern[str], part: str, before: str) -> re.Pattern[str]:
    """``pattern`` with its ``part`` written as it was ``before``."""
    assert part in pattern.pattern
    return re.compile(pattern.pattern.replace(part, before), pattern.flags)


def test_a_number_starts_where_its_digits_do_and_finds_what_it_found() -> None:
    texts = _texts(["1", "12", ".", ",", " ", "kb", "ms", "per", "day", "a", "-", "%", "one"])
    texts += _texts(["5", "0", "/", "month", "weekly", " ", "eur", "1.", ",2", "x"], seed=6)
    before = rf"\d+(?:[.,]\d+)*|\b(?:{'|'.join(questions.NUMBER_WORDS.split())})\b"
    for pattern in (quantities._AMOUNT, quantities._RATE):
        old = _with_part_as_before(pattern, quantities._NUMBER, before)
        assert _same_matches(pattern, old, texts) > 200


def test_an_address_starts_where_its_local_part_does_and_is_found_as_before() -> None:
    # (searched for, not iterated: another may follow one found without a blank between)
    email = answer_types._EMAIL
    old = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
    found = 0
    for text in _texts(["a", ".", "+", "-", "@", "b.c", " ", "x@y.z", "_", "é"]):
        new = email.search(text)
        assert (new and new.span()) == ((m := old.search(text)) and m.span()), text
        found += bool(new)
    assert found > 500


def test_a_grouped_number_is_tried_once_per_run_of_groups_and_finds_what_it_found() -> None:
    texts = _texts(["1", "12", "123", "1234", ",", ",123", "a", " ", "_", "0"])
    texts += _texts(["1", "12", "123", ",", " "], seed=7)  # "1,12,345": "12,345" is one
    before = r"[0-9]{1,3}(?:,[0-9]{3})+(?!\w|,[0-9])"
    for pattern, least in ((tokenize._ASCII_TOKEN_RE, 2000), (tokenize.GROUPED_NUMBER, 50)):
        old = _with_part_as_before(pattern, tokenize._GROUPED, before)
        assert _same_matches(pattern, old, texts) > least


def test_blanks_before_punctuation_are_dropped_as_before() -> None:
    # (but before a mark that opens a word: ":rocket:" lost its blank, "runs on:rocket:")
    for text in _texts([" ", "a", ".", ",", "[1]", "\n", "!", "\t", "?", ":"]):
        plain = r"\s+([.,;:!?])(?![^\s\"'`)\]}.,;:!?*_])"
        old = re.sub(plain, r"\1", CITATION.sub("", text)).strip()
        assert strip_citations(text) == old, text
    assert strip_citations("It runs on :rocket: day [1].") == "It runs on :rocket: day."


def test_a_front_matter_key_is_read_as_before() -> None:
    old = re.compile(r"""^("[^"]*"|'[^']*'|[A-Za-z0-9_][\w .-]*?)\s*:(?:\s+(.*))?$""")
    texts = _texts(["a", " ", ":", "-", ".", "\t", "x", "'", '"', "_", "é", ": v", "1"])
    for text in texts:
        new = frontmatter._KEY.match(text)
        before = old.match(text)
        assert (new and new.groups()) == (before and before.groups()), text
    assert sum(bool(frontmatter._KEY.match(t)) for t in texts) > 200


def _split_as_before(text: str) -> list[str]:
    out: list[str] = []
    for part in _SENTENCE_SPLIT.split(text):
        if out and (ends_in_abbreviation(out[-1]) or _ORDINAL.fullmatch(out[-1])):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def test_sentences_are_split_as_before() -> None:
    pieces = ["A.", " ", "Dr.", "word", "e.g.", "1.", "U.S.", "?", "!", "\n", "et al.", "(", "x"]
    pieces += ["#.", "i.e.", "Mr", "."]
    for text in _texts(pieces):
        assert split_sentences(text) == _split_as_before(text), text


def test_a_request_for_a_definition_is_undone_as_before() -> None:
    def as_before(question: str) -> str:
        question = questions._DEFINITION.sub(
            lambda m: "".join(g for g in m.groups() if g), question.rstrip()
        )
        return questions._PROCEDURE.sub("", question)

    pieces = ["what", " ", "does", "do", "mean", "stand", "for", "by", "?", "x", "!", "\n"]
    changed = 0
    for text in _texts(pieces) + _texts(pieces + ["what does ", " mean?"], seed=9):
        assert questions._undefined(text) == as_before(text), text
        changed += questions._undefined(text) != text.rstrip()
    assert changed > 100


# Each took from 10 s to hours (digits: the square of their length, times a large constant).
def test_claims_are_parted_at_an_ellipsis_as_before() -> None:
    # the quotation marks before each "…" were counted again from the text's start
    from collections import Counter

    from substrate.claims import _count_marks, _in_quotation

    def before(text: str) -> str:
        def ended(m: re.Match[str]) -> str:
            marks: Counter[str] = Counter()
            _count_marks(marks, text, 0, m.start())
            return f"{m[1]}\n" if m[2] or not _in_quotation(marks) else m[0]

        return _CLAIM_ELLIPSIS.sub(ended, text)

    pieces = [
        "a",
        "B",
        "… B",
        "… [1] x",
        " ",
        '"',
        "'",
        "`",
        "\u201c",
        "\u201d",
        "\u00ab",
        "\u00bb",
    ]
    texts = _texts(pieces, count=5000)
    assert all(quotes_apart(text) == before(text) for text in texts)
    assert sum(quotes_apart(text) != text for text in texts) > 500


_LONG_TEXTS = """
from substrate.answer import CITATION, strip_citations
from substrate.answer_types import _email
from substrate.context.compress import sentences, split_sentences
from substrate.factuality import _grouped_by_commas
from substrate.claims import quotes_apart
from substrate.ingest.formats.frontmatter import parse_block
from substrate.linktext import as_shown
from substrate.quantities import amounts, rates
from substrate.questions import asked_terms
from substrate.ingest.formats.notelinks import without_fenced_code
from substrate.kindnames import kind_names
from substrate.search.tokenize import Analyzer
from substrate.secrets.engine import find_secrets
from substrate.secrets.placeholders import _chosen, is_name_like

n = 64000
strip_citations("Refunds take 5" + " " * n + "days.")
split_sentences("Refunds take 5 days. " + "A. " * (n // 3))
Analyzer().terms("take 1" + ",111" * (n // 4) + "1")
asked_terms("what does " * (n // 10) + "refunds?")
amounts("take 5 " + "1" * n + " x."), rates("1" * n), amounts("1." * (n // 2))
_email("email is " + "a" * n)
parse_block(["title" + " " * n + "x"])
quotes_apart("took 5 minutes… Then " * (n // 21))
as_shown("{{< " * n), as_shown("{% " * n)  # (shortcodes never closed; 256,000 characters)
sentences("a\\nb\\n" + "." * (4 * n) + "x")  # (three lines read as records, a run of marks)
is_name_like("a" * n), _chosen("Abcdef" * (n // 6), "password")  # (a value under a key)
without_fenced_code("`" * (4 * n)), without_fenced_code("~" * (4 * n))  # (no line break)
kind_names("a team " * (4 * n)), kind_names("A Team " * n)  # (each read back to the start)
find_secrets("${PASSWORD:-" * n)  # (a default never closed: each read on to the line's end)
_grouped_by_commas("123 " * (4 * n) + "4")  # (a run of groups, once read from each of them)
"""


def test_long_texts_are_read_in_proportion_to_their_length() -> None:
    # a hang guard, not a speed test: these take well under a second in all
    subprocess.run([sys.executable, "-c", _LONG_TEXTS], check=True, timeout=60)


_LONG_VALUES = """
import base64, os, resource
from substrate.secrets.engine import find_secrets

find_secrets('password = "warm up the rules"')
size = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
resource.setrlimit(resource.RLIMIT_AS, (size + (160 << 20), resource.RLIM_INFINITY))
find_secrets('{"key": "' + base64.b64encode(os.urandom(1_500_000)).decode() + '"}')
find_secrets("?key=1&" * 300_000)
find_secrets("key=" * 500_000)
find_secrets('x = "a" "b"\\nDATA = "' + base64.b64encode(os.urandom(1_500_000)).decode() + '"')
"""


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc")
def test_a_long_value_under_a_key_is_read_in_little_memory() -> None:
    # each of its characters kept a state of the matcher's: 2 MB took 640 MB (a MemoryError
    # within this limit), 4 MB 1.2 GB
    subprocess.run([sys.executable, "-c", _LONG_VALUES], check=True, timeout=60)
