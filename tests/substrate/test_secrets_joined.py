"""A credential split into string literals that the language joins is masked in every piece."""

from __future__ import annotations

from pathlib import Path

import pytest

from substrate.ingest import ingest_path
from substrate.secrets import detect_secrets, redact_secrets, scan_text
from substrate.secrets.engine import find_secrets
from substrate.secrets.screen import may_hold_secrets, slices_may_hold_secrets
from substrate.store import Substrate

TOKEN = "ghp_Zq8Xk2Lm9Rt4Vb7Nc1Pd6Hs3Jw5Fy0Ga8QeR"
HEAD, TAIL = TOKEN[:20], TOKEN[20:]


@pytest.mark.parametrize(
    "text",
    [
        f'TOKEN = ("{HEAD}"\n         "{TAIL}")\n',  # Python: adjacent literals in brackets
        f'TOKEN = "{HEAD}" \\\n    "{TAIL}"\n',  # a backslash continuation
        f'const token =\n  "{HEAD}" +\n  "{TAIL}";\n',  # JavaScript: "+" at the line end
        f"x = '{HEAD}'\n    + '{TAIL}'\n",  # ... or at the start of the next
        f'x = "{HEAD}" + "{TAIL}"\n',  # no keyword: the joined value is a token
        f'TOKEN = "{HEAD}" + \\\n    "{TAIL}"\n',  # "+" then a backslash
        f'x = ("{HEAD}"\n     f"{TAIL}")\n',  # a prefixed piece
        f'TOKEN = (\n    "{HEAD}"\n    "{TAIL}"\n)\n',  # the name on the line above
        f'TOKEN = "{HEAD}" "{TAIL}"\n',  # Python and C: blanks alone on one line
        f'TOKEN = ("{HEAD}"\t"{TAIL}")\n',
    ],
)
def test_no_piece_of_a_split_token_stays_readable(text: str) -> None:
    for syntax in ("text", "code"):
        masked = text
        for hit in reversed(find_secrets(text, syntax=syntax)):
            masked = masked[: hit.start] + "#" + masked[hit.end :]
        assert HEAD[4:] not in masked and TAIL not in masked, (syntax, masked)
    assert len(scan_text(text, path="settings.py").findings) == 2  # one per piece
    assert may_hold_secrets([text]) and slices_may_hold_secrets(text)


def test_a_secret_within_one_piece_is_read_with_the_others() -> None:
    text = 'DSN = ("postgres://admin:"\n       "Xk9mPq2vL7Rt@db.internal:5432/app")\n'
    assert "Xk9mPq2vL7Rt" not in redact_secrets(text)
    text = 'log.info("the password is " +\n         "Xk9mPq2vL7Rt")\n'
    assert "Xk9mPq2vL7Rt" not in redact_secrets(text)


def test_a_password_under_its_name_is_read_with_the_name() -> None:
    for first in ('"Xk9m#Pq"', 'f"Xk9m#Pq"'):  # Black's layout, the first piece prefixed too
        text = f'PASSWORD = (\n    {first}\n    "2vL7Rt!"\n)\n'
        masked = redact_secrets(text)
        assert "Xk9m#Pq" not in masked and "2vL7Rt!" not in masked, masked


def test_a_password_joined_late_on_a_long_minified_line_is_read_with_its_name() -> None:
    # each run reads at most the 200 characters before it (a key and its operator): the
    # thousands of runs of a minified line are not each read with all of the line before
    before = "".join(f'var a{i}="foo"+"bar{i}";' for i in range(400))
    text = before + 'var db_password="Xk9m#Pq"+"2vL7Rt!";' + before + "\n"
    masked = redact_secrets(text)
    assert "Xk9m#Pq" not in masked and "2vL7Rt!" not in masked
    above = "x" * 300 + "\nPASSWORD = (\n" + '    "Xk9m#Pq"\n    "2vL7Rt!"\n)\n'
    assert "2vL7Rt!" not in redact_secrets(above)  # the line above, past a long one


def test_a_password_in_literals_parted_by_blanks_is_masked_whole() -> None:
    for text in (
        'password = "Xk9m#Pq" "2vL7Rt!"\n',
        'char *db_pw = "Xk9m#Pq"  "2vL7Rt!";\n',
        'DB_PASSWORD = ("Xk9m#Pq" "2vL7Rt!")\n',
    ):
        masked = redact_secrets(text)
        assert "Xk9m#Pq" not in masked and "2vL7Rt!" not in masked, masked
        assert len(scan_text(text, path="settings.py").findings) == 2, text


def test_a_run_parted_by_blanks_is_read_in_its_parts_too() -> None:
    # a literal beside the pieces (a label, an argument) must not hide what they join
    for text, pieces in (
        ('label = "aws" "AKIAQX7ZL2"\n    "MRK4VB9NPE"\n', ("AKIAQX7ZL2", "MRK4VB9NPE")),
        ('f"AKIAQX7ZL2MRK4"\n  f"VB9NPE" "notes"\n', ("AKIAQX7ZL2MRK4", "VB9NPE")),
        ('"password" "Tr0ub4dor" +\n "&3x"\n', ("Tr0ub4dor", "&3x")),
    ):
        masked = redact_secrets(text)
        assert not any(piece in masked for piece in pieces), masked


def test_in_code_a_password_in_brackets_is_read_as_its_literal() -> None:
    # Black wraps a long string in brackets; in code a bare value is an expression, so the
    # literal inside them must be read as the value
    for text in (
        'PASSWORD = ("Xk9m#Pq2vL7Rt!")\n',
        'PASSWORD = ( r"Xk9m#Pq2vL7Rt!" )\n',
        'PASSWORD = (\n    "Xk9m#Pq"\n    "2vL7Rt!"\n)\n',
        'PASSWORD = ("Xk9m#Pq"\n            "2vL7Rt!")\n',
    ):
        masked = text
        for hit in reversed(find_secrets(text, syntax="code")):
            masked = masked[: hit.start] + "#" + masked[hit.end :]
        assert "Xk9m" not in masked and "2vL7Rt!" not in masked, masked
        assert scan_text(text, path="settings.py").findings, text
    for text in ('password = getpass("Enter the password")\n', 'password = ("Enter it")\n'):
        assert not scan_text(text, path="settings.py").findings, text


def test_a_split_aws_key_is_named_for_its_rule() -> None:
    text = 'key = ("AKIAQX7ZL2MR"\n  "K4VB9NPE")\n'
    assert redact_secrets(text) == (
        'key = ("[REDACTED:aws_access_key]"\n  "[REDACTED:aws_access_key]")\n'
    )


def test_joined_prose_and_short_pieces_are_left_alone() -> None:
    for text in (
        'msg = ("this is a long message "\n       "continued on the next line")\n',
        'parts = ("ab"\n "cd")\n',
        'He said "hello"\n"world" twice.\n',
        'Say "hello" "world" twice.\n',
        'git commit -m "fix the build" "notes.txt"\n',
    ):
        assert not detect_secrets(text).findings
        assert redact_secrets(text) == text


def test_ingest_stores_no_half_of_a_split_token(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "settings.md").write_text(
        f'# Settings\n\n```python\nGITHUB_TOKEN = ("{HEAD}"\n                "{TAIL}")\n```\n'
    )
    report = ingest_path(Substrate(tmp_path / "shard"), src)
    assert report.items_added == 1 and report.redactions >= 1
    stored = (tmp_path / "shard" / "items.jsonl").read_text()
    assert HEAD[4:] not in stored and TAIL not in stored
