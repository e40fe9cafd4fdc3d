"""Integrity and staleness sweeps for people and for cron: audit, freshness, verify-lineage.

Each exits 0 when all is well and 1 when it found something to look at, with the findings on
stdout (readable, or one JSON document with --json).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mixle_cli import output
from mixle_cli.context import AppState, state
from mixle_cli.errors import FOUND, usage
from mixle_cli.evidence import DOCS, INGESTED_AS, given_ids

if TYPE_CHECKING:
    from substrate import SubstrateItem
from substrate import (
    CorruptShardError,
    InvalidInputError,
    NotFoundError,
    audit_shard,
    format_duration,
    freshness_report,
    held_by,
    is_bare_number,
    parse_duration,
    safe_repr,
    verify_lineage,
    visible_item,
)

JsonOpt = output.JsonOpt
ScopeOpt = Annotated[
    str | None, typer.Option("--scope", help="Check only the items of this scope.")
]


def audit_cmd(ctx: typer.Context, scope: ScopeOpt = None, json: JsonOpt = False) -> None:
    """Check the shard's integrity: lineage, the log, the search index and stored secrets.

    Exits 1 when anything needs attention (a dangling link, a corrupt or unfinished write, a
    stale or fragmented index, a secret left in an item) or when --scope (or the team read as)
    matched no item, 0 when all is clean. Links between notes that lead to no note (or no such
    heading) are listed too, without failing the audit: a link to a note not written yet is
    common. Read as a team (--as), a link of its own items to an item it cannot read is
    reported as one "(an item removed, or in a scope you cannot read)" and fails the audit as
    a dangling link does: the two must look alike, or the audit would tell the team of
    another team's item. Run the audit without a team to tell them apart.
    """
    app_state = state(ctx)
    scope = app_state.read_scope(scope)
    scopes = app_state.scopes
    own = _own_scope(app_state)  # its own items' links are told of
    substrate = app_state.substrate()
    told = "auditing lineage, the log, the search index and stored secrets"
    with output.working(told, shown=not json):
        report = audit_shard(substrate, scope=scope, scopes=scopes, own_scope=own)
    data = report.as_dict()
    empty = data["own_scope_empty"] = _own_scope_empty(app_state, scope)
    lineage = data["lineage"]
    matched_nothing = lineage.get("checked") and not lineage.get("n_items")
    if matched_nothing and report.ok:  # no "all clean" for nothing checked
        app_state.fail_if_nothing_matched(scope)
    if json:
        for part, key in (("lineage", "broken"), ("secrets", "findings"), ("notes", "unresolved")):
            if key in data[part]:
                data[part][key] = [output.with_id(entry) for entry in data[part][key]]
        output.emit_json(data)
    else:
        _print_audit(data)
    if matched_nothing and not report.ok:  # the log's problems told, then why no item was
        app_state.fail_if_nothing_matched(scope)
    app_state.fail_if_none_of_its_own(empty)  # told even beside findings: a mistyped team
    if not report.ok:
        raise typer.Exit(FOUND)


def _own_scope_empty(app_state: AppState, scope: str | None) -> bool:
    """``own_scope_empty``, or False when the log cannot be read through: the audit reports
    that as its finding (exit 1, with its JSON), where reading the scope would stop it."""
    try:
        return app_state.own_scope_empty(scope)
    except CorruptShardError:
        return False


def _print_audit(report: dict[str, Any]) -> None:
    log, lineage, index, secrets = (report[k] for k in ("log", "lineage", "index", "secrets"))
    lines = [f"log      {'ok' if log.get('ok') else 'PROBLEM'}"]
    if not report["settings"].get("ok", True):
        lines.append("settings PROBLEM")
    if lineage.get("checked"):
        lines.append(
            f"lineage  {lineage['n_items']} items, {lineage['n_intact']} intact, "
            f"{lineage['n_broken']} broken"
        )
    else:
        lines.append(f"lineage  not checked ({lineage.get('note', '')})")
    if index.get("checked"):
        segments = f", {index['segments']} segment(s)" if "segments" in index else ""
        note = f" ({index['note']})" if index.get("note") else ""
        lines.append(f"index    {index['state']}{segments}{note}")
    else:
        lines.append(f"index    not checked ({index.get('note', '')})")
    if secrets.get("checked"):
        lines.append(
            f"secrets  {secrets['n_findings']} finding(s) in {secrets['n_dirty']} of "
            f"{secrets['n_items']} item(s)"
        )
    else:
        lines.append(f"secrets  not checked ({secrets.get('note', '')})")
    notes = report["notes"]
    unresolved = notes.get("unresolved", [])
    if notes.get("checked"):
        lines.append(f"notes    {notes['n_links']} link(s), {len(unresolved)} to no note")
    if unresolved:  # told, not a problem: a note may link to one not written yet
        lines.append("")
        lines.append(f"{len(unresolved)} link(s) between notes lead to no note (or heading):")
        lines.extend(output.one_line(f"  {_where(entry)}: {entry['link']}") for entry in unresolved)
    problems = report["problems"]  # the verdict comes last, where a reader's eye ends
    lines.append("")
    if problems:
        lines.append(f"{len(problems)} problem(s):")
        # one line each: a link a record holds may hold a line break (one written before
        # links were checked), which must not pass for a line of the report
        lines.extend(output.one_line(f"  {p}") for p in problems)
    elif unresolved:
        lines.append("no problem (a link to no note does not fail the audit)")
    else:
        lines.append("all clean")
    output.emit_text("\n".join(lines))


def _where(entry: dict[str, Any]) -> str:
    where = entry["source"] or entry["item_id"]
    return f"{where}:{entry['line']}" if entry["line"] is not None else where


def freshness_cmd(
    ctx: typer.Context,
    max_age: Annotated[
        str | None,
        typer.Option(
            "--max-age",
            help="Report items older than this as aged, counted from the date a note's front "
            "matter gives (updated:, lastmod:, reviewed:...), else from a file's "
            "last edit, else from when the item was added: 90s, 15m or 15min, 12h, 30d, 2w "
            "(combinable, largest first: 1d12h; a bare number is refused, as it could mean "
            "seconds or days; M is refused: months are written in days, 180d). Default: no "
            "age is too old.",
        ),
    ] = None,
    scope: ScopeOpt = None,
    rehash: Annotated[
        bool,
        typer.Option(
            "--rehash",
            help="Hash every source file, even one whose size and modification time are "
            "those recorded at ingest (finds an edit that kept both; reads every file).",
        ),
    ] = False,
    json: JsonOpt = False,
    jsonl: output.JsonlOpt = False,
) -> None:
    """Find stale items: source file moved or changed, superseded, linking to an item gone,
    or older than --max-age.

    A Markdown note is superseded ("replaced") when its front matter names its successor
    (superseded_by:) or another note's names it (supersedes:).

    Exits 1 when anything is stale, or when --scope (or the team read as) matched no item,
    0 when everything is fresh (suitable for cron). Ingested
    files are found by their absolute paths; a relative path an item was given by hand
    (add --payload '{"path": ...}') is looked up from the working directory, so run it from
    the same folder in cron. Read as a team (--as), its own item linking to an item it
    cannot read is stale as one linking to an item gone: the two must look alike to it.
    """
    how = output.mode(json, jsonl)
    max_age_s = _age_limit(max_age) if max_age is not None else None
    app_state = state(ctx)
    substrate, read_scope = app_state.substrate(), app_state.read_scope(scope)
    own = _own_scope(app_state)  # its own items' links are told of
    with output.working("checking each item against its file", shown=how is output.Mode.TEXT):
        report = freshness_report(
            substrate,
            max_age_s=max_age_s,
            scope=read_scope,
            scopes=app_state.scopes,
            rehash=rehash,
            own_scope=own,
        )
    if not report["n_items"]:  # not "all 0 item(s) fresh"
        app_state.fail_if_nothing_matched(scope)
    # by file, then id: two runs diff line by line (in store order, an item rewritten by a
    # re-ingest moved to the end)
    report["stale"].sort(key=lambda entry: (entry["ref"] or "", entry["item_id"]))
    stale = [output.with_id(entry) for entry in report["stale"]]
    empty = app_state.own_scope_empty(scope)
    if how is output.Mode.JSON:
        output.emit_json({**report, "stale": stale, "own_scope_empty": empty})
    elif how is output.Mode.JSONL:  # one stale item per line
        output.emit_jsonl(stale)
    else:
        _print_freshness(report, max_age, _not_ingested(app_state, report))
    app_state.fail_if_none_of_its_own(empty)  # told even beside stale shared items
    if report["n_stale"]:
        raise typer.Exit(FOUND)


def _age_limit(max_age: str) -> float:
    """Seconds in ``--max-age``. A bare number is refused: in a cron line "30" is meant as
    days as often as seconds, and read as seconds it would report every item stale."""
    if is_bare_number(max_age):
        usage(
            f"--max-age {safe_repr(max_age)}: a bare number is ambiguous; write it with its "
            "unit (30d, 12h, 90s)"
        )
    try:
        return parse_duration(max_age)
    except InvalidInputError as exc:  # named as the other options' errors are
        raise InvalidInputError(f"--max-age: {exc}") from exc


def _print_freshness(
    report: dict[str, Any], max_age: str | None, elsewhere: dict[str, str]
) -> None:
    n, stale = report["n_items"], report["n_stale"]
    if not stale:
        output.emit_text(f"all {n} item(s) fresh")
        return
    kinds = Counter(  # items by each kind of signal they have
        kind for s in report["stale"] for kind in {sig.split(":", 1)[0] for sig in s["signals"]}
    )
    counted = ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
    output.emit_text(f"{stale} of {n} item(s) stale ({counted})")
    output.table(
        ["id", "age", "file", "signals"],
        (
            [
                s["item_id"],
                format_duration(s["age_s"]),
                _shown_ref(s["ref"]),
                "; ".join(_shown_signal(signal, max_age) for signal in s["signals"]),
            ]
            for s in report["stale"]
        ),
    )
    # (a published copy's file changed, or an item an explicit form stored: ingest changes
    # nothing of it, a hint of its own says what does)
    ingested = Counter(
        sig.split(":", 1)[0]
        for s in report["stale"]
        if s["item_id"] not in elsewhere
        for sig in s["signals"]
    )
    for told, hint in _FRESHNESS_HINTS:
        if (ingested if told == _INGEST_KINDS else kinds).keys() & set(told):
            output.note(f"hint: {hint}")
    by_command: dict[str, list[str]] = {}
    for item_id, command in sorted(elsewhere.items()):
        by_command.setdefault(command, []).append(item_id)
    for command, ids in sorted(by_command.items()):
        template = _HINTS.get(command, _EXPLICIT_HINT)
        output.note(f"hint: {template.format(_some_of(ids), command=command)}")


# Ids a hint names at most: the stale list names each (a log of 500 lines changed made a hint
# of 500 ids on one line)
_HINT_IDS = 5


def _some_of(ids: list[str]) -> str:
    """``ids`` as a hint names them: the first few, and how many more (the stale list names
    each)."""
    if len(ids) <= _HINT_IDS:
        return ", ".join(ids)
    return f"{', '.join(ids[:_HINT_IDS])} and {len(ids) - _HINT_IDS} more"


# A published copy keeps its text when its file changes: ingest gives the file's new text a
# new item in the team's scope, and no ingest brings the copy up to date
_PUBLISHED_HINT = (
    "published item(s) {} keep the text they were published with; publish the file's new "
    "item too, then `mixle merge PUBLISHED NEW --prefer other` to give the copy the new text"
)


# An item an explicit form stored stays when its file changes or goes: that form adds what it
# reads, and `mixle ingest` keeps its own items of the same file apart from it
_EXPLICIT_HINT = (
    "item(s) {} were stored by `mixle {command}`, which adds what it reads and removes "
    "nothing: run it again for the new content, then remove the old item(s) with `mixle rm ID`"
)
# A published copy stays when its file goes: no ingest removes it
_PUBLISHED_GONE_HINT = (
    "published item(s) {} stay though their file was moved or removed; if it was moved, "
    "publish its new item and `mixle merge PUBLISHED NEW --prefer other`, else remove the copy "
    "with `mixle rm ID`"
)
# Read as a team, a copy another scope's ingest published: its new item is not the team's to
# publish (it would be refused), so no step is told, only whose it is to take
_PUBLISHED_BY_OTHERS_HINT = (
    "published item(s) {} keep the text they were published with; their file was ingested "
    "into a scope other than your team's, whose members may publish its new item and merge it"
)
_PUBLISHED = "publish"
_PUBLISHED_GONE = "publish, file gone"
_PUBLISHED_BY_OTHERS = "publish, another scope's"
_HINTS = {
    _PUBLISHED: _PUBLISHED_HINT,
    _PUBLISHED_GONE: _PUBLISHED_GONE_HINT,
    _PUBLISHED_BY_OTHERS: _PUBLISHED_BY_OTHERS_HINT,
}


def _not_ingested(app_state: AppState, report: dict[str, Any]) -> dict[str, str]:
    """The stale items whose file changed or went that `mixle ingest` does not bring up to
    date: published copies (``_PUBLISHED_HINT``, ``_PUBLISHED_GONE_HINT``) and the items of
    an explicit form (``_EXPLICIT_HINT``), each with what stored it."""
    from substrate import published_copy

    told = {
        s["item_id"]: {signal.split(":", 1)[0] for signal in s["signals"]} for s in report["stale"]
    }
    gone = [item_id for item_id, kinds in told.items() if kinds & set(_INGEST_KINDS)]
    items = app_state.substrate().read_items(gone, keep=False) if gone else {}
    found = {}
    team = app_state.team
    for item_id, item in items.items():
        if published_copy(item):
            if team is not None and item.provenance.get("ingest_scope") != team:
                found[item_id] = _PUBLISHED_BY_OTHERS
            elif "changed" in told[item_id]:
                found[item_id] = _PUBLISHED
            elif "moved" in told[item_id]:
                found[item_id] = _PUBLISHED_GONE
        elif "ingest_options" not in item.provenance:  # (every item `ingest` stores has them)
            found[item_id] = _explicit_form(item)
    return found


def _explicit_form(item: SubstrateItem) -> str:
    if item.kind == "artifact" and item.provenance.get("source") == "registry":
        return "ingest-artifacts"
    if item.kind == "trace":
        return "ingest-traces"
    prov = item.provenance
    if prov.get(INGESTED_AS) == DOCS or "size" not in prov:  # (docs kept no size before)
        return "ingest-docs"
    return "ingest-file"


# What to do about each kind of staleness, said once under the table
_INGEST_KINDS = ("changed", "moved")
_FRESHNESS_HINTS = (
    (
        _INGEST_KINDS,
        "`mixle ingest` the folders they came from again: changed files are read anew, and "
        "the items of files gone are removed (a file moved within a folder is found again; "
        "a folder left empty keeps its items until ingested with --prune-empty)",
    ),
    (
        ("unlinked",),
        "`mixle verify-lineage ID` shows an item's links that lead nowhere; what it was "
        "written from may have changed",
    ),
    (
        ("superseded", "replaced"),
        "ask and search pass over an item a newer one replaces; keep it while an item links "
        "to it (the newer one may: removed, its link would lead nowhere, as `mixle audit` "
        "would say), else remove it with `mixle rm ID` if it is of no more use",
    ),
    (("aged",), "review aged items; a note's front matter `reviewed: DATE` restarts its age"),
)


def _shown_signal(signal: str, max_age: str | None) -> str:
    """A signal as the table shows it: ``aged`` in the units typed, not in seconds (the age is
    in its own column; JSON keeps the library's words)."""
    if max_age is None or not signal.startswith("aged: "):
        return signal
    return f"aged: older than --max-age {max_age} (review, not proof)"


def _shown_ref(ref: str | None) -> str:
    """The file an item was checked against, from the working directory when it lies below
    it (as one would type it) and that is no file system root (cron's and systemd's), on one
    line; "-" for none."""
    if not ref:
        return "-"
    try:
        here = os.getcwd()
        below = ".." if os.path.dirname(here) == here else os.path.relpath(ref, here)
    except (OSError, ValueError):  # a vanished working directory, another drive (Windows)
        below = ".."
    return output.one_line(ref if below.startswith("..") else below)


def _own_scope(app_state: AppState) -> str | None:
    from substrate import own_scope

    return own_scope(app_state.team, app_state.substrate().settings)


def verify_lineage_cmd(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(help="Item id.", callback=given_ids)],
    max_depth: Annotated[
        int | None,
        typer.Option(
            "--max-depth",
            min=0,
            show_default="every link, however deep",
            help="How many links deep to follow (the links found there are still checked).",
        ),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """Follow an item's links transitively; exits 1 if any of them is dangling.

    These are the links an item records (`mixle add --link`, or given through the library).
    Links written in a note's text (Markdown and wiki links to other notes) are checked by
    `mixle audit`, which lists those that lead to no note.
    """
    app_state = state(ctx)
    substrate = app_state.substrate()
    scopes = app_state.scopes
    if visible_item(substrate, item_id, scopes) is None:
        raise NotFoundError(f"no item with id {item_id}")
    own = _own_scope(app_state)
    # all the way by default (the library's 20 is the seed's): "intact" then means it, as in
    # `mixle audit`, where a chain longer than 20 links had passed for sound
    depth = sys.maxsize if max_depth is None else max_depth
    report = verify_lineage(substrate, item_id, max_depth=depth, scopes=scopes, own_scope=own)
    if json:
        extra = {"held_by": report.held_by, "unfollowed": report.unfollowed}
        output.emit_json({**output.with_id(report.as_dict()), **extra})
    elif report.intact:
        beyond = ""
        if report.unfollowed:
            beyond = f"; {report.unfollowed} link(s) past --max-depth {max_depth} not followed"
        output.emit_text(
            f"{item_id}: intact ({report.n_links} link(s), {report.visited} item(s), "
            f"depth {report.depth}{beyond})"
        )
    else:
        links = [held_by(t, report.held_by.get(t), item_id) for t in report.dangling]
        output.emit_text(
            output.one_line(f"{item_id}: broken, dangling link(s) to {', '.join(links)}")
        )
    if not report.intact:
        raise typer.Exit(FOUND)


COMMANDS: dict[str, Callable[..., None]] = {
    "audit": audit_cmd,
    "freshness": freshness_cmd,
    "verify-lineage": verify_lineage_cmd,
}
