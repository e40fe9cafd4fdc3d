"""The ``mixle`` command: a thin Typer app over the ``substrate`` library.

Each module under ``mixle_cli.commands`` holds a ``COMMANDS`` table. A run imports only the
module of the command it runs: mixle is called from pre-commit hooks and shell loops, where
start-up time is paid on every call. ``--help`` and unknown commands load them all.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import logging
import os
import shlex
import sys
from collections.abc import Iterable, Sequence
from typing import Annotated

import typer

from mixle_cli import stdout
from mixle_cli.context import AppState
from mixle_cli.errors import (
    INTERRUPTED,
    PIPE_CLOSED,
    USAGE,
    classify,
    guarded,
    refuse_when_run,
    silence_output,
)
from mixle_cli.examples import epilog
from mixle_cli.hookargs import files_named_like_options
from mixle_cli.masked import MaskedStream

# Every command, under the module that defines it (tests check this against the modules).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "items": ("init", "add", "get", "ls", "rm", "status", "compact"),
    "ingest": ("ingest", "ingest-file", "ingest-docs", "ingest-artifacts", "ingest-traces"),
    "search": ("search", "reindex"),
    "retrieval": ("retrieve", "multihop", "assemble-context"),
    "answers": ("ask", "verify"),
    "secrets": ("scan-secrets",),
    "redact": ("redact",),
    "governance": (
        "publish",
        "history",
        "merge",
        "propose",
        "approve",
        "reject",
        "withdraw",
        "pending",
        "grant",
        "revoke",
        "approvers",
    ),
    "audit": ("audit", "freshness", "verify-lineage"),
}
_MODULE_OF = {command: module for module, names in COMMAND_MODULES.items() for command in names}
_GLOBAL_OPTIONS_WITH_VALUE = frozenset({"--shard", "--as", "--wait"})
_HELP_OPTIONS = ("-h", "--help")


def _version(value: bool) -> None:
    if value:
        from substrate import __version__, written_formats

        # written, not echoed: a reader that left (`| true`) is met at exit, as for any output
        sys.stdout.write(f"mixle {__version__} ({written_formats()})\n")
        raise typer.Exit()


def main_options(
    ctx: typer.Context,
    shard: Annotated[
        str | None,
        typer.Option(
            "--shard",
            envvar="MIXLE_SHARD",
            help="Shard directory. Default: $MIXLE_SHARD, the nearest .mixle/ above the "
            "working directory, or the per-user default shard. Only init, add, grant and the "
            "ingest commands create a shard that does not exist; other commands exit 3.",
            show_envvar=False,
        ),
    ] = None,
    team: Annotated[
        str | None,
        typer.Option(
            "--as",
            help="Read as this team: its own scope plus the shared scopes. "
            "Default: $MIXLE_TEAM, else \\[shard] team in mixle.toml, else every scope.",
        ),
    ] = None,
    wait: Annotated[
        str | None,
        typer.Option(
            "--wait",
            metavar="DURATION",
            help="How long to wait for another process writing the shard before giving up "
            "(exit 3): seconds, or with a unit (90s, 5m, 1h). Default: $MIXLE_WAIT, else for "
            "as long as it takes.",
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    if shard is not None and not shard.strip():
        # an unset variable in a script ("--shard $DIR") must not fall back to another shard
        given = ctx.get_parameter_source("shard")
        named = "MIXLE_SHARD" if given is not None and given.name == "ENVIRONMENT" else "--shard"
        raise typer.BadParameter("the shard path is empty", param_hint=named)
    seconds = _wait_seconds(wait, "--wait") if wait is not None else None
    refuse_when_run(None)
    try:
        if shard is None and os.environ.get("MIXLE_SHARD") == "":  # (click reads it as unset)
            raise typer.BadParameter(  # named as the variable: no --shard was given
                "it is set but empty; unset it to use the default shard",
                param_hint="MIXLE_SHARD",
            )
        if seconds is None:
            seconds = _wait_from_environment()
    except typer.BadParameter as exc:
        # refused when the command runs: its --help, asked for with the variable set so, is
        # still shown (the command's options are parsed after this)
        refuse_when_run(exc)
    from substrate import wait_for_locks_at_most

    wait_for_locks_at_most(seconds)
    ctx.obj = AppState(shard_option=shard, team_option=team, command=ctx.invoked_subcommand)
    ctx.call_on_close(ctx.obj.close)


def _wait_from_environment() -> float | None:
    """$MIXLE_WAIT's seconds, or None when it is unset. Read here rather than by the option,
    so that an error names the variable, and an empty one (``MIXLE_WAIT=$T`` with ``T``
    unset in a cron line) is refused rather than taken for no limit."""
    raw = os.environ.get("MIXLE_WAIT")
    if raw is None:
        return None
    if not raw.strip():
        raise typer.BadParameter(
            "it is empty; give a duration, or unset it to wait for as long as it takes",
            param_hint="MIXLE_WAIT",
        )
    return _wait_seconds(raw, "MIXLE_WAIT")


def _wait_seconds(given: str, named: str) -> float:
    """The seconds of a wait given as ``named`` (a bare number is seconds)."""
    from substrate import InvalidInputError, parse_duration

    try:
        return parse_duration(given)
    except InvalidInputError as exc:
        raise typer.BadParameter(str(exc), param_hint=named) from exc


def build_app(modules: Iterable[str] = COMMAND_MODULES) -> typer.Typer:
    """The ``mixle`` app with the commands of ``modules``, in the order of COMMAND_MODULES."""
    app = typer.Typer(
        name="mixle",
        help="A local knowledge substrate: ingest, search, retrieve and answer with citations.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,  # rich wraps lines before stderr masks secrets in them
        context_settings={"help_option_names": list(_HELP_OPTIONS)},
        add_completion=True,
    )
    app.callback()(main_options)
    wanted = set(modules)
    for name in COMMAND_MODULES:
        if name in wanted:
            module = importlib.import_module(f"mixle_cli.commands.{name}")
            for command, function in module.COMMANDS.items():
                help_text = reflowed(function.__doc__)
                app.command(command, help=help_text, epilog=epilog(command))(guarded(function))
    return app


def reflowed(doc: str | None) -> str | None:
    """A docstring with the line breaks inside its paragraphs removed: the help layout keeps
    them, which would break every line at the source's width, not the terminal's."""
    if doc is None:
        return None
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(p.split("\n")) for p in paragraphs)


def modules_for(argv: Sequence[str]) -> list[str]:
    """The command modules a run with these arguments needs: the command's own, none to
    print the version, or all (the help lists every command)."""
    word = _command_word(argv)
    module = _MODULE_OF.get(word or "")
    if module:
        return [module]
    if word is None and "--version" in argv and not set(_HELP_OPTIONS).intersection(argv):
        return []
    return list(COMMAND_MODULES)


def _command_word(argv: Sequence[str]) -> str | None:
    """The first word of ``argv`` that is not a global option or its value: the command."""
    skip_value = False
    for token in argv:
        if skip_value:
            skip_value = False
        elif token in _GLOBAL_OPTIONS_WITH_VALUE:
            skip_value = True
        elif not token.startswith("-"):
            return token
    return None


def __getattr__(name: str) -> typer.Typer:
    # ``mixle_cli.app.app``: the whole app, for tests and documentation tools.
    if name == "app":
        return build_app()
    raise AttributeError(f"module 'mixle_cli.app' has no attribute {name!r}")


def main() -> None:
    _usable_width()
    stdout.install()
    if sys.stderr is None:  # the caller closed it (2>&-): notes and warnings are dropped,
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - never to stdout
    sys.stderr = MaskedStream(sys.stderr)
    # The library reports through logging: warnings (a repaired torn write, an unreadable
    # cache) reach stderr as "warning: ..."; MIXLE_DEBUG=1 shows everything.
    debug = os.environ.get("MIXLE_DEBUG") == "1"
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="%(levelname)s: %(name)s: %(message)s" if debug else "warning: %(message)s",
    )
    try:
        sys.argv[1:] = files_named_like_options(sys.argv[1:], _command_word(sys.argv[1:]))
        code = _undecodable_argument() or _run(build_app(modules_for(sys.argv[1:])))
    except KeyboardInterrupt:  # before a command runs (its own handler says what was kept)
        # unmasked: the secret rules may be the import it stopped, half loaded
        print("error: interrupted", file=getattr(sys.stderr, "unmasked", sys.stderr))
        code = INTERRUPTED
    sys.exit(_flushed(code))


# Narrower than this, help and tables show only their frames (COLUMNS=1); wider, help is
# padded to gigabytes (or rich overflows): the width is read from the terminal instead, as
# for a COLUMNS that is no width at all
MIN_COLUMNS, MAX_COLUMNS = 20, 10_000


def _usable_width() -> None:
    """Drop a COLUMNS no output can be laid out in (``0``, ``1``, ``abc``, ``99999999``):
    help came out blank, or endless, and a usage error said nothing."""
    columns = os.environ.get("COLUMNS")
    if columns is None:
        return
    if not (columns.isdecimal() and MIN_COLUMNS <= int(columns) <= MAX_COLUMNS):
        del os.environ["COLUMNS"]


# commands whose arguments are file names, which need not be UTF-8 (Python keeps their bytes)
_FILE_COMMANDS = frozenset({"scan-secrets", "redact"})


def _undecodable_argument() -> int:
    """2, said, when an argument is not UTF-8 (Python keeps its bytes as lone surrogates):
    a query would be searched with U+FFFD in it, an item would fail to save, an id would be
    printed back with the escape."""
    if _command_word(sys.argv[1:]) in _FILE_COMMANDS:
        return 0
    for position, arg in enumerate(sys.argv[1:], 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            from substrate import reported_path

            shown = reported_path(arg)  # masked before the escape could glue a token on
            print(f"error: argument {position} is not valid UTF-8: '{shown}'", file=sys.stderr)
            print("hint: check the terminal's or the script's encoding", file=sys.stderr)
            return 2
    return 0


def _flushed(code: int) -> int:
    """``code``, once what is still buffered for standard output is written: a full disk or a
    reader gone at this point is reported as it is anywhere else, not as a traceback at exit."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError as exc:
        if code == 0 or isinstance(exc, BrokenPipeError):
            return _output_lost(exc)
        silence_output()  # the command's own failure was said already
    return code


