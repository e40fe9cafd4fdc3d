"""Retrieval commands: retrieve, multihop, assemble-context.

Every command reads only the scopes the caller may see (``AppState.scopes``); the library
enforces it, so nothing outside them can reach the output or an error message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from mixle_cli import output
from mixle_cli.context import state
from mixle_cli.errors import FOUND, usage
from mixle_cli.evidence import (
    KindsOpt,
    item_title,
    known_kinds,
    passed_over_note,
    query_text,
    shown_title,
    where_text,
)
from mixle_cli.output import JsonlOpt, JsonOpt, Mode, ReadScopeOpt
from substrate import CHARS_PER_TOKEN, DEFAULT_PACKET_CHARS, MODALITIES, safe_repr

# The library parts are imported inside the commands, so that loading this module stays cheap.
if TYPE_CHECKING:
    from substrate import ContextPacket, HopChain

FORMAT_NAMES = {"md": "markdown", "markdown": "markdown", "xml": "xml", "json": "json"}
SHAPE_NAMES = ("passages", "brief", "features")

MinScoreOpt = Annotated[
    float | None,
    typer.Option(
        "--min-score",
        min=0.0,
        max=1.0,
        callback=output.score_option,
        help="Leave out items scoring below this (scores are 0..1).",
    ),
]


# -- retrieve ---------------------------------------------------------------------------------


def _weights(values: list[str] | None) -> dict[str, float]:
    weights: dict[str, float] = {}
    for value in values or []:
        kind, sep, number = value.partition("=")
        kind = kind.strip().lower()  # (in any case, as --kind takes it)
        if not sep or kind not in MODALITIES:
            usage(f"--weight expects KIND=NUMBER with a known kind, got {safe_repr(value)}")
        try:
            weight = float(number)
        except ValueError:
            usage(f"--weight {safe_repr(value)}: {safe_repr(number)} is not a number")
        if not weight >= 0 or weight == float("inf"):
            usage(f"--weight {safe_repr(value)}: the weight must be a finite number >= 0")
        weights[kind] = weight
    return weights


def retrieve_cmd(
    ctx: typer.Context,
    query: Annotated[
        str | None,
        typer.Argument(help="What to look for, or - for standard input (the default when piped)."),
    ] = None,
    k: Annotated[
        int,
        typer.Option("-k", "--k", "--limit", "-n", min=1, help="How many items to return."),
    ] = 8,
    kinds: Annotated[
        list[str] | None,
        typer.Option(
            "--kinds",
            "--kind",
            "-K",
            help="Only these kinds (comma-separated or repeated; --kind and -K as elsewhere).",
        ),
    ] = None,
    weight: Annotated[
        list[str] | None,
        typer.Option(
            "--weight",
            help=(
                "Score multiplier for a kind, as KIND=NUMBER (repeatable; 0 leaves the kind "
                "out; above 1 a score may pass 1, and --min-score is compared before it)."
            ),
        ),
    ] = None,
    flat: Annotated[
        bool, typer.Option("--flat", help="Plain top-k instead of interleaving the kinds.")
    ] = False,
    min_score: MinScoreOpt = None,
    scope: ReadScopeOpt = None,
    json: JsonOpt = False,
    jsonl: JsonlOpt = False,
) -> None:
    """Cross-kind retrieval: the best items of each kind, interleaved."""
    from substrate import retrieve

    how = output.mode(json, jsonl)
    only, weights = known_kinds(kinds, "--kind"), _weights(weight)
    left_out = sorted(set(weights) - set(only)) if only else []
    if left_out:
        usage(f"--weight names {', '.join(left_out)}, which --kind leaves out")
    # read before the index is opened (or built): a query missing is refused at once
    asked = query_text(query)
    app_state = state(ctx)
    result = retrieve(
        app_state.searched(),
        asked,
        k=k,
        kinds=list(only) if only else None,
        weights=weights,
        diversify=not flat,
        scopes=app_state.scopes_within(scope),
        min_score=min_score,
    )
    rows = [
        {
            "rank": n,
            **entry,
            "scope": item.scope,
            "title": item_title(item),
            "where": where_text(entry),
        }
        for n, (item, entry) in enumerate(zip(result.items, result.provenance(), strict=True), 1)
    ]
    if how is Mode.JSON:
        output.emit_json(
            {"query": result.query, "kinds": result.kinds(), "n": len(rows), "items": rows}
        )
    elif how is Mode.JSONL:
        output.emit_jsonl(rows)
    if not rows:  # in every mode, as search says it
        output.note(app_state.nothing_found(scope))
    elif how is Mode.TEXT:
        # Plain aligned lines: a table squeezed to the terminal width would cut ids short.
        output.emit_text(
            "\n".join(
                output.one_line(
                    f"{r['rank']:>2}  {r['score']:.3f}  {r['kind']:<8} {r['id']}  {where_text(r)}  "
                    f"{shown_title(r['title'])}"
                )
                for r in rows
            )
        )


# -- multihop ---------------------------------------------------------------------------------


# Terminal cells of the query a chain's tree is headed with
QUERY_SHOWN = 100


def _tree(chain: HopChain) -> list[str]:
    """The chain as an indented tree of plain lines (never cropped to the terminal width)."""
    children: dict[str | None, list[int]] = {}
    known = {step.item.id for step in chain.steps}
    for n, step in enumerate(chain.steps):
        parent = step.parent_id if step.parent_id in known else None
        children.setdefault(parent, []).append(n)
    wheres = [where_text(entry) for entry in chain.provenance()]
    query = output.first_line(chain.query, QUERY_SHOWN)  # (a query may be a whole file)
    lines = [f"{query}  ({len(chain)} item(s), depth {chain.max_depth()})"]
    # depth first with a stack of its own: a chain of links may be thousands of hops deep
    roots = children.get(None, [])
    stack = [(n, "", pos == len(roots) - 1) for pos, n in enumerate(roots)][::-1]
    while stack:
        n, prefix, last = stack.pop()
        step = chain.steps[n]
        lines.append(
            output.one_line(
                f"{prefix}{'└── ' if last else '├── '}{step.via:<7} {step.score:.3f}  "
                f"{step.item.id}  {step.item.kind}  {wheres[n]}  "
                f"{item_title(step.item, 50)}"
            )
        )
        kids = children.get(step.item.id, [])
        below = prefix + ("    " if last else "│   ")
        stack.extend(
            (kid, below, pos == len(kids) - 1) for pos, kid in reversed(list(enumerate(kids)))
        )
    return lines


def multihop_cmd(
    ctx: typer.Context,
    query: Annotated[
        str | None,
        typer.Argument(
            help="Where the chain starts, or - for standard input (the default when piped)."
        ),
    ] = None,
    hops: Annotated[int, typer.Option("--hops", min=0, help="Hops out from the seeds.")] = 2,
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="Best matches to start from.")] = 3,
    branch: Annotated[
        int, typer.Option("--branch", min=1, help="New neighbours per item, per hop type.")
    ] = 2,
    max_items: Annotated[int, typer.Option("--max-items", min=1, help="Cap on the chain.")] = 12,
    min_score: Annotated[
        float | None,
        typer.Option(
            "--min-score",
            min=0.0,
            max=1.0,
            callback=output.score_option,
            help="Seed and content hops must score above this, 0..1 (links always). "
            "Default: what ask --hops takes, 0.1 and at least a third of the best seed.",
            show_default=False,
        ),
    ] = None,
    scope: ReadScopeOpt = None,
    json: JsonOpt = False,
    jsonl: JsonlOpt = False,
) -> None:
    """Multi-hop retrieval: seeds, then links and content neighbours, with evidence paths.

    Links are an item's own and those a note's text makes to other notes (Markdown and
    wiki-style links): of a linked note, the section the question fits best is taken. From a
    graph item, the chain goes on to the graph items whose triples start or end at a name its
    triples end or start at (an entity hop: INC-101 affected billing-api, billing-api
    owned_by Payments team).
    """
    from substrate import NOISE_FLOOR, RELATIVE_FLOOR, multihop

    how = output.mode(json, jsonl)
    asked = query_text(query)  # (before the index is opened, as in retrieve)
    app_state = state(ctx)
    chain = multihop(
        app_state.searched(),
        asked,
        max_hops=hops,
        seeds=seeds,
        branch=branch,
        max_items=max_items,
        # a chain of side matches (0.01 of the best) is no evidence: as ask --hops has it
        min_score=NOISE_FLOOR if min_score is None else min_score,
        min_relative=RELATIVE_FLOOR if min_score is None else 0.0,
        scopes=app_state.scopes_within(scope),
    )
    data = chain.as_dict()
    for entry, item in zip(data["steps"], chain.items, strict=True):
        entry["scope"] = item.scope  # as search results give it
        entry["title"] = item_title(item)
        entry["where"] = where_text(entry)  # as search results give it
    if how is Mode.JSON:
        output.emit_json(data)
    elif how is Mode.JSONL:
        output.emit_jsonl(data["steps"])
    if not chain.steps:  # in every mode, as search says it
        output.note(app_state.nothing_found(scope))
    elif how is Mode.TEXT:
        output.emit_text("\n".join(_tree(chain)))


# -- assemble-context ----------------------------------------------------------------------------


def _accounting(packet: ContextPacket) -> str:
    budget = f"{packet.used_chars:,}/{packet.budget.char_limit:,} chars"
    if packet.budget.max_tokens is not None:
        budget += f", ~{packet.used_tokens:,}/{packet.budget.max_tokens:,} tokens (chars/4)"
    return (
        f"{len(packet)} of {packet.n_candidates} candidate(s), {budget}, "
        f"compression {packet.compression_ratio:.2f} (used / full characters), "
        f"task terms kept {_preserved(packet)}"
    )


def _preserved(packet: ContextPacket) -> str:
    """Each item's preservation, or for many items (one line on stderr) the lowest and mean."""
    figures = packet.preservation()
    if len(figures) <= 8:
        return ("per item " + " ".join(f"{p:.2f}" for p in figures)) if figures else "-"
    return f"min {min(figures):.2f}, mean {sum(figures) / len(figures):.2f}"


