"""The app loads only the command module a run needs, the command table is complete, and the
command line reaches the library through its public names alone."""

from __future__ import annotations

import ast
import importlib
import json
import os
import random
import shlex
import string
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import substrate
from mixle_cli.app import COMMAND_MODULES, build_app, modules_for
from mixle_cli.examples import EXAMPLES


def test_table_lists_exactly_the_commands_of_each_module() -> None:
    for name, commands in COMMAND_MODULES.items():
        module = importlib.import_module(f"mixle_cli.commands.{name}")
        assert tuple(module.COMMANDS) == commands, name


def test_the_command_line_imports_only_public_names_of_the_library() -> None:
    private = []
    for path in sorted(Path(importlib.import_module("mixle_cli").__path__[0]).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                private += [a.name for a in node.names if a.name.startswith("substrate.")]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("substrate"):
                if node.module != "substrate":
                    private.append(f"{path.name}: {node.module}")
                else:
                    private += [
                        f"{path.name}: {a.name}"
                        for a in node.names
                        if a.name not in substrate.__all__
                    ]
    assert private == []


def test_a_run_needs_only_its_command_module() -> None:
    assert modules_for(["ask", "why?"]) == ["answers"]
    assert modules_for(["--shard", "ingest", "get", "x"]) == ["items"]  # "ingest" is a value
    assert modules_for(["--as=team", "--shard=/s", "scan-secrets"]) == ["secrets"]
    assert modules_for(["--help"]) == list(COMMAND_MODULES)
    assert modules_for(["--version"]) == []  # no command module loaded to print it
    assert modules_for(["--version", "--help"]) == list(COMMAND_MODULES)
    assert modules_for(["no-such-command"]) == list(COMMAND_MODULES)


def test_full_app_registers_every_command() -> None:
    names = {c.name for c in build_app().registered_commands}
    assert names == {c for commands in COMMAND_MODULES.values() for c in commands}


def test_usage_errors_do_not_print_back_a_secret_that_was_typed(
    tmp_path: Path, mixle_process: Callable[..., Any]
) -> None:
    import os

    classic = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
    # longer than a line: a secret wrapped in two would match no rule
    fine_grained = "github_pat_11ABCDEFG0" + "Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2Ke" * 2 + "Qx9"
    for token in (classic, fine_grained):
        for args in (
            ["add", "the", "deploy", "token", "is", token],  # unquoted: extra arguments
            ["ls", "--limit", token],
            ["ask", f"--{token}"],
        ):
            done = mixle_process(
                "--shard", str(tmp_path / "shard"), *args, env={**os.environ, "COLUMNS": "60"}
            )
            assert done.returncode == 2, done.stderr
            shown = done.stderr + done.stdout
            assert token[12:24] not in shown and "REDACTED" in shown, shown


def test_a_parser_message_masks_a_pasted_key_and_a_secret_glued_to_a_line_break(
    tmp_path: Path, mixle_process: Callable[..., Any]
) -> None:
    # the parser writes a line break as "\x0a" or "\n", gluing a key's lines together, and
    # quotes an unknown option only up to its first "=": a key's padding
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "+/"
    body = ["".join(rng.choice(alphabet) for _ in range(64)) for _ in range(6)] + ["QUJDRA=="]
    key = "\n".join(
        ["-----BEGIN OPENSSH PRIVATE KEY-----", *body, "-----END OPENSSH PRIVATE KEY-----"]
    )
    aws = "AKIAQ7XK2M9ZP4LRT3VB"
    cases = [
        ["add", key],
        ["get", f"--note\n{aws}"],
        ["search", "x", "-k", f"5\n{aws}"],
        ["search", "x", f"--limit=id\n{aws}"],  # the value alone, quoted with its escapes
        [f"--wait=key\t{aws}", "ls"],
    ]
    for args in cases:
        done = mixle_process("--shard", str(tmp_path / "shard"), *args)
        assert done.returncode == 2 and "REDACTED" in done.stderr, (args, done.stderr)
        assert aws not in done.stderr, done.stderr
        assert not any(line[:12] in done.stderr for line in body), done.stderr
    # the hint quotes a text that begins with "-" for the shell, where no rule reads it
    for text in ("- password: 'Summer2024!'", "--xpassword:\nSummer2024!"):
        done = mixle_process("--shard", str(tmp_path / "shard"), "search", text)
        assert "Summer2024" not in done.stderr and "hint:" in done.stderr, done.stderr
    # a message holding no secret is left as the parser wrote it, escapes and all
    plain = mixle_process("--shard", str(tmp_path / "shard"), "search", "x", "-k", "C:\\x41dir")
    assert "'C:\\\\x41dir' is not a valid int range" in plain.stderr, plain.stderr


def test_a_closed_stderr_does_not_change_the_exit_code(tmp_path: Path, mixle_bin: str) -> None:
    import subprocess

    done = subprocess.run(
        [mixle_bin, "--shard", str(tmp_path / "s"), "add", "a note"],
        stderr=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: __import__("os").close(2),  # what 2>&- does
    )
    assert done.returncode == 0 and done.stdout.strip()
    assert not done.stdout.startswith(b"note:")  # notes are dropped, not sent to stdout
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nSome words.\n")
    for extra in ([], ["--json"]):
        ingested = subprocess.run(
            [mixle_bin, "--shard", str(tmp_path / "new"), "ingest", str(notes), *extra],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            preexec_fn=lambda: __import__("os").close(2),
        )
        assert ingested.returncode == 0, extra
        assert not extra or json.loads(ingested.stdout)["files_unchanged"] == 1  # the second


def test_help_texts_escape_brackets_that_rich_would_take_for_markup() -> None:
    import re

    import typer

    tag = re.compile(r"(?<!\\)\[[a-z/][\w .=-]*\]")  # what rich reads as a style tag
    group = typer.main.get_command(build_app())
    texts = [group.help or ""]
    for command in group.commands.values():  # type: ignore[attr-defined]
        texts.append(command.help or "")
        texts.extend(getattr(param, "help", None) or "" for param in command.params)
    assert [t for t in texts if tag.search(t)] == []


@pytest.mark.parametrize(
    "args",
    [
        ["ask", "a", "b\u202eevil"],  # an extra argument, said back
        ["ls", "--x\u202ey"],  # an unknown option, said back
        ["ask", "a", "b\u2066x\u2069\u200f\u061c"],  # isolates and direction marks
    ],
)
def test_a_parser_message_shows_no_character_that_reorders_the_line(
    mixle_process: Callable[..., Any], args: list[str]
) -> None:
    """Every other message shows them replaced; the parser's two repeated them raw."""
    done = mixle_process(*args)
    assert done.returncode == 2 and "\ufffd" in done.stderr
    assert not any(mark in done.stderr for mark in "\u202e\u2066\u2069\u200f\u061c")


def test_parser_errors_read_like_every_other_error(mixle_process: Callable[..., Any]) -> None:
    done = mixle_process("search", "--jsno", "x")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: No such option: --jsno (Possible options: --json, --jsonl, --since)",
        "hint: see 'mixle search --help'",
    ]
    missing_value = mixle_process("ls", "--kind")
    assert missing_value.stderr.splitlines()[-1] == "hint: see 'mixle ls --help'"
    # no command was understood, or the option is mixle's own
    for args in (["serch", "status"], ["--shard", "ls"], ["--bogus", "ls"]):
        done = mixle_process(*args)
        assert done.stderr.splitlines()[-1] == "hint: see 'mixle --help'", args
    for option in ("--shard", "--as"):  # a global option after the command: say where it goes
        late = mixle_process("ls", option, "x")
        hint = f"hint: {option} goes before the command: mixle {option} VALUE ls ..."
        assert late.returncode == 2 and late.stderr.splitlines()[-1] == hint
    own = mixle_process("ingest-file", "notes.txt", "--as")  # ingest's own --as: the format
    assert own.stderr.splitlines()[-1] == "hint: see 'mixle ingest-file --help'"
    # no option is near it: perhaps the text searched for, which "--" lets begin with "-"
    for typed, shown in (
        ("--lf", "--lf"),
        ("-Dmode=release", "-Dmode=release"),
        ("--lf x", "'--lf x'"),
    ):
        text = mixle_process("search", typed)
        assert text.returncode == 2 and text.stderr.splitlines()[-1] == (
            "hint: see 'mixle search --help'; text that begins with '-' goes after '--', "
            f"options before it: mixle search [OPTIONS] -- {shown}"
        )
    words = mixle_process("search", "refund", "policy")  # the query's words given apart
    assert words.stderr.splitlines()[-1] == (
        'hint: give text of several words as one argument, in quotes: mixle search "..."'
    )
    assert mixle_process("ls", "x").stderr.splitlines()[-1] == "hint: see 'mixle ls --help'"
    files = mixle_process("verify", "a.md", "b.md").stderr.splitlines()[-1]
    assert files.endswith('in quotes, or one file: mixle verify "..."')


