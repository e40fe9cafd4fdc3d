"""mixle redact: a filter that prints its input with every detected secret masked."""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mixle_cli.app import app

Run = Callable[..., Any]
_R = random.Random(7)
# built at run time so that no credential-shaped literal sits in the repository
GH = "gh" + "p_" + "".join(_R.choice(string.ascii_letters + string.digits) for _ in range(36))
BODY = f"host = db.internal\ntoken = {GH}\nport = 5432\n"


def redact_bytes(*args: str, data: bytes) -> tuple[int, bytes, str]:
    """Run in-process and return the exit code, stdout as raw bytes, and stderr."""
    result = CliRunner().invoke(app, ["redact", *args], input=data, catch_exceptions=False)
    return result.exit_code, result.stdout_bytes, result.stderr


def test_stdin_to_stdout(mixle: Run) -> None:
    result = mixle("redact", input=BODY)
    assert result.exit_code == 0
    assert result.stdout == "host = db.internal\ntoken = [REDACTED:github_token]\nport = 5432\n"
    assert "redacted 1 secret(s): github_token" in result.stderr
    assert GH not in result.stdout + result.stderr
    assert mixle("redact", "-", input=BODY).stdout == result.stdout


def test_input_over_the_limit_is_refused_unread(
    mixle: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the text is held whole: an endless stream or device (/dev/zero) stops at the limit
    monkeypatch.setattr("mixle_cli.commands.redact.READ_LIMIT", len(BODY))
    assert mixle("redact", "-", input=BODY).exit_code == 0
    piped = mixle("redact", "-", input=BODY + "x")
    assert piped.exit_code == 1 and piped.stdout == ""
    assert f"standard input holds more than {len(BODY)} bytes" in piped.stderr
    big = tmp_path / "big.log"
    big.write_text(BODY * 2, encoding="utf-8")
    named = mixle("redact", str(big))
    assert named.exit_code == 1 and "big.log holds more than" in named.stderr


def test_a_named_pipe_over_the_limit_is_refused_without_reading_it_to_the_end(
    mixle: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import threading

    monkeypatch.setattr("mixle_cli.commands.redact.READ_LIMIT", len(BODY))
    fifo = tmp_path / "endless.log"
    os.mkfifo(fifo)
    written: list[int] = []

    def feed() -> None:  # far more than the limit: a reader that took it all would hang here
        try:
            with open(fifo, "wb") as fh:
                for _ in range(4096):
                    fh.write(BODY.encode() * 16)
                    written.append(1)
        except BrokenPipeError:
            pass  # the reader stopped at the limit, as it should

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    result = mixle("redact", str(fifo))
    writer.join(timeout=30)
    assert result.exit_code == 1 and result.stdout == ""
    assert "endless.log holds more than" in result.stderr
    assert not writer.is_alive() and len(written) < 4096


def test_json_gives_the_count_and_the_masked_text(mixle: Run) -> None:
    result = mixle("redact", "--json", input=BODY.encode() + b"caf\xe9\n")  # not UTF-8
    assert result.exit_code == 0 and result.stderr == ""
    assert result.json() == {
        "source": "-",
        "redactions": 1,
        "rules": ["github_token"],
        "text": "host = db.internal\ntoken = [REDACTED:github_token]\nport = 5432\ncaf\ufffd\n",
    }


def test_json_masks_a_secret_in_the_file_name(mixle: Run, tmp_path: Path) -> None:
    path = tmp_path / f"{GH}.env"
    path.write_text("port = 5432\n")
    result = mixle("redact", str(path), "--json")
    assert result.json()["source"] == str(tmp_path / "[REDACTED:github_token].env")
    assert GH not in result.stdout + result.stderr


def test_binary_input_is_redacted_where_it_reads_with_a_warning() -> None:
    data = bytes(range(64)) * 4 + f"token = {GH}\n".encode()
    code, out, err = redact_bytes("-q", data=data)
    assert code == 0 and out == bytes(range(64)) * 4 + b"token = [REDACTED:github_token]\n"
    assert "may not have been found" in err
    code, _, err = redact_bytes("--json", data=data)
    assert code == 0 and "may not have been found" in err


def test_utf16_without_a_mark_is_redacted_in_its_encoding() -> None:
    data = f"token = {GH}\n".encode("utf-16-le")
    code, out, _ = redact_bytes("-q", data=data)
    assert code == 0 and out == "token = [REDACTED:github_token]\n".encode("utf-16-le")


def test_file_argument(mixle: Run, tmp_path: Path) -> None:
    path = tmp_path / "app.env"
    path.write_text(BODY, encoding="utf-8")
    result = mixle("redact", str(path))
    assert result.exit_code == 0
    assert "[REDACTED:github_token]" in result.stdout and GH not in result.stdout
    assert path.read_text(encoding="utf-8") == BODY  # the file itself is untouched


def test_clean_input_passes_through_exactly() -> None:
    data = b"no secrets here\r\nline two without newline"
    code, out, err = redact_bytes(data=data)
    assert code == 0
    assert out == data  # no newline added, line endings kept
    assert err == "redacted 0 secret(s)\n"


def test_mask_and_keep_prefix(mixle: Run) -> None:
    masked = mixle("redact", "--mask", "<{rule}>", input=BODY)
    assert "token = <github_token>\n" in masked.stdout
    fixed = mixle("redact", "--mask", "***", input=BODY)
    assert "token = ***\n" in fixed.stdout
    kept = mixle("redact", "--keep-prefix", "4", input=BODY)
    assert "token = ghp_[REDACTED:github_token]\n" in kept.stdout
    # a large request is capped: the public prefix plus a quarter of the rest at most
    capped = mixle("redact", "--keep-prefix", "40", input=BODY).stdout
    shown = capped.split("token = ", 1)[1].split("[REDACTED", 1)[0]
    assert shown == GH[: 4 + 36 // 4]
    assert GH not in capped


def test_invalid_utf8_bytes_survive(mixle: Run) -> None:
    data = b"caf\xe9\n" + f"token = {GH}\n".encode() + b"\xff\xfe end"
    code, out, _ = redact_bytes(data=data)
    assert code == 0
    assert out == b"caf\xe9\ntoken = [REDACTED:github_token]\n\xff\xfe end"


def test_quiet(mixle: Run) -> None:
    result = mixle("redact", "-q", input=BODY)
    assert result.exit_code == 0 and result.stderr == ""


@pytest.mark.parametrize(
    "mask", ["{}", "{0}", "{secret}", "{rule!z}", "{rule", "{rule.upper}", "{rule[0]}"]
)
def test_bad_mask_is_a_usage_error(mixle: Run, mask: str) -> None:
    result = mixle("redact", "--mask", mask, input=BODY)
    assert result.exit_code == 2
    assert "--mask" in result.stderr
    assert GH not in result.stdout + result.stderr


def test_negative_keep_prefix_is_a_usage_error(mixle: Run) -> None:
    assert mixle("redact", "--keep-prefix", "-1", input=BODY).exit_code == 2


def test_missing_file_exits_3(mixle: Run, tmp_path: Path) -> None:
    result = mixle("redact", str(tmp_path / "absent.txt"))
    assert result.exit_code == 3
    assert "absent.txt" in result.stderr and result.stdout == ""


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_a_key_block_keeps_its_lines(eol: str) -> None:
    body = [
        "".join(_R.choice(string.ascii_letters + string.digits + "+/") for _ in range(64))
        for _ in range(4)
    ]
    lines = ["top", "-----BEGIN RSA PRIVATE KEY-----", *body, "-----END RSA PRIVATE KEY-----"]
    data = eol.join([*lines, "bottom", ""]).encode()
    code, out, _ = redact_bytes(data=data)
    shown = out.decode().split(eol)
    assert code == 0 and len(shown) == len(data.decode().split(eol))  # line numbers kept
    assert shown[1:3] == ["-----BEGIN RSA PRIVATE KEY-----", "[REDACTED:private_key_block]"]
    assert shown[3:6] == ["", "", ""] and shown[6:8] == ["-----END RSA PRIVATE KEY-----", "bottom"]
    assert not any(line in out.decode() for line in body)


def test_bytes_that_are_not_utf32_after_its_mark_pass_through() -> None:
    data = b"\xff\xfe\x00\x00a\x00\x00\x00\xff\xff\xff\xff"  # past U+10FFFF
    code, out, _ = redact_bytes(data=data)
    assert code == 0 and out == data


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_wide_input_is_redacted_and_written_back_in_its_encoding(encoding: str) -> None:
    data = ("\ufeff" + BODY).encode(encoding)
    code, out, _ = redact_bytes(data=data)
    assert code == 0 and out[:4] == data[:4]
    assert out.decode(encoding) == "\ufeff" + BODY.replace(GH, "[REDACTED:github_token]")


def test_the_count_is_said_when_nothing_was_masked_too(mixle: Run) -> None:
    result = mixle("redact", input="hello\n")
    assert result.stdout == "hello\n" and result.stderr == "redacted 0 secret(s)\n"
    assert mixle("redact", "-q", input="hello\n").stderr == ""


def test_no_file_and_a_terminal_for_input_is_a_usage_error(mixle_bin: str) -> None:
    # it waited for typing without a word; `-` still reads the terminal, as asked
    import os
    import pty
    import subprocess

    main, terminal = pty.openpty()
    try:
        run = subprocess.run(
            [mixle_bin, "redact"], stdin=terminal, capture_output=True, text=True, timeout=60
        )
    finally:
        os.close(terminal)
        os.close(main)
    assert run.returncode == 2
    assert "give the FILE to redact, or - to read it from standard input" in run.stderr


def test_a_table_file_is_redacted_by_its_column_names(mixle: Run, tmp_path: Path) -> None:
    table = tmp_path / "users.csv"
    table.write_text("id,username,password\n1,alice,Tr0ub4dor&3x!\n")
    result = mixle("redact", str(table))
    assert result.exit_code == 0 and "Tr0ub4dor" not in result.stdout  # it was printed
    assert result.stdout.startswith("id,username,password\n1,alice,[REDACTED:")
    piped = mixle("redact", "-", input=table.read_text())  # no name: a table in a text
    assert piped.stdout == result.stdout


def test_a_file_that_cannot_be_read_is_named_as_scan_secrets_names_it(
    mixle: Run, tmp_path: Path
) -> None:
    import os

    missing = os.fsdecode(bytes(tmp_path) + b"/nofile\xe9.txt")  # a name that is not UTF-8
    for command in ("redact", "scan-secrets"):
        result = mixle(command, missing)
        assert result.exit_code == 3, command
        assert "cannot read" in result.stderr and "nofile\\xe9.txt" in result.stderr, command
        assert "\udce9" not in result.stderr


def test_gzip_data_is_redacted_inside_and_written_compressed(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "config.gz"
    path.write_bytes(gzip.compress(BODY.encode()))
    code, out, err = redact_bytes(str(path), data=b"")
    assert code == 0 and "redacted 1 secret(s)" in err
    assert gzip.decompress(out).decode() == BODY.replace(GH, "[REDACTED:github_token]")
    assert redact_bytes("-", data=path.read_bytes())[1] == out  # piped in too


def test_broken_gzip_data_is_refused_with_nothing_written(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "config.gz"
    path.write_bytes(gzip.compress(BODY.encode())[:30])
    code, out, err = redact_bytes(str(path), data=b"")
    assert (code, out) == (3, b"") and "cut short" in err


def test_inside_gzip_data_every_secret_is_masked_text_or_not(tmp_path: Path) -> None:
    import gzip
    import io
    import tarfile

    from substrate import gunzip

    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:  # masked as a plain tar's are
        info = tarfile.TarInfo("config")
        info.size = len(BODY)
        tar.addfile(info, io.BytesIO(BODY.encode()))
    for data in (archive.getvalue(), gzip.compress(b"\0" + BODY.encode())):  # a NUL first
        code, out, _ = redact_bytes("-", data=data)
        assert code == 0 and GH.encode() not in gunzip(out, None)
    clean = gzip.compress(b"nothing to hide\n")
    assert redact_bytes("-", data=clean)[1] == clean  # as it was: nothing masked


def test_bytes_after_gzip_data_are_refused(tmp_path: Path) -> None:
    import gzip

    data = gzip.compress(b"hello\n") + BODY.encode()  # zcat passes them over
    code, out, err = redact_bytes("-", data=data)
    assert (code, out) == (3, b"") and "bytes after its gzip data" in err
    padded = gzip.compress(BODY.encode()) + b"\0" * 8  # a tool's padding is no text
    assert redact_bytes("-", data=padded)[0] == 0
