"""The one place that turns failures into messages and exit codes (see docs/exit-codes.md)."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any, NoReturn, ParamSpec, TypeVar

import typer

from substrate import (
    DAMAGED_HEADER,
    AccessDeniedError,
    CorruptShardError,
    InvalidInputError,
    NotFoundError,
    ShardError,
    ShardFormatError,
    SubstrateError,
)

OK = 0
FOUND = 1  # the command ran and found what the caller asked to be told about
USAGE = 2
OPERATIONAL = 3
INTERRUPTED = 130
PIPE_CLOSED = 141  # 128 + SIGPIPE: the reader of our output went away
TERMINATED = 143  # 128 + SIGTERM

P = ParamSpec("P")
R = TypeVar("R")


# The most characters of an error message said: enough for any path or list of ids typed
ERROR_CHARS = 2000


def fail(message: str, code: int, hint: str | None = None) -> NoReturn:
    """Print ``error: message`` (and a hint) on stderr and exit with ``code``.

    Messages often repeat what the user typed (an id, a kind, a path), so anything in them that
    looks like a secret is masked first, and control characters and line breaks are shown as
    U+FFFD: an id holding a newline must not make the error two lines, nor an escape sequence
    change the terminal.
    """
    from mixle_cli.output import one_line, printable
    from substrate import safe_text

    shown = one_line(printable(safe_text(message)))  # masked whole: a cut could halve a secret
    if len(shown) > ERROR_CHARS:  # an id of megabytes piped in is not said back in full
        shown = f"{shown[:ERROR_CHARS]}… ({len(shown) - ERROR_CHARS} more characters)"
    sys.stderr.write(f"error: {shown}\n")
    if hint:
        sys.stderr.write(f"hint: {hint}\n")
    sys.stderr.flush()
    raise typer.Exit(code)


def classify(exc: BaseException) -> tuple[int, str, str | None]:
    """Exit code, message and hint for an exception raised under a command."""
    if isinstance(exc, Terminated):
        return TERMINATED, "terminated; everything saved before it is intact", None
    if isinstance(exc, KeyboardInterrupt):
        return INTERRUPTED, "interrupted; everything saved before the interruption is intact", None
    if isinstance(exc, NotFoundError | AccessDeniedError):
        return FOUND, str(exc), None
    if isinstance(exc, InvalidInputError):
        return USAGE, str(exc), None
    if isinstance(exc, ShardError):
        return OPERATIONAL, str(exc), _shard_hint(exc)
    if isinstance(exc, SubstrateError):
        return OPERATIONAL, str(exc), None
    if isinstance(exc, OSError):
        from substrate import shown_path  # a name's bytes that are not UTF-8 written \xNN

        where = f" {shown_path(os.fsdecode(exc.filename))}" if exc.filename else ""
        return OPERATIONAL, f"I/O error{where}: {exc.strerror or exc}", None
    if isinstance(exc, MemoryError) or _a_library_not_mapped(exc):
        return (
            OPERATIONAL,
            "out of memory: the work is too large for the memory this process may use",
            "give it more memory (a ulimit -v, a container's limit), or split the input; "
            "nothing acknowledged was lost",
        )
    # Unexpected: say what kind of failure without echoing data that might be sensitive.
    return OPERATIONAL, f"internal error ({type(exc).__name__})", "set MIXLE_DEBUG=1 for details"


# What a failed read or write says of its cause (``audit`` helps with neither).
_DENIED = ("Permission denied", "Read-only file system", "Operation not permitted")
_FULL = ("No space left on device", "Disk quota exceeded")


def denied(message: str) -> bool:
    """Whether an error's ``message`` tells of a permission refused or a read-only file
    system: what running the command again would meet again."""
    return any(cause in message for cause in _DENIED)


def _a_library_not_mapped(exc: BaseException) -> bool:
    """Whether ``exc`` is a compiled library that could not be loaded for want of memory (the
    search index's first build imports scipy's, under a limit on the process's memory)."""
    said = str(exc)
    return isinstance(exc, ImportError) and (
        "failed to map segment" in said or "Cannot allocate memory" in said
    )


def _shard_hint(exc: ShardError) -> str | None:
    from substrate import LockBusy, SharedFolderError

    if isinstance(exc, LockBusy):  # (only a wait --wait limits ends so)
        return "another mixle is writing the shard: run again later, or give a longer --wait"
    if isinstance(exc, SharedFolderError):  # (it says where to keep the shard instead)
        return None
    message = str(exc)
    if message.endswith("it is not writable"):  # made read-only, perhaps on purpose
        return "nothing was changed; make the file writable to change it"
    if denied(message):
        if message.startswith("cannot read"):
            return "check that you may read the shard's files (or use another with --shard)"
        if message.startswith("cannot use"):  # (the library knows not which of the two)
            return (
                "check that you may read and write the shard's files (or use another with --shard)"
            )
        return "check that you may write to the shard's folder (or use another with --shard)"
    if any(cause in message for cause in _FULL):
        return "free some space; nothing acknowledged before was lost"
    if "File too large" in message:  # a size limit: ulimit -f, or the file system's largest file
        return "a file size limit was reached (ulimit -f?); nothing acknowledged before was lost"
    said_what_to_do = ("restore", "remove it", "did you mean", "--shard", "rename the folder")
    if any(said in message for said in said_what_to_do):
        return None  # the message says what to do
    if isinstance(exc, ShardFormatError):
        return None  # the message says what to do
    if message.startswith("cannot create shard"):  # no shard yet: nothing for audit to check
        return "choose a folder that can be created (or use another with --shard)"
    if "Not a directory" in message:  # the shard's path runs through a file
        return "a part of the shard's path is a file, not a folder: choose another --shard"
    if "mixle.toml" in message and not message.startswith("cannot write"):
        # every command reads the settings: `audit` would fail alike
        return "fix mixle.toml by hand (docs/formats.md describes it)"
    if isinstance(exc, CorruptShardError) and DAMAGED_HEADER in message:
        return (
            "delete line 1 of items.jsonl (the header: compact writes a new one) and "
            "index/log-end.json, then run `mixle compact`: no item is lost"
        )
    if isinstance(exc, CorruptShardError):  # `audit` would only repeat the line
        return (
            "fix or remove that line by hand (see docs/formats.md), then run `mixle compact` "
            "(having removed or shortened a line, delete index/log-end.json first, and give "
            "compact --accept-loss: that item is gone)"
        )
    return "run `mixle audit` to check the shard"


def silence_output() -> None:
    """Point standard output and error at /dev/null: after the reader left (or the disk
    filled), what is still buffered must not fail again, with a traceback, at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            os.dup2(devnull, fd)
    os.close(devnull)


def _saved_before(args: tuple[object, ...], kwargs: dict[str, object]) -> bool:
    """Whether the interrupted command had already saved a change to its shard (a script that
    runs `mixle add` again after exit 130 would add the item twice)."""
    for value in (*args, *kwargs.values()):
        if hasattr(value, "find_root"):  # the parser's context (a class of typer's own click)
            return bool(getattr(value.find_root().obj, "saved", False))
    return False


_ctrl_c_when_running: list[Any] = []  # the handler Ctrl-C gets back when a command starts


def ctrl_c_once_running(handler: Any) -> None:
    """Give Ctrl-C ``handler`` back (it raises ``KeyboardInterrupt``) when a command starts:
    until then ``launch`` ends the process quietly on one."""
    _ctrl_c_when_running[:] = [handler]


_sigterm_when_running: list[Any] = []  # SIGTERM's default, given back when a command starts


def sigterm_once_running() -> None:
    """Give SIGTERM its default back when a command starts (where the command's own handler
    takes it over): until then ``launch`` ends the process with one line on one."""
    _sigterm_when_running[:] = [signal.SIG_DFL]


def _running() -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    if _ctrl_c_when_running:
        signal.signal(signal.SIGINT, _ctrl_c_when_running.pop())
    if _sigterm_when_running:
        signal.signal(signal.SIGTERM, _sigterm_when_running.pop())


@contextlib.contextmanager
def sigterm_handled(handler: Any, *, over: tuple[Any, ...] = (signal.SIG_DFL,)) -> Iterator[None]:
    """For the block, SIGTERM goes to ``handler`` in place of one of the handlers ``over``,
    restored after it. Not where a host set its own handler or ignores it, nor off the main
    thread."""
    previous = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is not threading.main_thread() or previous not in over:
        yield
        return
    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    """For the block (a command's run), SIGTERM raises ``Terminated``."""
    _terminating.clear()
    with sigterm_handled(terminate):
        yield


class Terminated(KeyboardInterrupt):
    """SIGTERM (a ``timeout``, systemd, ``kill``) stopping a command: it unwinds as a Ctrl-C
    does (what was saved is kept, a write under way is not acknowledged), and ends with one
    line and exit 143 rather than in silence."""


def terminate(signum: int, frame: Any) -> None:
    """SIGTERM's handler while a command runs: raise ``Terminated``; a second one
    (``second_sigterm``), while the first unwinds, ends the process at once (an atomic write
    leaves nothing half done)."""
    first = not _terminating
    if second_sigterm():
        os._exit(TERMINATED)
    if first:
        raise Terminated


def second_sigterm() -> bool:
    """Note a SIGTERM, and say whether it is a second stop, which ends the process at once:
    not the first, nor the first sent again within ``ECHO_S`` (``timeout`` and systemd
    signal the command, then its whole process group, so a command gets two at once)."""
    now = time.monotonic()
    if not _terminating:
        _terminating.append(now)
        return False
    return now - _terminating[0] >= ECHO_S


ECHO_S = 1.0
_terminating: list[float] = []  # when the SIGTERM stopping the command came, once one did


_refused: list[typer.BadParameter] = []  # the environment's fault, told when the command runs


def refuse_when_run(error: typer.BadParameter | None) -> None:
    """Have the command about to run (not its ``--help``) refused with ``error`` (None: not
    refused)."""
    _refused[:] = [] if error is None else [error]


def refused_now() -> None:
    """Raise the refusal ``refuse_when_run`` set, if any: as the command starts, or before an
    argument's callback reads standard input for it."""
    if _refused:
        raise _refused.pop()


def guarded(fn: Callable[P, R]) -> Callable[P, R]:
    """Run a command, mapping library exceptions to messages and exit codes."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        refused_now()
        _running()
        with _stopped_by_sigterm():
            return _mapped(fn, *args, **kwargs)

    return wrapper


def _mapped(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn``'s result, its exceptions mapped to messages and exit codes (``guarded``)."""
    try:
        return fn(*args, **kwargs)
    except (typer.Exit, typer.Abort, typer.BadParameter):
        raise
    except BrokenPipeError:
        # the reader went away (`mixle ls --jsonl | head -1`): stop quietly, as a process
        # killed by SIGPIPE does
        silence_output()
        raise SystemExit(PIPE_CLOSED) from None
    except BaseException as exc:  # noqa: BLE001 - this is the one place that maps them
        if isinstance(exc, SystemExit):
            raise
        if os.environ.get("MIXLE_DEBUG") == "1":  # the details asked for, then the
            traceback.print_exc()  # message and the documented exit code as ever
        code, message, hint = classify(exc)
        if _saved_before(args, kwargs):  # a retry would make the change twice
            hint = "check what was saved with `mixle ls` or `mixle get` before running it again"
            if isinstance(exc, KeyboardInterrupt):
                stop = "terminated" if isinstance(exc, Terminated) else "interrupted"
                message = f"{stop} after the change was saved; its report may be incomplete"
            else:
                message += " (after the change was saved)"
        fail(message, code, hint)


def usage(message: str) -> NoReturn:
    fail(message, USAGE)