def test_the_hint_names_the_program_as_it_was_called(mixle_bin: str, tmp_path: Path) -> None:
    # under another name (a link, an alias) the hint cut the command's name short: "shness"
    import subprocess

    renamed = tmp_path / "mx"
    renamed.symlink_to(mixle_bin)
    late = subprocess.run(
        [str(renamed), "freshness", "--shard", "x"], capture_output=True, text=True
    )
    assert late.returncode == 2
    assert late.stderr.splitlines()[-1] == (
        "hint: --shard goes before the command: mx --shard VALUE freshness ..."
    )


def test_command_help_paragraphs_flow_to_the_terminal_width(
    mixle_process: Callable[..., Any],
) -> None:
    import os

    narrow = {**os.environ, "COLUMNS": "60", "NO_COLOR": "1"}
    lines = mixle_process("ingest", "--help", env=narrow).stdout.splitlines()
    assert max(map(len, lines)) <= 60  # nothing runs past a narrow terminal
    # on a wide one a description paragraph fills the width instead of breaking where the
    # docstring's lines do ("... their items" / "replaced in one atomic" in the source)
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    shown = mixle_process("ingest", "--help", env=env).stdout
    assert "have their items replaced in one atomic" in shown


def test_a_library_warning_quoting_a_secret_is_masked_on_stderr(
    tmp_path: Path, mixle_process: Callable[..., Any]
) -> None:
    """Library warnings are not composed by the command line; stderr's masking covers them."""
    token = "ghp_Zq8Xw2Rk5Vn1Lp7Tb4Hc9Md3Fs6Gy0Ja2KeQ1"
    shard, notes = tmp_path / token / "shard", tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nalpha\n")
    assert mixle_process("--shard", str(shard), "ingest", str(notes)).returncode == 0
    (shard / "index" / "sources.json").write_text("{broken")  # warned about, then rebuilt
    done = mixle_process("--shard", str(shard), "ingest", str(notes))
    assert "sources.json" in done.stderr and "REDACTED" in done.stderr
    assert token not in done.stderr


