"""mixle scan-secrets: sources (files, folders, stdin, staged, --all, --items), formats, exit
codes, baselines, allow-lists, odd files, the pre-commit hook and the import budget."""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import string
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from substrate.item import SubstrateItem
from substrate.store import Substrate

Run = Callable[..., Any]
ROOT = Path(__file__).resolve().parents[2]
_R = random.Random(20240611)


def token(prefix: str, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A credential-shaped value made at run time, so no secret sits in this file."""
    return prefix + "".join(_R.choice(alphabet) for _ in range(n))


GH = token("gh" + "p_", 36)
AWS = token("AK" + "IA", 16, string.ascii_uppercase + string.digits)
SECRETS = (GH, AWS)
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def dirty(folder: Path, name: str = "deploy.py") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"import os\n\nTOKEN = '{GH}'\nAWS_ID = \"{AWS}\"\n", encoding="utf-8")
    return path


def clean(folder: Path, name: str = "clean.py") -> Path:
    path = folder / name
    path.write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    return path


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text
            assert secret[4:] not in text  # not even the part after the public prefix


# -- files and formats ---------------------------------------------------------------------------


def test_findings_exit_1_with_position_rule_and_masked_preview(mixle: Run, work: Path) -> None:
    dirty(work)
    result = mixle("scan-secrets", "deploy.py")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "deploy.py:3:10: github_token: TOKEN = '[REDACTED:github_token]'",
        'deploy.py:4:11: aws_access_key: AWS_ID = "[REDACTED:aws_access_key]"',
    ]
    assert "2 secret(s) in 1 of 1 file(s)" in result.stderr
    assert "mixle:allow" in result.stderr  # the hint says how to proceed
    assert_no_secret(result.stdout, result.stderr)


def test_a_missing_file_named_with_a_secret_counts_as_a_file(mixle: Run, work: Path) -> None:
    result = mixle("scan-secrets", f"missing_{GH}.py")
    assert result.exit_code == 3  # unreadable input outweighs the finding in its name
    assert "1 secret(s) in 1 of 1 file(s); 1 could not be read" in result.stderr
    assert_no_secret(result.stdout, result.stderr)


def test_clean_files_exit_0(mixle: Run, work: Path) -> None:
    clean(work)
    (work / "notes.md").write_text("password: see the team vault\n", encoding="utf-8")
    result = mixle("scan-secrets", "clean.py", "notes.md")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout == ""
    assert "no secrets in 2 file(s)" in result.stderr  # "new" only beside a baseline
    assert mixle("scan-secrets", "-q", "clean.py").stderr == ""


def test_jsonl_has_one_finding_per_line(mixle: Run, work: Path) -> None:
    dirty(work)
    result = mixle("scan-secrets", "--jsonl", "deploy.py")
    assert result.exit_code == 1
    rows = result.jsonl()
    assert [(r["path"], r["line"], r["column"], r["rule"]) for r in rows] == [
        ("deploy.py", 3, 10, "github_token"),
        ("deploy.py", 4, 11, "aws_access_key"),
    ]
    for r in rows:
        assert re.fullmatch(r"[0-9a-f]{64}", r["fingerprint"])
        assert "[REDACTED:" in r["preview"]


def test_json_document(mixle: Run, work: Path) -> None:
    dirty(work)
    clean(work)
    (work / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + GH.encode())
    result = mixle("scan-secrets", "--json", "deploy.py", "clean.py", "logo.png")
    assert result.exit_code == 1
    doc = result.json()
    assert doc["clean"] is False and doc["n_findings"] == 2 and doc["n_files"] == 2
    assert doc["skipped"] == [{"path": "logo.png", "reason": "binary"}]
    assert doc["errors"] == [] and doc["n_baselined"] == 0
    assert {f["rule"] for f in doc["findings"]} == {"github_token", "aws_access_key"}


def test_sarif_log(mixle: Run, work: Path) -> None:
    dirty(work)
    result = mixle("scan-secrets", "--sarif", "deploy.py")
    assert result.exit_code == 1
    log = result.json()
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    assert run["tool"]["driver"]["name"] == "mixle"
    first = run["results"][0]
    assert first["ruleId"] == "github_token"
    region = first["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (3, 10)
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "deploy.py"
    assert run["invocations"][0]["executionSuccessful"] is True
    clean(work)
    empty = mixle("scan-secrets", "--sarif", "clean.py")
    assert empty.exit_code == 0 and empty.json()["runs"][0]["results"] == []


def test_sarif_of_an_incomplete_scan_says_so_and_names_the_files(mixle: Run, work: Path) -> None:
    dirty(work)
    result = mixle("scan-secrets", "--sarif", "deploy.py", "missing.py", f"key_{GH}.pem")
    assert result.exit_code == 3
    [run] = result.json()["runs"]
    assert len(run["results"]) == 3  # the findings of what could be read are still there
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False
    assert [
        (n["level"], n["message"]["text"]) for n in invocation["toolExecutionNotifications"]
    ] == [
        ("error", "cannot read missing.py: No such file or directory"),
        ("error", "cannot read key_[REDACTED:github_token].pem: No such file or directory"),
    ]
    assert_no_secret(result.stdout, result.stderr)


@pytest.mark.parametrize("fmt", [[], ["--json"], ["--jsonl"], ["--sarif"]])
def test_secret_never_printed_in_any_format(mixle: Run, work: Path, fmt: list[str]) -> None:
    dirty(work)
    (work / "env.txt").write_text(f"password={GH}\napi_key: {AWS}\n", encoding="utf-8")
    result = mixle("scan-secrets", *fmt, "deploy.py", "env.txt", "missing.txt")
    assert result.exit_code == 3  # the missing file wins over the findings
    assert result.stdout  # findings still printed
    assert_no_secret(result.stdout, result.stderr)


def test_control_characters_in_previews_are_escaped(mixle: Run, work: Path) -> None:
    (work / "x.env").write_text(f"\x1b[31mtoken={GH}\n", encoding="utf-8")
    result = mixle("scan-secrets", "x.env")
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout and "\\x1b[31m" in result.stdout


def test_standard_input(mixle: Run, work: Path) -> None:
    data = f"export GITHUB_TOKEN={GH}\n".encode()
    result = mixle("scan-secrets", "-", input=data)
    assert result.exit_code == 1
    assert result.stdout.startswith("<stdin>:1:21: github_token:")
    named = mixle("scan-secrets", "--stdin-name", "ci/env.sh", "--jsonl", "-", input=data)
    assert named.jsonl()[0]["path"] == "ci/env.sh"
    assert mixle("scan-secrets", "-", input=b"hello\n").exit_code == 0


def test_standard_input_over_the_cap_is_not_scanned(mixle: Run, work: Path) -> None:
    (work / "mixle.toml").write_text("[secrets]\nmax_file_bytes = 64\n", encoding="utf-8")
    over = b"x" * 65 + f"\ntoken={GH}\n".encode()
    result = mixle("scan-secrets", "--config", "mixle.toml", "-", input=over)
    assert result.exit_code == 3 and "over the 64-byte cap" in result.stderr
    assert mixle("scan-secrets", "--config", "mixle.toml", "-", input=b"x" * 64).exit_code == 0


def test_folders_are_walked_without_vcs_data(mixle: Run, work: Path) -> None:
    dirty(work / "src", "app.py")
    dirty(work / "src" / ".git", "config")
    clean(work / "src")
    result = mixle("scan-secrets", "--jsonl", "src")
    assert result.exit_code == 1
    assert {r["path"] for r in result.jsonl()} == {"src/app.py"}


def test_a_tree_deeper_than_the_interpreter_stack_is_walked(mixle: Run, work: Path) -> None:
    import sys

    folders = [work / "deep"]
    for _ in range(sys.getrecursionlimit() + 50):  # each level a short name: the path fits
        folders.append(folders[-1] / "d")
    for folder in folders:
        folder.mkdir()  # one level at a time: mkdir(parents=True) recurses, as rmtree does
    secret = folders[-1] / "app.env"
    secret.write_text(f"token = {GH}\n")
    try:
        result = mixle("scan-secrets", str(folders[0]))
        assert result.exit_code == 1 and "app.env" in result.stdout, result.stderr
    finally:
        secret.unlink()
        for folder in reversed(folders):
            folder.rmdir()


def test_unreadable_folder_is_reported_and_the_rest_scanned(
    mixle: Run, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from substrate.secrets import sources

    dirty(work / "src", "app.py")
    (work / "src" / "locked").mkdir()
    real_scandir = os.scandir

    def scandir(path: str) -> Any:
        if str(path).endswith("locked"):  # as a folder without read permission behaves
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(sources.os, "scandir", scandir)
    result = mixle("scan-secrets", "src")
    assert result.exit_code == 3
    assert "error: cannot read src/locked: Permission denied" in result.stderr
    assert result.stdout.startswith("src/app.py:3:10:")


def test_parallel_scan_matches_serial(mixle: Run, work: Path) -> None:
    for i in range(20):
        (dirty if i % 3 == 0 else clean)(work, f"f{i:02}.py")
    serial = mixle("scan-secrets", "--jsonl", "-j", "1", ".")
    parallel = mixle("scan-secrets", "--jsonl", "-j", "2", ".")
    assert serial.exit_code == parallel.exit_code == 1
    assert serial.jsonl() == parallel.jsonl() and len(serial.jsonl()) == 14


# -- odd input -----------------------------------------------------------------------------------


def test_binary_huge_and_invalid_utf8_files(mixle: Run, work: Path) -> None:
    (work / "blob.bin").write_bytes(bytes(range(256)) * 4 + GH.encode())
    (work / "big.txt").write_text(("x" * 99 + "\n") * 30 + f"token={GH}\n", encoding="utf-8")
    (work / "latin.cfg").write_bytes(b"caf\xe9 = 1\npassword = " + GH.encode() + b"\n")
    (work / "mixle.toml").write_text("[secrets]\nmax_file_bytes = 2048\n", encoding="utf-8")
    result = mixle("scan-secrets", "--config", "mixle.toml", "blob.bin", "big.txt", "latin.cfg")
    assert result.exit_code == 3  # a file left unscanned is no pass: the scan is incomplete
    assert result.stdout.splitlines() == [
        "latin.cfg:2:12: github_token: password = [REDACTED:github_token]"
    ]
    assert "blob.bin: skipped: binary content" in result.stderr
    assert "error: cannot scan big.txt: " in result.stderr
    assert "big.txt: over the 2048-byte cap; raise max_file_bytes in [secrets]" in result.stderr
    assert "1 secret(s) in 1 of 1 file(s); 1 too large to scan" in result.stderr
    assert "latin.cfg: invalid UTF-8 replaced before scanning" in result.stderr


def test_a_key_named_as_a_folder_is_a_finding_and_masked(mixle: Run, work: Path) -> None:
    key = "AKIA" + "Z7Q2M4X9B6N3V8C1"
    (work / "keys" / key).mkdir(parents=True)
    (work / "keys" / key / "notes.md").write_text("hello\n", encoding="utf-8")
    result = mixle("scan-secrets", "keys")
    assert result.exit_code == 1 and key not in result.stdout + result.stderr
    assert "keys/[REDACTED:aws_access_key]/notes.md: aws_access_key: in the file's name" in (
        result.stdout
    )


def test_unreadable_and_special_files_are_operational_errors(mixle: Run, work: Path) -> None:
    dirty(work)
    result = mixle("scan-secrets", "deploy.py", "nope.py")
    assert result.exit_code == 3
    assert "error: cannot read nope.py: No such file or directory" in result.stderr
    assert "deploy.py:3:10" in result.stdout
    alone = mixle("scan-secrets", "nope.py")  # the summary comes last and counts the failure
    assert alone.stderr.splitlines()[-1] == "no file was scanned; 1 could not be read"
    if not hasattr(os, "mkfifo"):
        return
    os.mkfifo(work / "pipe")
    special = mixle("scan-secrets", "pipe")
    assert special.exit_code == 3 and "not a regular file" in special.stderr
    os.mkfifo(work / f"pipe_{GH}")  # its name is masked in the report too
    named = mixle("scan-secrets", f"pipe_{GH}", "--json")
    shown = {"path": "pipe_[REDACTED:github_token]", "reason": "cannot read: not a regular file"}
    assert named.json()["errors"] == [shown]
    assert GH not in named.stdout + named.stderr
    odd = os.fsdecode(b"\xffAKIAZ7Q3W5R2T8Y4U6I9")  # masked before "\xff" glues an f on
    os.mkfifo(work / odd)
    escaped = mixle("scan-secrets", odd)
    assert "AKIAZ7Q3W5R2T8Y4U6I9" not in escaped.stdout + escaped.stderr
    assert "\\xff[REDACTED:aws_access_key]" in escaped.stderr


# -- usage errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--json", "--jsonl", "a.py"], "choose one of"),
        (["--all", "a.py"], "cannot be combined"),
        (["--items", "--all"], "cannot be combined"),
        (["--update-baseline", "a.py"], "needs --baseline"),
        (["--scope", "x", "a.py"], "--scope applies to --items"),
        (["--items", "--sarif"], "apply to files"),
        (["-j", "-1", "a.py"], ""),
    ],
)
def test_usage_errors_exit_2(mixle: Run, work: Path, args: list[str], message: str) -> None:
    result = mixle("scan-secrets", *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_no_arguments_outside_git_is_a_usage_error(mixle: Run, work: Path) -> None:
    if shutil.which("git") and subprocess.run(["git", "rev-parse"], cwd=work).returncode == 0:
        pytest.skip("the temporary folder is inside a git work tree")
    result = mixle("scan-secrets")
    assert result.exit_code == 2
    assert "no files given to scan" in result.stderr


def test_git_that_cannot_be_run_is_an_operational_error(
    mixle: Run, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a usage error (2) once: the command line was right, the scan could not be made
    monkeypatch.setenv("PATH", str(work / "no-such-folder"))
    for args in ((), ("--all",)):
        result = mixle("scan-secrets", *args)
        assert result.exit_code == 3 and "cannot run git" in result.stderr, result.stderr


# -- configuration -------------------------------------------------------------------------------


def test_no_shard_means_defaults_and_none_is_created(
    mixle: Run, work: Path, isolated_shard_env: Path
) -> None:
    dirty(work)
    assert mixle("scan-secrets", "deploy.py").exit_code == 1
    assert not isolated_shard_env.exists()


def test_shard_settings_allow_rules_and_paths(
    mixle: Run, work: Path, isolated_shard_env: Path
) -> None:
    isolated_shard_env.mkdir()
    (isolated_shard_env / "mixle.toml").write_text(
        'format = 1\n[secrets]\nallow_rules = ["aws_access_key"]\nallow_paths = ["fixtures/*"]\n',
        encoding="utf-8",
    )
    dirty(work)
    dirty(work / "fixtures", "sample.py")
    result = mixle("scan-secrets", "--jsonl", "deploy.py", "fixtures/sample.py")
    assert result.exit_code == 1
    assert [(r["path"], r["rule"]) for r in result.jsonl()] == [("deploy.py", "github_token")]
    text = mixle("scan-secrets", "deploy.py")
    assert "(1 allowed)" in text.stderr
    # a hook's verdict may rest on a shard's settings, not the repository's: they are named
    settings = str(isolated_shard_env / "mixle.toml")
    assert f"the [secrets] allowances of {settings} applied" in text.stderr
    told = mixle("scan-secrets", "--json", "deploy.py").json()
    assert told["settings"] == settings and told["n_suppressed"] == 1
    assert mixle("scan-secrets", "--json", "--config", "/dev/null", "deploy.py").exit_code == 3
    (isolated_shard_env / "mixle.toml").write_text("format = 1\n", encoding="utf-8")
    (work / "marked.py").write_text('password = "hunter2hunter2XY"  # mixle:allow\n', "utf-8")
    marked = mixle("scan-secrets", "marked.py")  # a marker, not a settings file, allowed it
    assert "(1 allowed)" in marked.stderr and "allowances" not in marked.stderr


def test_config_file_replaces_shard_settings(mixle: Run, work: Path) -> None:
    dirty(work)
    cfg = work / "scan.toml"
    cfg.write_text('[secrets]\nallow_rules = ["github_token", "aws_access_key"]\n', "utf-8")
    assert mixle("scan-secrets", "--config", str(cfg), "deploy.py").exit_code == 0


def test_an_unknown_setting_is_warned_of_and_left_alone(
    mixle_process: Callable[..., Any], work: Path
) -> None:
    # a misspelt allow-list quietly allowed nothing; a newer mixle's setting must not stop this
    clean(work)
    (work / "scan.toml").write_text('[secrets]\nallow_path = ["x/*"]\nzzz = 1\n', "utf-8")
    result = mixle_process("scan-secrets", "--config", "scan.toml", "clean.py", cwd=work)
    assert result.returncode == 0
    assert "no setting 'allow_path', left alone (did you mean allow_paths?)" in result.stderr
    assert "no setting 'zzz', left alone (known: allow_paths, allow_rules" in result.stderr


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[secrets]\nallow_rules = ["no_such_rule"]\n', "unknown rules: no_such_rule"),
        ("[secrets]\nallow_paths = 3\n", "allow_paths must be a list of strings"),
        ("[secrets\n", "invalid TOML"),
        ("[other]\nx = 1\n", "has no [secrets] table"),
        ("secrets = 1\n", "[secrets] must be a table"),
    ],
)
def test_bad_config_file_exits_3(mixle: Run, work: Path, body: str, message: str) -> None:
    clean(work)
    (work / "scan.toml").write_text(body, encoding="utf-8")
    result = mixle("scan-secrets", "--config", "scan.toml", "clean.py")
    assert result.exit_code == 3
    assert message in result.stderr
    missing = mixle("scan-secrets", "--config", "absent.toml", "clean.py")
    assert missing.exit_code == 3 and "cannot read absent.toml" in missing.stderr


def test_bad_shard_settings_exit_3(mixle: Run, work: Path, isolated_shard_env: Path) -> None:
    isolated_shard_env.mkdir()
    (isolated_shard_env / "mixle.toml").write_text("[secrets]\nmax_file_bytes = -1\n", "utf-8")
    clean(work)
    result = mixle("scan-secrets", "clean.py")
    assert result.exit_code == 3
    assert "mixle.toml" in result.stderr and "max_file_bytes" in result.stderr


def test_inline_allow_marker(mixle: Run, work: Path) -> None:
    (work / "t.py").write_text(f"TOKEN = '{GH}'  # mixle:allow test fixture\n", "utf-8")
    result = mixle("scan-secrets", "t.py")
    assert result.exit_code == 0
    assert "(1 allowed)" in result.stderr


# -- baseline ------------------------------------------------------------------------------------


def test_baseline_accepts_known_findings_and_survives_moves(mixle: Run, work: Path) -> None:
    path = dirty(work)
    base = work / "secrets-baseline.json"
    made = mixle("scan-secrets", "--baseline", str(base), "--update-baseline", "deploy.py")
    assert made.exit_code == 0
    assert "2 accepted finding(s) (+2, -0)" in made.stderr
    raw = base.read_text(encoding="utf-8")
    assert_no_secret(raw)
    doc = json.loads(raw)
    assert {r["rule"] for r in doc["findings"]} == {"github_token", "aws_access_key"}
    assert all(set(r) == {"fingerprint", "rule", "path"} for r in doc["findings"])  # no lines

    path.write_text("\n\n# moved down\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    moved = mixle("scan-secrets", "--baseline", str(base), "deploy.py")
    assert moved.exit_code == 0
    assert "no new secrets in 1 file(s) (2 accepted by the baseline)" in moved.stderr

    other = token("gh" + "p_", 36)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(f"SECOND = '{other}'\n")
    new = mixle("scan-secrets", "--baseline", str(base), "--json", "deploy.py")
    assert new.exit_code == 1
    assert new.json()["n_findings"] == 1 and new.json()["n_baselined"] == 2

    clean(work, "deploy.py")  # both accepted secrets are gone: their entries are stale
    fixed = mixle("scan-secrets", "--baseline", str(base), "deploy.py")
    assert fixed.exit_code == 0
    assert "2 baseline entries no longer match" in fixed.stderr
    as_json = mixle("scan-secrets", "--baseline", str(base), "--json", "deploy.py").json()
    assert as_json["clean"] and as_json["n_stale_baseline"] == 2  # for a CI job reading JSON


def test_partial_update_keeps_other_files_entries(mixle: Run, work: Path) -> None:
    dirty(work, "a.py")
    dirty(work, "b.py")
    base = str(work / "base.json")
    assert (
        mixle("scan-secrets", "--baseline", base, "--update-baseline", "a.py", "b.py").exit_code
        == 0
    )
    clean(work, "a.py")  # the secret in a.py is fixed; only a.py is scanned (as pre-commit does)
    update = mixle("scan-secrets", "--baseline", base, "--update-baseline", "a.py")
    assert "2 accepted finding(s) (+0, -2)" in update.stderr
    paths = {r["path"] for r in json.loads(Path(base).read_text("utf-8"))["findings"]}
    assert paths == {"b.py"}


def test_quiet_drops_the_baseline_summary_too(mixle: Run, work: Path) -> None:
    dirty(work)
    base = str(work / "base.json")
    made = mixle("scan-secrets", "-q", "--baseline", base, "--update-baseline", "deploy.py")
    assert made.exit_code == 0 and made.stderr == ""
    assert len(json.loads(Path(base).read_text("utf-8"))["findings"]) == 2  # updated all the same


def test_names_that_are_not_utf8_keep_apart_in_reports_and_baselines(
    mixle: Run, work: Path
) -> None:
    names = [os.fsdecode(b"bad\xff.py"), os.fsdecode(b"bad\xfe.py")]
    try:
        for name in names:
            (work / name).write_text(f"T = '{GH}'\n", encoding="utf-8")
    except OSError:
        pytest.skip("the file system refuses names that are not UTF-8")
    rows = mixle("scan-secrets", *names, "--jsonl").jsonl()
    assert [r["path"] for r in rows] == ["bad\\xff.py", "bad\\xfe.py"]  # as the shell shows them
    assert rows[0]["fingerprint"] != rows[1]["fingerprint"]
    sarif = mixle("scan-secrets", *names, "--sarif").json()
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in
            sarif["runs"][0]["results"]]  # fmt: skip
    assert uris == ["bad%FF.py", "bad%FE.py"]  # the name's own bytes
    base = str(work / "base.json")
    assert mixle("scan-secrets", "--baseline", base, "--update-baseline", names[0]).exit_code == 0
    other = mixle("scan-secrets", "--baseline", base, names[1])
    assert other.exit_code == 1  # accepting one file's secret does not accept the other's
    assert "bad\\xfe.py:1:6: github_token" in other.stdout


def test_missing_or_corrupt_baseline_exits_3(mixle: Run, work: Path) -> None:
    dirty(work)
    missing = mixle("scan-secrets", "--baseline", "none.json", "deploy.py")
    assert missing.exit_code == 3
    assert "--update-baseline" in missing.stderr
    (work / "bad.json").write_text("{not json", encoding="utf-8")
    bad = mixle("scan-secrets", "--baseline", "bad.json", "deploy.py")
    assert bad.exit_code == 3 and "not valid JSON" in bad.stderr


def test_a_baseline_in_a_missing_folder_is_refused_and_leaves_nothing(
    mixle: Run, work: Path
) -> None:
    dirty(work)
    before = sorted(p.name for p in work.iterdir())
    result = mixle(
        "scan-secrets", "deploy.py", "--baseline", "missing/base.json", "--update-baseline"
    )
    assert result.exit_code == 3
    assert "its folder missing does not exist" in result.stderr
    assert sorted(p.name for p in work.iterdir()) == before  # no file named "missing"
    (work / "afile").write_text("")
    blocked = mixle("scan-secrets", "deploy.py", "--baseline", "afile/b.json", "--update-baseline")
    assert blocked.exit_code == 3 and "its folder afile is not a folder" in blocked.stderr


# -- git: staged changes, --all, and the pre-commit hook -----------------------------------------


def git(repo: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    return subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        env=env,
        input=input,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def repo(work: Path) -> Iterator[Path]:
    assert git(work, "init", "-q").returncode == 0
    yield work


@needs_git
def test_staged_mode_scans_the_index_not_the_work_tree(mixle: Run, repo: Path) -> None:
    clean(repo, "a.py")
    git(repo, "add", "a.py")
    assert mixle("scan-secrets").exit_code == 0  # nothing committed yet: a new file
    dirty(repo, "a.py")
    assert mixle("scan-secrets").exit_code == 0  # the secret is only in the work tree
    git(repo, "add", "a.py")
    staged = mixle("scan-secrets", "--jsonl")
    assert staged.exit_code == 1
    assert {r["path"] for r in staged.jsonl()} == {"a.py"}
    clean(repo, "a.py")  # cleaned in the work tree but not staged: the commit would leak
    assert mixle("scan-secrets").exit_code == 1


@needs_git
def test_a_staged_binary_is_held_as_its_first_bytes_only(mixle: Run, repo: Path) -> None:
    # a commit of large images was held whole in memory to be passed over (1.3 GB for 20)
    from substrate.limits import BINARY_PROBE_BYTES
    from substrate.secrets.sources import staged_changes

    (repo / "image.bin").write_bytes(bytes(range(256)) * 4096)  # 1 MiB, NULs among controls
    for n in range(2000):  # more asked (82 KB) and answered than a pipe holds (64 KB)
        clean(repo, f"m{n}.py")
    dirty(repo, "deploy.py")
    (repo / "notes.txt").write_bytes(f"token = {GH}\n".encode("utf-16-le") * 2000)
    git(repo, "add", ".")
    blobs = dict(staged_changes(str(repo)).blobs)
    assert blobs["image.bin"] == (bytes(range(256)) * 32)[:BINARY_PROBE_BYTES]
    assert len(blobs["notes.txt"]) == len(f"token = {GH}\n") * 4000  # wide text: whole
    assert blobs["m1999.py"] == b"def add(a, b):\n    return a + b\n"
    result = mixle("scan-secrets", "--jsonl")
    assert result.exit_code == 1
    assert {r["path"] for r in result.jsonl()} == {"deploy.py", "notes.txt"}


@needs_git
def test_staged_files_are_scanned_with_the_workers_asked_for(
    mixle: Run, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.secrets.textscan as textscan

    asked: list[int] = []
    mapped = textscan._mapped
    monkeypatch.setattr(
        textscan, "_mapped", lambda f, jobs, n: asked.append(n) or mapped(f, jobs, 1)
    )
    for name in ("a.py", "b.py"):
        dirty(repo, name)
        git(repo, "add", name)
    staged = mixle("scan-secrets", "-j", "2", "--jsonl")
    assert staged.exit_code == 1
    assert {r["path"] for r in staged.jsonl()} == {"a.py", "b.py"}
    assert asked == [2]


@needs_git
def test_a_pipe_with_nothing_staged_is_told_that_stdin_needs_a_dash(repo: Path) -> None:
    # `git show HEAD:app.env | mixle scan-secrets` scanned nothing and read "no file was scanned"
    mixle = [str(Path(sys.executable).with_name("mixle")), "scan-secrets"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    piped = subprocess.run(mixle, cwd=repo, env=env, input=f"token={GH}\n", text=True,
                           capture_output=True, check=False)  # fmt: skip
    assert piped.returncode == 0  # a warning: an editor commits with a pipe for stdin
    assert "standard input is read only when given as -" in piped.stderr
    assert_no_secret(piped.stdout, piped.stderr)
    quiet = subprocess.run(mixle, cwd=repo, env=env, stdin=subprocess.DEVNULL, text=True,
                           capture_output=True, check=False)  # fmt: skip
    assert quiet.returncode == 0 and "standard input" not in quiet.stderr


@needs_git
def test_a_staged_file_over_the_size_cap_stops_the_commit(
    mixle: Run, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.secrets.sources as sources

    (repo / "dump.sql").write_text("-- rows\n" * 400 + f"token={GH}\n", encoding="utf-8")
    (repo / "photo.bin").write_bytes(b"\x89PNG\0" * 400)  # over the cap, and binary: a pass
    (repo / "mixle.toml").write_text("[secrets]\nmax_file_bytes = 1024\n", encoding="utf-8")
    git(repo, "add", "dump.sql", "photo.bin")
    read, real_read = [], sources._read_blobs

    def reading(staged: list[tuple[str, bytes]], cwd: str | None) -> Any:
        read.extend(path for _, path in staged)
        return real_read(staged, cwd)

    monkeypatch.setattr(sources, "_read_blobs", reading)
    result = mixle("scan-secrets", "--config", "mixle.toml", "--json")
    assert read == []  # never read whole: a file staged by mistake may be gigabytes
    assert result.exit_code == 3  # a skipped file with a secret in it would pass otherwise
    report = result.json()
    assert not report["clean"] and not report["findings"]
    assert report["skipped"] == [{"path": "photo.bin", "reason": "binary"}]
    assert [error["path"] for error in report["errors"]] == ["dump.sql"]
    assert report["errors"][0]["reason"].startswith("cannot scan: ")
    assert GH not in result.stdout + result.stderr
    assert mixle("scan-secrets", "--jsonl").exit_code == 1  # under the default cap: scanned


@needs_git
def test_a_staged_file_named_with_a_secret_is_a_finding_and_its_name_is_masked(
    mixle: Run, repo: Path
) -> None:
    clean(repo, f"creds_{GH}.txt")
    git(repo, "add", "-A")
    for form in ([], ["--json"], ["--jsonl"], ["--sarif"]):
        result = mixle("scan-secrets", *form)
        assert result.exit_code == 1, form
        assert GH not in result.stdout + result.stderr, form
    assert "creds_[REDACTED:github_token].txt: github_token: in the file's name" in (
        mixle("scan-secrets").stdout
    )
    [finding] = mixle("scan-secrets", "--jsonl").jsonl()
    assert (finding["line"], finding["path"]) == (0, "creds_[REDACTED:github_token].txt")


@needs_git
def test_a_staged_link_is_scanned_for_a_secret_in_its_name_or_its_target(
    mixle: Run, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / f"creds_{GH}.txt").symlink_to("clean.py")
    (repo / "shortcut").symlink_to(f"/opt/{AWS}")
    git(repo, "add", "-A")
    result = mixle("scan-secrets", "--jsonl")
    assert result.exit_code == 1 and GH not in result.stdout and AWS not in result.stdout
    found = {(row["path"], row["line"]) for row in result.jsonl()}
    assert found == {("creds_[REDACTED:github_token].txt", 0), ("shortcut", 1)}
    git(repo, "commit", "-qm", "links", "--no-verify")
    # --all reads links as the staged scan does: a baseline of either suits the other
    everything = mixle("scan-secrets", "--all", "--jsonl")
    assert {(row["path"], row["line"]) for row in everything.jsonl()} == found
    # checked out without links (core.symlinks=false, as on Windows), each is a file holding
    # its target: read as one, it gives the same findings
    copy = repo.parent / "no-links"
    cloned = git(repo.parent, "clone", "-q", "-c", "core.symlinks=false", str(repo), str(copy))
    assert cloned.returncode == 0
    monkeypatch.chdir(copy)
    flat = mixle("scan-secrets", "--all", "--jsonl")
    assert {(row["path"], row["line"]) for row in flat.jsonl()} == found
    monkeypatch.chdir(repo)
    # a tracked file made a link to a file outside: the link is read, not the file
    clean(repo, "plain.py")
    git(repo, "add", "plain.py")
    git(repo, "commit", "-qm", "plain", "--no-verify")
    (repo / "plain.py").unlink()
    (repo / "plain.py").symlink_to(dirty(repo.parent, "outside.py"))
    read = {row["path"] for row in mixle("scan-secrets", "--all", "--jsonl").jsonl()}
    assert "plain.py" not in read
    (repo / "plain.py").unlink()
    git(repo, "checkout", "--", "plain.py")
    # nor through a folder made a link: its files are another tree's
    (repo / "sub").mkdir()
    clean(repo / "sub", "config.py")
    git(repo, "add", "sub")
    git(repo, "commit", "-qm", "sub", "--no-verify")
    shutil.rmtree(repo / "sub")
    dirty(repo.parent / "elsewhere", "config.py")
    (repo / "sub").symlink_to(repo.parent / "elsewhere")
    read = {row["path"] for row in mixle("scan-secrets", "--all", "--jsonl").jsonl()}
    assert "sub/config.py" not in read
    (repo / "shortcut").unlink()  # a link that becomes a file: a change of type
    dirty(repo, "shortcut")
    git(repo, "add", "-A")
    assert ("shortcut", 3) in {
        (r["path"], r["line"]) for r in mixle("scan-secrets", "--jsonl").jsonl()
    }


@needs_git
@pytest.mark.parametrize("relative", ["false", "true"])
def test_staged_paths_are_relative_to_the_root(
    mixle: Run, repo: Path, monkeypatch: pytest.MonkeyPatch, relative: str
) -> None:
    # with diff.relative set, a scan from a subfolder once saw only that folder's files, named
    # from it, as if the secret elsewhere were not staged
    git(repo, "config", "diff.relative", relative)
    dirty(repo / "pkg", "conf.py")
    git(repo, "add", "pkg/conf.py")
    git(repo, "commit", "-qm", "first")
    with (repo / "pkg" / "conf.py").open("a", encoding="utf-8") as fh:
        fh.write("x = 1\n")
    git(repo, "mv", "pkg/conf.py", "pkg/settings.py")
    dirty(repo, "root_leak.py")
    git(repo, "add", "-A")
    monkeypatch.chdir(repo / "pkg")
    result = mixle("scan-secrets", "--jsonl")
    assert result.exit_code == 1
    assert {r["path"] for r in result.jsonl()} == {"pkg/settings.py", "root_leak.py"}


@needs_git
def test_a_staged_scan_during_a_conflicted_merge_says_what_it_left_out(
    mixle: Run, repo: Path
) -> None:
    # the paths in conflict have no one content staged: once left out without a word
    clean(repo, "f.py")
    git(repo, "add", "f.py")
    git(repo, "commit", "-qm", "base", "--no-verify")
    git(repo, "checkout", "-qb", "other")
    (repo / "f.py").write_text("x = 'other'\n", encoding="utf-8")
    git(repo, "commit", "-qam", "other", "--no-verify")
    git(repo, "checkout", "-q", "-")
    (repo / "f.py").write_text("x = 'mine'\n", encoding="utf-8")
    git(repo, "commit", "-qam", "mine", "--no-verify")
    assert git(repo, "merge", "other").returncode != 0  # a conflict in f.py
    dirty(repo, "new.py")
    git(repo, "add", "new.py")
    result = mixle("scan-secrets", "--jsonl")
    assert result.exit_code == 1 and {r["path"] for r in result.jsonl()} == {"new.py"}
    assert "note: 1 path(s) with an unresolved conflict were not scanned" in result.stderr


@needs_git
def test_a_staged_submodule_named_with_a_secret_is_a_finding(mixle: Run, repo: Path) -> None:
    # a gitlink's name is committed here (its content is another repository's commit)
    commit = "0123456789abcdef0123456789abcdef01234567"
    added = git(repo, "update-index", "--add", "--cacheinfo", f"160000,{commit},keys/{GH}")
    assert added.returncode == 0, added.stderr
    clean(repo, "ok.py")
    git(repo, "add", "ok.py")
    result = mixle("scan-secrets", "--jsonl")
    assert result.exit_code == 1 and GH not in result.stdout + result.stderr
    found = {(r["path"], r["line"], r["rule"]) for r in result.jsonl()}
    assert found == {("keys/[REDACTED:github_token]", 0, "github_token")}
    everything = mixle("scan-secrets", "--all", "--jsonl")  # as CI reads the tree: the same
    assert {(r["path"], r["line"], r["rule"]) for r in everything.jsonl()} == found


@needs_git
def test_a_replace_ref_does_not_hide_the_staged_blob(mixle: Run, repo: Path) -> None:
    # git cat-file follows replace refs; the commit records the blob itself
    dirty(repo, "a.py")
    git(repo, "add", "a.py")
    blob = git(repo, "rev-parse", ":a.py").stdout.strip()
    stand_in = git(repo, "hash-object", "-w", "--stdin", input="clean = 1\n").stdout.strip()
    assert git(repo, "replace", "-f", blob, stand_in).returncode == 0
    assert mixle("scan-secrets").exit_code == 1


@needs_git
def test_a_name_that_is_not_utf8_has_one_fingerprint_staged_tracked_or_given(
    mixle: Run, repo: Path
) -> None:
    name = os.fsdecode(b"bad\xff.py")
    try:
        (repo / name).write_text(f"T = '{GH}'\n", encoding="utf-8")
    except OSError:
        pytest.skip("the file system refuses names that are not UTF-8")
    git(repo, "add", "-A")
    rows = [mixle("scan-secrets", *how, "--jsonl").jsonl() for how in ([], ["--all"], [name])]
    assert {(r["path"], r["fingerprint"]) for found in rows for r in found} == {
        ("bad\\xff.py", rows[2][0]["fingerprint"])
    }


@needs_git
def test_an_update_keeps_the_entry_of_another_file_named_alike_once_masked(
    mixle: Run, repo: Path
) -> None:
    # keys/<token A>.pem and keys/<token B>.pem are both keys/[REDACTED:github_token].pem in
    # the baseline: updating from a commit of A dropped B's entry, and CI failed on B
    other = token("gh" + "p_", 36)
    (repo / "keys").mkdir()
    (repo / "keys" / f"{GH}.pem").write_text("one\n")
    (repo / "keys" / f"{other}.pem").write_text("two\n")
    git(repo, "add", "-A")
    base = str(repo / "base.json")
    made = mixle("scan-secrets", "--all", "--baseline", base, "--update-baseline")
    assert made.exit_code == 0 and "2 accepted finding(s)" in made.stderr
    git(repo, "add", "base.json")
    git(repo, "commit", "-qm", "first", "--no-verify")
    (repo / "keys" / f"{GH}.pem").write_text("one, edited\n")
    git(repo, "add", "keys")
    assert mixle("scan-secrets", "--baseline", base, "--update-baseline").exit_code == 0
    assert mixle("scan-secrets", "--all", "--baseline", base).exit_code == 0
    paths = {r["path"] for r in json.loads(Path(base).read_text("utf-8"))["findings"]}
    assert paths == {"keys/[REDACTED:github_token].pem"}


@needs_git
def test_a_staged_update_drops_the_entries_of_files_deleted_or_renamed_away(
    mixle: Run, repo: Path
) -> None:
    for name in ("old.py", "moved.py", f"creds_{GH}.txt"):  # the last one masked in its entry
        dirty(repo, name)
    git(repo, "add", "-A")
    base = str(repo / "base.json")
    assert mixle("scan-secrets", "--baseline", base, "--update-baseline").exit_code == 0
    git(repo, "commit", "-qm", "first", "--no-verify")
    git(repo, "rm", "-q", "old.py", f"creds_{GH}.txt")
    git(repo, "mv", "moved.py", "new.py")
    check = mixle("scan-secrets", "--baseline", base)
    assert check.exit_code == 1  # new.py's secrets have a new path, so new fingerprints
    # (not the masked name's two: the update keeps them, as they could be another file's)
    assert "4 baseline entries no longer match" in check.stderr
    update = mixle("scan-secrets", "--baseline", base, "--update-baseline")
    # the entries of a file whose name is masked stay: they could be another file's of a
    # name alike once masked (a scan of the whole tree drops them)
    assert "4 accepted finding(s) (+2, -4)" in update.stderr
    paths = {r["path"] for r in json.loads(Path(base).read_text("utf-8"))["findings"]}
    assert paths == {"new.py", "creds_[REDACTED:github_token].txt"}
    assert_no_secret(update.stdout + update.stderr)
    git(repo, "commit", "-qm", "second", "--no-verify")
    whole = mixle("scan-secrets", "--all", "--baseline", base, "--update-baseline")
    assert "2 accepted finding(s) (+0, -2)" in whole.stderr


@needs_git
def test_a_staged_scan_says_when_the_commit_would_not_hold_its_baseline(
    mixle: Run, repo: Path
) -> None:
    # the hook passed on a baseline updated in the work tree only: the commit lacked its
    # entries, and CI, checking the commit, failed
    base = repo / ".secrets-baseline.json"
    assert (
        mixle("scan-secrets", "--all", "--baseline", str(base), "--update-baseline").exit_code == 0
    )
    git(repo, "add", base.name)
    dirty(repo, "leak.py")
    git(repo, "add", "leak.py")
    update = mixle("scan-secrets", "--baseline", base.name, "--update-baseline")
    told = f"note: {base.name} has changes that are not staged: the commit will not hold them"
    assert update.exit_code == 0 and told in update.stderr
    assert told in mixle("scan-secrets", "--baseline", base.name).stderr
    git(repo, "add", base.name)
    staged = mixle("scan-secrets", "--baseline", base.name)
    assert staged.exit_code == 0 and "not staged" not in staged.stderr
    # its name is no pattern: "base[12].json" does not stand for an untracked base1.json
    pattern = repo / "base[12].json"
    pattern.write_bytes(base.read_bytes())
    git(repo, "add", pattern.name)
    git(repo, "commit", "-qm", "baselines", "--no-verify")
    (repo / "base1.json").write_text("{}", encoding="utf-8")
    assert "not staged" not in mixle("scan-secrets", "--baseline", pattern.name).stderr
    # a linked baseline: the entries are in the file it leads to
    (repo / "linked.json").symlink_to(base.name)
    git(repo, "add", "linked.json")
    git(repo, "commit", "-qm", "link", "--no-verify")
    dirty(repo, "leak2.py")
    git(repo, "add", "leak2.py")
    assert mixle("scan-secrets", "--baseline", "linked.json", "--update-baseline").exit_code == 0
    told = mixle("scan-secrets", "--baseline", "linked.json").stderr  # the file it leads to
    assert f"note: {base.name} has changes that are not staged" in told
    (repo / "conf").mkdir()  # and one reached through a linked folder
    (repo / "conf" / "base.json").write_bytes(base.read_bytes())
    (repo / "cfg").symlink_to("conf")
    git(repo, "add", "conf", "cfg")
    git(repo, "commit", "-qm", "conf", "--no-verify")
    rewritten = json.dumps(json.loads(base.read_text("utf-8")), indent=1)  # same entries
    (repo / "conf" / "base.json").write_text(rewritten, encoding="utf-8")
    told = mixle("scan-secrets", "--baseline", "cfg/base.json").stderr
    assert "note: conf/base.json has changes that are not staged" in told


@needs_git
def test_a_staged_file_in_allow_paths_is_reported_as_skipped(mixle: Run, repo: Path) -> None:
    dirty(repo / "tests" / "fixtures", "t.py")
    (repo / "scan.toml").write_text('[secrets]\nallow_paths = ["tests/fixtures/*"]\n', "utf-8")
    git(repo, "add", "tests")
    doc = mixle("scan-secrets", "--config", "scan.toml", "--json").json()
    assert doc["clean"] and doc["n_files"] == 0
    assert doc["skipped"] == [{"path": "tests/fixtures/t.py", "reason": "allowed path"}]
    text = mixle("scan-secrets", "--config", "scan.toml")
    assert text.exit_code == 0
    assert text.stderr.splitlines() == [
        "tests/fixtures/t.py: skipped: listed in allow_paths",
        "no file was scanned; the [secrets] allowances of scan.toml applied; 1 skipped",
    ]
    assert mixle("scan-secrets", "--config", "scan.toml", "-q").stderr == ""


@needs_git
@pytest.mark.skipif(os.sep == "\\", reason="a backslash separates folders there")
def test_a_backslash_in_a_staged_name_puts_it_in_no_allowed_folder(mixle: Run, repo: Path) -> None:
    dirty(repo, "tests\\leak.py")  # a file at the top whose name holds a backslash
    (repo / "scan.toml").write_text('[secrets]\nallow_paths = ["tests/*"]\n', "utf-8")
    git(repo, "add", "tests\\leak.py")
    result = mixle("scan-secrets", "--config", "scan.toml", "--json")
    assert result.exit_code == 1 and result.json()["n_files"] == 1


@needs_git
def test_all_scans_tracked_files_only(mixle: Run, repo: Path) -> None:
    dirty(repo, "tracked.py")
    clean(repo, "gone.py")
    git(repo, "add", "tracked.py", "gone.py")
    dirty(repo, "untracked.py")
    result = mixle("scan-secrets", "--all", "--json")
    assert result.exit_code == 1, result.stderr
    doc = result.json()
    assert {f["path"] for f in doc["findings"]} == {"tracked.py"}
    assert doc["n_files"] == 2 and doc["errors"] == [] and doc["n_missing"] == 0
    assert "note:" not in result.stderr


@needs_git
def test_all_says_how_many_tracked_files_were_deleted_from_the_work_tree(
    mixle: Run, repo: Path
) -> None:
    # a deleted file has nothing to read (a commit -a deletes it): once left out unsaid
    clean(repo, "kept.py")
    dirty(repo, "gone.py")
    git(repo, "add", "kept.py", "gone.py")
    (repo / "gone.py").unlink()  # not an error
    doc = mixle("scan-secrets", "--all", "--json").json()
    assert doc["clean"] and doc["n_files"] == 1 and doc["n_missing"] == 1
    text = mixle("scan-secrets", "--all")
    assert text.exit_code == 0
    assert text.stderr.splitlines() == [
        "note: 1 tracked file(s) deleted from the work tree were not scanned "
        "(a commit -a would delete them)",
        "no secrets in 1 file(s)",
    ]
    assert mixle("scan-secrets", "--all", "-q").stderr == ""


def sparse(repo: Path, *patterns: str) -> None:
    """Check out only the paths matching ``patterns``: git marks the others skip-worktree and
    takes them out of the work tree."""
    done = git(repo, "sparse-checkout", "set", "--no-cone", *patterns)
    if done.returncode != 0:
        pytest.skip(f"git sparse-checkout set --no-cone: {done.stderr.strip()}")


@needs_git
def test_all_reads_the_files_a_sparse_checkout_leaves_out_from_the_index(
    mixle: Run, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.secrets.sources as sources

    (repo / "docs").mkdir()
    clean(repo / "docs", "base.py")
    dirty(repo / "keys", "deploy.py")
    (repo / "keys" / "shortcut").symlink_to(f"/opt/{AWS}")  # a link: its target is scanned
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first", "--no-verify")
    full = mixle("scan-secrets", "--all", "--jsonl").jsonl()
    sparse(repo, "/docs/")
    assert not (repo / "keys").exists()
    read, real_read = [], sources._read_blobs

    def reading(staged: list[tuple[str, bytes]], cwd: str | None) -> Any:
        read.append([path for _, path in staged])
        return real_read(staged, cwd)

    monkeypatch.setattr(sources, "_read_blobs", reading)
    result = mixle("scan-secrets", "--all", "--json")
    assert read == [[b"keys/deploy.py", b"keys/shortcut"]]  # in one git cat-file run
    assert result.exit_code == 1, result.stderr
    doc = result.json()
    assert doc["n_files"] == 3 and doc["n_missing"] == 0 and doc["errors"] == []
    # as a full checkout reads them: a baseline of either suits the other
    assert doc["findings"] == full
    assert {(f["path"], f["line"]) for f in full} == {
        ("keys/deploy.py", 3),
        ("keys/deploy.py", 4),
        ("keys/shortcut", 1),
    }
    monkeypatch.chdir(repo / "docs")  # paths from the root, from any subfolder
    for form in ([], ["--jsonl"], ["--sarif"]):
        shown = mixle("scan-secrets", "--all", *form)
        assert shown.exit_code == 1, form
        assert_no_secret(shown.stdout, shown.stderr)
    text = mixle("scan-secrets", "--all")
    assert "keys/deploy.py:3:10: github_token" in text.stdout
    assert "3 secret(s) in 2 of 3 file(s)" in text.stderr


@needs_git
def test_all_applies_the_size_cap_to_the_files_a_sparse_checkout_leaves_out(
    mixle: Run, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import substrate.secrets.sources as sources

    (repo / "dump.sql").write_text("-- rows\n" * 400 + f"token={GH}\n", encoding="utf-8")
    (repo / "photo.bin").write_bytes(b"\x89PNG\0" * 400)  # over the cap, and binary: a pass
    (repo / "scan.toml").write_text("[secrets]\nmax_file_bytes = 1024\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first", "--no-verify")
    sparse(repo, "/scan.toml")
    read, real_read = [], sources._read_blobs

    def reading(staged: list[tuple[str, bytes]], cwd: str | None) -> Any:
        read.extend(path for _, path in staged)
        return real_read(staged, cwd)

    monkeypatch.setattr(sources, "_read_blobs", reading)
    result = mixle("scan-secrets", "--all", "--config", "scan.toml", "--json")
    assert read == []  # never read whole, as in a staged scan
    assert result.exit_code == 3
    report = result.json()
    assert report["skipped"] == [{"path": "photo.bin", "reason": "binary"}]
    assert [error["path"] for error in report["errors"]] == ["dump.sql"]
    assert GH not in result.stdout + result.stderr


@needs_git
def test_all_reads_a_skip_worktree_file_from_the_index_even_if_the_work_tree_has_one(
    mixle: Run, repo: Path
) -> None:
    # git passes the work tree's copy by (status, diff, commit -a): the blob is what the
    # repository holds, and a clean copy beside it must not hide its secret
    dirty(repo, "settings.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first", "--no-verify")
    assert git(repo, "update-index", "--skip-worktree", "settings.py").returncode == 0
    clean(repo, "settings.py")
    assert git(repo, "status", "--porcelain").stdout == ""
    result = mixle("scan-secrets", "--all", "--jsonl")
    assert result.exit_code == 1
    assert {(r["path"], r["line"]) for r in result.jsonl()} == {
        ("settings.py", 3),
        ("settings.py", 4),
    }


def hook_entry() -> list[str]:
    """The hook's command from .pre-commit-hooks.yaml, run with this environment's mixle."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert re.search(r"^- id: mixle-scan-secrets$", text, re.M)
    assert re.search(r"^  language: python$", text, re.M)
    # every file: the framework's "text" type leaves out UTF-16 text, which mixle reads
    assert re.search(r"^  types: \[file\]$", text, re.M)
    entry = shlex.split(re.search(r"^  entry: (.+)$", text, re.M).group(1))  # type: ignore[union-attr]
    assert entry[0] == "mixle"
    return [str(Path(sys.executable).with_name("mixle")), *entry[1:]]


@needs_git
def test_pre_commit_hook_blocks_a_commit_with_a_secret(repo: Path) -> None:
    entry = hook_entry()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    dirty(repo, "settings.py")
    clean(repo)
    git(repo, "add", "settings.py", "clean.py")
    # as the pre-commit framework runs it: the entry plus the staged file names
    found = subprocess.run([*entry, "settings.py", "clean.py"], cwd=repo, env=env,
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert found.returncode == 1, found.stderr
    assert "settings.py:3:10: github_token" in found.stdout
    assert_no_secret(found.stdout, found.stderr)
    ok = subprocess.run([*entry, "clean.py"], cwd=repo, env=env, capture_output=True, check=False)
    assert ok.returncode == 0

    # and as a plain git hook: the commit is refused, then goes through once the secret is gone
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexec " + shlex.join(entry) + "\n", encoding="utf-8")
    hook.chmod(0o755)
    refused = git(repo, "commit", "-qm", "add settings")
    assert refused.returncode != 0
    assert "github_token" in refused.stdout + refused.stderr
    assert git(repo, "rev-parse", "--verify", "HEAD").returncode != 0  # nothing committed
    clean(repo, "settings.py")
    git(repo, "add", "settings.py")
    accepted = git(repo, "commit", "-qm", "add settings")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


def test_stdin_name_with_literal_paths_is_a_usage_error(mixle: Run) -> None:
    named = mixle("scan-secrets", "--literal-paths", "--stdin-name", "x", "-")
    assert named.exit_code == 2 and "never reads" in named.stderr


def run_hook(folder: Path, *names: str) -> subprocess.CompletedProcess[str]:
    """The hook as pre-commit runs it in ``folder``: its entry, then the staged ``names``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([*hook_entry(), *names], cwd=folder, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          check=False)  # fmt: skip


def test_the_hook_reads_a_staged_file_named_dash_as_a_file(tmp_path: Path) -> None:
    dirty(tmp_path, "-")
    clean(tmp_path)
    found = run_hook(tmp_path, "-", "clean.py")
    assert found.returncode == 1, found.stdout + found.stderr
    assert "-:3:10: github_token" in found.stdout
    assert_no_secret(found.stdout, found.stderr)


@pytest.mark.parametrize("name", ["-h", "--help", "--json", "--quiet", "--"])
def test_the_hook_scans_a_staged_file_named_like_an_option(tmp_path: Path, name: str) -> None:
    # pre-commit puts no -- before the names: -h alone made the scan a help page, exit 0
    dirty(tmp_path, name)
    clean(tmp_path)
    for names in ([name, "clean.py"], ["clean.py", name]):
        found = run_hook(tmp_path, *names)
        assert found.returncode == 1, found.stdout + found.stderr
        assert f"{name}:3:10: github_token" in found.stdout
        assert "in 1 of 2 file(s)" in found.stderr
        assert_no_secret(found.stdout, found.stderr)


def test_a_file_named_all_stays_the_option_and_stops_the_hook(tmp_path: Path) -> None:
    # read as a file, it let a run meant to scan every tracked file scan that one only
    dirty(tmp_path, "--all")
    clean(tmp_path)
    found = run_hook(tmp_path, "--all", "clean.py")
    assert found.returncode == 2 and "cannot be combined" in found.stderr


def test_an_option_naming_no_file_stays_an_option(tmp_path: Path) -> None:
    dirty(tmp_path, "a.py")
    found = run_hook(tmp_path, "--json", "--quiet", "a.py")
    assert found.returncode == 1
    assert json.loads(found.stdout)["findings"][0]["path"] == "a.py"
    assert found.stderr == ""


# -- shard items ---------------------------------------------------------------------------------


def test_items_sweep_honours_the_readers_scopes(
    mixle: Run, isolated_shard_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shard = Substrate(isolated_shard_env)
    ours = shard.put(SubstrateItem(kind="text", text=f"deploy with {GH}", scope="blue"))
    shard.put(SubstrateItem(kind="text", text=f"theirs {AWS}", scope="red"))
    shard.put(SubstrateItem(kind="text", text="nothing here", scope="blue"))
    shard.save()
    shard.close()
    everything = mixle("scan-secrets", "--items", "--json")
    assert everything.exit_code == 1
    assert everything.json()["n_items"] == 3 and everything.json()["n_dirty"] == 2
    blue = mixle("--as", "blue", "scan-secrets", "--items", "--jsonl")
    assert blue.exit_code == 1
    assert [(r["id"], r["field"], r["rule"]) for r in blue.jsonl()] == [
        (ours, "text", "github_token")
    ]
    text = mixle("--as", "blue", "scan-secrets", "--items")
    assert text.stdout.startswith(f"item:{ours} text: github_token:")
    assert_no_secret(everything.stdout, blue.stdout, text.stdout, text.stderr)
    mistyped = mixle("scan-secrets", "--items", "--scope", "bleu", "--json")  # not clean
    assert mistyped.exit_code == 1 and "--scope 'bleu' matched no item" in mistyped.stderr
    assert mistyped.stdout == ""
    monkeypatch.setenv("MIXLE_TEAM", "green")  # reads green and public: no item there
    nobody = mixle("scan-secrets", "--items")
    assert nobody.exit_code == 1 and "'green' and no item is in its scopes" in nobody.stderr
    refused = mixle("scan-secrets", "--items", "--scope", "red")
    assert refused.exit_code == 1 and "may not read scope 'red'" in refused.stderr
    shard = Substrate(isolated_shard_env)
    shard.put(SubstrateItem(kind="text", text="the handbook", scope="public"))
    shard.save()
    shard.close()
    shared_only = mixle("scan-secrets", "--items")  # public is clean; green checked nothing
    assert shared_only.exit_code == 1 and "its own scope holds no item" in shared_only.stderr
    told = mixle("scan-secrets", "--items", "--json")
    assert told.exit_code == 1 and told.json()["own_scope_empty"] is True
    shard = Substrate(isolated_shard_env)
    shard.add("text", f"deploy key {GH}", scope="public", redact=False)  # stored as it is
    shard.save()
    shard.close()
    found = mixle("scan-secrets", "--items")  # a finding in public: green is still told
    assert found.exit_code == 1 and found.stdout
    assert "its own scope holds no item" in found.stderr
    assert_no_secret(found.stdout, found.stderr)


def test_items_without_a_shard_exits_3(mixle: Run, isolated_shard_env: Path) -> None:
    result = mixle("scan-secrets", "--items")
    assert result.exit_code == 3 and "no shard at" in result.stderr
    assert not isolated_shard_env.exists()


# -- import budget -------------------------------------------------------------------------------


def test_scanning_files_never_imports_the_heavy_stack(tmp_path: Path) -> None:
    target = dirty(tmp_path)
    code = f"""
import sys
from mixle_cli.app import app
try:
    code = app(["scan-secrets", "-q", {str(target)!r}], standalone_mode=False)
except SystemExit as exc:
    code = exc.code
# (the ingestion package, with its formats and workers, was a fifth of a hook's time)
heavy = ("numpy", "sklearn", "pyarrow", "scipy", "substrate.ingest", "multiprocessing")
heavy = sorted(m for m in heavy if m in sys.modules)
print(code, ",".join(heavy) or "-")
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MIXLE_SHARD": str(tmp_path / "shard")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=tmp_path, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    exit_code, heavy = proc.stdout.split()[-2:]
    assert exit_code == "1", proc.stdout
    assert heavy == "-", f"scan-secrets imported {heavy}; see `python -X importtime`"


def test_a_clean_scan_does_not_import_rich(tmp_path: Path) -> None:
    # a clean pre-commit hook prints one note; importing rich for it was 20 ms of ~165
    clean = tmp_path / "clean.py"
    clean.write_text("def add(a, b):\n    return a + b  # :fire: stays as written\n")
    code = f"""
import sys
from mixle_cli.app import app
try:
    code = app(["scan-secrets", {str(clean)!r}], standalone_mode=False)
except SystemExit as exc:
    code = exc.code
print(code or 0, "rich" in sys.modules, file=sys.__stdout__)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MIXLE_SHARD": str(tmp_path / "shard")}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=tmp_path, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-2:] == ["0", "False"], proc.stdout
    assert "no secrets in 1 file(s)" in proc.stderr


def test_a_note_shows_a_name_as_it_is(work: Path, mixle_process: Callable[..., Any]) -> None:
    (work / ":fire:.txt").write_bytes(b"plain words \xff\n")
    done = mixle_process("scan-secrets", ":fire:.txt", cwd=work)
    assert ":fire:.txt: invalid UTF-8 replaced before scanning" in done.stderr  # no emoji


def test_notes_about_files_named_like_keys_keep_their_words(
    work: Path, mixle_process: Callable[..., Any]
) -> None:
    """A whole process, whose stderr masks secrets: 'password.txt: invalid ...' must not
    read as a password and lose its message."""
    (work / "password.txt").write_bytes(b"plain words \xff\n")
    done = mixle_process("scan-secrets", "password.txt", "missing-secret.txt", cwd=work)
    assert "password.txt: invalid UTF-8 replaced before scanning" in done.stderr
    assert "cannot read missing-secret.txt: No such file or directory" in done.stderr


def test_a_file_name_with_a_newline_stays_on_its_note_line(mixle: Run, work: Path) -> None:
    (work / "odd\nname.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    result = mixle("scan-secrets", ".")
    notes = [line for line in result.stderr.splitlines() if "name.bin" in line]
    assert len(notes) == 1 and notes[0].startswith("odd\\x0aname.bin: skipped"), result.stderr


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
@pytest.mark.parametrize("quiet", [False, True])
def test_a_quiet_scan_says_nothing_of_waiting_for_another_update_of_the_baseline(
    work: Path, mixle_bin: str, quiet: bool, waits_for_a_lock: Callable[[int], bool]
) -> None:
    # two hooks updating one baseline at once: -q still told of the wait
    import fcntl
    import time

    dirty(work)
    (work / "base").mkdir()
    holder = os.open(work / "base", os.O_RDONLY)  # another update's hold on its folder
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        args = ["scan-secrets", "--baseline", "base/b.json", "--update-baseline", "deploy.py"]
        run = subprocess.Popen(
            [mixle_bin, *args, *(["-q"] if quiet else [])],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while not waits_for_a_lock(run.pid):
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.05)
    finally:
        os.close(holder)
    _, err = run.communicate(timeout=30)
    assert run.returncode == 0, err
    assert ("waiting for another process" in err) is not quiet
