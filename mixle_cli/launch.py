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


def main() -> None:
    inherited = signal.getsignal(signal.SIGINT)
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
    run()


def _interrupted_while_loading(signum: int, frame: FrameType | None) -> None:
    # to the descriptor, past sys.stderr: its masking loads the secret rules on a first
    # write, and the import this signal stopped may be theirs, half done
    with contextlib.suppress(OSError, ValueError):  # closed by the caller (2>&-)
        if sys.stderr is not None:
            sys.stderr.flush()  # what was said before comes first
        os.write(2, b"error: interrupted\n")
    os._exit(_INTERRUPTED)
