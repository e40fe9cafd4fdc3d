"""The scan's shortcuts pick the same rules as the plain ways they replace.

Each shortcut is checked against the simple reading it stands for, on texts built from
keywords, their fragments and their overlaps, where the shortcuts are easiest to get wrong.
"""

from __future__ import annotations

import random
import re

import pytest

from substrate.secrets import engine
from substrate.secrets.engine import CONTEXT_KEYWORDS, TOKEN_KEYWORDS, KeywordRules

INDEXES = [
    (engine._BY_KEYWORD_CONTEXT, CONTEXT_KEYWORDS),
    (engine._BY_KEYWORD_TOKEN, TOKEN_KEYWORDS),
]


def _plain(index: tuple[tuple[str, tuple[int, ...]], ...], low: str) -> set[int]:
    """The rules of every keyword found by one ``in`` each."""
    return {i for k, rules in index if k in low for i in rules}


def _fragments(words: list[str]) -> list[str]:
    """The keywords, their heads and tails, and a few separators."""
    heads = [w[:i] for w in words for i in range(1, len(w))]
    tails = [w[i:] for w in words for i in range(1, len(w))]
    return words + heads + tails + [" ", "x", "\n", "-", "_"]


@pytest.mark.parametrize(("index", "keywords"), INDEXES)
def test_keywords_found_in_one_pass_select_the_rules_one_lookup_each_does(
    index: tuple[tuple[str, tuple[int, ...]], ...], keywords: KeywordRules
) -> None:
    rng = random.Random(11)
    pieces = _fragments([k for k, _ in index])
    for _ in range(20000):
        low = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 8)))
        assert keywords.rules_in(low) == _plain(index, low), low


def test_keywords_inside_and_across_others_are_counted() -> None:
    context = engine._BY_KEYWORD_CONTEXT
    # "auth" inside "authorization"; "secret" starting in "pass" and ending past it (its
    # own rules: the Kubernetes Secret's); "asia" across "akia"
    for low in ["authorization: x", "passecret", "akiasia", "secret_access", "mysql -ppass"]:
        assert CONTEXT_KEYWORDS.rules_in(low) == _plain(context, low), low
    kubernetes = engine._KUBERNETES_RULE
    assert kubernetes in CONTEXT_KEYWORDS.rules_in("passecret")
    assert kubernetes not in CONTEXT_KEYWORDS.rules_in("pass ecret")
    assert TOKEN_KEYWORDS.rules_in("xoxe.xoxb-") == _plain(engine._BY_KEYWORD_TOKEN, "xoxe.xoxb-")


def test_no_keyword_no_rule() -> None:
    assert CONTEXT_KEYWORDS.rules_in("plain words only") == set()
    assert KeywordRules(()).rules_in("anything") == set()


@pytest.mark.parametrize(
    ("index", "any_keyword"),
    [
        (engine._BY_KEYWORD_CONTEXT, engine.ANY_CONTEXT_KEYWORD),
        (engine._BY_KEYWORD_TOKEN, engine.ANY_TOKEN_KEYWORD),
    ],
)
def test_a_search_from_each_keyword_s_rarest_character_finds_what_lookups_find(
    index: tuple[tuple[str, tuple[int, ...]], ...], any_keyword: re.Pattern[str]
) -> None:
    rng = random.Random(12)
    words = [k for k, _ in index]
    pieces = _fragments(words)
    for _ in range(20000):
        low = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 8)))
        assert bool(any_keyword.search(low)) == any(k in low for k in words), low
    for word in words:  # alone, at either end, and cut short
        assert any_keyword.search(word) and any_keyword.search(f"x {word}") is not None, word
        assert not any_keyword.search(word[:-1]) or any(k in word[:-1] for k in words), word


def test_the_lines_holding_keywords_are_found_by_one_search_per_line() -> None:
    rng = random.Random(13)
    keywords = ("pass", "pw", "key", "secret", "-u ", "//")
    pieces = [*keywords, "pa", "ss", "ke", "y", "-u", " ", "x", "\n", "\n\n", "/"]
    for _ in range(5000):
        low = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12)))
        spans, start = [], 0
        for line in low.split("\n"):
            if any(k in line for k in keywords):
                spans.append((start, start + len(line)))
            start += len(line) + 1
        assert engine._keyword_lines(low, keywords) == spans, low


def _widened_line_by_line(
    text: str, lines: list[tuple[int, int]], extra: int
) -> list[tuple[int, int]]:
    """Each window extended a line at a time, then merged where they meet."""
    out: list[tuple[int, int]] = []
    for start, end in lines:
        for _ in range(extra):
            if end >= len(text):
                break
            after = text.find("\n", end + 1)
            end = len(text) if after == -1 else after
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def test_windows_widened_by_the_line_breaks_found_once_are_those_widened_line_by_line() -> None:
    rng = random.Random(14)
    for _ in range(3000):
        text = "".join(
            rng.choice(["key", "x", " ", "\n", "\n\n"]) for _ in range(rng.randrange(0, 16))
        )
        lines = engine._keyword_lines(text, ("key",))
        for extra in (0, 1, 2, 3, 40):
            assert engine._widen(text, lines, extra) == _widened_line_by_line(text, lines, extra)