def test_a_debug_traceback_masks_a_secret_however_long_its_line(
    tmp_path: Path, mixle_process: Callable[..., Any]
) -> None:
    import os

    password = "Tr0ub4dor9xQzK"
    # wrapped at 80 columns, the line would break between "password =" and the value
    words = "aaaaaaaaaa bbbbbbbbbb cccccccccc"
    age = f"{words} password = {password}"
    done = mixle_process(
        *("--shard", str(tmp_path / "s"), "freshness", "--max-age", age),
        env={**os.environ, "MIXLE_DEBUG": "1", "COLUMNS": "80"},
    )
    assert "Traceback" in done.stderr and "REDACTED:sensitive_assignment" in done.stderr
    assert password not in done.stderr and password[:7] not in done.stderr
    # the details come on top of the message and the exit code a script relies on
    assert done.returncode == 2 and "\nerror: --max-age: bad duration" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["freshness", "--max-age"],
        ["add", "x", "--kind"],
        ["ls", "--kind"],
        ["search", "x", "--since"],
        ["retrieve", "x", "--weight"],
        ["ask", "x", "--answerer"],
        ["assemble-context", "x", "--format"],
        ["assemble-context", "x", "--shape"],
        ["merge", "a", "b", "--prefer"],
        ["--as", "ops", "add", "x", "--scope"],
        ["--as", "ops", "propose", "a", "--to"],
    ],
)
def test_a_quoted_value_with_a_tab_or_line_break_still_masks_its_secret(
    mixle: Callable[..., Any], args: list[str]
) -> None:
    mixle("add", "a note to search")
    password, key = "Tr0ub4dor9xQzK", "wJalrXUtnFEMI9K7MDENGbPxRfiCYzq8Lm3Tv2Ha"
    for value, secret in (
        (f"password =\t{password}", password),
        (f"aws_secret_access_key =\n{key}", key),
    ):
        result = mixle(*args, value)
        assert result.exit_code in (1, 2) and " =" in result.stderr, (args, result.stderr)
        assert secret not in result.stderr, (args, result.stderr)


