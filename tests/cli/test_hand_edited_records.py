"""A record whose provenance a hand (or another tool) gave another shape: every command that
reads it goes on, passing over the field, where one once stopped with an internal error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

Run = Callable[..., Any]


def _shard(mixle: Run, tmp_path: Path) -> dict[str, str]:
    """A note, a table, and an item published, proposed and rejected once: that item's id
    and the notes' folder."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "deploys.md").write_text(
        "---\ntitle: Deploys\n---\n# Deploys\n\nThe deploy window opens at 09:00 on weekdays.\n"
    )
    (notes / "hosts.csv").write_text("host,cpu\nsrv-001,8\nsrv-002,16\n")
    assert mixle("ingest", str(notes)).exit_code == 0
    shared = mixle("add", "The on-call rota changes on Mondays.").stdout.strip()
    assert mixle("publish", shared, "--to", "public").exit_code == 0
    assert mixle("grant", "alice", "archive").exit_code == 0
    assert mixle("propose", shared, "--to", "archive").exit_code == 0
    assert mixle("reject", shared, "--reason", "not yet", "--by", "alice").exit_code == 0
    return {"shared": shared, "notes": str(notes)}


def _edit(
    shard: Path, pick: Callable[[dict[str, Any]], bool], edit: Callable[[dict[str, Any]], None]
) -> str:
    """Edit the provenance of the live record ``pick`` chooses, in place: the line is padded to
    no less than its old length (a shorter log is taken for lost commits). Returns its id."""
    path = shard / "items.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    for n in range(len(lines) - 1, -1, -1):
        record = orjson.loads(lines[n])
        if "kind" in record and pick(record):
            edit(record["provenance"])
            line = orjson.dumps(record)
            lines[n] = line + b" " * max(0, len(lines[n]) - 1 - len(line)) + b"\n"
            path.write_bytes(b"".join(lines))
            return str(record["id"])
    raise AssertionError("no record to edit")


def _note(record: dict[str, Any]) -> bool:
    return record["kind"] == "text" and record["provenance"].get("format") == "markdown"


def _shared(record: dict[str, Any]) -> bool:
    return record["provenance"].get("source") == "cli"


def _set(key: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda prov: prov.__setitem__(key, value)


def _first_entry(key: str, field: str, value: object) -> Callable[[dict[str, Any]], None]:
    return lambda prov: prov[key][0].__setitem__(field, value)


EDITS = [
    ("version_history", _shared, _set("version_history", [1])),
    ("version_history", _shared, _set("version_history", 7)),
    ("history time", _shared, _first_entry("version_history", "at", "noon")),
    ("proposal time", _shared, _first_entry("proposals", "at", 1e300)),
    ("proposals", _shared, _set("proposals", 5)),
    ("version", _shared, _set("version", 1e30)),
    ("chunk", _note, _set("chunk", [1])),
    ("format", _note, _set("format", {"a": 1})),
    ("mtime_ns", _note, _set("mtime_ns", "x")),
    ("size", _note, _set("size", [["x"]])),
]

COMMANDS = [
    ("history", "{id}"),
    ("history", "{id}", "--json"),
    ("propose", "{id}", "--to", "archive"),
    ("reject", "{id}", "--reason", "not yet", "--by", "alice"),
    ("publish", "{id}", "--to", "team"),
    ("search", "deploy window"),
    ("ask", "When does the deploy window open?"),
    ("freshness",),
    ("ingest", "{notes}"),
    ("ingest", "--rehash", "{notes}"),
    ("compact",),
]


@pytest.mark.parametrize(("name", "pick", "edit"), EDITS, ids=[e[0] for e in EDITS])
def test_a_field_of_another_shape_is_passed_over(
    mixle: Run,
    isolated_shard_env: Path,
    tmp_path: Path,
    name: str,
    pick: Callable[[dict[str, Any]], bool],
    edit: Callable[[dict[str, Any]], None],
) -> None:
    made = _shard(mixle, tmp_path)
    made["id"] = _edit(isolated_shard_env, pick, edit)
    for command in COMMANDS:
        args = [arg.format(**made) for arg in command]
        result = mixle(*args)
        assert result.exit_code in (0, 1), (args, result.stderr)
        assert "internal error" not in result.stderr, (args, result.stderr)


def test_a_row_whose_place_has_another_shape_leaves_a_removed_row_removed(
    mixle: Run, isolated_shard_env: Path, tmp_path: Path
) -> None:
    # ``ingest --rehash`` finds the rows removed by hand by the places of those kept
    made = _shard(mixle, tmp_path)
    rows = mixle("ls", "--kind", "record", "--json").json()
    removed = next(row["id"] for row in rows if "srv-001" in row["title"])
    assert mixle("rm", removed).exit_code == 0
    _edit(isolated_shard_env, lambda record: record["kind"] == "record", _set("index", {"a": 1}))
    again = mixle("ingest", "--rehash", made["notes"])
    assert again.exit_code == 0, again.stderr
    assert mixle("get", removed).exit_code == 1
