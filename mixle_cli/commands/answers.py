"""Answer commands: ask (an answer with citations, or an abstention) and verify.

Every command reads only the scopes the caller may see (``AppState.scopes``); the library
enforces it, so nothing outside them can reach the output or an error message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mixle_cli import output
from mixle_cli.context import state
from mixle_cli.errors import FOUND, usage
from mixle_cli.evidence import passed_over_note, query_text, text_or_file, where_text
from mixle_cli.output import JsonlOpt, JsonOpt, Mode, ReadScopeOpt
from substrate import MAX_TIMEOUT

if TYPE_CHECKING:
    from substrate import (
        Answer,
        CommandAnswerer,
        ExtractiveAnswerer,
        FactualityReceipt,
        HttpAnswerer,
        Substrate,
    )

ANSWERERS = ("extractive", "cmd", "http")
HEURISTIC = "heuristic, not a probability"


# -- ask -------------------------------------------------------------------------------------------


def _answerer(
    ctx: typer.Context, kind: str | None, command: str | None, timeout: float | None
) -> ExtractiveAnswerer | CommandAnswerer | HttpAnswerer:
    from substrate import (
        CommandAnswerer,
        ExtractiveAnswerer,
        InvalidInputError,
        http_answerer_from_config,
        safe_repr,
    )

    # (an empty value is refused, not read as the default: a variable left unset)
    chosen = kind if kind is not None else ("cmd" if command is not None else "extractive")
    if chosen not in ANSWERERS:
        usage(f"unknown answerer {safe_repr(chosen)}; expected one of {', '.join(ANSWERERS)}")
    if command is not None and chosen != "cmd":
        usage("--answerer-cmd goes with --answerer cmd")
    if timeout is not None and timeout != timeout:  # NaN passes the range check
        usage("--timeout must be a number of seconds")
    if timeout is not None and chosen == "extractive":
        usage("--timeout applies to the cmd and http answerers; the extractive one never waits")
    if chosen == "cmd":
        if command is None:
            usage('--answerer cmd needs --answerer-cmd "COMMAND"')
        if not command.strip():
            usage("--answerer-cmd is empty (was a variable left unset?)")
        runner = CommandAnswerer(command) if timeout is None else CommandAnswerer(command, timeout)
        try:
            runner.argv()  # an unclosed quote is the caller's to fix, before any work is done
        except InvalidInputError as exc:
            usage(str(exc))
        return runner
    if chosen == "http":
        settings = state(ctx).substrate().settings
        section = settings.data.get("answerer") or {}  # a table: Settings.load checks it
        return http_answerer_from_config(section, os.environ, timeout=timeout, source=settings.path)
    return ExtractiveAnswerer()


_SPACELESS = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")  # kana, Han


# One word that looks like a file's path: "draft.md", "notes/summary"
_A_PATH = re.compile(r"\S*/\S*|\S+\.\w{1,5}")
# A list item's mark opening a claim read from a list ("- The retry limit is 7.")
_BULLET = re.compile(r"[-*+•]\s+")


def _where_masked(answer: Answer) -> str:
    """Where the value of a secret an answer quotes masked may be read: in the file a cited
    item came from, or (an item given by `add`, stored masked) only where it was written."""
    cited = set(answer.cited())
    items = [item for n, item in enumerate(answer.context.items, 1) if not cited or n in cited]
    if all(item.provenance.get("path") for item in items):
        return "the file it came from holds the value"
    return "its value is wherever it was written before it was stored"


def _no_claims(text: str) -> str:
    """Why ``text`` has no claim to check."""
    why = "no sentence of two words or more (questions and short headings state nothing)"
    if _A_PATH.fullmatch(text.strip()):
        from substrate import shown_path

        path = text.strip()
        if os.path.exists(path):  # a folder, a device
            why += f"; {shown_path(path)} is no regular file"
        else:
            why += f"; there is no file {shown_path(path)}"
    if _SPACELESS.search(text):
        why += "; text without spaces between words (Chinese, Japanese) is not checked"
    return why


# How many of the evidence's sources an abstention points to.
NEAREST_SHOWN = 3


def _ask_text(answer: Answer, label: str, receipt: FactualityReceipt | None, disagree: str) -> None:
    out = output.stdout()
    packet = answer.context
    if answer.abstained:
        out.print(f"No answer. {answer.note}", markup=False)
        # the evidence's confidence may be high, the answer still not in it: said, as "No
        # answer" beside "confidence 1.00" reads as a contradiction
        shown = f"evidence confidence {answer.confidence:.2f} ({HEURISTIC}); no answer in it"
        out.print(shown, markup=False)
        nearest = packet.provenance()[:NEAREST_SHOWN]
        if nearest:  # where to read on, rather than search again
            out.print("", markup=False)
            out.print("Nearest sources (they do not answer it)", markup=False, style="bold")
            for n, entry in enumerate(nearest, 1):
                out.print(
                    output.one_line(f"  [{n}] {entry['id']}  {where_text(entry)}"), markup=False
                )
        return
    out.print(answer.answer or "", markup=False)
    out.print("", markup=False)
    if label == "extractive":
        out.print("extractive answer: sentences quoted from the sources below", markup=False)
    line = f"evidence confidence {answer.confidence:.2f} ({HEURISTIC})"
    if receipt is not None and receipt.verdicts:
        supported = len(receipt.verdicts) - len(receipt.unsupported())
        line += (
            f"; grounded {supported}/{len(receipt.verdicts)} claim(s) "
            f"({receipt.grounded_fraction:.0%})"
        )
    elif receipt is not None:  # 0 of 0 would read as fully grounded
        line += f"; grounding not checked: {_no_claims(answer.answer or '')}"
    out.print(line, markup=False)
    if disagree:  # beside "confidence 1.00", which is of the evidence, not of a side
        out.print(disagree, markup=False)
    masked = answer.masked_quotes()
    if masked:  # a mask is no answer to "what is the password?"
        out.print(f"masked: {masked} secret(s), never shown; {_where_masked(answer)}", markup=False)
    out.print("", markup=False)
    cited = set(answer.cited())
    heading = "Sources" if cited else "Sources given (the answer cites none of them)"
    out.print(heading, markup=False, style="bold")
    quoted = answer.quoted_lines()  # the lines quoted, rather than the whole section's
    given = packet.provenance()
    for n, entry in enumerate(given, 1):  # sources masked, as the model saw them
        if n in cited or not cited:
            where = where_text(entry, quoted.get(n, ()))
            out.print(output.one_line(f"  [{n}] {entry['id']}  {where}"), markup=False)
    uncited = [n for n in range(1, len(given) + 1) if cited and n not in cited]
    if uncited:  # the numbers are the packet's: a gap is a source given, not cited
        out.print(f"  (not cited: {_runs(uncited)}; --json lists them)", markup=False)


def _runs(numbers: list[int]) -> str:
    """Source numbers as runs: "[2] [4]-[18]" rather than seventeen of them."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return " ".join(
        f"[{run[0]}]-[{run[-1]}]" if len(run) > 2 else " ".join(f"[{n}]" for n in run)
        for run in runs
    )


