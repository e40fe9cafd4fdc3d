"""CSV tables written into other texts, judged by their header's names
(``substrate.secrets.tables.embedded_table_hits``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from substrate import Substrate
from substrate.ingest import ingest_path
from substrate.secrets.engine import find_secrets
from substrate.secrets.screen import may_hold_secrets, slices_may_hold_secrets

NOTE = (
    "# Accounts\n"
    "\n"
    "service,user,password\n"
    "db,bob,Wm4#tR8yUe2!\n"
    "cache,ann,Kq7mZ2vL9xPe\n"
    "\n"
    "Rotate them monthly.\n"
)


def found(text: str) -> list[str]:
    return [text[hit.start : hit.end] for hit in find_secrets(text)]


def test_a_table_pasted_into_a_note_is_judged_by_its_header() -> None:
    assert found(NOTE) == ["Wm4#tR8yUe2!", "Kq7mZ2vL9xPe"]
    assert found(NOTE.replace(",", ";")) == ["Wm4#tR8yUe2!", "Kq7mZ2vL9xPe"]
    quoted = '"service","user","password"\n"db","bob","Wm4#tR8yUe2!"\n'
    assert found(quoted) == ["Wm4#tR8yUe2!"]


def test_prose_and_lone_lines_open_no_table() -> None:
    prose = "Use the key, the token, or both.\nRun it now, then stop, and go.\n"
    assert found(prose) == []
    sentence = "- Pick a password, then confirm it, twice.\n- Keep it safe, offline, always.\n"
    assert found(sentence) == []
    # a header with no row of as many cells under it
    assert found("user,password\n\nbob is Wm4#tR8yUe2!, or was\n") == []
    assert found("user,password,note\nbob,Wm4#tR8yUe2!\n") == []
    assert found("user,password\nbob,changeme\n") == []  # a placeholder stays


def test_the_screens_send_such_a_table_to_the_scan() -> None:
    assert may_hold_secrets([NOTE]) and slices_may_hold_secrets(NOTE)


def test_a_note_holding_a_table_is_stored_redacted(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "accounts.md").write_text(NOTE, encoding="utf-8")
    report = ingest_path(Substrate(tmp_path / "shard"), notes)
    assert report.files_added == 1 and report.redactions == 2
    stored = (tmp_path / "shard" / "items.jsonl").read_text(encoding="utf-8")
    assert "Wm4#tR8yUe2!" not in stored and "Kq7mZ2vL9xPe" not in stored


_MANY = """
from substrate.secrets.engine import find_secrets
rows = "".join(f"u{i},p{i}\\n" for i in range(20000))
find_secrets("user,password\\n" + rows)  # one table, read once
find_secrets("user,password,x\\n" * 20000)  # a header on every line, none with rows
find_secrets("user,password\\nbob\\n" * 20000)  # headers, each with a line of fewer cells
"""


def test_many_headers_and_rows_cost_in_proportion_to_their_lines() -> None:
    # a hang guard, not a speed test
    subprocess.run([sys.executable, "-c", _MANY], check=True, timeout=60)