def _output_lost(exc: OSError) -> int:
    """The exit code when output could not be written: 141 when the reader left, else the I/O
    error, said as any other; nothing more is written (it would fail again at exit)."""
    code = PIPE_CLOSED if isinstance(exc, BrokenPipeError) else _output_failed(exc)
    silence_output()
    return code


def _output_failed(exc: OSError) -> int:
    """Say that the output could not be written, as any I/O error is said."""
    code, message, _ = classify(exc)
    print(f"error: {message}", file=sys.stderr)
    return code


def _shows_help(argv: Sequence[str]) -> bool:
    return not argv or any(arg in _HELP_OPTIONS for arg in argv)


def _help_meets_closed_pipes_as_output_does() -> None:
    """Help is rendered by rich, which exits 1 when the reader of a pipe leaves early
    (``mixle --help | head -1``): 1 reads as "found something" to a script. Make it raise
    ``BrokenPipeError``, which ends the run with 141 like any other output."""
    from rich.console import Console

    from mixle_cli.output import broken_pipe

    Console.on_broken_pipe = broken_pipe  # type: ignore[method-assign,assignment]


# The argument parser's error class (typer's bundled click, or click itself).
_PARSER_ERROR: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


def _command_path(exc: Exception) -> str:
    """``mixle COMMAND`` for the command being parsed when ``exc`` was raised."""
    context = getattr(exc, "ctx", None)
    if context is not None:
        return str(context.command_path)
    # an option missing its value is raised before the command's context exists
    command = _command_word(sys.argv[1:])
    return f"mixle {command}" if command in _MODULE_OF else "mixle"