def test_ctrl_c_while_the_app_is_built_is_an_interrupt_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # exit 1 would read as "found something" to a script around `mixle verify`
    import sys

    from mixle_cli import app as app_module

    def interrupted(*_: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(app_module, "build_app", interrupted)
    monkeypatch.setattr(app_module.stdout, "install", lambda: None)
    monkeypatch.setattr(sys, "argv", ["mixle", "ls"])
    monkeypatch.setattr(sys, "stderr", sys.stderr)  # main() wraps it: undone after the test
    with pytest.raises(SystemExit) as ended:
        app_module.main()
    assert ended.value.code == 130
    assert capsys.readouterr().err == "error: interrupted\n"


def launched(setup: str, *args: str) -> str:
    """A program that runs ``setup`` (Python), then ``mixle ARGS`` as the installed command
    starts it (``launch.main()``)."""
    return (
        f"import atexit, builtins, os, signal, sys\n{setup}"
        f"sys.argv = {['mixle', *args]!r}\n"
        "from mixle_cli import launch\n"
        "launch.main()\n"
    )


def interrupted_while_loading(*args: str, signal_name: str = "SIGINT") -> str:
    """A program that runs ``mixle ARGS`` and sends itself SIGINT (or ``signal_name``) while
    ``launch.main()`` imports the app."""
    setup = (
        "real = builtins.__import__\n"
        "def slow(name, *args, **kw):\n"
        "    if name == 'mixle_cli.app':\n"
        f"        os.kill(os.getpid(), signal.{signal_name})\n"
        "    return real(name, *args, **kw)\n"
        "builtins.__import__ = slow\n"
    )
    return launched(setup, *args)


def test_ctrl_c_while_the_program_loads_is_an_interrupt_not_a_traceback() -> None:
    import subprocess
    import sys

    from mixle_cli import launch

    code = interrupted_while_loading("ls")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (130, "error: interrupted\n")
    import tomllib  # and the installed command starts there, before the slow imports

    project = tomllib.loads((Path(launch.__file__).parents[1] / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["mixle"] == "mixle_cli.launch:main"


def test_sigterm_while_the_program_loads_ends_it_in_one_line_with_143() -> None:
    import subprocess
    import sys

    code = interrupted_while_loading("ls", signal_name="SIGTERM")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (143, "error: terminated\n")


def test_once_the_command_is_done_a_signal_cannot_unsay_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    # a SIGTERM or Ctrl-C while the interpreter shuts down killed it without a word after
    # `add` had saved and printed its id: a script retrying would add the item twice
    setup = (
        "atexit.register(lambda: os.kill(os.getpid(), signal.SIGTERM))\n"
        "atexit.register(lambda: os.kill(os.getpid(), signal.SIGINT))\n"
    )
    code = launched(setup, "--shard", str(tmp_path / "s"), "add", "a note")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.split()) == 1  # the id, and nothing said against it


# The secret rules, half imported when a Ctrl-C stopped their import: a masked write fails
_HALF_LOADED = "sys.modules['substrate.secrets'] = types.ModuleType('substrate.secrets')\n"


@pytest.mark.parametrize(
    "program",
    [
        # while the program loads (the signal handler of launch)
        "import signal, sys, types\n"
        "from mixle_cli.masked import MaskedStream\n"
        "from mixle_cli import launch\n"
        "sys.stderr = MaskedStream(sys.stderr)\n"
        + _HALF_LOADED
        + "launch._interrupted_while_loading(signal.SIGINT, None)\n",
        # as the command is built (the KeyboardInterrupt the app catches)
        "import sys, types\n"
        "import mixle_cli.app as app\n"
        "def stopped(*args, **kw):\n"
        "    " + _HALF_LOADED + "    raise KeyboardInterrupt\n"
        "app._run = stopped\n"
        "sys.argv = ['mixle', 'status']\n"
        "app.main()\n",
    ],
)
def test_ctrl_c_in_the_import_of_the_secret_rules_still_ends_as_an_interrupt(
    program: str,
) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (130, "error: interrupted\n")


def test_a_background_job_that_ignores_ctrl_c_keeps_ignoring_it() -> None:
    import signal
    import subprocess
    import sys

    # Ctrl-C reaches a job started with it ignored (a script's `mixle ... &`)
    code = interrupted_while_loading("redact", "-")
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=b"first line\n",
        capture_output=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert (done.returncode, done.stdout) == (0, b"first line\n"), done.stderr


def test_no_option_is_accepted_and_then_ignored(mixle: Callable[..., Any], tmp_path: Path) -> None:
    mixle("add", "refunds take 30 days")
    note = tmp_path / "note.txt"
    note.write_text("nothing secret\n")
    refused = {
        "--timeout applies": ("ask", "refunds", "--timeout", "5"),
        "--stdin-name names": ("scan-secrets", str(note), "--stdin-name", "x.env"),
        "--literal-paths and --jobs apply": ("scan-secrets", "--items", "--literal-paths"),
        "apply to files, not to --items": ("scan-secrets", "--items", "-j", "0"),
        "which --kind leaves out": (
            "retrieve",
            "refunds",
            "--kind",
            "text",
            "--weight",
            "record=2",
        ),
        "place once": ("--shard", str(tmp_path / "a"), "init", str(tmp_path / "b")),
        "--prefer must be": ("merge", "0123456789abcdef", "fedcba9876543210", "--prefer", "nope"),
    }
    for message, args in refused.items():
        result = mixle(*args)
        assert result.exit_code == 2 and message in result.stderr, args
    assert not (tmp_path / "b").exists()
    # taken, not refused: the prompt echoed back cites the instructions' example [2], which
    # names no source, so the answer is refused as uncited (1), not as a usage error (2)
    taken = mixle("ask", "refunds", "--answerer-cmd", "cat", "--timeout", "5")
    assert taken.exit_code == 1 and "[2] names no source" in taken.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("ls",),
        ("search", "refunds"),
        ("ingest-file", "rows.csv"),
        ("ingest-docs", "rows.csv"),
        ("ingest-traces", "rows.csv"),
    ],
)
def test_an_empty_source_is_a_usage_error(
    mixle: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str]
) -> None:
    # `ls --source "$DIR"` with DIR unset must not list the whole shard
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rows.csv").write_text("a,b\n1,2\n")
    mixle("add", "refunds take 30 days")
    result = mixle(*args, "--source", "")
    assert result.exit_code == 2 and "--source name is empty" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("command", "told"),
    [
        ("ingest-file", "use `mixle ingest - --as FORMAT`"),
        ("ingest-traces", "use `mixle ingest - --as FORMAT`"),
        ("ingest-artifacts", "reads a folder, not standard input"),
    ],
)
def test_a_dash_for_a_command_that_reads_no_stream_is_a_usage_error(
    mixle: Callable[..., Any], command: str, told: str
) -> None:
    result = mixle(command, "-", input="{}\n")
    assert result.exit_code == 2 and told in result.stderr


