"""Run patterns: a rule without keywords is passed over where the text holds no run of its
characters as long as its shortest match."""

from __future__ import annotations

import random
import re

from substrate.secrets.engine import KEYWORDLESS
from substrate.secrets.paths import find_secrets_in_path
from substrate.secrets.prefilter import anchors, run_pattern
from substrate.secrets.rule import Rule
from substrate.secrets.rules import RULES
from substrate.secrets.screen import (
    keywordless_may_match,
    may_hold_secrets,
    slices_may_hold_secrets,
)

DISCORD = "MTk4NjIyNDgzNDcxOTI1MjQ4.Gh7Kq2.Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke"
LONG_PATH = "/tmp/mixle-bench-ingest-k3j4h5g6/tldr/pages.bg/common/tar-extract.md"


def test_a_run_pattern_finds_runs_of_the_rule_characters_only() -> None:
    rule = Rule("dotted", r"[A-F]{3}\d+\.x", ())
    run = run_pattern(rule, 6)
    assert run is not None
    assert run.search("AB12.x") and run.search("say CAFE99 now")
    assert not run.search("AB12/x") and not run.search("cafe99") and not run.search("AB 12.x")
    blind = run_pattern(Rule("blind", r"(?i)[a-f]{6}", ()), 6)
    assert blind is not None and blind.search("ABCDEF") and blind.search("\u212a") is None


def test_rules_reading_anything_have_no_run_pattern() -> None:
    for pattern in [r"a.b", r"[^/]+x", r"(?i:ab)c", r"a[^b]c", r"(?=(\d+))a\1"]:
        assert run_pattern(Rule("r", pattern, ()), 3) is None, pattern


def test_every_keywordless_rule_is_screened_by_its_characters() -> None:
    assert KEYWORDLESS
    for i in KEYWORDLESS:
        assert run_pattern(RULES[i], 10) is not None, RULES[i].name


def test_a_long_path_of_short_names_is_no_run() -> None:
    assert len(LONG_PATH) >= 59 > max(map(len, LONG_PATH.split("/")))
    assert not keywordless_may_match(LONG_PATH)
    assert not slices_may_hold_secrets(f"# tar\n\nArchive files.\n{LONG_PATH}\n")
    assert not may_hold_secrets([LONG_PATH, "pages.bg/common/tar-extract.md"])
    # the token is still found as a folder, as a file's stem and in the text
    for held in [f"/home/me/{DISCORD}/a.md", f"/home/me/bots/{DISCORD}.md", f"x {DISCORD} y"]:
        assert find_secrets_in_path(held)
        assert keywordless_may_match(held) and slices_may_hold_secrets(held)
        assert may_hold_secrets([held])


def test_the_run_of_a_rule_holds_all_its_matches() -> None:
    rng = random.Random(3)
    alphabet = DISCORD + "./-_ é"
    for i in KEYWORDLESS:
        rule, run = RULES[i], run_pattern(RULES[i], 1)
        assert run is not None
        for _ in range(300):
            text = "".join(rng.choice(alphabet) for _ in range(80)) + DISCORD
            for m in re.finditer(rule.pattern, text, rule.flags):
                assert all(run.fullmatch(ch) for ch in m.group()), (rule.name, m.group())


def test_an_anchor_is_what_every_match_holds_and_how_far_in() -> None:
    key = Rule("key", r"(?<![\w])[\w.]{0,64}?(?i:pass|pw)[\w.]{0,64}=", ())
    assert anchors(key) == (("pass", 64), ("pw", 64))
    assert anchors(Rule("either", r"(?:ab|Bearer)\s+x", ())) == (("ab", 0), ("bearer", 0))
    assert anchors(Rule("later", r"(?:x|\d)[ \t]?yz", ())) == (("yz", 2),)
    assert anchors(Rule("ahead", r"-(?=(?:pass|key)\b)\w+", ())) == (("key", 1), ("pass", 1))
    for pattern in [r"\w+key", r"(?:x|\d)y?", r"a?", r"[a-z]{300}key", r"(?<=key)\w+"]:
        assert anchors(Rule("r", pattern, ())) is None, pattern


def test_every_match_of_a_rule_holds_its_anchor_as_near_as_it_says() -> None:
    texts = [
        'db_password = "Xk9mPq2vL7Rt"; mysql -u root -pS3cr3tPw9x; api_key: Zq8XcV1pD7sL0mN3',
        "https://admin:Pa55w0rd9x@db.example.com/x Authorization: Bearer abcdefghij1234567890",
        "GRANT ALL ON db.* TO 'u'@'%' IDENTIFIED BY 'Xk9mPq2vL7Rt'; --db-password=Xk9mPq2vL7Rt",
        "<password>Xk9mPq2vL7Rt</password> setPassword('Xk9mPq2vL7Rt') the password is Hunter2X",
        "AWS secret key = Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke7Qp1R curl -u bob:Xk9mPq2vL7Rt x",
    ]
    tried = 0
    for rule in RULES:
        found = anchors(rule) if rule.lines else None
        for text in texts if found else []:
            low = text.lower()
            for m in rule.regex.finditer(text):
                tried += 1
                at = m.start()
                assert any(low.find(s, at, at + n + len(s)) != -1 for s, n in found), rule.name
    assert tried >= 10


def test_a_path_screened_by_its_folder_misses_nothing_the_whole_path_screen_finds() -> None:
    from substrate.secrets.screen import path_slices_may_hold_secrets

    rng = random.Random(7)
    # keywords cut at the folder's end, a long last word of the folder, case look-alikes
    pieces = ["pa", "ss", "word", "pw", "ke", "y", "to", "ken", "gh", "p_", "sk", "xox", "b-"]
    pieces += ["aws", "sec", "ret", "-u", " ", "İ", "\u212a", "ſ", "/", "/", "/", "notes"]
    pieces += ["x" * 11, DISCORD[:24], DISCORD[24:31], ".", "-", "_", "docker", " login", "é"]
    pieces += ["Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke7", "AKIA", "'"]
    told = 0
    for _ in range(3000):
        path = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 16)))
        if slices_may_hold_secrets(path):
            told += 1
            assert path_slices_may_hold_secrets(path), path
    assert told > 500
    assert not path_slices_may_hold_secrets(LONG_PATH)
    for path in ["/srv/pass/word.md", "/srv/a//b@c.md", "/srv/notes/bot1234.md"]:
        assert slices_may_hold_secrets(path) and path_slices_may_hold_secrets(path), path


def test_a_path_run_is_judged_in_the_folder_or_the_name_it_lies_in() -> None:
    from substrate.secrets.screen import path_slices_may_hold_secrets

    half = len(DISCORD) // 2
    for path in [f"/srv/bots/{DISCORD}.md", f"/srv/{DISCORD}/notes.md", f"/{DISCORD}"]:
        assert keywordless_may_match(path) and path_slices_may_hold_secrets(path), path
    # a "/" ends a run: neither half is long enough alone
    for path in [f"/srv/{DISCORD[:half]}/{DISCORD[half:]}.md", f"/srv/x/{DISCORD[:58]}"]:
        assert not keywordless_may_match(path), path
        assert not path_slices_may_hold_secrets(path), path