def _parser_hint(exc: Exception) -> str:
    """Where to look: the command's help, or, for a global option given after the command,
    where it goes."""
    option = getattr(exc, "option_name", None)
    command = _command_path(exc)
    told_with = _VARIABLE_OPTIONS.get(getattr(exc, "param_hint", None) or "")
    if told_with:  # a variable of the program's, told of with its option
        return f"see '{command.partition(' ')[0]} --help' ({told_with})"
    unknown = type(exc).__name__ == "NoSuchOption"  # not a command's own --as left without value
    program, _, subcommand = command.partition(" ")  # the program as it was called
    if unknown and option in _GLOBAL_OPTIONS_WITH_VALUE and subcommand:
        return f"{option} goes before the command: {program} {option} VALUE {subcommand} ..."
    near = set(getattr(exc, "possibilities", None) or ()) - {"--help"}
    if unknown and not near and subcommand in _TEXT_COMMANDS:  # "search --lf" meant the text
        option = option or ""
        typed = next((arg for arg in sys.argv[1:] if option and arg.startswith(option)), option)
        return (
            f"see '{command} --help'; text that begins with '-' goes after '--', "
            f"options before it: {command} [OPTIONS] -- {shlex.quote(typed)}"
        )
    if subcommand in _TEXT_COMMANDS and "unexpected extra argument" in str(exc):
        either = ", or one file" if subcommand == "verify" else ""  # (it reads a file too)
        return f'give text of several words as one argument, in quotes{either}: {command} "..."'
    return f"see '{command} --help'"


