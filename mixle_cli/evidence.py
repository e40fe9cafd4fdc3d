"""How items are shown as evidence: a title, where they came from, and query checks."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer

from mixle_cli import output
from mixle_cli.errors import refused_now, usage
from mixle_cli.stdin import file_within, refuse_a_terminal, stdin_lines, stdin_text
from substrate import MODALITIES, SubstrateItem

# The provenance key naming the explicit command that read an item's file where its other
# fields do not: `ingest-docs` and `ingest-file` of a JSON Lines file record them alike
INGESTED_AS = "ingested_as"
DOCS = "docs"

# The kind filter of the commands that read: one kind, or several (a repeated option kept only
# its last value, silently).
KindsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--kind",
        "-K",
        help=f"Only items of this kind (repeat, or separate with commas, for several): "
        f"{', '.join(MODALITIES)}.",
    ),
]


def tag_filters(value: list[str] | None) -> list[str] | None:
    """``--tag`` filters as given, refused when one is empty or has white space around it: an
    unset variable (``--tag "$TAG"``) would otherwise match nothing, quietly."""
    for tag in value or ():
        if not tag.strip():
            usage("a --tag is empty (was a variable left unset?)")
        if tag != tag.strip():
            from substrate import safe_repr  # (the secret rules: only when one is refused)

            usage(f"the --tag {safe_repr(tag.strip())} has white space around it")
    return value


TagFilterOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--tag",
        "-t",
        help="Only items carrying this tag, in any case and accents aside, or one nested under "
        "it (project finds project/alpha); repeat: all of them.",
        callback=tag_filters,
    ),
]


def named_source(value: str | None) -> str | None:
    """``--source`` as given, refused when empty: an unset variable (``--source "$DIR"``)
    would otherwise choose every item, or name none."""
    if value is not None and not value.strip():
        usage("the --source name is empty (was a variable left unset?)")
    return value


def named_sources(values: list[str] | None) -> list[str] | None:
    """Each of the ``--source`` filters, checked as ``named_source`` checks one."""
    for value in values or ():
        named_source(value)
    return values


SourceOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--source",
        help="Only items from this file or folder or below it: a path on disk, or a "
        "source as results show it (docs/ or a.md); repeat for items from any of them.",
        callback=named_sources,
    ),
]


def source_prefixes(sources: list[str] | None) -> tuple[str, ...] | None:
    """The ``--source`` filters as the source filter takes them: each a source name as
    results show it (relative to the folder ingested), and the absolute path it names from
    here, there or gone (`ls --source old/ | mixle rm -` cleans up after a folder removed)."""
    if not sources:
        return None
    return tuple(
        name for source in sources for name in (source, os.path.realpath(Path(source).expanduser()))
    )


def query_text(text: str | None, what: str = "query") -> str:
    """The query as the commands use and echo it (``-`` or none given: read from standard
    input): never empty, secrets masked (a query is printed back in packets, receipts and
    --json output)."""
    return checked_query(piped(text, what), what)


def checked_query(text: str, what: str = "query") -> str:
    """``query_text`` for a query already read (``piped``)."""
    from substrate import safe_text

    if not text.strip():
        usage(f"the {what} is empty")
    return safe_text(text)


# A query, or a text to check, read from standard input: far more than any question or
# answer, and little enough that an endless stream is refused before it fills the memory
PIPED_TEXT_LIMIT = 1 << 20


def piped(text: str | None, what: str = "query") -> str:
    """``text``, or standard input (UTF-8, at most ``PIPED_TEXT_LIMIT`` bytes) when it is
    ``-``, or None and standard input is no terminal (``echo ... | mixle ask``); None at a
    terminal is bad usage, as reading it would wait for the user to type."""
    if text is None:
        refuse_a_terminal(f"give the {what}, or - to read it from standard input")
        text = "-"
    if text != "-":
        return text
    hint = "give a shorter text; to store a long one, use mixle add - or mixle ingest -"
    # the line break echo or a file ends with is not part of it
    return stdin_text(PIPED_TEXT_LIMIT, hint).rstrip("\r\n")


def text_or_file(text: str | None, what: str) -> str:
    """``piped``, or the text of the file ``text`` names (``mixle verify draft.md``): a
    text that is the path of a file is no text to check."""
    if text in (None, "-") or "\n" in text or not os.path.isfile(text):
        return piped(text, what)
    from substrate import shown_path

    data = file_within(text, PIPED_TEXT_LIMIT, "check it in parts")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # (an editor's byte-order mark)
    except UnicodeDecodeError as exc:
        usage(f"{shown_path(text)} is not valid UTF-8 (byte {exc.start})")


def listed_ids(values: list[str]) -> list[str]:
    """An argument callback for a list of item ids: ``-`` stands for the ids on standard
    input, one per line, either bare or as a JSON object's ``id`` (what ``ls --jsonl`` and
    ``search --jsonl`` print: ``mixle ls --tag old --jsonl | mixle rm -``); each id once."""
    ids = values
    if "-" in values:
        refused_now()  # a bad MIXLE_WAIT is told before standard input is waited for
        refuse_a_terminal("pipe the ids in (one per line, or JSON lines with an id), or give them")
        ids = [i for value in values for i in (_piped_ids() if value == "-" else [value])]
        if not ids:  # a listing that found nothing: nothing to do (as xargs -r), and said so
            output.note("note: standard input held no item id")
    return list(dict.fromkeys(given_ids(ids)))  # each once, given or piped (as rm took them)


# The longest line of ids piped in: a JSON line of ``get --jsonl`` holds a whole item
_ID_LINE_LIMIT = 64 << 20


def _piped_ids() -> list[str]:
    """The ids read from standard input, a line at a time (a listing of a large shard holds
    far more than any query: only its ids are kept, each once): bare, as JSON strings (``jq
    .id`` without ``-r``) or as JSON objects' ``id``."""
    ids: dict[str, None] = {}
    lines = stdin_lines(_ID_LINE_LIMIT, "an item id, or a listing's JSON line")
    for number, raw in enumerate(lines, start=1):
        line = raw.removeprefix(b"\xef\xbb\xbf").strip()  # (a byte-order mark an editor wrote)
        if not line:
            continue
        if line[:1] not in (b"{", b"[", b'"'):
            ids[_decoded(line, number)] = None
            continue
        try:
            found = orjson.loads(line)
        except orjson.JSONDecodeError:
            found = None
        if isinstance(found, dict):
            found = found.get("id")
        if not isinstance(found, str):
            raise typer.BadParameter(
                f"standard input line {number}: a JSON line with no id (pipe the --jsonl "
                "output of a listing, one item per line, not its --json document)"
            )
        ids[found] = None
    return list(ids)


