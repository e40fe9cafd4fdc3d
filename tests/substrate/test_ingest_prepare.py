"""Preparing a chunk of files a stage at a time gives each file what preparing it alone
gives, whatever became of the files around it."""

from __future__ import annotations

import os
import re
from pathlib import Path

from substrate.ingest.prepare import (
    BINARY,
    FAILED,
    GONE,
    PARSED,
    SAME,
    IngestOptions,
    Prepared,
    Ticket,
    prepare,
    prepare_many,
)
from substrate.ingest.textio import content_digest

_TIMES = re.compile(rb'"(?:created|ingested)_at":[0-9.e+]+')
TOKEN = "ghp_" + "Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke7"  # 36 after the prefix


def _ticket(path: Path, fmt: str = "markdown", known_hash: str = "") -> Ticket:
    info = path.stat() if path.exists() else None
    return Ticket(
        str(path),
        path.name,
        str(path),
        fmt,
        info.st_size if info else 0,
        info.st_mtime_ns if info else 0,
        known_hash,
        within=str(path.parent),
    )


def _comparable(done: Prepared) -> tuple[object, ...]:
    """What preparing a file gave, but the times it was read at."""
    lines = [(i, _TIMES.sub(b"", line)) for i, line in done.encoded or []]
    return (
        done.status,
        done.digest,
        done.reason,
        done.line,
        done.issues,
        done.named,
        lines,
        repr(done.tally),
    )


def test_a_mixed_chunk_gives_each_file_what_it_gives_alone(tmp_path: Path) -> None:
    files = {
        "plain.md": "# Plain\n\nNothing to see.\n",
        "secret.md": f"# Access\n\ntoken = {TOKEN}\n\n## Again\n\nthe same {TOKEN}\n",
        "key.md": "# Keys\n\nThe password policy is strict.\n",
        "rows.jsonl": '{"text": "one"}\nnot json\n{"text": "two"}\n',
        "bad.txt": "fine\n",
        "same.md": "# Same\n\nUnchanged since last time.\n",
        f"{TOKEN}.md": "# Named\n\nA file whose name is a token.\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "bad.txt").write_bytes(b"fine\n\xff bad\n")
    (tmp_path / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    tickets = [
        _ticket(tmp_path / "plain.md"),
        _ticket(tmp_path / "missing.md"),  # gone since it was listed
        _ticket(tmp_path / "secret.md"),
        _ticket(tmp_path / "image.md"),
        _ticket(tmp_path / "rows.jsonl", "jsonl"),
        _ticket(tmp_path / "bad.txt", "text"),
        _ticket(
            tmp_path / "same.md",
            known_hash=content_digest(b"# Same\n\nUnchanged since last time.\n"),
        ),
        _ticket(tmp_path / "key.md"),
        _ticket(tmp_path / f"{TOKEN}.md"),
        Ticket("stream:notes", "notes", None, "markdown", data=b"# Stream\n\nFrom a pipe.\n"),
    ]
    options = IngestOptions()
    fingerprint = options.fingerprint()
    together = prepare_many(tickets, options, fingerprint, encoded=True)
    alone = [prepare(ticket, options, fingerprint, encoded=True) for ticket in tickets]
    assert [_comparable(d) for d in together] == [_comparable(d) for d in alone]
    statuses = [d.status for d in together]
    assert statuses == [
        PARSED,
        GONE,
        PARSED,
        BINARY,
        PARSED,
        FAILED,
        SAME,
        PARSED,
        PARSED,
        PARSED,
    ]
    assert all(TOKEN.encode() not in line for d in together for _, line in d.encoded or [])
    assert together[8].named and TOKEN not in together[8].named  # the name is masked
    assert together[4].issues and together[5].line == 2
    os.remove(tmp_path / "plain.md")
    assert prepare_many(tickets[:1], options, fingerprint)[0].status == GONE