def test_running_out_of_memory_says_so() -> None:
    from mixle_cli.errors import OPERATIONAL, classify

    code, message, hint = classify(MemoryError())
    assert code == OPERATIONAL and "out of memory" in message and hint
    # scipy's library loaded by the first search's index build, under `ulimit -v`
    unmapped = ImportError("libopenblas.so: failed to map segment from shared object")
    assert classify(unmapped)[:2] == (OPERATIONAL, message)
    assert "internal error" in classify(ImportError("No module named 'x'"))[1]


def test_an_os_error_names_its_file_without_python_s_escapes() -> None:
    import errno
    import os

    from mixle_cli.errors import OPERATIONAL, classify

    name = os.fsdecode(b"/notes/caf\xe9.md")  # as Python holds a name that is not UTF-8
    error = FileNotFoundError(errno.ENOENT, "No such file or directory", name)
    code, message, _ = classify(error)
    assert code == OPERATIONAL and message.endswith("/notes/caf\\xe9.md: No such file or directory")
    assert "\udce9" not in message
    byte_named = classify(FileNotFoundError(errno.ENOENT, "gone", b"/notes/caf\xe9.md"))[1]
    assert "caf\\xe9.md" in byte_named


@pytest.mark.parametrize(
    ("message", "hint"),
    [
        ("cannot read /s/mixle.toml: Permission denied", "you may read the shard's files"),
        ("cannot write /s/items.jsonl: Permission denied", "you may write to the shard's folder"),
        ("cannot write /s/items.jsonl: No space left on device", "free some space"),
        # a path through a file: nothing to fix in mixle.toml
        ("cannot read /f/sub/mixle.toml: Not a directory", "a part of the shard's path is a file"),
    ],
)
def test_a_denied_read_is_not_hinted_as_a_write(message: str, hint: str) -> None:
    from mixle_cli.errors import classify
    from substrate.errors import ShardError

    assert hint in str(classify(ShardError(message))[2])


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_stderr_that_cannot_be_written_changes_no_exit_code_and_stops_no_write(
    tmp_path: Path, mixle_bin: str
) -> None:
    import subprocess

    def run(*args: str) -> int:
        with open("/dev/full", "w") as full:
            command = [mixle_bin, *args]
            return subprocess.run(command, stderr=full, stdout=subprocess.DEVNULL).returncode

    shard = str(tmp_path / "shard")
    # "note: no shard at ... yet" could not be printed: the item was not saved (exit 1)
    assert run("--shard", shard, "add", "kept") == 0
    assert run("--shard", shard, "ls", "--bogus") == 2
    assert run("--shard", str(tmp_path / "none"), "ls") == 3
    assert (tmp_path / "shard" / "items.jsonl").read_text().count('"kept"') == 1