def _decoded(line: bytes, number: int) -> str:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise typer.BadParameter(f"standard input line {number} is not UTF-8") from exc
    if len(text.split()) != 1 or not text.isprintable():  # an id is one word: not a listing
        raise typer.BadParameter(f"standard input line {number} is not an item id")
    return text


def given_ids(values: Any) -> Any:
    """An argument callback: an empty item id (an unset variable) is bad usage, not an id
    that is not found; white space around one (a quoted ``" $ID"``) is no part of it, as
    on a line of standard input."""
    for value in [values] if isinstance(values, str) else values or ():
        if not value.strip():
            raise typer.BadParameter("an item id is empty (was a variable left unset?)")
    if isinstance(values, str):
        return values.strip()
    return None if values is None else [value.strip() for value in values]


def known_kind(kind: str | None) -> str | None:
    """The item kind ``kind`` names, in any case ("RECORD" as --tag takes "Ops"; None
    passes), else a usage error."""
    from substrate import MODALITIES, safe_repr

    if kind is None:
        return None
    if kind.lower() not in MODALITIES:
        usage(f"unknown kind {safe_repr(kind)}; expected one of {', '.join(MODALITIES)}")
    return kind.lower()


def known_kinds(values: list[str] | None, option: str = "--kind") -> tuple[str, ...] | None:
    """The kinds named by a repeatable, comma-separated option (None when it is not given),
    each checked by ``known_kind``."""
    if not values:
        return None
    kinds = [k.strip() for v in values for k in v.split(",") if k.strip()]
    if not kinds:  # an unset variable: nothing would match, silently
        usage(f"{option} names no kind")
    return tuple(dict.fromkeys(str(known_kind(kind)) for kind in kinds))


def item_title(item: SubstrateItem, width: int | None = None) -> str:
    """What every listing calls an item: its document's title and its section's heading path
    (``Runbook > Kafka > Brokers``), either alone, else the first words of its text (or
    payload), on one line. A title is whole (JSON keeps what the item holds) unless ``width``
    cuts it for a place on screen; the first words are at most ``width`` (else 100) cells."""
    title = item.payload.get("title")
    title = str(title).strip() if isinstance(title, str | int | float) else ""
    section = item.provenance.get("section")
    section = section.strip() if isinstance(section, str) else ""
    if title and section and section != title and not section.startswith(f"{title} > "):
        named = f"{title} > {section}"
    else:
        named = section or title
    if named:
        return output.first_line(named, width) if width else " ".join(named.split())
    words = item.text or (orjson.dumps(item.payload).decode() if item.payload else "")
    return output.first_line(words, width or _FIRST_WORDS)


# The most cells of an item's first words that name it where it has no title, and of a
# title shown in a listing's text (JSON gives it whole)
_FIRST_WORDS = 100


def shown_title(title: str) -> str:
    """``title`` (``item_title``) as a line of text shows it: cut to a listing's width."""
    return output.first_line(title, _FIRST_WORDS)


def where_text(entry: Mapping[str, Any], lines: Sequence[tuple[int, int]] = ()) -> str:
    """``source:start-end`` of a result or citation entry (``source:start`` for one line,
    ``source`` without lines, ``-`` without a place); ``lines``, when given, in place of the
    entry's own (``source:7-8, 12``: the lines an answer quotes)."""
    where, start, end = entry.get("source"), entry.get("line_start"), entry.get("line_end")
    if not where:
        return "-"
    where = output.one_line(str(where))
    if lines:
        return f"{where}:" + ", ".join(_span(first, last) for first, last in lines)
    if start is not None:
        return f"{where}:{_span(start, end if end is not None else start)}"
    return str(where)


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def passed_over_note(entries: list[dict[str, Any]]) -> None:
    """Say which notes the evidence held that were replaced by newer ones, where from
    (``passed_over_sources`` of an answer or a packet): they are not quoted nor packed."""
    if entries:
        sources = sorted({where_text(e) for e in entries})
        more = f" and {len(sources) - 3} more" if len(sources) > 3 else ""
        output.note(
            f"note: passed over notes replaced by newer ones: {', '.join(sources[:3])}{more}"
        )
