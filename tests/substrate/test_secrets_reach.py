"""What keeps a scan's cost in proportion to its text where a pattern could read it again from
each of many starts: a JSON Web Token starts a run (in base64 too), a key block holds no other
BEGIN line, a ``-u`` option's command is looked for within a reach, and blanks before a value
are taken whole; and what these leave found. (``bench_secrets.py`` times such texts at two
sizes.)"""

from __future__ import annotations

import pytest

from substrate.secrets import verdict
from substrate.secrets.engine import find_secrets

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n" * 2
HEADER = "-----BEGIN PRIVATE KEY-----\n"


@pytest.mark.parametrize("before", ["token: ", '"', "Bearer ", "\n"])
def test_a_jwt_after_a_separator_is_found_whole(before: str) -> None:
    assert [(h.rule, h.start) for h in find_secrets(before + JWT)] == [("jwt", len(before))]


def test_a_jwt_glued_to_a_word_is_not_tried_from_inside_the_run_but_its_payload_is_masked() -> None:
    payload = JWT.index(".") + 1
    hits = find_secrets("x" + JWT)
    assert [(h.rule, h.start, h.end) for h in hits] == [("jwt", 1 + payload, 1 + len(JWT))]


def test_a_key_block_starts_at_the_last_begin_line_before_its_body() -> None:
    text = HEADER + HEADER + BODY + "-----END PRIVATE KEY-----\n"
    hits = find_secrets(text)
    assert [h.rule for h in hits] == ["private_key_block"]
    assert hits[0].start >= 2 * len(HEADER) - 1  # the body's line break at most
    assert text[hits[0].start : hits[0].end].strip() == BODY.strip()


def test_a_password_options_command_is_read_within_its_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[int] = []
    breaks = verdict._COMMAND_BREAK

    class Recording:
        def split(self, line: str) -> list[str]:
            read.append(len(line))
            return breaks.split(line)

    monkeypatch.setattr(verdict, "_COMMAND_BREAK", Recording())
    find_secrets("-u a:x=" * 3000)  # one line of options: each was read from the line's start
    assert read and max(read) <= verdict._COMMAND_REACH


@pytest.mark.parametrize(
    ("command", "reported"),
    [
        ("curl -u app:Zq8Xw2Rk5V https://example.test", True),
        ("docker run -u app:Zq8Xw2Rk5V image", False),  # a user and a group
        # the tool named further back than the reach: the option is taken for a password
        ("docker run " + "-e A=b " * 200 + "-u app:Zq8Xw2Rk5V image", True),
    ],
)
def test_a_password_option_is_judged_by_its_command(command: str, reported: bool) -> None:
    found = [h.rule for h in find_secrets(command)]
    assert found == (["basic_auth_credentials"] if reported else [])


AWS_KEY = "Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke7Qp1R"
UUID = "c2b5e0a4-7f1d-4e3b-9a6c-8d2f1e0b3a9c"


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        (f"AWS secret key = {AWS_KEY}", "aws_secret_key"),
        (f"AWS Secret Access Key [None]:  {AWS_KEY}", "aws_secret_key"),
        (f"aws_secret_access_key\t{AWS_KEY}", "aws_secret_key"),
        (f"aws secret key\n {AWS_KEY}", "aws_secret_key"),
        (f"HEROKU_API_KEY = '{UUID}'", "heroku_key"),
        (f"heroku key: {UUID}", "heroku_key"),
        ("- name: DB_PASSWORD\n  value: Wm4tR8yUeQ2z", "sensitive_assignment"),
        ('{"key": "db_password" ,  "value": "Wm4tR8yUeQ2z"}', "sensitive_assignment"),
    ],
)
def test_blanks_taken_whole_before_a_value_still_find_it(text: str, rule: str) -> None:
    assert [h.rule for h in find_secrets(text)] == [rule]


# Each on one long line among code, as a minified file holds them
ONE_LINE = [
    'db_password = "Xk9mPq2vL7Rt"',
    "mysql -u root -pS3cr3tPw9x",
    "https://admin:Pa55w0rd9x@db.example.com/x",
    "Authorization: Bearer abcdefghij1234567890XYZ",
    "api_key: Zq8XcV1pD7sL0mN3",
    "the password is Hunter2Xk9q",
    "setPassword('Xk9mPq2vL7Rt')",
    "curl -u bob:Xk9mPq2vL7Rt https://x",
    "<password>Xk9mPq2vL7Rt</password>",
    "GRANT ALL ON db.* TO 'u'@'%' IDENTIFIED BY 'Xk9mPq2vL7Rt'",
    "--db-password=Xk9mPq2vL7Rt",
]


@pytest.mark.parametrize("syntax", ["text", "code"])
def test_a_long_line_searched_from_its_anchors_gives_what_a_search_of_it_all_does(
    monkeypatch: pytest.MonkeyPatch, syntax: str
) -> None:
    from substrate.secrets import engine

    code = "var a=b.c(d,e);function f(g){return g+1}" * 5
    text = ";".join(f"{code};{item}" for item in ONE_LINE)
    monkeypatch.setattr(engine, "LONG_WINDOW", len(text))  # the whole line searched
    whole = [(h.rule, h.start, h.end) for h in find_secrets(text, syntax=syntax)]
    monkeypatch.setattr(engine, "LONG_WINDOW", 0)  # every window from its anchors
    assert [(h.rule, h.start, h.end) for h in find_secrets(text, syntax=syntax)] == whole
    assert len(whole) == len(ONE_LINE)


# Texts whose scan read a run again from each of its places: each took 10 s to minutes.
_LONG_RUNS = """
from substrate.secrets.engine import find_secrets
from substrate.ingest.formats.tabular import field_names
for text in [
    "eyJ" * 30000, "ZXlK" * 20000, "-u a:x=" * 6000, "-----BEGIN PRIVATE KEY-----\\n" * 8000,
    "AWS secret key" + " " * 20000, "heroku key" + "\\t" * 20000,
    'key="password"' + " " * 20000, "name: password\\n" + " " * 20000,
]:
    find_secrets(text)
field_names(["a"] * 20000)  # a CSV header of one name, over and over
"""


def test_long_runs_are_scanned_in_proportion_to_their_length() -> None:
    import subprocess
    import sys

    # a hang guard, not a speed test: these take about two seconds in all, and took minutes
    subprocess.run([sys.executable, "-c", _LONG_RUNS], check=True, timeout=60)
