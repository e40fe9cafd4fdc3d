"""The one place that writes results: JSON and JSON Lines through orjson, text through rich.

stdout carries data only; progress, warnings, hints and errors go to stderr.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer

if TYPE_CHECKING:
    from rich.console import Console

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as one JSON document.")]
JsonlOpt = Annotated[
    bool, typer.Option("--jsonl", help="Print one JSON object per line (streamable).")
]
# Where writes go (``AppState.write_scope``).
WriterOpt = Annotated[
    str | None,
    typer.Option(
        "--by",
        help="Act as this name: a scope with approvers takes direct changes from them only "
        "(the name is checked, not recorded). Default: the team you read as, else your login "
        "name.",
    ),
]
# The scope a read command is narrowed to (search, retrieve, multihop, assemble-context, ask,
# verify): one the caller may read
ReadScopeOpt = Annotated[
    str | None, typer.Option("--scope", help="Only this scope (of those you may read).")
]
WriteScopeOpt = Annotated[
    str | None,
    typer.Option(
        "--scope",
        help="Scope of the new items (default: your team's; with no team, mixle.toml's "
        "default_scope, which is local unless set).",
    ),
]

_JSON_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


class Mode(StrEnum):
    TEXT = "text"
    JSON = "json"
    JSONL = "jsonl"


def mode(json: bool = False, jsonl: bool = False) -> Mode:
    if json and jsonl:
        raise typer.BadParameter("--json and --jsonl cannot be used together")
    return Mode.JSON if json else Mode.JSONL if jsonl else Mode.TEXT


# Control characters other than tab and newline: stored text may hold escape sequences that
# would clear the screen, retitle the window or hide what follows; and the bidirectional
# overrides and isolates, which make a terminal show what follows them reversed (a file name
# reading as another). Text output shows each as U+FFFD, which keeps positions in the text.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with terminal control characters shown as U+FFFD (tab and newline kept)."""
    return _CONTROL.sub("\ufffd", text)


# The marks that set a direction (left-to-right, right-to-left, Arabic letter): right-to-left
# text holds them, but in what was typed they can only make a message display out of order
_DIRECTION_MARKS = re.compile(r"[\u200e\u200f\u061c]")


def echoed(text: str) -> str:
    """``text``, a message repeating what was typed, ``printable`` and with its direction
    marks shown as U+FFFD."""
    return _DIRECTION_MARKS.sub("\ufffd", printable(text))