def ask_cmd(
    ctx: typer.Context,
    question: Annotated[
        str | None,
        typer.Argument(help="The question, or - for standard input (the default when piped)."),
    ] = None,
    hops: Annotated[
        int, typer.Option("--hops", min=1, help="1: one retrieval; more: a multi-hop chain.")
    ] = 1,
    answerer: Annotated[
        str | None,
        typer.Option(
            "--answerer",
            help="extractive (default: quotes the evidence, no model), cmd, or http "
            "(an OpenAI-compatible endpoint from \\[answerer] in mixle.toml or MIXLE_ANSWERER_*).",
        ),
    ] = None,
    answerer_cmd: Annotated[
        str | None,
        typer.Option(
            "--answerer-cmd",
            help="Command that reads the prompt on stdin and writes the answer. It is split "
            "into words as a shell would, but run without one: for pipes or redirections, "
            "give a script, or sh -c '...'.",
        ),
    ] = None,
    min_confidence: Annotated[
        float,
        typer.Option(
            "--min-confidence",
            min=0.0,
            max=1.0,
            callback=output.score_option,
            help="Abstain below this heuristic confidence.",
        ),
    ] = 0.5,
    max_chars: Annotated[
        int, typer.Option("--max-chars", min=1, help="Context budget handed to the answerer.")
    ] = 2000,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            min=0.1,
            max=MAX_TIMEOUT,
            help="Seconds to wait for a cmd or http answerer (default: \\[answerer] timeout in "
            "mixle.toml for http, else 120).",
            show_default=False,
        ),
    ] = None,
    scope: ReadScopeOpt = None,
    json: JsonOpt = False,
) -> None:
    """Answer a question from the shard with numbered citations, or abstain (exit 1).

    An answer that cites none of its sources, or none of whose claims the evidence supports
    (a model answering from elsewhere), or that cites for a claim a source that does not say
    it (while another item does), or a number no source has (a source made up), is shown
    with a warning and exits 1 too; each claim of it
    no source was found to say is named in a warning. The extractive
    answerer quotes sentences; a list item is quoted with the heading it is an entry of
    ("Marco Bianchi: Based in Milan.") when it does not name it, and so is any sentence under
    a person's heading when the question asks who. A source is cited by the
    lines the answer quotes from it, where they are found (--json: quoted_lines), else by
    its whole section's (line_start, line_end). A cited file that changed or moved since it
    was ingested is warned of (--json: changed_sources): the answer quotes it as it was.
    A secret quoted is shown masked, as it was stored, and a line says so (--json:
    masked_quotes): its value is in the source file only.
    """
    from substrate import (
        ContextBudget,
        answer_from_substrate,
        check_factuality,
        citations_to_nothing,
        miscited_claims,
    )

    chosen = _answerer(ctx, answerer, answerer_cmd, timeout)
    # read before the index is opened (or built): a question missing is refused at once
    asked = query_text(question, "question")
    app_state = state(ctx)
    substrate = app_state.searched()
    readable = app_state.scopes_within(scope)
    answer = answer_from_substrate(
        substrate,
        asked,
        chosen,
        budget=ContextBudget(max_chars=max_chars),
        hops=hops,
        min_confidence=min_confidence,
        scopes=readable,
    )
    if scope is not None and answer.abstained and not answer.evidence:
        # an empty --scope says so, as search does: a mistyped scope name must not read as a
        # question the shard cannot answer ("no readable item mentions 'deploy'")
        empty = app_state.empty_scope(scope)
        if empty:
            answer.note = f"abstained: {empty}"
    receipt, miscited = None, []
    if answer.answer is not None:
        receipt = check_factuality(
            substrate,
            answer.answer,
            scopes=readable,
            masked_credentials=bool(answer.stated_secrets),
            asked_of=answer.names_asked(),
            proposals_back=True,  # each cited note not in force is warned of instead
        )
        packet = answer.context
        miscited = miscited_claims(receipt, answer.answer, packet.items, packet.texts)
    disagree = _disagreeing(answer)
    dangling = citations_to_nothing(answer.answer, len(answer.context))
    if json:
        data = answer.as_dict()
        data["answerer"] = chosen.label
        data["factuality"] = receipt.as_dict() if receipt is not None else None
        data["miscited"] = [{"claim": claim, "cites": cites} for claim, cites in miscited]
        data["dangling_citations"] = dangling
        data["changed_sources"] = answer.changed_sources()
        for entry in data["citations"]:  # the source as cited: masked, like the packet's
            entry["where"] = where_text(entry, entry["quoted_lines"])
        _same_names(data)
        output.emit_json(data)
    else:
        _ask_text(answer, chosen.label, receipt, disagree)
        passed_over_note(answer.passed_over_sources())  # replaced notes, not quoted
    if answer.abstained:
        raise typer.Exit(FOUND)
    if dangling and not json:  # --json lists them in "dangling_citations"
        named = ", ".join(f"[{n}]" for n in dangling)
        output.note(f"warning: {named} names no source; only the sources listed were given")
    doubt = _ungrounded(answer, receipt) or disagree
    if doubt:
        output.note(f"warning: {doubt}; do not rely on this answer")
        raise typer.Exit(FOUND)
    if receipt is not None and not json:  # --json lists them in "factuality"
        for verdict in receipt.unsupported():  # the answer rests on the others
            output.note(f"warning: no source found says: {output.printable(verdict.claim)}")
    if not json:  # --json lists them in "changed_sources", and each citation's status
        _changed_note(answer)
        _not_in_force_note(answer)
    if miscited:
        if not json:  # --json lists them in "miscited"
            for claim, cites in miscited:
                named = ", ".join(f"[{n}]" for n in cites)
                output.note(f"warning: {named} does not say what it is cited for: {claim}")
        raise typer.Exit(FOUND)
    if dangling:
        raise typer.Exit(FOUND)


