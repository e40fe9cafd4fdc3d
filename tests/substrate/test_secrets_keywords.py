"""The scan's shortcuts pick the same rules as the plain ways they replace.

Each shortcut is checked against the simple reading it stands for, on texts built from
keywords, their fragments and their overlaps, where the shortcuts are easiest to get wrong.
"""

from __future__ import annotations

import random
import re
import string

import pytest

from substrate.secrets import engine
from substrate.secrets import keywords as keyword_index
from substrate.secrets.keywords import CONTEXT_KEYWORDS, TOKEN_KEYWORDS, KeywordRules

INDEXES = [
    (keyword_index._BY_KEYWORD_CONTEXT, CONTEXT_KEYWORDS),
    (keyword_index._BY_KEYWORD_TOKEN, TOKEN_KEYWORDS),
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
    context = keyword_index._BY_KEYWORD_CONTEXT
    # "auth" inside "authorization"; "secret" starting in "pass" and ending past it (its
    # own rules: the Kubernetes Secret's); "asia" across "akia"
    for low in ["authorization: x", "passecret", "akiasia", "secret_access", "mysql -ppass"]:
        assert CONTEXT_KEYWORDS.rules_in(low) == _plain(context, low), low
    kubernetes = engine._KUBERNETES_RULE
    assert kubernetes in CONTEXT_KEYWORDS.rules_in("passecret")
    assert kubernetes not in CONTEXT_KEYWORDS.rules_in("pass ecret")
    assert TOKEN_KEYWORDS.rules_in("xoxe.xoxb-") == _plain(
        keyword_index._BY_KEYWORD_TOKEN, "xoxe.xoxb-"
    )


def test_no_keyword_no_rule() -> None:
    assert CONTEXT_KEYWORDS.rules_in("plain words only") == set()
    assert KeywordRules(()).rules_in("anything") == set()


@pytest.mark.parametrize(
    ("index", "any_keyword"),
    [
        (keyword_index._BY_KEYWORD_CONTEXT, keyword_index.ANY_CONTEXT_KEYWORD),
        (keyword_index._BY_KEYWORD_TOKEN, keyword_index.ANY_TOKEN_KEYWORD),
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


# Texts each rule with ``holds`` matches (its pattern alone, before any check of the value)
HELD_EXAMPLES = [
    'setPassword("Zq8Xw2Rk5Vn1")',
    'set_api_key("Zq8Xw2Rk5Vn1")',
    "name: DB_PASSWORD\n  value: Zq8Xw2Rk5Vn1",
    '{"ParameterKey": "DbPassword", "ParameterValue": "Zq8Xw2Rk5Vn1"}',
    "{{ db_password | default('Zq8Xw2Rk5Vn1') }}",
    'process.env.API_KEY || "Zq8Xw2Rk5Vn1"',
    'os.environ.get("DB_PASSWORD") or "Zq8Xw2Rk5Vn1"',
    'ENV["API_KEY"] || "Zq8Xw2Rk5Vn1"',
    "${DB_PASSWORD:-Zq8Xw2Rk5Vn1}",
    'os.environ.get("DB_PASSWORD", "Zq8Xw2Rk5Vn1")',
    'ENV.fetch("DB_PASSWORD") { "Zq8Xw2Rk5Vn1" }',
    "the password is Zq8Xw2Rk5Vn1",
    "pw was 'Zq8Xw2Rk5Vn1'",
    "API key for staging: Zq8Xw2Rk5Vn1",
    "**Password (prod):** Zq8Xw2Rk5Vn1",
    "The staging password:\n`Zq8Xw2Rk5Vn1`",
    "creds: deploy / Vb8#qL2mXz7",
    "user/pass: bob / Vb8#qL2mXz7",
    "connect with password Hx7!qLz93pQ",
    '<p name="db.password">Zq8Xw2Rk5Vn1</p>',
    "Server=db;Password=Zq8X,w2Rk5Vn1;",
    'PASSWORD = (\n    "Zq8Xw2Rk5Vn1"\n)',
]
HELD_RULES = [rule for rule in engine.RULES if rule.holds]


def _varied(rng: random.Random, text: str) -> str:
    """``text`` with some letters' case flipped and a few characters put in."""
    chars = [ch.swapcase() if rng.random() < 0.2 else ch for ch in text]
    for _ in range(rng.randrange(0, 3)):
        chars.insert(rng.randrange(len(chars) + 1), rng.choice(" =:'\"\n_-.ſK"))
    return "".join(chars)


def test_every_match_of_a_rule_holds_one_of_the_strings_it_names() -> None:
    rng = random.Random(15)
    matched = set()
    for _ in range(40):
        for example in HELD_EXAMPLES:
            text = example if not matched else _varied(rng, example)
            if not engine._KeywordLines(text, text.lower()).case_safe():
                continue  # the lower-cased text need not show what such a match holds
            for rule in HELD_RULES:
                for m in rule.regex.finditer(text):
                    matched.add(rule.pattern)
                    assert any(h in m.group().lower() for h in rule.holds), (rule, text)
    assert matched == {rule.pattern for rule in HELD_RULES}  # every rule was exercised


def test_skipping_windows_that_hold_none_of_a_rule_s_strings_finds_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(16)
    # a letter a case-blind pattern reads as s (the long s): the lower-cased window does not
    # show "pass" in "paſsword", so no window is skipped in such a text
    texts = ["token; pa\u017fsword is 'Zq8Xw2Rk5Vn1Lp7'", "token; the pa\u017fsword is Zq8Xw2"]
    for _ in range(400):
        parts = [_varied(rng, rng.choice(HELD_EXAMPLES)) for _ in range(rng.randrange(1, 4))]
        noise = rng.choice(["", "key", "token", "\n", "secret x", "pass"])
        texts.append(f"\n{noise} ".join(parts))
    found = [engine.find_secrets(text) for text in texts]
    assert found[0] and found[1]
    monkeypatch.setattr(engine, "_holds_one", lambda *args: True)
    assert [engine.find_secrets(text) for text in texts] == found


def test_the_letters_a_case_blind_pattern_reads_as_ascii_are_known() -> None:
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    read_as_ascii = set(re.findall("(?i:[a-z])", everything)) - set(string.ascii_letters)
    assert read_as_ascii == set(engine._CASE_FOLDS)


LED_RULES = [rule for rule in engine.RULES if rule.starts]
# Texts each rule with ``starts`` matches, and what surrounds such matches
LED_EXAMPLES = [
    *HELD_EXAMPLES,
    'password = "Zq8Xw2Rk5Vn1"',
    "db.password: Zq8Xw2Rk5Vn1",
    "export API_TOKEN=Zq8Xw2Rk5Vn1 # prod",
    "$secret_key => 'Zq8Xw2Rk5Vn1',",
    "{{{ api_key or 'Zq8Xw2Rk5Vn1' }}}",
    "getenv('SECRET_KEY') || 'Zq8Xw2Rk5Vn1'",
    "x" * 70 + "password=Zq8Xw2Rk5Vn1",  # a stem too far into its word
    "a-b.c@d$e_key: Zq8Xw2Rk5Vn1",
    "y" * 58 + "_token=Zq8Xw2Rk5Vn1",  # a stem near the farthest a key reaches
    'echo "bob:Zq8Xw2Rk5Vn1" | chpasswd',
    "echo Zq8Xw2Rk5Vn1 | passwd --stdin bob",
]


def test_trying_a_pattern_where_its_matches_start_finds_what_searching_finds() -> None:
    rng = random.Random(17)
    matched = 0
    for rule in LED_RULES:
        assert re.compile(rule.pattern, rule.flags).match("") is None  # no empty match
        if rule.word is not None:  # the strings lie inside the words they are found in
            assert all(
                ch.isalnum() or ch == "_" or ch in rule.word for s in rule.starts for ch in s
            )
    for _ in range(3000):
        parts = [_varied(rng, rng.choice(LED_EXAMPLES)) for _ in range(rng.randrange(1, 4))]
        text = rng.choice(["\n", " ", "; ", "\n\n"]).join(parts)
        low = text.lower()
        lines = engine._KeywordLines(text, low)
        if not lines.case_safe():
            continue
        for rule in LED_RULES:
            for start, end in lines.windows(rule.keywords, rule.window):
                searched = [m.span() for m in rule.regex.finditer(text, start, end)]
                led = [m.span() for m in engine._led_matches(rule, text, low, start, end)]
                assert led == searched, (rule.pattern[:40], text)
                matched += bool(searched)
    assert matched > 1000


def test_keyword_lines_told_by_the_keyword_search_are_those_searched_for() -> None:
    rng = random.Random(18)
    tuples = {rule.keywords for rule in engine.RULES if rule.lines}
    words = [k for k, _ in keyword_index._BY_KEYWORD_CONTEXT]
    pieces = [*_fragments(words), "\n", "\n", " \n"]
    for _ in range(4000):
        low = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 14)))
        _, found = CONTEXT_KEYWORDS.search(low)
        for keywords in tuples:
            assert engine._found_lines(low, keywords, found) == engine._keyword_lines(
                low, keywords
            ), (low, keywords)
