"""Shard and item commands: init, add, get, ls, rm, status, compact."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from json import loads as json_loads
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import orjson
import typer

from mixle_cli import output
from mixle_cli.context import LINK_HINT, AppState, broken_link, check_tags, state
from mixle_cli.errors import FOUND, OPERATIONAL, fail, usage
from mixle_cli.evidence import (
    KindsOpt,
    SourceOpt,
    TagFilterOpt,
    item_title,
    known_kind,
    known_kinds,
    listed_ids,
    shown_title,
    source_prefixes,
)
from mixle_cli.output import JsonlOpt, JsonOpt, Mode, WriterOpt, WriteScopeOpt
from mixle_cli.stdin import stdin_piped, stdin_text
from substrate import (
    DEFAULT_MAX_FILE_SIZE,
    FIELD_ORDER,
    HEADER_LOST,
    MODALITIES,
    OLDER_COPY,
    SHARD_DIR,
    STORABLE_INTS,
    SubstrateItem,
    init_shard,
    nearest_shard,
    reader_view,
    safe_text,
    shard_status,
)

if TYPE_CHECKING:
    from rich.console import Console

    from substrate import Substrate

KindOpt = Annotated[
    str | None, typer.Option("--kind", "-K", help=f"Item kind: {', '.join(MODALITIES)}.")
]
ScopeOpt = Annotated[str | None, typer.Option("--scope", help="Only items of this scope.")]
TagOpt = Annotated[
    list[str] | None, typer.Option("--tag", "-t", help="A tag (repeat for several).")
]


def item_summary(item: SubstrateItem) -> dict[str, Any]:
    """The short form of an item used by listings."""
    from substrate import shown_path_of, shown_source

    return {
        "id": item.id,
        "kind": item.kind,
        "scope": item.scope,
        "tags": item.tags,
        "title": item_title(item),
        "source": shown_source(item),  # a secret in its name masked, as results show it
        # the whole path, as search gives it: two files of one name told apart
        "path": shown_path_of(item),
        "created_at": item.created_at,
    }


def _working_folder() -> Path:
    """The working folder, or a failure saying it was removed (the OS says only "No such
    file or directory")."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        fail(
            "the current folder no longer exists, so no shard can be made in it",
            OPERATIONAL,
            "cd to a folder, or give the shard's place: mixle init PATH",
        )


def init(
    ctx: typer.Context,
    path: Annotated[
        Path | None,
        typer.Argument(
            help="Folder to create the shard in (as PATH/.mixle). Default: the --shard "
            "directory or $MIXLE_SHARD, else here.",
            readable=False,  # (a folder it may not read is an error of the system's: exit 3)
        ),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """Create a shard: PATH/.mixle (or the --shard directory)."""
    app_state = state(ctx)
    given = ctx.find_root().get_parameter_source("shard")
    if path is not None and given is not None and given.name == "COMMANDLINE":
        usage("give the shard's place once: PATH (creates PATH/.mixle) or --shard DIR")
    if path is not None:
        root = path / SHARD_DIR
    elif app_state.shard_option:
        from substrate import find_shard

        root = find_shard(app_state.shard_option)  # "~/kb" is the home folder's, as elsewhere
    else:
        root = _working_folder() / SHARD_DIR
    in_the_way = _file_in_the_way(root)
    if in_the_way is not None:  # the OS would say only "Not a directory" or "File exists"
        usage(f"{safe_text(str(in_the_way))} is a file, not a folder: no shard can be made there")
    broken = broken_link(root)
    if broken:  # init_shard would say only "File exists"
        fail(broken, OPERATIONAL, LINK_HINT)
    shard, created = init_shard(root)
    # absolute, as status shows a shard it finds: a script keeps it for use from elsewhere
    shown = safe_text(os.path.realpath(shard))  # a folder may be named after a secret
    if json:
        output.emit_json({"shard": shown, "created": created})
    else:
        verb = "Created" if created else "Already a shard:"
        output.emit_text(f"{verb} {shown}")
    from_env = app_state.shard_option if given is not None and given.name == "ENVIRONMENT" else None
    # (where MIXLE_SHARD is set, the note below says which shard commands use)
    made_in_a_folder = created and shard.name == SHARD_DIR and not from_env
    outer = nearest_shard(shard.resolve().parent.parent) if made_in_a_folder else None
    if outer is not None:  # its folder's commands found the outer one until now
        output.note(
            f"note: this shard is inside the folder of another ({safe_text(str(outer))}): "
            f"commands run in {safe_text(str(shard.parent.resolve()))} and below now use "
            "this one"
        )
    if path is not None and from_env and not _same_folder(from_env, shard):
        # MIXLE_SHARD outranks the nearest .mixle: the shard just made would never be found
        output.note(
            f"note: MIXLE_SHARD is set ({safe_text(str(from_env))}): commands use that "
            "shard, not this one, until it is unset"
        )


def _same_folder(a: str | Path, b: str | Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _read_text(text: str | None, app_state: AppState) -> str:
    if text != "-":
        return text or ""
    from mixle_cli.context import is_shard
    from substrate import size_limit

    # one item is held whole by every reader: a text over ingest's file size limit is refused
    # (a shard not made yet has no settings: not opened, which would say it is made later)
    exists = is_shard(app_state.shard_path)
    return stdin_text(size_limit(app_state.substrate()) if exists else DEFAULT_MAX_FILE_SIZE)


def _parse_payload(payload: str | None) -> dict[str, Any]:
    if payload is None:
        return {}
    try:
        # the standard parser keeps every digit of an integer, where orjson would turn one
        # beyond 64 bits into a float without a word
        value = json_loads(
            payload, parse_int=_exact_int, parse_float=_finite, parse_constant=_no_constant
        )
    except ValueError as exc:
        usage(f"--payload is not valid JSON: {exc}")
    except RecursionError:
        usage("--payload is nested too deeply")
    if not isinstance(value, dict):
        usage("--payload must be a JSON object")
    return value


def _exact_int(text: str) -> int:
    value = int(text)
    if value not in STORABLE_INTS:  # what the log can store exactly
        # its digits are not repeated: a number may be a PIN or a password
        digits = len(text.lstrip("-"))
        raise ValueError(f"an integer of {digits} digits is too large to store exactly; quote it")
    return value


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999: JSON cannot store it, orjson would write null
        raise ValueError(f"the number {text} is too large to store; quote it")
    return value


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def add(
    ctx: typer.Context,
    text: Annotated[
        str | None,
        typer.Argument(
            help="The item's text, or - to read standard input (read when it is a pipe or a "
            "file and neither text nor --payload is given)."
        ),
    ] = None,
    kind: KindOpt = "text",
    tag: TagOpt = None,
    scope: WriteScopeOpt = None,
    payload: Annotated[
        str | None, typer.Option("--payload", help="Structured fields as a JSON object.")
    ] = None,
    link: Annotated[
        list[str] | None, typer.Option("--link", help="Id of a related item (repeatable).")
    ] = None,
    no_redact: Annotated[
        bool,
        typer.Option("--no-redact", help="Store detected secrets as they are (not advised)."),
    ] = False,
    by: WriterOpt = None,
    json: JsonOpt = False,
) -> None:
    """Add one item. Secrets in it are redacted before it is stored."""
    fields = _parse_payload(payload)
    kind = known_kind(kind) or "text"
    check_tags(tag)
    app_state = state(ctx)
    if text is None and payload is None and stdin_piped():  # as search and ask read a pipe
        text = "-"
    body = _read_text(text, app_state)
    if not body.strip() and not fields:
        if text == "-":
            usage("nothing to add: standard input held no text")
        if text is not None:  # (given, but empty or white space: a variable left unset?)
            usage("nothing to add: the text given is empty; give the text, or --payload")
        usage("nothing to add: give the text, - to read standard input, or --payload")
    substrate = app_state.substrate()
    links = list(dict.fromkeys(link or []))  # each once
    from substrate import admit  # the secret rules load only for commands that write

    target_scope = _may_add(app_state, substrate, scope, by, links)  # refused: none made
    new_scope = "" if json else app_state.new_scope(target_scope, named=scope is not None)
    # checked again and written as one step: a grant made, or a linked item removed, just
    # before the write must be seen by it
    with substrate.exclusive():
        target_scope = _may_add(app_state, substrate, scope, by, links)
        item = SubstrateItem(
            kind=kind,
            text=body,
            payload=fields,
            provenance={"source": "cli"},
            scope=target_scope,
            tags=list(dict.fromkeys(tag or [])),
            links=links,
        )
        gated = admit(item, redact=not no_redact)
        substrate.put(gated.item)
        substrate.save()
    if json:
        output.emit_json(
            {"id": gated.item.id, "redactions": gated.redactions, "rules": gated.rules}
        )
        return
    output.emit_text(gated.item.id)
    if gated.redactions:
        output.note(f"redacted {gated.redactions} secret(s): {', '.join(gated.rules)}")
    if new_scope:
        output.note(f"note: {new_scope}")


def _may_add(
    app_state: AppState, substrate: Substrate, scope: str | None, by: str | None, links: list[str]
) -> str:
    """The scope an added item goes to, once the caller may write it and every link names an
    item the caller can see (else the command fails)."""
    target_scope = app_state.write_scope(scope, by)
    missing = [i for i in links if not _visible(app_state, substrate.get(i))]
    if missing:
        fail(f"no item with id {', '.join(missing)} to link to", FOUND)
    return target_scope


def get(
    ctx: typer.Context,
    ids: Annotated[
        list[str],
        typer.Argument(help="Item ids; - reads them from standard input.", callback=listed_ids),
    ],
    json: JsonOpt = False,
    jsonl: JsonlOpt = False,
) -> None:
    """Show items by id."""
    how = output.mode(json, jsonl)
    app_state = state(ctx)
    substrate = app_state.substrate()
    missing: list[str] = []

    def found() -> Iterator[SubstrateItem]:
        """The items asked for, one at a time as they are read: none is held after it is
        shown (``peek``), so thousands of ids piped in stream out. (None: an empty pipe, as
        typer gives it.)"""
        for item_id in ids or ():
            item = substrate.peek(item_id)
            if _visible(app_state, item):
                assert item is not None
                yield reader_view(substrate, item, app_state.scopes)
            else:
                missing.append(item_id)

    if how is Mode.JSON:
        output.emit_json([_fields(item) for item in found()])
    elif how is Mode.JSONL:
        output.emit_jsonl(_fields(item) for item in found())
    else:
        out = output.stdout()
        for item in found():
            _print_item(out, item)
    if missing:
        fail(f"no item with id {', '.join(missing)}", FOUND)


def _fields(item: SubstrateItem) -> dict[str, Any]:
    """An item as JSON shows it (``to_json``, without its copy: written out, then let go)."""
    return {name: getattr(item, name) for name in FIELD_ORDER}


def _visible(app_state: AppState, item: SubstrateItem | None) -> bool:
    # An item outside the caller's scopes is reported exactly like a missing one.
    return item is not None and app_state.can_read(item.scope)


def _print_item(out: Console, item: SubstrateItem) -> None:
    """An item as a block of lines, its header in bold on a terminal: one print each (rich
    lays out every call, which made thousands of items take seconds)."""
    from rich.text import Text

    from substrate import shown_source

    lines = []  # (the lines of names one line each: a tag a file gave may hold a line break)
    if item.tags:
        lines.append(output.one_line("tags: " + ", ".join(item.tags)))
    if item.links:
        lines.append(output.one_line("links: " + ", ".join(item.links)))
    source = shown_source(item)  # a secret in its name masked, as listings show it
    if source:
        lines.append(f"source: {output.one_line(str(source))}")
    if item.payload:
        lines.append("payload: " + orjson.dumps(item.payload).decode())
    if item.text:
        lines.append(item.text)
    # (a Text is printed as it is: its control characters are shown as U+FFFD here)
    header = output.printable(output.one_line(f"{item.id}  {item.kind}  scope={item.scope}"))
    rest = output.printable("".join(f"\n{line}" for line in lines))
    out.print(Text.assemble((header, "bold"), rest + "\n"))


def ls(
    ctx: typer.Context,
    kind: KindsOpt = None,
    scope: ScopeOpt = None,
    tag: TagFilterOpt = None,
    source: SourceOpt = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", "-n", "-k", "--k", min=1, help="Show at most N items (default: all)."
        ),
    ] = None,
    offset: Annotated[
        int,
        typer.Option(
            "--offset", min=0, help="Skip the first N items that match (page with --limit)."
        ),
    ] = 0,
    json: JsonOpt = False,
    jsonl: JsonlOpt = False,
) -> None:
    """List items, oldest first."""
    from substrate import has_tag, item_source, shown_sources, source_matcher, tag_key

    how = output.mode(json, jsonl)
    kinds = known_kinds(kind)
    one_kind = kinds[0] if kinds is not None and len(kinds) == 1 else None
    wanted_tags = {tag_key(t) for t in tag or []}  # as search takes them: "ADR" finds "adr"
    prefixes = source_prefixes(source)
    from_source = None
    if prefixes:  # (the sources a name as written may match: read only for one with accents)
        app_state = state(ctx)
        visible = app_state.substrate().iter_items(scopes=app_state.scopes)
        from_source = source_matcher(prefixes, (item_source(item) for item in visible))

    held = False  # whether the scope asked for holds an item (before the other filters)
    skipped = 0  # items that matched before the page --offset asks for
    shown = 0
    more = False  # whether an item that matches follows the page shown

    def selected() -> Iterator[SubstrateItem]:
        nonlocal held, skipped, shown, more
        app_state = state(ctx)
        substrate = app_state.substrate()
        only = app_state.read_scope(scope)
        for item in substrate.iter_items(kind=one_kind, scope=only, scopes=app_state.scopes):
            held = True
            if limit is not None and shown >= limit and how is not Mode.TEXT:
                return  # (only text tells of more: looking for one would read on for nothing)
            if kinds is not None and item.kind not in kinds:
                continue
            if not all(has_tag(item.tags, wanted) for wanted in wanted_tags):
                continue
            if from_source is not None and not from_source(item_source(item)):
                continue
            if skipped < offset:  # a page further on: these matched, and were shown before
                skipped += 1
                continue
            if limit is not None and shown >= limit:
                more = True
                return
            shown += 1
            yield item

    def say_none() -> None:
        """Why nothing is listed, on stderr in every output form, as search says it: a
        mistyped scope in `ls --scope X --jsonl | mixle rm -` must not pass unsaid."""
        if skipped:
            output.note(f"no items past the first {skipped} that match")
        else:  # (read by kind, the scope may hold items of other kinds: then it is looked up)
            output.note(state(ctx).nothing_in(scope, held=held or (None if one_kind else False)))

    if how is not Mode.TEXT:
        if how is Mode.JSONL:
            output.emit_jsonl(item_summary(item) for item in selected())
        else:
            output.emit_json([item_summary(item) for item in selected()])
        if not shown:
            say_none()
        return
    rows, origins = [], []  # the summaries, and of each item where it came from alone
    for item in selected():
        rows.append(item_summary(item))
        origins.append(_origin(item))
    if not rows:  # (a table of headings alone would read as output)
        say_none()
        return
    output.table(  # two files that read alike told apart by their folders, as search does
        ["id", "kind", "scope", "tags", "source", "title"],
        (
            [
                r["id"],
                r["kind"],
                r["scope"],
                ",".join(r["tags"]),
                name or "",
                shown_title(r["title"]),
            ]
            for r, name in zip(rows, shown_sources(origins), strict=True)
        ),
    )
    if more:  # (a listing cut by --limit reads as the whole of it otherwise)
        output.note(f"more items: --offset {offset + shown} shows the next")


def _origin(item: SubstrateItem) -> SubstrateItem:
    """An item holding only where ``item`` came from: what ``shown_sources`` reads, without
    the text of every item listed held until the end."""
    where = {key: item.provenance.get(key) for key in ("source", "path")}
    return SubstrateItem(item.kind, "", provenance=where, id=item.id)


def _file_in_the_way(root: Path) -> Path | None:
    """The file (not a folder) at ``root`` or at one of the folders above it, if any."""
    for place in (root, *root.parents):
        if place.is_dir():
            return None
        if place.exists():
            return place
    return None


def rm(
    ctx: typer.Context,
    ids: Annotated[
        list[str],
        typer.Argument(
            help="Item ids to remove; - reads them from standard input (one per line, or "
            "JSON lines with an id, as ls --jsonl prints them).",
            callback=listed_ids,
        ),
    ],
    by: WriterOpt = None,
    json: JsonOpt = False,
) -> None:
    """Remove items (a tombstone is appended; `mixle compact` reclaims the space).

    An item `mixle ingest` stored from a file stays removed while the file is unchanged or
    only grows by lines (a log), `compact` or not, `ingest --rehash` too: an ingest gives it
    back only when the file's content changes otherwise, or when it ingests the file with
    other options (`--scope`, `--tag`,
    `--chunk-chars`, the format's `ingest --as`, `--no-redact`) or from another place (a
    folder moved: its files are read anew), or a newer mixle parses files otherwise (once,
    after an upgrade: the ingest says so), or, for a file none of whose items is left, when
    the index/ folder, where the shard remembers what it ingested, was deleted. The explicit
    forms (`ingest-file`, `ingest-docs`, `ingest-traces`, `ingest-artifacts`) add what they
    read on every run: run again, they store a removed item again.
    """
    app_state = state(ctx)
    substrate = app_state.substrate()
    ids = list(dict.fromkeys(ids or ()))  # an id given twice is removed (and counted) once
    # read, check and remove as one step: an item approved into a reviewed scope meanwhile
    # must not be removed on the strength of where it was before
    with substrate.exclusive():
        found = {i: substrate.get(i) for i in ids}
        missing = [i for i in ids if not _visible(app_state, found[i])]
        if missing:
            fail(f"no item with id {', '.join(missing)}; nothing removed", FOUND)
        for scope in sorted({item.scope for item in found.values() if item is not None}):
            # a reviewed scope loses items only by its approvers
            app_state.may_change(scope, by, adding=False)
        for item_id in ids:
            substrate.remove(item_id)
        substrate.save()
    if json:
        output.emit_json({"removed": ids})
    else:
        output.emit_text(f"removed {len(ids)} item(s)")
    _tell_proposals_gone([item for item in found.values() if item is not None])


def _tell_proposals_gone(removed: list[SubstrateItem]) -> None:
    """Say which removed items were awaiting approval (their approvers saw them pending)."""
    from substrate import PENDING, proposal_of

    for item in removed:
        proposal = proposal_of(item)
        if proposal is not None and proposal.get("status") == PENDING:
            to = output.printable(str(proposal.get("to")))
            output.note(f"note: {item.id} was proposed for {to}; the proposal went with it")


def status(ctx: typer.Context, json: JsonOpt = False) -> None:
    """Counts by kind and scope, sizes on disk, the health of the log, and the search index."""
    app_state = state(ctx)
    report = shard_status(app_state.substrate(), scopes=app_state.scopes)
    if json:
        output.emit_json(report)
        return
    lines = [f"shard   {report['shard']}", f"items   {report['items']}"]
    for label, key in (("kinds", "by_kind"), ("scopes", "by_scope")):
        parts = output.one_line(", ".join(f"{k} {v}" for k, v in report[key].items())) or "-"
        lines.append(f"{label:<7} {parts}")
    log = report["log"]
    if "bytes" in log:  # sizes are left out for a reader confined to some scopes
        lines.append(f"log     {log['bytes']:,} bytes{_reclaimable(log)}")
    lines.append(f"index   {_index_line(report['index'])}")
    if report["index_bytes"]:  # left out for a reader confined to some scopes
        derived = f"{report['index_bytes']:,} bytes in index/ (catalog, search index, caches)"
        lines.append(f"derived {derived}")
    # written at once: `mixle status | head -1` then ends before the reader does (no 141)
    output.stdout().print("\n".join(lines), markup=False)
    reads_nothing = app_state.team_reads_nothing(held=report["items"] > 0)
    if reads_nothing:
        output.note(f"note: {reads_nothing}")
    if report["abandoned_bytes"]:  # left out for a reader confined to some scopes
        output.note(
            f"note: files a write stopped midway left (a compaction killed?) take "
            f"{report['abandoned_bytes']:,} bytes; the next write removes them"
        )
    # what refuses writes first: a write would not remove an unfinished one then
    if log.get("header_lost"):
        output.note(f"warning: {HEADER_LOST}")
    elif log.get("older_copy"):
        output.note(f"warning: {OLDER_COPY}")
    elif log.get("uncommitted_bytes") or log.get("unfinished_write"):
        what = "an unfinished write follows"  # a team is not told another's write's size
        if log.get("uncommitted_bytes"):
            what = f"{log['uncommitted_bytes']} bytes of an unfinished write follow"
        output.note(
            f"warning: {what} the last commit (a crash?); it is ignored and the next write "
            "removes it"
        )
    elif not report["healthy"]:  # committed lines are missing (``lost_bytes``)
        lost = f" ({log['lost_bytes']} bytes)" if log.get("lost_bytes") else ""
        output.note(
            f"warning: the log ends before the end noted at its last commit{lost}: committed "
            "items are missing, and no write is taken until it is restored from a backup; "
            "`mixle audit` tells more"
        )


def _index_line(index: dict[str, Any]) -> str:
    """One line on the search index: its state, shape, what it covers, and its size."""
    parts = [str(index.get("state", "unknown"))]
    if "segments" in index and index.get("state") != "missing":
        parts.append(f"{index['segments']} segment(s)")
    if index.get("mode") not in (None, "none"):
        parts.append(str(index["mode"]))
    if "items" in index:  # left out for a reader confined to some scopes
        parts.append(f"{index['items']:,} items")
    if index.get("bytes") and index.get("state") != "missing":
        parts.append(f"{index['bytes']:,} bytes")
    line = ", ".join(parts)
    hints = {
        "behind": "the next search folds in the latest changes",
        "stale": "the next search rebuilds it",
        "missing": "built by the first search, or `mixle reindex`",
        "unsupported": "written by a newer mixle",
    }
    hint = hints.get(str(index.get("state")))
    if hint and index.get("state") == "stale" and index.get("reason"):
        hint = f"{output.one_line(str(index['reason']))}: {hint}"  # why, as --json tells it
    return f"{line} ({hint})" if hint else line


def _reclaimable(log: dict[str, Any]) -> str:
    """What status adds to the log's size when removed items and old versions fill much of it."""
    from mixle_cli.compaction import reclaimable

    committed = log.get("committed_bytes", 0)
    dead = reclaimable(committed, log.get("live_bytes", committed))
    return (
        f" ({dead:,} of them removed items and old versions: `mixle compact` reclaims them)"
        if dead
        else ""
    )


def compact(
    ctx: typer.Context,
    accept_loss: Annotated[
        bool,
        typer.Option(
            "--accept-loss",
            help="Rewrite a log whose committed batches lost or gained lines by hand (see "
            "`mixle audit`) all the same, keeping what is left; an item lost is lost for good.",
        ),
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Rewrite the log with only the live items (atomic; reclaims removed and old versions).

    A log with nothing to reclaim is left as it is. The search index describes the old log:
    the next search rebuilds it (on a large shard, run `mixle reindex` afterwards to pay for
    that now rather than on the next search). A log edited by hand so that an item may be
    missing is refused (exit 3) unless --accept-loss.
    """
    app_state = state(ctx)
    stats = app_state.substrate().compact(accept_loss=accept_loss)
    rewritten = stats.bytes_after != stats.bytes_before  # else nothing was left to reclaim
    team = app_state.scopes is not None
    # what was reclaimed covers every scope: a team is told the same either way (the note
    # too, or it would tell other teams' edits)
    if (rewritten or team) and not json:
        output.note("the search index is rebuilt by the next search, or now by `mixle reindex`")
    report: dict[str, object] = {
        "bytes_before": stats.bytes_before,
        "bytes_after": stats.bytes_after,
        "live_items": stats.live_items,
        "reclaimed": rewritten,
    }
    if team:  # sizes and counts cover every scope: a team is told none of them
        if json:
            output.emit_json(dict.fromkeys(report))  # the same keys, all null
        else:
            output.emit_text("done (what was reclaimed covers every team's items: not shown)")
        return
    if json:
        output.emit_json(report)
    elif not rewritten:
        output.emit_text(
            f"nothing to reclaim: {stats.bytes_before:,} bytes, {stats.live_items} live items"
        )
    else:
        output.emit_text(
            f"compacted: {stats.bytes_before:,} -> {stats.bytes_after:,} bytes, "
            f"{stats.live_items} live items"
        )


COMMANDS: dict[str, Callable[..., None]] = {
    command.__name__: command for command in (init, add, get, ls, rm, status, compact)
}