def _changed_note(answer: Answer) -> None:
    """Warn of each cited source whose file changed or moved since it was ingested."""
    from substrate import published_copy

    citations = answer.citations()
    for changed in answer.changed_sources():
        n = changed["n"]
        where = where_text({"source": citations[n - 1]["source"]})  # the file
        again = "run `mixle ingest` again"
        if published_copy(answer.context.items[n - 1]):  # which no ingest rewrites
            again = "a published copy: its new text is for its team to propose"
        output.note(
            f"warning: [{n}] {where} {_since_ingest(changed['signal'])}; the answer "
            f"quotes it as it was then ({again})"
        )


def _not_in_force_note(answer: Answer) -> None:
    """Warn of each cited source whose note says it is not in force ("Status: Proposed")."""
    citations = answer.citations()
    for n, status in answer.cited_not_in_force():
        where = where_text({"source": citations[n - 1]["source"]})
        output.note(
            f"warning: [{n}] {where} calls itself {output.printable(status)!r}: what it says "
            "may not be (or no longer be) in force"
        )


def _since_ingest(signal: str) -> str:
    """What became of a source's file, by its ``changed_since_ingest`` signal."""
    what = "changed" if signal == "changed" else "moved or was removed"
    return f"{what} since it was ingested"


def _same_names(data: dict[str, Any]) -> None:
    """Name each source in the receipt of ``data`` as its citations do (names are told
    apart within a listing, and the receipt lists other items than the packet), with its
    ``where``, as ``verify`` gives it."""
    cited = {entry["id"]: entry["source"] for entry in data["citations"]}
    for claim in (data["factuality"] or {}).get("claims", []):
        for entry in claim["citations"] + ([claim["nearest"]] if claim["nearest"] else []):
            entry["source"] = cited.get(entry["id"], entry["source"])
            entry["where"] = where_text(entry)