# The environment variables the program reads, and the option its help tells them with
_VARIABLE_OPTIONS = {"MIXLE_SHARD": "--shard", "MIXLE_WAIT": "--wait"}

# Commands whose argument is free text, which may begin with "-" ("--lf", "-Dmode=release")
_TEXT_COMMANDS = frozenset({"search", "ask", "verify", "retrieve", "multihop", "assemble-context"})


def _help_for_no_command(app: typer.Typer) -> int:
    """``mixle`` alone is a usage error: the help it prints is its message, so it goes to
    stderr (a script capturing stdout gets no text it did not ask for), with exit 2; ``mixle
    --help`` asked for it, and writes it to stdout (exit 0)."""
    with contextlib.redirect_stdout(sys.stderr):  # rich writes to whatever sys.stdout is
        app(["--help"], standalone_mode=False)
    return USAGE


def _completing() -> bool:
    """Whether the shell asks for completions (it runs the program with no argument and the
    words typed in variables, reading its answer from stdout)."""
    program = os.path.basename(sys.argv[0]).replace("-", "_").upper()
    return f"_{program}_COMPLETE" in os.environ


def _run(app: typer.Typer) -> int:
    """Run the app and return its exit code; the argument parser's errors are written as
    every other error is (``error:`` and a hint), with secrets in them masked."""
    if _shows_help(sys.argv[1:]):
        _help_meets_closed_pipes_as_output_does()
    try:
        if not sys.argv[1:] and not _completing():
            return _help_for_no_command(app)
        result = app(standalone_mode=False)
    except typer.Abort:
        print("aborted", file=sys.stderr)
        return 1
    except OSError as exc:  # help or the version into a closed pipe or stdout, a full disk
        return _output_lost(exc)
    except _PARSER_ERROR as exc:
        from mixle_cli.output import echoed
        from substrate import safe_echo

        typed = sys.argv[1:]
        # (the parser escapes control characters, not those that reorder what is shown)
        message = echoed(safe_echo(exc.format_message(), typed))  # type: ignore[attr-defined]
        if message.strip():
            hint = echoed(safe_echo(_parser_hint(exc), typed))  # it may quote what was typed
            print(f"error: {message}\nhint: {hint}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 2))
    return result if isinstance(result, int) else 0
