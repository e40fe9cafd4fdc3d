"""Baselines of accepted findings and SARIF output."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from substrate.errors import InvalidInputError, NotFoundError
from substrate.secrets import (
    Baseline,
    baseline_from_findings,
    load_baseline,
    merge_baseline,
    new_findings,
    sarif_log,
    save_baseline,
    scan_file,
    scan_text,
    stale_fingerprints,
)

_R = random.Random(3)


def rnd(n: int) -> str:
    return "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(n))


GH = "ghp_" + rnd(36)
PASSWORD = "Kp4$" + rnd(12)


def findings() -> list:  # type: ignore[type-arg]
    text = f"token = '{GH}'\npassword = \"{PASSWORD}\"\n"
    return scan_text(text, path="conf/app.py").findings


def test_baseline_round_trip_holds_no_secret(tmp_path: Path) -> None:
    path = tmp_path / "secrets.baseline.json"
    save_baseline(path, baseline_from_findings(findings()))
    raw = path.read_text(encoding="utf-8")
    assert GH not in raw and PASSWORD not in raw
    assert '"line"' not in raw
    doc = json.loads(raw)
    assert doc["version"] == 1 and len(doc["findings"]) == 2
    loaded = load_baseline(path)
    assert len(loaded) == 2
    assert new_findings(findings(), loaded) == []


def test_baseline_filters_only_new_and_reports_stale(tmp_path: Path) -> None:
    accepted = baseline_from_findings(findings()[:1])
    fresh = new_findings(findings(), accepted)
    assert [f.rule for f in fresh] == ["sensitive_assignment"]
    moved = scan_text(f"\n\n# moved down\ntoken = '{GH}'\n", path="conf/app.py").findings
    assert new_findings(moved, accepted) == []
    assert stale_fingerprints(accepted, []) == sorted(accepted.entries)


def test_baseline_errors(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        load_baseline(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    for content in (
        "{not json",
        '{"version": 1}',
        '{"version": 9, "findings": []}',
        '{"version": true, "findings": []}',  # (equal to 1 in Python, no version all the same)
        '{"version": 1.0, "findings": []}',
        '{"version": 1, "findings": [{"fingerprint": "zz", "rule": "x", "path": "y"}]}',
    ):
        bad.write_text(content, encoding="utf-8")
        with pytest.raises(InvalidInputError):
            load_baseline(bad)


def test_sarif_shape() -> None:
    scan = scan_text(f"token = '{GH}'\n", path="src/app.py")
    log = sarif_log([scan], tool_version="9.9")
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "mixle" and driver["version"] == "9.9"
    ids = [r["id"] for r in driver["rules"]]
    assert len(ids) == len(set(ids)) and "github_token" in ids
    [result] = run["results"]
    assert result["ruleId"] == "github_token"
    assert driver["rules"][result["ruleIndex"]]["id"] == "github_token"
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "src/app.py"
    assert loc["region"]["startLine"] == 1 and loc["region"]["startColumn"] == 10
    assert result["partialFingerprints"]["mixleSecret/v1"] == scan.findings[0].fingerprint
    # a backslash is a character of a POSIX name: another file, another address
    other = scan_text(f"token = '{GH}'\n", path="src\\app.py")
    (found,) = sarif_log([other], tool_version="9.9")["runs"][0]["results"]
    assert found["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src%5Capp.py"
    assert found["partialFingerprints"]["mixleSecret/v1"] != scan.findings[0].fingerprint
    assert GH not in json.dumps(log)


def test_sarif_accepts_findings_directly() -> None:
    log = sarif_log(findings())
    assert len(log["runs"][0]["results"]) == 2


def test_sarif_says_whether_every_file_was_scanned(tmp_path: Path) -> None:
    [done] = sarif_log(findings())["runs"][0]["invocations"]
    assert done == {"executionSuccessful": True, "toolExecutionNotifications": []}
    missing = scan_file(tmp_path / f"keys_{GH}.txt", display_path=f"keys_{GH}.txt")
    log = sarif_log([missing], not_scanned=[f"cannot read {GH}.pem: denied"])
    [run] = log["runs"]
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False
    notes = invocation["toolExecutionNotifications"]
    assert [n["level"] for n in notes] == ["error", "error"]
    assert notes[0]["message"]["text"] == "cannot read [REDACTED:github_token].pem: denied"
    assert notes[1]["message"]["text"] == (
        "cannot scan keys_[REDACTED:github_token].txt: No such file or directory"
    )
    assert [r["ruleId"] for r in run["results"]] == ["github_token"]  # the name's finding
    assert GH not in json.dumps(log)


def test_updates_at_once_each_land_and_wait_for_the_folder_lock(tmp_path: Path) -> None:
    import fcntl
    import os
    import threading

    from substrate.secrets import update_baseline

    path = tmp_path / "secrets.baseline.json"
    [one] = scan_text(f"token = '{GH}'\n", path="a.py").findings
    [two] = scan_text(f"token = '{GH}'\n", path="b.py").findings
    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)  # as another process in the middle of an update
        update = {"scanned_paths": ["a.py"]}  # a hook that scanned a.py alone
        waiting = threading.Thread(target=update_baseline, args=(path, [one]), kwargs=update)
        waiting.start()
        waiting.join(timeout=0.5)
        assert waiting.is_alive() and not path.exists()  # it waits for the lock
        save_baseline(path, baseline_from_findings([two]))  # the other process's update lands
    finally:
        os.close(folder)  # releases the lock
    waiting.join(timeout=30)
    assert sorted(load_baseline(path).entries) == sorted([one.fingerprint, two.fingerprint])
    old, new = update_baseline(tmp_path / "fresh.json", [one])
    assert len(old) == 0 and len(new) == 1


def test_a_baseline_write_removes_only_its_own_abandoned_copies(tmp_path: Path) -> None:
    path = tmp_path / "secrets.baseline.json"
    mine = tmp_path / ".secrets.baseline.json.99999999.tmp"  # left by a killed update
    other = tmp_path / ".notes.txt.99999999.tmp"  # the user's, whatever it is
    for leftover in (mine, other):
        leftover.write_text("half")
    save_baseline(path, baseline_from_findings(findings()))
    assert not mine.exists() and other.exists()


def test_sarif_uris_are_percent_encoded_paths() -> None:
    from substrate.secrets.sarif import _uri

    assert _uri("src/app.py") == "src/app.py"
    assert _uri("docs\\my notes/[REDACTED:aws_access_key].txt") == (
        "docs%5Cmy%20notes/%5BREDACTED%3Aaws_access_key%5D.txt"  # a backslash in a name
    )
    assert _uri("über/50%#?.md") == "%C3%BCber/50%25%23%3F.md"


def test_stale_entries_of_a_partial_scan_are_those_its_update_drops() -> None:
    # a masked name is kept by the update: it was told "no longer matches; the update drops
    # it", and the update kept it
    findings = scan_text(f"token = '{GH}'\n", path="conf/app.py").findings
    accepted = baseline_from_findings(findings)
    masked = Baseline(
        {"f" * 64: {"rule": "github_token", "path": "keys/[REDACTED:github_token].pem"}}
    )
    both = Baseline({**accepted.entries, **masked.entries})
    scanned = {"conf/app.py", "keys/[REDACTED:github_token].pem"}
    assert stale_fingerprints(both, [], scanned_paths=scanned) == sorted(accepted.entries)
    assert stale_fingerprints(both, []) == sorted(both.entries)
    kept = merge_baseline(both, [], scanned_paths=scanned)
    assert sorted(kept.entries) == ["f" * 64]