def _ungrounded(answer: Answer, receipt: FactualityReceipt | None) -> str:
    """Why an answer rests on nothing given ("" when it does): it cites none of the sources,
    or the evidence supports none of its claims (a model answering from elsewhere)."""
    if not answer.cited():
        return "the answer cites none of the sources it was given"
    if answer.stated_secrets:  # masked alike, a quote of any key would read as grounded
        return "the answer states a credential, which no source it was given holds"
    if (
        receipt is not None
        and receipt.verdicts
        and len(receipt.unsupported()) == len(receipt.verdicts)
    ):
        return "the evidence supports none of the answer's claims"
    return ""


def _disagreeing(answer: Answer) -> str:
    """The sources the answer quotes that say the same but for one value ("" when none do):
    which one is right, the answer cannot tell, so it must not pass as settled."""
    pairs = answer.disagreements()
    if not pairs:
        return ""
    named = "; ".join(f"[{one}] and [{other}]" for one, other in pairs)
    return f"the sources disagree: {named} give different values"


# -- verify ----------------------------------------------------------------------------------------


def _read_text(text: str | None) -> str:
    """The text to verify, from the argument, the file it names or standard input, as given:
    a claim stating a credential is never supported, so the check must see it (the receipt
    masks the claims it prints back)."""
    body = text_or_file(text, "text to verify")
    if not body.strip():
        usage("the text is empty")
    return body


