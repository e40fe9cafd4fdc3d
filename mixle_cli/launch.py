"""The ``mixle`` command's entry point.

Loading the program (typer, rich, the library, the command's module) takes a noticeable
moment. A Ctrl-C in it would print a traceback of whatever import it stopped and exit -2, or
crash inside a C extension's; it ends the run as an interrupt anywhere later does instead:
one line, exit 130. Nothing has been read or written by then.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType

_INTERRUPTED = 130  # mixle_cli.errors.INTERRUPTED, not imported: that is what takes time
_TERMINATED = 143  # mixle_cli.errors.TERMINATED
_OPERATIONAL = 3  # mixle_cli.errors.OPERATIONAL


def main() -> None:
    try:
        import substrate  # noqa: F401 - (cheap) refuses a Python that would let secrets through
    except ImportError as exc:  # said in one line, as an operational error, not a traceback
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(_OPERATIONAL)
    inherited = signal.getsignal(signal.SIGINT)
    # a SIGTERM (a timeout, a supervisor) while loading ends the run as one later does, in
    # one line with its exit code, rather than in silence: the command puts it back as it
    # starts, for its own handler
    terminate = signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    if terminate:
        signal.signal(signal.SIGTERM, _terminated_while_loading)
    if inherited is signal.SIG_IGN:  # a background job of a script: Ctrl-C is not for it
        from mixle_cli.app import main as run
    else:
        signal.signal(signal.SIGINT, _interrupted_while_loading)
        from mixle_cli.app import main as run
        from mixle_cli.errors import ctrl_c_once_running

        # the command's modules load next (orjson among them): a KeyboardInterrupt raised
        # inside a C extension's import can crash the interpreter, so Ctrl-C stays a quiet
        # exit until the command starts
        ctrl_c_once_running(inherited)
    if terminate:
        from mixle_cli.errors import sigterm_once_running

        sigterm_once_running()
    try:
        run()
    finally:
        _past_stopping()


def _past_stopping() -> None:
    """Ignore Ctrl-C and SIGTERM once the command is done and its output written: one while
    the interpreter shuts down killed it with no word, and a script reading the exit code took
    a change saved and acknowledged for one that failed (and made it twice)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)


def _interrupted_while_loading(signum: int, frame: FrameType | None) -> None:
    _stop_while_loading(b"error: interrupted\n", _INTERRUPTED)


def _terminated_while_loading(signum: int, frame: FrameType | None) -> None:
    _stop_while_loading(b"error: terminated\n", _TERMINATED)


def _stop_while_loading(message: bytes, code: int) -> None:
    # to the descriptor, past sys.stderr: its masking loads the secret rules on a first
    # write, and the import this signal stopped may be theirs, half done
    with contextlib.suppress(OSError, ValueError):  # closed by the caller (2>&-)
        if sys.stderr is not None:
            sys.stderr.flush()  # what was said before comes first
        os.write(2, message)
    os._exit(code)