_LINE_BREAK = re.compile(r"[\n\r\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` for a place that holds one line (a file name in a listing): its line breaks
    shown as U+FFFD, so that a file named ``a\\nb.md`` cannot look like two lines of output."""
    return _LINE_BREAK.sub("\ufffd", text)


def _console(file: Any) -> Console:
    from rich.console import Console

    class PrintableConsole(Console):
        def print(self, *objects: Any, **kwargs: Any) -> None:
            shown = (printable(o) if isinstance(o, str) else o for o in objects)
            super().print(*shown, **kwargs)

    # (no emoji: rich reads ":rocket:" in a quote or a file's name as one, and output shows
    # what the shard holds)
    console = PrintableConsole(file=file, highlight=False, soft_wrap=True, emoji=False)
    console.on_broken_pipe = broken_pipe  # type: ignore[method-assign]
    return console


def stdout() -> Console:
    # Built per call so that it writes to whatever sys.stdout is now (tests swap it); rich is
    # imported only by commands that render text, which keeps --json runs and hooks quick.
    return _console(sys.stdout)


def broken_pipe(*_: object) -> None:
    # rich would exit 1 ("nothing found"), on stderr too (`2>&1 | head -1`); let
    # errors.guarded end it like any closed pipe
    raise BrokenPipeError


def stderr() -> Console:
    return _console(sys.stderr)


def emit_bytes(data: bytes) -> None:
    """Raw bytes on stdout (a text-only stream gets U+FFFD for bytes that are not UTF-8)."""
    _emit([data])


def _emit(chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` after any text written before them, then flush once (the stream
    passes them on as its buffer fills: a reader that left is met early; see stdout.py)."""
    out = sys.stdout
    out.flush()
    buffer = getattr(out, "buffer", None)
    for chunk in chunks:
        if buffer is not None:
            buffer.write(chunk)
        else:
            out.write(chunk.decode("utf-8", "replace"))
    (buffer if buffer is not None else out).flush()


def emit_json(obj: Any) -> None:
    emit_bytes(_dumps(obj, _JSON_OPTIONS | orjson.OPT_INDENT_2) + b"\n")


def emit_jsonl(objs: Iterable[Any]) -> None:
    _emit(_dumps(obj, _JSON_OPTIONS) + b"\n" for obj in objs)


def with_id(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with ``id`` first, beside the library's ``item_id``: in every command's JSON
    an item is named ``id`` (``mixle freshness --json | jq -r '.stale[].id' | xargs mixle rm``)."""
    return {"id": entry["item_id"], **entry}


def _dumps(obj: Any, option: int) -> bytes:
    try:
        return orjson.dumps(obj, option=option)
    except orjson.JSONEncodeError:
        # a string that is not UTF-8: an argument of bytes the locale could not decode (Latin-1
        # text through xargs) comes in with lone surrogates, which JSON cannot carry
        return orjson.dumps(_valid_utf8(obj), option=option)


_SURROGATE = re.compile("[\ud800-\udfff]")  # an undecodable byte each, as Python reads them


def _valid_utf8(value: Any) -> Any:
    """``value`` with each string's undecodable parts shown as U+FFFD (dicts, lists, tuples)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_valid_utf8(k): _valid_utf8(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_valid_utf8(v) for v in value]
    return value


def emit_text(text: str) -> None:
    """Plain text on stdout, never interpreted as markup."""
    text = printable(text)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


def note_parts(*parts: str) -> None:
    """A note made of parts joined by ": " (a status, a file name, a message), each masked on
    its own; the line then skips stderr's masking of whole lines (see ``MaskedStream``)."""
    from substrate import safe_text

    # one line per note: a line break in a part (a file name may hold one) is shown escaped,
    # so that no name can pass for another line of the report
    line = ": ".join(safe_text(part).replace("\n", "\\n").replace("\r", "\\r") for part in parts)
    _note_line(getattr(sys.stderr, "unmasked", sys.stderr), line)


def note(message: str) -> None:
    """A hint or warning on stderr."""
    _note_line(sys.stderr, message)


def _note_line(stream: Any, message: str) -> None:
    """``message`` on ``stream`` as it is written (control characters shown as U+FFFD). Not
    through rich: importing it for one line was an eighth of a clean pre-commit hook's time,
    whose whole output is such a note (and rich would read ":fire:" in a name as an emoji)."""
    stream.write(printable(message) + "\n")
    stream.flush()


def table(
    columns: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str | None = None
) -> None:
    """A table whose last column is cut to the terminal width; the others are never cut.

    Written to a pipe or a file (cron mail, ``| grep``), it is plain columns two spaces apart,
    with no rules and no trailing spaces, and nothing is cut: there is no terminal width to
    fit, and a cut path or reason would be lost for good. On a terminal too narrow for the
    uncut columns, each row is a block of its cells, one a line, named by their columns (a
    table wider than the screen wrapped into a tangle of rules).
    """
    from rich.cells import cell_len

    out = stdout()
    # one line per cell, white space collapsed, before widths are measured: a tab or newline
    # in a tag would otherwise be measured as nothing and then widen or split its row; a line
    # break shows as search shows it in a name (``one_line``), not as a space it is not
    cells = [
        ["" if v is None else " ".join(printable(one_line(str(v))).split()) for v in row]
        for row in rows
    ]
    # terminal cells, not characters: a CJK character takes two
    widths = [max([cell_len(c)] + [cell_len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    if not _a_terminal(out):
        emit_text(_columns(columns, cells, widths, title, room=None))
        return
    from rich.table import Table
    from rich.text import Text

    frame = 3 * (len(columns) - 1) + 2
    room = out.width - sum(widths[:-1]) - frame
    if room < 10:  # rich would drop whole columns: every cell is shown, a row at a time
        out.print(Text(_blocks(columns, cells, title)), soft_wrap=True)
        return
    if len(cells) > FRAMED_ROWS:  # rich lays out each row of a framed table: seconds a 1,000
        plain_room = out.width - sum(widths[:-1]) - 2 * (len(columns) - 1) - 1
        emit_text(_columns(columns, cells, widths, title, room=plain_room))
        return
    grid = Table(title=title, show_edge=False, header_style="bold")
    for column, width in zip(columns[:-1], widths, strict=False):
        grid.add_column(column, no_wrap=True, min_width=width)
    grid.add_column(columns[-1], no_wrap=True)
    for row in cells:  # Text: stored text is shown as it is, never read as rich markup
        grid.add_row(*map(Text, [*row[:-1], first_line(row[-1], room)]))
    out.print(grid)


# Up to this many rows, a table on a terminal is framed; a longer one (a whole shard's
# listing) is written as plain columns, as to a pipe, its last column cut to the width
FRAMED_ROWS = 1000


def _columns(
    columns: Sequence[str],
    cells: list[list[str]],
    widths: list[int],
    title: str | None,
    *,
    room: int | None,
) -> str:
    """The rows as plain columns two spaces apart; the last cut to ``room`` cells (None:
    never)."""
    from rich.cells import cell_len

    lines = [title] if title else []
    for row in [list(columns), *cells]:
        padded = [c + " " * (w - cell_len(c)) for c, w in zip(row[:-1], widths, strict=False)]
        last = row[-1] if room is None else first_line(row[-1], room)
        lines.append("  ".join([*padded, last]).rstrip())
    return "\n".join(lines)


def _blocks(columns: Sequence[str], cells: list[list[str]], title: str | None) -> str:
    """Each row as lines of ``column  cell``, the rows a blank line apart."""
    width = max(map(len, columns))
    blocks = [title] if title else []
    for row in cells:
        lines = (f"{c:<{width}}  {v}".rstrip() for c, v in zip(columns, row, strict=True))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _a_terminal(console: Console) -> bool:
    """Whether ``console`` writes to a terminal. Not rich's ``is_terminal``, which
    FORCE_COLOR makes true in a pipe as well: that asks for colour, not for the terminal's
    layout (cut to 80 columns, framed), which scripts reading the pipe would then parse."""
    isatty = getattr(console.file, "isatty", None)
    try:
        return bool(console.is_terminal and isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False


def quiet_waits(ctx: typer.Context, value: bool) -> bool:
    """A ``--quiet`` option's callback: with it, a wait for another writer goes unsaid, for
    the command's run (a cron run overlapping another mailed its warning each time, and then
    did its work)."""
    if value:
        locking = logging.getLogger("substrate.locking")
        before = locking.level
        locking.setLevel(logging.ERROR)
        ctx.call_on_close(lambda: locking.setLevel(before))
    return value


@contextmanager
def working(what: str, *, shown: bool = True) -> Iterator[None]:
    """A spinner on stderr saying ``what`` is under way while the block runs, when stderr is
    a terminal and the command ``shown`` its progress (not under --json, --jsonl or --quiet);
    a sweep of a large shard takes seconds, with nothing to show until it ends. It is gone
    when the block ends."""
    console = stderr()
    if not shown or not _a_terminal(console):
        yield
        return
    from rich.live import Live
    from rich.spinner import Spinner

    spinner = Spinner("dots", printable(what))
    # (stdout left alone: what a command prints there is its output, not the spinner's)
    with Live(spinner, console=console, transient=True, redirect_stdout=False):
        yield


def first_line(text: str, width: int = 80) -> str:
    """The text on one line, cut to ``width`` terminal cells."""
    from rich.cells import cell_len, set_cell_size

    line = " ".join(text.split())
    return line if cell_len(line) <= width else set_cell_size(line, width - 1) + "…"


def when(timestamp: object) -> str:
    """A time as ``YYYY-MM-DD HH:MM UTC`` (said: in India a 09:45 read as local time was 15:15
    ago); "" for none, or for what is no time (a record edited by hand)."""
    if isinstance(timestamp, bool) or not isinstance(timestamp, int | float) or not timestamp:
        return ""
    try:
        return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):  # out of range, or NaN
        return ""


def score_option(value: float | None) -> float | None:
    """Callback for score thresholds: the range check lets NaN through (every comparison with
    it is false), which would silently leave out every result."""
    if value is not None and value != value:
        raise typer.BadParameter("must be a number between 0 and 1")
    return value