def verify_cmd(
    ctx: typer.Context,
    text: Annotated[
        str | None,
        typer.Argument(
            help="The text to check, a file holding it, or - for standard input (the default "
            "when it is piped)."
        ),
    ] = None,
    k: Annotated[int, typer.Option("-k", "--k", min=1, help="Evidence items per claim.")] = 4,
    min_score: Annotated[
        float,
        typer.Option(
            "--min-score",
            min=0.0,
            max=1.0,
            callback=output.score_option,
            help="Evidence scoring below this (0..1) does not count.",
        ),
    ] = 0.2,
    scope: ReadScopeOpt = None,
    json: JsonOpt = False,
    jsonl: JsonlOpt = False,
) -> None:
    """Check each claim of a text against the shard; exits 1 if any claim is unsupported.

    A claim is a sentence of two words or more; questions and headings of fewer than four
    words state nothing and are none (how many is said). A text with no claim has nothing a
    gate could vouch for: it exits 1 too. A claim is supported by a sentence that says it
    with its names, numbers and units; not by one that gives another value ("5433, not
    5432"), a change the other way ("from 1.28 to 1.30", "Kafka, replacing RabbitMQ" for
    "RabbitMQ replaced Kafka"), a negation, an opposite word ("mandatory" for "optional",
    "rejected" for "adopted"), or a move away from the thing ("moved from RabbitMQ to SQS",
    "instead of RabbitMQ"). A claim that something was rejected needs a sentence saying so,
    and one giving a reason ("because ...") a sentence giving it. A note that calls itself a
    proposal, a draft or turned down ("Status: Proposed") backs only a claim telling of it
    as one, or one its context states. Wording it does not read (a "before" said as "only
    after", a unit in a field name, a fact of another event told in the same words, a claim
    joining two sentences) can still pass or fail: a claim supported is not proven. Evidence
    whose file changed or moved since it was ingested is warned of (--json: its "changed").
    """
    from substrate import check_factuality, unchecked_sentences

    how = output.mode(json, jsonl)
    body = _read_text(text)
    app_state = state(ctx)
    receipt = check_factuality(
        app_state.searched(), body, k=k, min_score=min_score, scopes=app_state.scopes_within(scope)
    )
    data = receipt.as_dict()
    data["n_unchecked"] = len(unchecked_sentences(body))  # questions and short headings
    if not receipt.verdicts:  # vouched for by nothing: not "fully grounded" to a script
        data["grounded_fraction"] = None
    for claim in data["claims"]:
        for entry in claim["citations"] + ([claim["nearest"]] if claim["nearest"] else []):
            entry["where"] = where_text(entry)  # as search results and citations give it
    changed = _changed_evidence(app_state.substrate(), data["claims"])
    if how is Mode.JSON:
        output.emit_json(data)
    elif how is Mode.JSONL:
        output.emit_jsonl(data["claims"])
    else:
        lines = []
        for n, claim in enumerate(data["claims"], 1):
            mark = "supported  " if claim["supported"] else "UNSUPPORTED"
            shown = _BULLET.sub("", claim["claim"], count=1)  # (numbered here: no list's mark)
            lines.append(f"{n:>2}  {mark}  {claim['score']:.3f}  {shown}")
            lines.extend(
                output.one_line(f"      evidence {e['id']}  {e['where']}")
                for e in claim["citations"]
            )
            if claim["nearest"]:  # where to see what the shard says instead
                near = claim["nearest"]
                lines.append(
                    output.one_line(
                        f"      nearest  {near['id']}  {near['where']} ({_unsaid(near)})"
                    )
                )
        if lines:
            output.emit_text("\n".join(lines))
        told = list(changed.items())
        for where, signal in told[:_CHANGED_SHOWN]:
            output.note(
                f"warning: evidence {where} {_since_ingest(signal)}; what it supports may no "
                "longer hold (run `mixle ingest` again)"
            )
        if len(told) > _CHANGED_SHOWN:  # (a whole tree moved: a page of warnings says no more)
            output.note(
                f"warning: and {len(told) - _CHANGED_SHOWN} more evidence files changed or "
                'moved since they were ingested (--json marks each entry "changed")'
            )
        supported = data["n_claims"] - data["n_unsupported"]
        if data["n_claims"]:
            grounded = f"{receipt.grounded_fraction:.0%}"
            output.note(f"grounded {supported}/{data['n_claims']} claim(s) ({grounded})")
        if data["n_unchecked"]:  # so that none passes unseen
            output.note(f"not checked: {data['n_unchecked']} question(s) and short heading(s)")
    if not data["n_claims"]:  # why it exits 1, in every mode (JSON holds no reason)
        output.note(f"nothing to check: {_no_claims(body)}")
    if receipt.unsupported() or not receipt.verdicts:
        raise typer.Exit(FOUND)


_CHANGED_SHOWN = 5  # evidence files told of one by one


def _changed_evidence(substrate: Substrate, claims: list[dict[str, Any]]) -> dict[str, str]:
    """Mark each evidence entry of ``claims`` whose file changed or moved since it was
    ingested (``changed``: the signal); returns the signal by where each is, for warnings."""
    from substrate import changed_since_ingest

    entries = [entry for claim in claims for entry in claim["citations"]]
    items = substrate.read_items({entry["id"] for entry in entries}, keep=False)
    changed = changed_since_ingest(items.values())
    warned: dict[str, str] = {}
    for entry in entries:
        if entry["id"] in changed:
            entry["changed"] = changed[entry["id"]]
            warned[where_text({"source": entry["source"]})] = changed[entry["id"]]
    return warned


COMMANDS: dict[str, Callable[..., None]] = {"ask": ask_cmd, "verify": verify_cmd}


def _unsaid(near: dict[str, Any]) -> str:
    """Why the nearest evidence backs no claim: it does not say it, was replaced, or is not
    in force (a proposal, a draft, one turned down)."""
    if replaced := near.get("replaced_by"):
        return f"says it, but was replaced by {replaced}"
    if status := near.get("not_in_force"):
        return f"says it, but calls itself {status!r}"
    if near.get("contradicted"):
        return "gives it another value: the sources disagree"
    return "does not say it"
