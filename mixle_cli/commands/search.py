"""Search commands: search (ranked, filtered, explained) and reindex.

Both read only what the caller may see: the scopes of ``AppState.scopes`` are pushed into the
index as a filter, and the engine computes every statistic of a filtered search over the items
that pass it, so hidden items change neither which results come back nor their scores.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mixle_cli import output
from mixle_cli.context import AppState, state
from mixle_cli.errors import usage
from mixle_cli.evidence import (
    KindsOpt,
    SourceOpt,
    TagFilterOpt,
    checked_query,
    item_title,
    known_kinds,
    piped,
    shown_title,
    source_prefixes,
    where_text,
)
from mixle_cli.output import JsonlOpt, JsonOpt, Mode, ReadScopeOpt
from substrate import safe_repr, safe_text

# The engine (numpy) is imported inside the commands, so that other commands never pay for it.
if TYPE_CHECKING:
    from substrate import Analyzer, Hit, IndexStats, SearchFilters, Substrate

_DATE_ONLY = re.compile(r"^\d{4}-?\d{2}-?\d{2}$")
_DAY = 86400.0
# What users of other search tools type as operators, which mixle reads as words: a quoted
# phrase, a field:value, AND / OR / NOT between words ("NOT" only beside words in lower case:
# "404 NOT FOUND" is words). Not "-word": "rm -rf", "ls -la" are what notes of commands say.
_OPERATOR_SHAPED = re.compile(r'"[^"]+"|\b(?:tag|kind|title|source|since|until):\S')
_BOOLEAN = re.compile(r"\s(?:AND|OR|NOT)\s")
_NO_OPERATORS = (
    "the query is read as words: quotes, field: and AND/OR/NOT are not operators, nor is "
    "-word (filter with --tag, --kind, --source, --scope, --since)"
)


# -- arguments ----------------------------------------------------------------------------------


# Digits then letters: meant as a duration, so the duration's own complaint is the useful one.
_DURATION_SHAPED = re.compile(r"[\d.]+[a-zA-Z][\w.]*")


def parse_when(value: str | None, option: str, *, now: float, end_of_day: bool = False) -> float:
    """Seconds since the epoch for a date or a duration back from ``now``.

    ``2024-05-01``, ``2024-05-01T12:30``, ``2024-05-01T12:30:00+02:00`` (no zone: UTC), or a
    duration such as ``7d`` or ``12h`` meaning that long ago. With ``end_of_day`` a bare date
    stands for the end of that day, so ``--until 2024-05-01`` includes the whole day.
    """
    from substrate import InvalidInputError, is_bare_number, parse_duration

    text = (value or "").strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is not None:
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        stamp = moment.timestamp()
        if end_of_day and _DATE_ONLY.match(text):
            stamp += _DAY - 1e-6
        return stamp
    if is_bare_number(text):  # a year? a Unix time? seconds? say which instead
        usage(
            f"{option} {safe_repr(value)}: a bare number is ambiguous; write a date "
            "(2024-05-01) or a duration with its unit (90s, 7d)"
        )
    try:
        return now - parse_duration(text)
    except InvalidInputError as exc:
        if _DURATION_SHAPED.fullmatch(text):
            usage(f"{option}: {exc}")
        usage(
            f"{option} {safe_repr(value)}: expected a date (2024-05-01, 2024-05-01T12:00) or "
            "a duration (7d, 12h, 2w) meaning that long ago"
        )


def _filters(
    app_state: AppState,
    *,
    kind: list[str] | None,
    scope: str | None,
    tags: list[str] | None,
    source: list[str] | None,
    since: str | None,
    until: str | None,
) -> SearchFilters:
    from substrate import SearchFilters

    kinds = known_kinds(kind)
    now = time.time()
    start = parse_when(since, "--since", now=now) if since is not None else None
    end = parse_when(until, "--until", now=now, end_of_day=True) if until is not None else None
    if start is not None and end is not None and start > end:
        usage("--since is later than --until: no item can match")
    return SearchFilters(
        kind=kinds,
        scopes=app_state.scopes_within(scope),
        tags=tuple(tags or ()),
        source_prefix=source_prefixes(source),
        since=start,
        until=end,
    )


# -- results ------------------------------------------------------------------------------------


def _text_of(hit: Hit) -> str:
    item = hit.item
    if item.text:
        return str(item.text)
    if item.payload:
        import orjson

        return orjson.dumps(item.payload).decode()
    return ""


def result_row(
    rank: int, hit: Hit, query: str, analyzer: Analyzer, source: str | None
) -> dict[str, Any]:
    """One result as plain data: who, how well, where from (``source``, as
    ``shown_sources`` names it), and the passage that matched."""
    from substrate import lines_of, make_snippet, shown_path_of

    item = hit.item
    lines = lines_of(item)
    text = _text_of(hit)
    snippet = make_snippet(text, query, analyzer=analyzer)
    row: dict[str, Any] = {
        "rank": rank,
        "id": item.id,
        "kind": item.kind,
        "scope": item.scope,
        "score": round(float(hit.score), 4),
        "title": item_title(item),
        "snippet": snippet.text,
        "snippet_spans": [list(span) for span in snippet.spans],
        "matches": snippet.matches,
        "source": source,
        # the file itself: two folders ingested into one shard may each give a README.md
        "path": shown_path_of(item),
        "line_start": lines[0],
        "line_end": lines[1],
        "tags": list(item.tags),
        "created_at": item.created_at,
    }
    row["where"] = where_text(row)  # "notes/a.md:3-9", as ask's citations give it
    if hit.explain is not None:
        row["explain"] = {k: float(v) for k, v in hit.explain.items()}
    return row


def _aside(hit: Hit, hits: list[Hit]) -> bool:
    """Whether ``hit`` holds none of the query's words and scores under a third of the best
    (``RELATIVE_FLOOR``): a neighbour of the matches, not one (``PgBouncer`` listed nine
    runbooks that never name it). ``--min-score`` decides alone when given."""
    from substrate import RELATIVE_FLOOR

    return not hit.literal and hit.score < RELATIVE_FLOOR * hits[0].score


def _semantic_off(e: dict[str, float]) -> str:
    """Why a search ran without its semantic channel."""
    if e.get("confined"):  # (its neighbours would be of every scope's items)
        return "the search is confined to some scopes: --scope, or a team's reading"
    items, needed = e["live_items"], e["semantic_min_items"]
    if items < needed:
        return f"{items:.0f} items; an embedding is learned from {needed:.0f}"
    return "too few words recur across the items to learn an embedding"


def _explain_line(e: dict[str, float]) -> str:
    parts = [f"lexical {e['lexical_part']:.3f} (bm25 {e['bm25']:.2f}, norm {e['bm25_norm']:.2f})"]
    if e["semantic_weight"] > 0:
        parts.append(
            f"semantic {e['semantic_part']:.3f} (cosine {e['cosine']:.2f} x "
            f"{e['semantic_weight']:.2f})"
        )
    else:
        parts.append(f"semantic off ({_semantic_off(e)})")
    line = " + ".join(parts) + f" = {e['fused']:.3f}, x query coverage {e['coverage']:.2f}"
    flags = [
        name
        for name, key in (
            ("lifted by the lexical floor", "lexical_floor"),
            ("query expanded with feedback terms", "feedback"),
            ("idf of the filtered items", "filtered_statistics"),
        )
        if e.get(key)
    ]
    return line + (f"; {', '.join(flags)}" if flags else "")


def _print_rows(rows: list[dict[str, Any]]) -> None:
    from rich.text import Text

    out = output.stdout()
    for row in rows:
        # (an id a record written by hand gave may hold a line break or an escape)
        shown = output.one_line(
            f"{row['rank']:>2}  {row['score']:.3f}  {row['kind']:<8} {row['id']}  "
        )
        head = Text(output.printable(shown))
        head.append(output.printable(where_text(row)), style="cyan")
        out.print(head)
        title = shown_title(row["title"])
        if not row["snippet"].startswith(title.rstrip("…")):  # else it says it again
            out.print(Text("    " + output.printable(title), style="bold"))
        snippet = Text("    " + output.printable(row["snippet"]))
        for start, end in row["snippet_spans"]:
            snippet.stylize("bold yellow", start + 4, end + 4)
        out.print(snippet)
        if row["replaced_by"]:
            replaced = f"    replaced by {output.printable(row['replaced_by'])} (a newer note)"
            out.print(Text(replaced, style="magenta"))
        if "explain" in row:
            out.print(Text("    " + _explain_line(row["explain"]), style="dim"))


# -- commands -----------------------------------------------------------------------------------


def search_cmd(
    ctx: typer.Context,
    query: Annotated[
        str | None,
        typer.Argument(
            help="What to look for (quote a query of several words), or - for standard input "
            "(the default when piped)."
        ),
    ] = None,
    k: Annotated[
        int,
        typer.Option("-k", "--k", "--limit", "-n", min=1, help="How many results at most."),
    ] = 10,
    offset: Annotated[
        int,
        typer.Option("--offset", min=0, help="Skip the N best results first (page with --limit)."),
    ] = 0,
    kind: KindsOpt = None,
    scope: ReadScopeOpt = None,
    tag: TagFilterOpt = None,
    source: SourceOpt = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            help="Only items stored since a date (2024-05-01; a time without a zone is UTC) "
            "or in the last 7d (units: s, m or min, h, d, w; months in days: 30d; a bare "
            "number is refused: 2024 could be a year). An ingested file's items are stored "
            "when it is ingested, whatever its own date.",
        ),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option("--until", help="Only items stored until a date, or longer ago than 30d."),
    ] = None,
    min_score: Annotated[
        float | None,
        typer.Option(
            "--min-score",
            min=0.0,
            max=1.0,
            callback=output.score_option,
            help="Leave out results scoring below this (0..1).",
        ),
    ] = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Show what each ranking channel contributed. Query coverage, the largest "
            "share of the query's weighted terms one top hit holds, scales every score alike.",
        ),
    ] = False,
    json: JsonOpt = False,
    jsonl: JsonlOpt = False,
) -> None:
    """Search the shard: ranked results with the passage that matched and where it came from.

    An item holding none of the query's words (found through the words of the best matches,
    or by meaning) is listed only when it scores at least a third of the best result, unless
    --min-score is given. The query is read as words, in any order: quotes, -word, field:
    and AND/OR/NOT are not operators (the options filter).
    """
    how = output.mode(json, jsonl)
    query = piped(query)
    shown = checked_query(query)  # never empty; secrets masked wherever the query is printed
    from substrate import Analyzer, shown_sources, superseded

    app_state = state(ctx)
    substrate = app_state.searched()
    filters = _filters(
        app_state, kind=kind, scope=scope, tags=tag, source=source, since=since, until=until
    )
    analyzer = Analyzer()
    rows: list[dict[str, Any]] = []
    hint = None
    skipped = 0  # results that matched before the page --offset asks for
    more = False  # results matched past the page (one more is looked for to tell)
    below: float | None = None  # the best score of results all under --min-score
    if not analyzer.terms(query):
        substrate.hits(query, k, filters=filters)  # finds nothing, but reads the shard as any
        # search does: a corrupt one fails (exit 3) whatever the words asked for
        hint = (
            "the query has only very common or very short words (like 'the', 'what' or "
            "'x'), which are not indexed; add a word that names what you look for"
            if any(ch.isalnum() for ch in query)
            else "the query has no words, only punctuation or symbols; search for a word"
        )
    else:
        hits = substrate.hits(query, k + offset + 1, filters=filters, explain=explain)
        matched = [
            h
            for h in hits
            if app_state.can_read(h.item.scope)  # defence in depth: the filter did this
            and (h.score >= min_score if min_score is not None else not _aside(h, hits))
        ]
        kept, skipped = matched[offset : offset + k], min(offset, len(matched))
        if min_score is not None and hits and not matched:  # found, but under --min-score
            below = max((h.score for h in hits if app_state.can_read(h.item.scope)), default=None)
        more = len(matched) > offset + k
        names = shown_sources([h.item for h in kept])
        # a note a newer one among the results replaced is marked, as `ask` passes it over
        confined = app_state.scopes is not None
        found = superseded([h.item for h in kept], confined=confined)
        replaced = {i: safe_text(by) for i, by in found.items()}
        rows = [
            {**result_row(n, h, query, analyzer, name), "replaced_by": replaced.get(h.item.id)}
            for n, (h, name) in enumerate(zip(kept, names, strict=True), offset + 1)
        ]
    # (results under --min-score hold its words as they are spelt)
    matched_any = bool(rows or skipped) or below is not None
    meant = _did_you_mean(substrate, shown, filters) if hint is None and not matched_any else None
    if how is Mode.JSON:
        extra = {"did_you_mean": meant} if meant else {}
        page = {"query": shown, "n": len(rows), "more": more, "results": rows}
        output.emit_json({**page, **extra})
    elif how is Mode.JSONL:
        output.emit_jsonl(rows)
    elif rows:
        _print_rows(rows)
        if more:  # (JSON says so as "more")
            output.note(f"more results: --offset {offset + len(rows)} shows the next")
    if hint is not None:
        output.note(f"hint: {hint}")
    elif not rows and skipped:
        output.note(f"no results past the first {skipped}")
    elif not rows and below is not None:
        output.note(f"no result scored at least {min_score:g}; the best scored {below:.3f}")
    elif not rows:
        nothing = app_state.nothing_found(scope)
        output.note(nothing if meant is None else f"{nothing}; did you mean: {meant}")
    if hint is None and _operator_shaped(query):
        output.note(f"hint: {_NO_OPERATORS}")


def _operator_shaped(query: str) -> bool:
    """Whether ``query`` holds what other search tools read as an operator."""
    if _OPERATOR_SHAPED.search(query):
        return True
    return any(ch.islower() for ch in query) and _BOOLEAN.search(query) is not None


def _did_you_mean(substrate: Substrate, query: str, filters: SearchFilters) -> str | None:
    """``query`` with each word no item it may return mentions spelled as a word they do
    ("pgbouncr" as "pgbouncer"), or None when there is none to offer."""
    from substrate import respelled, spelling_suggestions

    found = spelling_suggestions(substrate, query, filters=filters)
    return respelled(query, found) if found else None


def _progress_wanted(json: bool, quiet: bool) -> bool:
    return not (json or quiet) and sys.stderr.isatty()


def _run_reindex(substrate: Substrate, show: bool) -> IndexStats:
    if not show:
        return substrate.reindex()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        console=output.stderr(),
        transient=True,
    ) as bar:
        task = bar.add_task("indexing", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return substrate.reindex(progress=progress)


def reindex_cmd(
    ctx: typer.Context,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar and no summary.")
    ] = False,
    json: JsonOpt = False,
) -> None:
    """Rebuild the search index from the shard's items (and refit the learned embedding)."""
    app_state = state(ctx)
    substrate = app_state.substrate()
    # the index covers every scope: a team gets no bar, whose steps would count other teams' items
    shown = _progress_wanted(json, quiet) and app_state.scopes is None
    stats = _run_reindex(substrate, shown)
    report = stats.as_dict()
    report["seconds"] = round(report["seconds"], 3)
    if report.get("path"):  # a folder may be named after a secret, as status masks it
        from substrate import safe_text

        report["path"] = safe_text(report["path"])
    report["reindexed"] = True
    if app_state.scopes is not None:
        # The index covers every scope: its sizes, segments, mode and time all change with
        # other teams' items (the same keys, null)
        report = {**dict.fromkeys(report), "reindexed": True}
    if json:
        output.emit_json(report)
    elif not quiet:
        output.emit_text(
            f"reindexed: {report['items']:,} items, {report['vocabulary']:,} terms, "
            f"{report['segments']} segment(s), {report['mode']}, {report['seconds']:.2f} s"
            if report["items"] is not None
            else "reindexed"
        )


COMMANDS: dict[str, Callable[..., None]] = {"search": search_cmd, "reindex": reindex_cmd}
