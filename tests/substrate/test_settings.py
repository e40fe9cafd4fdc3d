"""mixle.toml as read: a table given as a value refused, misspellings told."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from substrate.errors import ShardError
from substrate.settings import Settings


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("shard = 3\n", "shard must be a table"),
        ("governance = []\n", "governance must be a table"),
        ('answerer = "http://x"\n', "answerer must be a table"),
        ("format = 0\n", "format must be a whole number from 1"),
    ],
)
def test_a_setting_of_the_wrong_type_is_refused_when_read(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "mixle.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ShardError, match=message):
        Settings.load(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[shard]\ndefault_scope = 5\n", "[shard] default_scope must be a scope name"),
        ('[shard]\nshared_scopes = "public"\n', "[shard] shared_scopes must be a list"),
        ('[shard]\nteam = ""\n', "[shard] team must be a team name"),
        ("[ingest]\nchunk_chars = 3\n", "[ingest] chunk_chars must be an integer >= 16"),
        ("[ingest]\nmax_file_size = true\n", "[ingest] max_file_size must be an integer"),
        ("[ingest]\nignore = [1]\n", "[ingest] ignore must be a list of strings"),
        ('[secrets]\nallow_rules = ["nope"]\n', "[secrets] allow_rules names unknown rules"),
        ("[secrets]\nmax_file_bytes = 0\n", "[secrets] max_file_bytes must be an integer"),
        ("[answerer]\ntimeout = -1\n", "[answerer] timeout must be a positive number"),
        ("[answerer]\nmodel = 7\n", "[answerer] model must be a string"),
        ('[answerer]\nmodel = ""\n', "[answerer] model must not be empty"),
        ("[answerer]\ntimeout = inf\n", "[answerer] timeout must be a finite number"),
        ("[answerer]\ntimeout = 1e10\n", "[answerer] timeout must be at most 86400 seconds"),
        ("[answerer]\ntimeout = 0.05\n", "[answerer] timeout must be at least 0.1 seconds"),
        ('[answerer]\nbase_url = "ftp://x/v1"\n', "[answerer] base_url must be an http://"),
        ('[answerer]\nbase_url = ""\n', "[answerer] base_url must be an http://"),
        (
            '[answerer]\nbase_url = "http://admin:Tr0ub4dor&3x@h/v1"\n',
            "[answerer] base_url holds a user name or password, which is not sent",
        ),
        (
            '[answerer]\napi_key_env = "sk-proj-Zk8vQ2mN7xR4pL9tWq3yB6cJ1hF5"\n',
            "[answerer] api_key_env must name the environment variable that holds the key",
        ),
        ('[answerer]\napi_key_env = "has space"\n', "[answerer] api_key_env must name"),
        ('[shard]\nshared_scopes = ["public", ""]\n', "[shard] shared_scopes: the shared"),
        (
            '[shard]\nshared_scopes = [" public"]\n',
            "[shard] shared_scopes: the shared scope has white space around it",
        ),
        (
            '[governance.approvers]\npublic = "alice"\n',
            "[governance.approvers]: 'public' must be a list of names",
        ),
    ],
)
def test_every_known_key_is_checked_whichever_a_command_uses(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "mixle.toml").write_text(f"format = 1\n{text}", encoding="utf-8")
    with pytest.raises(ShardError, match=re.escape(f"mixle.toml: {message}")) as refused:
        Settings.load(tmp_path)
    for secret in ("Tr0ub4dor", "sk-proj"):
        assert secret not in str(refused.value)  # a value pasted in the wrong place


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ('public = ["alice "]', "the approver has white space around it"),
        ('public = [""]', "an approver's name is empty"),
        ('"public " = ["alice"]', "the scope has white space around it"),
        ('public = ["al\\u0007ice"]', "the approver cannot hold invisible or control"),
    ],
)
def test_an_approver_grant_would_refuse_is_refused_when_read(
    tmp_path: Path, names: str, message: str
) -> None:
    (tmp_path / "mixle.toml").write_text(
        f"format = 1\n[governance.approvers]\n{names}\n", encoding="utf-8"
    )
    with pytest.raises(ShardError, match=re.escape(f"[governance.approvers]: {message}")):
        Settings.load(tmp_path)


def test_a_misspelt_answerer_setting_is_told_with_the_one_meant(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "mixle.toml").write_text(
        '[answerer]\nbase_ulr = "http://127.0.0.1:8080/v1"\nmodel = "m"\n', encoding="utf-8"
    )
    with caplog.at_level(logging.WARNING, logger="substrate.settings"):
        Settings.load(tmp_path)
    assert "[answerer] has no setting 'base_ulr', left alone (did you mean base_url?)" in (
        caplog.text
    )


def test_an_api_key_in_mixle_toml_is_warned_of_as_refused_by_every_command(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # it was called unknown ("did you mean api_key_env?"), then said nothing until ask
    from substrate import settings

    settings._warned.discard(("answerer", "api_key"))
    (tmp_path / "mixle.toml").write_text('[answerer]\napi_key = "sk-x"\n', encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="substrate.settings"):
        Settings.load(tmp_path)
        Settings.load(tmp_path)
    assert caplog.text.count("[answerer] api_key is refused") == 1  # once a process
    assert "did you mean" not in caplog.text and "sk-x" not in caplog.text


@pytest.mark.parametrize("how", ["missing", "empty", "comments"])
def test_settings_lost_from_a_shard_are_told_of_and_not_written_over_with_defaults(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    # deleted by hand (or emptied by a crash or a sync tool), the approvers went with it:
    # every command went on, gates open, and the next write made a file of defaults that hid
    # the loss (an empty one hid it silently)
    from substrate import Substrate, audit_shard

    shard = tmp_path / "shard"
    with Substrate(shard) as s:
        s.add("text", "one")
        s.save()
    (shard / "mixle.toml").unlink()
    if how != "missing":
        (shard / "mixle.toml").write_bytes(b"\n" if how == "empty" else b"# settings\n")
        how = "empty"
    with caplog.at_level(logging.WARNING, logger="substrate.settings"), Substrate(shard) as s:
        assert s.settings.lost == how
        s.add("text", "two")
        s.save()
        report = audit_shard(s)
    assert f"mixle.toml is {how}" in caplog.text
    assert (shard / "mixle.toml").exists() is (how == "empty")  # as it was: not written over
    assert not report.ok and any(f"mixle.toml is {how}" in p for p in report.settings["problems"])
    if how == "empty":
        return
    # nor does init, or a store saved into it
    from substrate.shard import init_shard

    assert init_shard(shard) == (shard, False)
    elsewhere = Substrate()
    elsewhere.add("text", "three")
    elsewhere.save(shard)
    assert not (shard / "mixle.toml").exists() and len(Substrate(shard)) == 3


def test_a_shard_of_the_reference_implementation_gets_its_settings_at_its_first_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from substrate import Substrate

    shard = tmp_path / "shard"
    shard.mkdir()
    line = (
        '{"id":"a1","kind":"text","text":"ref item","payload":{},"provenance":{},'
        '"scope":"local","tags":[],"links":[],"created_at":1.0}\n'
    )
    (shard / "items.jsonl").write_text(line, encoding="utf-8")  # no header, no mixle.toml
    with caplog.at_level(logging.WARNING, logger="substrate.settings"), Substrate(shard) as s:
        assert not s.settings.lost
        s.add("text", "two")
        s.save()
    assert "missing" not in caplog.text and (shard / "mixle.toml").exists()


@pytest.mark.parametrize(
    "shard",
    [
        'team = "ops"',
        # what `mixle init` writes: its names need no check either
        'default_scope = "local"\nshared_scopes = ["public"]',
    ],
)
def test_reading_settings_that_name_no_scope_loads_no_secret_rules(
    tmp_path: Path, shard: str
) -> None:
    # every command reads them: a default scope needs no check, and checking one loads the
    # secret engine (35-75 ms)
    import subprocess
    import sys

    toml = f"format = 1\n[shard]\n{shard}\n"
    (tmp_path / "mixle.toml").write_text(toml, encoding="utf-8")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from substrate.settings import Settings\n"
        f"Settings.load(Path({str(tmp_path)!r}))\n"
        "print(any(name.startswith('substrate.secrets') for name in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_new_shard_keeps_itself_out_of_git_unless_told_otherwise(tmp_path: Path) -> None:
    """A `.mixle` made at a repository's top was committed whole by the next `git add -A`."""
    from substrate.settings import GIT_IGNORE
    from substrate.shard import init_shard
    from substrate.store import Substrate

    init_shard(tmp_path / "made")
    assert (tmp_path / "made" / ".gitignore").read_text() == GIT_IGNORE
    first = Substrate(tmp_path / "written")  # a first write makes a shard too
    first.add("text", "a note")
    first.save()
    assert (tmp_path / "written" / ".gitignore").read_text().splitlines()[-1] == "*"
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / ".gitignore").write_text("index/\n")  # the user's own choice stays
    init_shard(kept)
    assert (kept / ".gitignore").read_text() == "index/\n"
    project = tmp_path / "project"  # the library makes a shard where it is told to
    (project / ".git").mkdir(parents=True)
    (project / "main.py").write_text("print(1)\n")
    in_place = Substrate(project)
    in_place.add("text", "a note")
    in_place.save()
    assert not (project / ".gitignore").exists()  # it would hide the project's files from git


def test_a_byte_order_mark_before_the_settings_is_passed_over(tmp_path: Path) -> None:
    # Windows' Notepad writes one: "Invalid statement (line 1, column 1)" named no cause
    toml = tmp_path / "mixle.toml"
    toml.write_bytes(b'\xef\xbb\xbfformat = 1\r\n[shard]\r\nteam = "research"\r\n')
    settings = Settings.load(tmp_path)
    assert settings.get("shard", "team") == "research"
    settings.data.setdefault("governance", {})["approvers"] = {"public": ["alice"]}
    settings.save_table("governance", "approvers")  # an edit keeps the rest as written
    assert Settings.load(tmp_path).get("governance", "approvers") == {"public": ["alice"]}
    assert b'team = "research"\r\n' in toml.read_bytes()