def assemble_context_cmd(
    ctx: typer.Context,
    task: Annotated[
        str | None,
        typer.Argument(
            help="The task or question the context is for, or - for standard input (the "
            "default when piped)."
        ),
    ] = None,
    max_chars: Annotated[
        int | None,
        typer.Option(
            "--max-chars",
            min=1,
            help=f"Most characters of the packet [{DEFAULT_PACKET_CHARS}; with --max-tokens "
            "alone, what the tokens allow].",
            show_default=False,
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option("--max-tokens", min=1, help="Most tokens, estimated as chars/4."),
    ] = None,
    max_items: Annotated[int, typer.Option("--max-items", min=1, help="Most items.")] = 20,
    shape: Annotated[
        str,
        typer.Option(
            "--shape",
            help="passages (for a model), brief (a line per item: heading, text, source; for "
            "a person), or features (the library's shape for a student model, written as "
            "passages).",
        ),
    ] = "passages",
    compress: Annotated[
        bool, typer.Option("--compress", help="Keep only the relevant sentences of long items.")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="md, xml or json.")] = "md",
    kind: KindsOpt = None,
    min_score: MinScoreOpt = None,
    scope: ReadScopeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Assemble a budgeted context packet: the packet on stdout, its accounting on stderr.

    Without --min-score only what ask would take as evidence is packed (scoring 0.1 or more,
    and at least a third of the best), so a budget may be left unused. A note a newer one
    replaced is passed over for the newer one, as ask does (told on stderr; --json:
    passed_over). Exits 1 when the most relevant item cannot fit in the budget (the packet
    holds what did fit).
    """
    from substrate import ContextBudget, assemble_context

    if fmt not in FORMAT_NAMES:
        usage(f"unknown format {safe_repr(fmt)}; expected md, xml or json")
    if shape not in SHAPE_NAMES:
        usage(f"unknown shape {safe_repr(shape)}; expected one of {', '.join(SHAPE_NAMES)}")
    kinds = known_kinds(kind)
    if max_chars is None:  # a token budget alone is not capped by the default characters
        max_chars = DEFAULT_PACKET_CHARS if max_tokens is None else max_tokens * CHARS_PER_TOKEN
    budget = ContextBudget(
        max_chars=max_chars,
        max_items=max_items,
        shape=shape,
        max_tokens=max_tokens,
        format=FORMAT_NAMES[fmt],
    )
    asked = query_text(task, "task")  # (before the index is opened, as in retrieve)
    app_state = state(ctx)
    packet = assemble_context(
        app_state.searched(),
        asked,
        budget=budget,
        kind=kinds,
        scopes=app_state.scopes_within(scope),
        compress=compress,
        min_score=min_score,
        relevant_only=min_score is None,
    )
    overflow = packet.best_left_out  # what is packed would stand in for the best evidence
    if json:
        output.emit_json(
            {
                **packet.as_dict(),
                "preservation": packet.preservation(),
                "overflow": overflow,
                "rendered": packet.render(),
            }
        )
    else:
        if rendered := packet.render():  # (none within a budget too small for its frame)
            output.emit_text(rendered)
        output.note(_accounting(packet))
        passed_over_note(packet.passed_over_sources())
    if overflow:
        # --max-tokens set the limit when it is the tighter one (or the only one given)
        by_tokens = max_tokens is not None and max_tokens * CHARS_PER_TOKEN <= max_chars
        raise_it = "--max-tokens" if by_tokens else "--max-chars"
        hint = "" if compress else " or use --compress"
        output.note(
            f"the most relevant item does not fit in {budget.char_limit:,} characters; "
            f"raise {raise_it}{hint}"
        )
        raise typer.Exit(FOUND)
    if not packet.n_candidates:
        output.note("no matching items")


COMMANDS: dict[str, Callable[..., None]] = {
    "retrieve": retrieve_cmd,
    "multihop": multihop_cmd,
    "assemble-context": assemble_context_cmd,
}