def test_an_argument_that_is_not_utf8_is_a_usage_error(tmp_path: Path, mixle_bin: str) -> None:
    import os
    import subprocess

    shard = str(tmp_path / "shard").encode()
    for args in ([b"add", b"bad \xff"], [b"search", b"refund \xff"], [b"get", b"\xff"]):
        run = subprocess.run([mixle_bin.encode(), b"--shard", shard, *args], capture_output=True)
        assert run.returncode == 2, args  # add: "item ... cannot be saved"; search: U+FFFD
        assert b"argument 4 is not valid UTF-8: 'bad \\xff'" in run.stderr or args[0] != b"add"
    keyed = [mixle_bin.encode(), b"--shard", shard, b"search", b"q\xffAKIAIOSFODNN7ABCDEFG"]
    run = subprocess.run(keyed, capture_output=True)  # masked, though escaped after a letter
    assert run.returncode == 2 and b"q\\xff[REDACTED:aws_access_key]" in run.stderr
    with open(os.path.join(os.fsencode(tmp_path), b"caf\xe9.txt"), "w") as fh:
        fh.write("x\n")
    named = subprocess.run(  # a file name need not be UTF-8: the hook scans it
        [mixle_bin.encode(), b"scan-secrets", b"caf\xe9.txt"], capture_output=True, cwd=tmp_path
    )
    assert named.returncode == 0, named.stderr


