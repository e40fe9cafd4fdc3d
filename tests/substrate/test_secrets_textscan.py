"""File scanning for pre-commit: positions, fingerprints, allow markers, odd input."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from substrate.errors import InvalidInputError
from substrate.secrets import ScanConfig, fingerprint, scan_file, scan_files, scan_text

_R = random.Random(5)


def rnd(n: int) -> str:
    return "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(n))


GH = "ghp_" + rnd(36)


def test_line_column_and_preview() -> None:
    text = f"first\n  deploy = '{GH}'\nlast\n"
    scan = scan_text(text, path="ci/deploy.py")
    [f] = scan.findings
    assert (f.line, f.column) == (2, 13)
    assert (f.end_line, f.end_column) == (2, 13 + len(GH))
    assert f.rule == "github_token" and f.path == "ci/deploy.py"
    assert f.preview == "  deploy = '[REDACTED:github_token]'"
    assert GH not in repr(f.as_dict())


def test_a_private_key_is_placed_where_its_begin_line_starts_not_past_its_end() -> None:
    """The block was reported at line 1, column 36: the end of a 35-character BEGIN line. It
    is placed on that line, whose preview is shown and where an allow marker is read."""
    body = "\n".join(rnd(70) for _ in range(5))
    text = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----\n"
    [f] = scan_text(f"# a key\n{text}", path="id_ed25519").findings
    assert (f.rule, f.line, f.column) == ("private_key_block", 2, 1)
    assert f.preview == "-----BEGIN OPENSSH PRIVATE KEY-----"
    allowed = text.replace("KEY-----\n", "KEY----- mixle:allow\n", 1)
    marked = scan_text(allowed, path="id_ed25519")
    assert not marked.findings and marked.suppressed == 1


def test_each_finding_on_a_long_line_shows_its_own_part_of_it() -> None:
    # the preview of a long line was trimmed around its first secret for every finding on it
    aws = "AKIAIOSFODNN7REALKEY"
    text = f'var first="{GH}";' + "x=1;" * 100 + f'var second="{aws}";\n'
    first, second = scan_text(text, path="one.js").findings
    assert first.preview.startswith('var first="[REDACTED:github_token]";x=1;')
    assert first.preview.endswith("\u2026") and "second" not in first.preview
    assert second.rule == "aws_access_key"
    assert second.preview.startswith("\u2026") and "first" not in second.preview
    assert second.preview.endswith('x=1;var second="[REDACTED:aws_access_key]";')
    assert GH not in first.preview + second.preview and aws not in second.preview


def test_a_preview_masks_the_line_s_secrets_glued_to_other_text() -> None:
    # copies inside a longer word are left alone in what is stored ("admin" in
    # "administrator"), and a preview showed this one whole
    aws = "AKIAIOSFODNN7REALKEY"
    for padding in ("", "x=1;" * 200):  # the whole line, and a window of a long one
        text = f'k="{aws}" and x{aws}y;{padding}\n'
        [finding] = scan_text(text, path="a.js").findings
        assert aws not in finding.preview and "x[REDACTED:aws_access_key]y" in finding.preview


def test_a_preview_masks_the_text_s_secrets_glued_to_other_text_in_any_form() -> None:
    aws = "AKIAZ7Q3XK2M9PLR4TBW"  # found on the first line, glued to text on the second
    text = f'aws_access_key_id = {aws}\ntoken = "{GH}" x{aws}y\n'
    assert all(aws not in f.preview for f in scan_text(text, path="a.txt").findings)
    secret = "P\u00e4ssw\u00f6rt-geheim-Zq81"
    escaped = json.dumps(secret)[1:-1]  # as JSON writes it inside a string
    [found] = scan_text(f'password = "{secret}" and x{escaped}y\n', path="a.txt").findings
    assert escaped not in found.preview and secret not in found.preview
    [short] = scan_text('password = "Zq8!wX7" and aZq8!wX7b\n', path="a.txt").findings
    assert "Zq8!wX7" not in short.preview  # a short one too


def test_a_secret_in_the_name_is_a_finding_and_masked_in_every_path() -> None:
    name = f"deploy/{GH}.env"
    scan = scan_text("password = Tr0ub4dor9xQzK\n", path=name)
    shown = "deploy/[REDACTED:github_token].env"
    assert scan.path == shown and {f.path for f in scan.findings} == {shown}
    named, inside = scan.findings
    assert (named.rule, named.line, named.column, named.preview) == ("github_token", 0, 8, shown)
    assert (inside.rule, inside.line) == ("sensitive_assignment", 1)
    # a file kept out of the scan by content (binary) still has its name checked
    assert [f.line for f in scan_text(b"\0\1", path=name).findings] == [0]
    allowed = scan_text("x", path=name, config={"allow_paths": ["deploy/*"]})
    assert allowed.findings == [] and allowed.path == shown
    quiet = scan_text("x", path=name, config={"allow_rules": ["github_token"]})
    assert quiet.findings == [] and quiet.suppressed == 1 and quiet.path == shown
    assert GH not in str(scan.as_dict())


def test_fingerprint_stable_when_line_moves_and_hides_secret() -> None:
    a = scan_text(f"x = 1\ntoken = '{GH}'\n", path="a.py").findings[0]
    b = scan_text(f"\n\n\n# moved\nx = 1\n\ntoken = '{GH}'\n", path="a.py").findings[0]
    assert a.line != b.line and a.fingerprint == b.fingerprint
    assert a.fingerprint == fingerprint("github_token", "a.py", GH)
    assert len(a.fingerprint) == 64 and GH not in a.fingerprint
    other = scan_text(f"token = '{GH}'\n", path="b.py").findings[0]
    assert other.fingerprint != a.fingerprint


def test_fingerprints_of_utf8_paths_are_those_existing_baselines_hold() -> None:
    # pinned: a change here would make every committed baseline report its findings anew
    assert fingerprint("github_token", "ci/deploy.yml", "not-a-real-secret") == (
        "d47f631ba382cf3de30509f62f151380eea52f72ec0e1151551d2cfc2954ce0b"
    )
    assert fingerprint("password", "caf\u00e9/na\u00efve.env", "hunter2") == (
        "f92fce5f8ab4a79e9fa500bb7ebe5758ad83b41212b9fd5bd87ef7d8982326d0"
    )


def test_names_that_differ_in_bytes_that_are_not_utf8_stay_apart() -> None:
    # os.fsdecode keeps such bytes as lone surrogates: b"bad\xff.py" -> "bad\udcff.py"
    ff, fe = (scan_text(f"T = '{GH}'\n", path=f"bad{c}.py") for c in ("\udcff", "\udcfe"))
    assert (ff.path, fe.path) == ("bad\\xff.py", "bad\\xfe.py")  # printable, as typed
    assert ff.findings[0].path == "bad\\xff.py"
    assert ff.findings[0].fingerprint != fe.findings[0].fingerprint
    assert ff.findings[0].fingerprint == fingerprint("github_token", "bad\udcff.py", GH)
    # the name is fingerprinted, and its secret masked, before it is made printable
    named = scan_text("x", path=f"k/{GH}\udcff.pem")
    assert named.path == "k/[REDACTED:github_token]\\xff.pem" and GH not in str(named.as_dict())


@pytest.mark.parametrize("marker", ["# mixle:allow", "# pragma: allowlist secret"])
def test_inline_allow_marker(marker: str) -> None:
    scan = scan_text(f"token = '{GH}'  {marker}\nother = '{GH}'\n", path="a.py")
    assert [f.line for f in scan.findings] == [2]
    assert scan.suppressed == 1


def test_binary_input_is_skipped_with_a_note() -> None:
    scan = scan_text(b"\x89PNG\x00\x00" + GH.encode(), path="logo.png")
    assert scan.skipped == "binary" and not scan.findings and scan.notes


def test_a_nul_byte_in_text_does_not_hide_its_secrets() -> None:
    text = "# settings\n" + "name = service\n" * 20 + f"token = '{GH}'\n"
    for data in (text.encode().replace(b"service", b"serv\0ice", 1), text.replace("#", "\0")):
        scan = scan_text(data, path="settings.py")
        assert scan.skipped is None and "NUL bytes read as spaces" in scan.notes
        assert [(f.rule, f.line) for f in scan.findings] == [("github_token", 22)]
    assert scan_text(f'x = 1\0\ntoken = "{GH}"\n'.encode(), path="a.py").findings  # short too
    # a real binary file, with as many control bytes as compressed data has, stays skipped
    noisy = bytes(range(256)) * 4 + GH.encode()
    assert scan_text(noisy, path="blob.bin").skipped == "binary"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("heading", ["# deploy", "# Развертывание сервиса"])
def test_utf16_without_a_mark_is_read_as_text(encoding: str, heading: str) -> None:
    text = heading + "\n" + f"$token = '{GH}'\n"
    [finding] = scan_text(text.encode(encoding), path="deploy.ps1").findings
    assert (finding.rule, finding.line) == ("github_token", 2)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_of_chinese_without_a_mark_is_read_as_text(encoding: str) -> None:
    # few ASCII letters give few NUL high bytes; "一" (U+4E00) gives a NUL low byte: it was
    # skipped as binary, and its token committed
    text = "这是一个配置文件，请不要分享。" * 30 + f"\n令牌 token = '{GH}'\n"
    [finding] = scan_text(text.encode(encoding), path="notes.txt").findings
    assert (finding.rule, finding.line) == ("github_token", 2)
    rng = random.Random(5)  # random 16-bit units fall in those scripts half the time
    noise = b"\0\0" + bytes(rng.randrange(256) for _ in range(8190))
    assert scan_text(noise, path="blob.bin").skipped == "binary"
    # model weights of 16 bits (bf16: a float32's top half) fall in them nearly all the time
    import numpy as np

    weights = np.random.default_rng(0).normal(0, 0.02, 50_000).astype(np.float32)
    bf16 = (weights.view(np.uint32) >> 16).astype("<u2").tobytes()
    assert scan_text(bf16, path="weights.bin").skipped == "binary"


def test_invalid_utf8_is_scanned_safely() -> None:
    data = b"\xff\xfe garbage \xc3\x28 token=" + GH.encode() + b"\n"
    scan = scan_text(data, path="notes.txt")
    assert [f.rule for f in scan.findings] == ["github_token"]
    assert any("UTF-8" in n for n in scan.notes)


def test_huge_input_is_skipped_with_a_note() -> None:
    cfg = ScanConfig(max_bytes=1000)
    scan = scan_text("a" * 2000 + GH, path="big.log", config=cfg)
    assert scan.skipped == "too large" and scan.notes and not scan.findings


def test_a_binary_input_over_the_cap_is_skipped_as_binary(tmp_path: Path) -> None:
    cfg = ScanConfig(max_bytes=1000)
    weights = tmp_path / "model.bin"
    weights.write_bytes(b"\0" * 5000)
    assert scan_file(weights, config=cfg).skipped == "binary"
    assert scan_text(b"\0" * 5000, config=cfg).skipped == "binary"
    assert scan_text("x" * 5000, config=cfg).skipped == "too large"


def test_a_file_of_several_mib_is_scanned_by_default() -> None:
    data = "INSERT INTO notes VALUES (1, 'plain');\n" * 160_000 + f"token={GH}\n"  # 6 MiB
    scan = scan_text(data, path="dump.sql")
    assert scan.skipped is None and [f.rule for f in scan.findings] == ["github_token"]


def test_allow_paths_and_rules_from_settings_table() -> None:
    table = {"allow_paths": ["tests/fixtures/*", "**/*.snap"], "allow_rules": ["jwt"]}
    assert scan_text(GH, path="tests/fixtures/key.txt", config=table).skipped == "allowed path"
    assert scan_text(GH, path="deep/dir/out.snap", config=table).skipped == "allowed path"
    assert scan_text(GH, path="src/app.txt", config=table).findings
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + rnd(43)
    scan = scan_text(jwt, path="src/app.txt", config=table)
    assert not scan.findings and scan.suppressed == 1


@pytest.mark.parametrize(
    "table",
    [
        {"allow_paths": "tests/*"},
        {"allow_rules": [1]},
        {"allow_rules": ["no_such_rule"]},
        {"max_file_bytes": -1},
    ],
)
def test_bad_settings_rejected(table: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError):
        ScanConfig.from_settings(table)


def test_code_files_ignore_unquoted_expressions() -> None:
    line = "password = hunter2goes42\n"
    assert scan_text(line, path="settings.env").findings
    assert not scan_text(line, path="settings.py").findings
    assert not scan_text("password = 0x1F2E3D4C5B6A\n", path="settings.py").findings


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("password: 1abc2EF^&$\n", "app.js"),  # a digit, then letters that make no number
        ("pass = tabbed9password@here123\n", "Config.java"),  # '@' after a word
        ("pwd = thisIsMyP@$$w0rd1-Ha\n", "deploy.py"),
        ("char *password = 'Zq9!wreck';\n", "auth.c"),  # too long for a character constant
    ],
)
def test_code_values_that_are_no_expression_are_judged(line: str, path: str) -> None:
    assert [f.rule for f in scan_text(line, path=path).findings] == ["sensitive_assignment"]


def test_c_character_constants_are_not_strings() -> None:
    for line in ("char pass = 'x';\n", "char secret = '\\x41';\n", "int pwd = 'ab9!';\n"):
        assert not scan_text(line, path="auth.c").findings, line
    # a backslash opening a longer value makes no escape of it
    assert scan_text("char *db_password = '\\Tr0ub4dor&3xyz';\n", path="auth.c").findings


def test_scan_file_reads_and_reports_unreadable(tmp_path: Path) -> None:
    good = tmp_path / "a.env"
    good.write_text(f"TOKEN={GH}\n", encoding="utf-8")
    assert scan_file(good, display_path="a.env").findings[0].path == "a.env"
    missing = scan_file(tmp_path / "nope.txt")
    assert missing.skipped == "unreadable" and missing.notes
    results = list(scan_files([good, tmp_path / "nope.txt"]))
    assert [bool(r.findings) for r in results] == [True, False]


def test_workers_asked_for_are_capped_by_the_files_and_the_cpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import concurrent.futures

    import substrate.cpus

    started: list[int] = []
    pool = concurrent.futures.ProcessPoolExecutor

    def counted(max_workers: int, **options: Any) -> concurrent.futures.ProcessPoolExecutor:
        started.append(max_workers)
        return pool(max_workers=max_workers, **options)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", counted)
    monkeypatch.setattr(substrate.cpus, "available_cpus", lambda: 1)
    files = [tmp_path / f"f{i}.env" for i in range(6)]
    for f in files:
        f.write_text(f"TOKEN={GH}\n", encoding="utf-8")
    assert len(list(scan_files(files[:2], workers=10**11))) == 2  # a pool of 10**11 overflows
    assert all(r.findings for r in scan_files(files, workers=10**11))
    assert started == [2, substrate.cpus.WORKERS_PER_CPU]


def test_contents_are_scanned_in_order_here_or_in_workers() -> None:
    from substrate.secrets.textscan import scan_contents

    contents = [(f"f{i}.env", f"TOKEN={GH}\n" if i % 2 else "clean\n") for i in range(6)]
    here = list(scan_contents(contents))
    assert [(r.path, bool(r.findings)) for r in here] == [
        (f"f{i}.env", i % 2 == 1) for i in range(6)
    ]
    assert list(scan_contents(contents, workers=2)) == here


def _many_files(folder: Path, n: int = 400) -> list[Path]:
    files = [folder / f"f{i}.env" for i in range(n)]
    for f in files:
        f.write_text(f"TOKEN={GH}\n", encoding="utf-8")
    return files


def test_a_scan_stopped_as_its_workers_end_raises_nothing_in_the_pools_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a timeout's SIGTERM to the whole group ends the workers as the scan stops: the pool,
    # broken, failed the results it had queued, which a stop had cancelled (a traceback
    # printed from its thread, "InvalidStateError: CANCELLED")
    import concurrent.futures
    import threading

    raised: list[type[BaseException]] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_type))
    pool = concurrent.futures.ProcessPoolExecutor
    shutdown = pool.shutdown

    def workers_ended_first(self: Any, *args: Any, **kwargs: Any) -> None:
        for worker in list(self._processes.values()):
            worker.kill()
            worker.join()
        shutdown(self, *args, **kwargs)

    monkeypatch.setattr(pool, "shutdown", workers_ended_first)
    scans = scan_files(_many_files(tmp_path), workers=2)
    next(scans)
    scans.close()  # the stop
    assert raised == []


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_ctrl_c_is_left_to_the_process_that_runs_the_scan(tmp_path: Path) -> None:
    # a worker stopped by it (the terminal sends it to the whole group) could hold a queue's
    # lock: the others, and the wait for them at the end, were stuck for ever
    import multiprocessing
    import os
    import signal
    import time

    files = _many_files(tmp_path)
    scans = scan_files(files, workers=2)
    done = [next(scans)]
    workers = multiprocessing.active_children()
    assert workers
    for worker in workers:  # once each has set its signals up
        deadline = time.monotonic() + 10
        while True:
            status = Path(f"/proc/{worker.pid}/status").read_text()
            ignored = next(x for x in status.splitlines() if x.startswith("SigIgn"))
            if int(ignored.split()[1], 16) & (1 << (signal.SIGINT - 1)):
                break
            assert time.monotonic() < deadline, "Ctrl-C would stop a worker"
            time.sleep(0.01)
        os.kill(worker.pid, signal.SIGINT)
    try:
        done += list(scans)
    except BaseException as exc:  # noqa: BLE001 - a KeyboardInterrupt too, as a failure
        pytest.fail(f"the scan was stopped: {exc!r}")
    assert len(done) == len(files) and all(r.findings for r in done)


def test_no_heavy_imports() -> None:
    code = (
        "import sys, substrate; before = set(sys.modules)\n"
        "import substrate.secrets, substrate.gate\n"
        "added = set(sys.modules) - before\n"
        "bad = sorted(m for m in added if m.split('.')[0] in "
        "('numpy', 'sklearn', 'pyarrow', 'scipy', 'typer', 'rich', 'click'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_unknown_syntax_rejected() -> None:
    from substrate.secrets.engine import find_secrets

    with pytest.raises(InvalidInputError):
        find_secrets("x = 1", syntax="cobol")


def test_a_preview_masks_copies_of_secrets_found_anywhere_in_the_text() -> None:
    password = "Wn3" + rnd(11)
    text = f'password = "{password}"\nnote = "{GH}"  # was {password}\n'
    findings = scan_text(text, path="conf.ini").findings
    assert [f.line for f in findings] == [1, 2]
    assert findings[1].preview == (
        'note = "[REDACTED:github_token]"  # was [REDACTED:sensitive_assignment]'
    )
    assert all(password not in f.preview and GH not in f.preview for f in findings)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_wide_text_without_ascii_up_front_is_scanned_too(encoding: str) -> None:
    # no NUL byte in the first 8 KiB: the mark is believed because the text reads as UTF-16
    text = ("\ufeff" if encoding.endswith("be") else "") + "中文" * 3000 + f"\ntoken = '{GH}'\n"
    [finding] = scan_text(text.encode(encoding), path="notes.txt").findings
    assert (finding.rule, finding.line) == ("github_token", 2)
    assert scan_text(b"\xff\xfe" + b"\x00\xd8" * 5000, path="x").skipped is None  # read, not binary
    # ASCII after a stray mark is not UTF-16, even when its length is even
    stray = b"\xff\xfepassword=hunter2abcdefg\n"
    assert [f.rule for f in scan_text(stray, path="x").findings] == ["sensitive_assignment"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_wide_text_is_scanned_not_skipped_as_binary(encoding: str) -> None:
    text = ("\ufeff" if encoding.endswith("be") else "") + f"token = '{GH}'\n"
    [finding] = scan_text(text.encode(encoding), path="deploy.ps1").findings
    assert (finding.rule, finding.line) == ("github_token", 1) and GH not in finding.preview


def test_a_table_is_judged_by_its_column_names_as_ingestion_judges_it() -> None:
    text = (
        "id,username,password,note\n"
        '1,alice,Tr0ub4dor&3x!,"a ""quoted"" note"\n'
        '2,bob,"Kd8$mW2vRt",plain\n'
        "3,carol,changeme,x\n"  # a placeholder stays
    )
    found = scan_text(text, path="users.csv").findings
    # the preview printed alice's password: only the line's own rules were looked at
    assert [(f.line, f.column) for f in found] == [(2, 9), (3, 8)]
    assert all("Tr0ub4dor" not in f.preview and "Kd8$" not in f.preview for f in found)
    # the same table in another text (a note, a README) is read by its header too
    assert [(f.line, f.column) for f in scan_text(text, path="users.txt").findings] == [
        (2, 9),
        (3, 8),
    ]
    tsv = "name\tsecret\nprod\tQm3vR8tLw2KpY9mXn7Hc\n"
    assert [f.line for f in scan_text(tsv, path="keys.tsv").findings] == [2]
    semicolons = "user;password\nbob;Kd8$mW2vRt\n"
    assert [f.column for f in scan_text(semicolons, path="x.csv").findings] == [5]


def test_an_authorization_column_is_judged_as_the_header_it_holds() -> None:
    text = (
        "name,Authorization,note\n"
        "svc,SSWS 00Qk7Rz2LmP9xWc4VbN8tY3hJ6sDf1Ga5,okta\n"
        "web,Basic c3ZjOlBxN3JaMm1LOXdYNHZC,basic\n"
        "doc,see docs/security/authorization.md,prose\n"
    )
    found = scan_text(text, path="h.csv").findings
    assert [(f.line, f.column, f.rule) for f in found] == [
        (2, 10, "authorization_header"),
        (3, 11, "basic_auth_header"),
    ]
    in_prose = scan_text(text, path="h.txt").findings  # a table in another text: alike
    assert [(f.line, f.column, f.rule) for f in in_prose] == [
        (2, 10, "authorization_header"),
        (3, 11, "basic_auth_header"),
    ]


def test_many_findings_that_look_alike_cost_time_in_proportion() -> None:
    # each finding's preview looked at every hit, and copies sharing their first characters
    # were tried one by one: 2,000 rows took seconds, 50,000 did not end
    def table(rows: int) -> str:
        body = "".join(f"{i},Tr0ub4dor{i:06d}&x!\n" for i in range(rows))
        return "id,password\n" + body

    def calls(rows: int) -> int:
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.runcall(scan_text, table(rows), path="u.csv")
        return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]

    assert calls(4000) < 5 * calls(1000)  # linear: four times the rows, about four times


_KILLED_SCANNER = """
import os, signal, sys, time
from pathlib import Path
from substrate.secrets import textscan

signal.signal(signal.SIGHUP, signal.SIG_DFL)  # (a run under nohup ignores it, and so would this)
marks = Path(sys.argv[1])

def stuck(job):
    (marks / str(os.getpid())).touch()  # a worker at work, waiting for a parent that dies
    time.sleep(60)

list(textscan._mapped(stuck, [("a", "x"), ("b", "y")] * 40, 2))
"""


@pytest.mark.parametrize("signum", ["SIGKILL", "SIGHUP"])
def test_scanning_workers_end_when_their_parent_is_killed(
    tmp_path: Path, signum: str, workers_left_by_a_killed_parent: Any
) -> None:
    # they lived on, blocked, holding the caller's stdout and stderr open: a pipe read from
    # `mixle scan-secrets` killed by a closed terminal never ended
    marks = tmp_path / "workers"
    marks.mkdir()
    command = [sys.executable, "-c", _KILLED_SCANNER, str(marks)]
    assert workers_left_by_a_killed_parent(command, marks, signum) == []