def test_ctrl_c_stays_a_quiet_exit_until_the_command_starts(tmp_path: Path) -> None:
    import subprocess
    import sys

    # the command's modules (orjson among them) load after launch's own import: a Ctrl-C
    # raised inside a C extension's import could crash the interpreter
    setup = (
        "real = builtins.__import__\n"
        "def seen(name, *args, **kw):\n"
        "    if name == 'orjson':\n"
        "        sys.__stderr__.write(signal.getsignal(signal.SIGINT).__name__ + '\\n')\n"
        "    return real(name, *args, **kw)\n"
        "builtins.__import__ = seen\n"
    )
    code = launched(setup, "--shard", str(tmp_path / "s"), "add", "a note")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == "_interrupted_while_loading"


def test_mixle_alone_is_a_usage_error_written_to_stderr(
    mixle_process: Callable[..., Any],
) -> None:
    # the help is the usage error's text: a script capturing stdout must not get it as data
    alone = mixle_process()
    assert alone.returncode == 2 and alone.stdout == ""
    assert "Usage: mixle" in alone.stderr and "search" in alone.stderr
    asked = mixle_process("--help")  # asked for: data, on stdout
    assert asked.returncode == 0 and asked.stderr == ""
    assert "Usage: mixle" in asked.stdout and "search" in asked.stdout


def test_standard_input_open_for_writing_only_is_a_usage_error(
    tmp_path: Path, mixle_process: Callable[..., Any]
) -> None:
    import os

    # as nohup leaves it: a query or text read from it is bad usage, not an I/O failure
    for args in (["search"], ["rm", "-"]):  # a query, or ids
        with open(os.devnull, "w") as write_only:
            done = mixle_process("--shard", str(tmp_path / "s"), *args, stdin=write_only)
        assert done.returncode == 2 and "standard input cannot be read" in done.stderr, args


@pytest.mark.parametrize("columns", ["0", "1", "abc", "99999999", "9" * 30])
def test_a_columns_no_output_fits_in_is_read_as_none(
    mixle_process: Callable[..., subprocess.CompletedProcess[str]], columns: str
) -> None:
    env = {**os.environ, "COLUMNS": columns}
    helped = mixle_process("--help", env=env)
    assert helped.returncode == 0 and "Usage: mixle" in helped.stdout and "ingest" in helped.stdout
    bare = mixle_process(env=env)
    assert bare.returncode == 2 and "Usage: mixle" in bare.stderr


@pytest.mark.parametrize(
    ("command", "line"), [(name, line) for name, shown in EXAMPLES.items() for line, _ in shown]
)
def test_each_example_in_the_help_is_a_command_line_mixle_takes(
    mixle, command: str, line: str
) -> None:
    runs = [shlex.split(part.split(">")[0]) for part in line.split("|")]
    runs = [argv[1:] for argv in runs if argv[0] == "mixle"]
    assert any(command in argv for argv in runs)  # (in a pipe, perhaps after another)
    for argv in runs:  # an unknown option or a missing value fails before --help is read
        result = mixle(*argv, "--help")
        assert result.exit_code == 0, (line, result.stderr)


@pytest.mark.parametrize("command", sorted(EXAMPLES))
def test_a_command_with_examples_shows_them_at_the_end_of_its_help(mixle, command: str) -> None:
    shown = mixle(command, "--help").stdout
    assert "Examples:" in shown and EXAMPLES[command][0][0] in shown


def test_the_shell_completes_commands_and_their_options(
    mixle_process: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    # (what --show-completion prints for bash asks so, and reads the answer from stdout)
    def completed(words: str) -> list[str]:
        env = {**os.environ, "_MIXLE_COMPLETE": "complete_bash", "COMP_WORDS": words}
        env["COMP_CWORD"] = str(len(words.split()) - 1)
        done = mixle_process(env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert completed("mixle se") == ["search"]
    assert completed("mixle search --so") == ["--source"]
    assert "--kind" in completed("mixle --shard elsewhere ls --ki")


def test_a_library_that_refuses_to_load_is_said_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # under Python 3.11.2 the library refuses to load: the command printed a traceback and
    # exited 1, which says "found"
    from mixle_cli import launch

    monkeypatch.setitem(sys.modules, "substrate", None)  # (importing it raises ImportError)
    with pytest.raises(SystemExit) as stopped:
        launch.main()
    assert stopped.value.code == 3
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
