"""Ingestion commands: ingest (files, folders, stdin) and the explicit ingest-* forms."""

from __future__ import annotations

import os
import re
import signal
import stat
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from itertools import groupby
from pathlib import Path, PurePath
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mixle_cli import output
from mixle_cli.context import AppState, check_tags, is_shard, state
from mixle_cli.errors import (
    FOUND,
    INTERRUPTED,
    OPERATIONAL,
    TERMINATED,
    USAGE,
    Terminated,
    classify,
    denied,
    fail,
    second_sigterm,
    sigterm_handled,
    terminate,
    usage,
)
from mixle_cli.evidence import DOCS, INGESTED_AS, named_source
from mixle_cli.output import JsonOpt, WriterOpt, WriteScopeOpt
from mixle_cli.stdin import stdin_stream
from substrate import (
    DEFAULT_CHUNK_CHARS,
    DEFAULT_MAX_FILE_SIZE,
    FILE_FORMATS,
    INGEST_FORMATS,
    MIN_CHUNK_CHARS,
    AccessDeniedError,
    CorruptShardError,
    LostCommitsError,
    ShardError,
    SharedFolderError,
    safe_text,
    waiting_for_a_lock,
)

if TYPE_CHECKING:
    from substrate import FileOutcome, IngestIssue, IngestReport, Substrate

TagOpt = Annotated[list[str] | None, typer.Option("--tag", "-t", help="Tag every item (repeat).")]
NoRedactOpt = Annotated[
    bool, typer.Option("--no-redact", help="Store detected secrets as they are (not advised).")
]


QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="No progress, no summary, no skipped files, no word of waiting for another "
        "writer; problems are still said.",
        callback=output.quiet_waits,
    ),
]
SourceOpt = Annotated[
    str | None,
    typer.Option("--source", help="Source name recorded in provenance.", callback=named_source),
]


IngestScopeOpt = Annotated[
    str | None,
    typer.Option(
        "--scope",
        help="Scope of the new items (default: your team's; with no team, mixle.toml's "
        "default_scope, which is local unless set). A tree ingested again into another scope "
        "gets items there too, beside those of the first, which stay: to share items, "
        "publish them.",
    ),
]


def _middle_dot() -> str:
    """The progress line's separator: a middle dot where stderr can show one, else a dash
    (a terminal in an ASCII locale showed ``\\xb7``)."""
    try:
        "\u00b7".encode(getattr(sys.stderr, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return "-"
    return "\u00b7"


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[int, int, int, int], None] | None]:
    """A progress bar on stderr (files, items, bytes, rate) when stderr is a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    started = time.monotonic()
    dot = _middle_dot()
    with Progress(
        TextColumn("ingesting"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            f"files {dot} {{task.fields[items]}} items {dot} {{task.fields[mb]:.1f}} MB {dot} "
            "{task.fields[rate]:.0f} files/s"
        ),
        console=output.stderr(),
        transient=True,
    ) as bar:
        task = bar.add_task("ingest", total=None, items=0, mb=0.0, rate=0.0)

        def update(done: int, total: int, items: int, nbytes: int) -> None:
            rate = done / max(time.monotonic() - started, 1e-6)
            bar.update(
                task, completed=done, total=total or None, items=items, mb=nbytes / 1e6, rate=rate
            )

        yield update


def _summary(report: IngestReport) -> str:
    parts = [
        f"{report.files_scanned} file{'' if report.files_scanned == 1 else 's'} scanned",
        f"{report.files_added} added",
        f"{report.files_updated} updated",
        f"{report.files_unchanged} unchanged",
        f"{report.files_removed} removed"
        + (f" ({report.files_moved} moved)" if report.files_moved else ""),
        f"{report.files_skipped} skipped",
        f"{report.files_failed} failed",
    ]
    if report.files_not_reached:  # a run stopped early
        parts.append(f"{report.files_not_reached} not reached")
    parts.extend(_left_out(report))
    items = f"items: +{report.items_added} -{report.items_removed}"
    if report.items_rewritten:
        items += f", {report.items_rewritten} rewritten"
    if report.items_dropped:
        items += f", {report.items_dropped} empty dropped"
    if report.redactions:
        items += f", {report.redactions} secret(s) redacted"
    return ", ".join(parts) + "; " + items


def _left_out(report: IngestReport) -> list[str]:
    """What the walk left out by name, so that a file missing from the shard is explained."""
    parts = []
    if report.entries_hidden:
        parts.append(f"{report.entries_hidden} hidden left out (--hidden takes them)")
    if report.entries_ignored:
        parts.append(f"{report.entries_ignored} ignored by rules")
    return parts


HiddenOpt = Annotated[bool, typer.Option("--hidden", help="Also walk hidden files and folders.")]

_TEAM_HINT = "to read as a team, give --as before the command: mixle --as TEAM {command} ..."


def _check_format(as_format: str | None) -> None:
    """Refuse an unknown --as early; the global --as (a team) is easily given here instead."""
    unknown = _unknown_format(as_format) if as_format is not None else None
    if unknown is not None:
        fail(unknown, USAGE, _TEAM_HINT.format(command="ingest"))


def _refuse_a_format_for_a_team(
    app_state: AppState, scope: str | None, is_format: Callable[[str], bool], quiet: bool
) -> None:
    """Refuse ``mixle --as docs ingest ...``, a format (``is_format``: one the command takes)
    given before the command, where it names a team: the items would go to a scope ``docs``
    no other reader sees. A team of that name the shard knows (``scope_in_use``), or a run
    given its --scope, is taken at its word."""
    team = app_state.team_option
    if team is None or scope is not None or not is_format(team):
        return
    from substrate import safe_repr, scope_in_use

    if scope_in_use(app_state.substrate(quiet=quiet), team):
        return
    fail(
        f"--as {safe_repr(team)} before the command names a team, and {safe_repr(team)} is a "
        "format; no team of that name holds an item",
        USAGE,
        f"to read the inputs as {safe_repr(team)}, give it after the command: "
        f"mixle {app_state.command} --as {safe_repr(team)} PATH",
    )


def _is_ingest_format(name: str) -> bool:
    return _unknown_format(name) is None


def _is_file_format(name: str) -> bool:
    return name.lower() in FILE_FORMATS


def _unknown_format(as_format: str) -> str | None:
    """Why ``ingest --as`` takes no format ``as_format``; None when it takes it."""
    from substrate import InvalidInputError, normalize_format

    try:
        normalize_format(as_format)
    except InvalidInputError as exc:
        return str(exc)
    return None


_SIZE_HINT = (
    "hint: the size limit is max_file_size in mixle.toml's [ingest] table "
    "(`ingest` also takes --max-file-size)"
)


_REOPTIONED_HINT = (
    "note: {n} file(s) read again though their content is unchanged: their last ingest "
    "had other --tag, --as, "
    "--chunk-chars or --no-redact options, named them from another folder, or was an older "
    "mixle's, which parsed files otherwise; an item of such a file removed (`mixle rm`) or "
    "merged away since is stored again"
)


def _finish(
    report: IngestReport,
    *,
    json: bool,
    quiet: bool,
    terminated: bool = False,
    saved_all: bool = False,
) -> None:
    """Print the report and exit 1 when some input was rejected, 130 when interrupted (143
    when ``terminated`` by SIGTERM; ``saved_all``: after every input was saved)."""
    if json:
        output.emit_json(report.as_dict())
        if not report.ok and not quiet:  # the exit code explained where a person looks
            output.note(_summary(report))
    else:
        from substrate import shown_names

        skipped = [o for o in report.files if o.status == "skipped"] if not quiet else []
        told = [(o.source, o.path) for o in skipped]
        told += [(i.source, i.path) for i in (*report.issues, *report.notices)]
        names = shown_names(told)  # masked; two files of one name told apart
        by_reason = _skips_by_reason(skipped)
        for outcome in _each_told(skipped, by_reason):
            output.note_parts(outcome.status, names[(outcome.source, outcome.path)], outcome.reason)
        for line in _grouped_skips(by_reason):
            output.note(line)
        # said even with --quiet: an exit 1 with nothing to show for it leaves one guessing
        for issue, more in _capped(report.issues):  # a failed file once, where it failed
            name = names[(issue.source, issue.path)]
            if more:
                output.note_parts(
                    "problem", name, f"{more:,} more line(s) rejected (--json lists them all)"
                )
                continue
            label = "failed" if issue.fatal else "problem"
            output.note_parts(label, issue.location(name), issue.reason)
        if report.unredacted_secrets:
            output.note(f"warning: {report.unredacted_secrets} secret(s) stored unredacted")
        if not quiet:
            output.note(_summary(report))
            from substrate import OVER_THE_SIZE_LIMIT

            if any(o.reason.startswith(OVER_THE_SIZE_LIMIT) for o in report.files):
                output.note(_SIZE_HINT)
            if report.files_reoptioned:
                output.note(_REOPTIONED_HINT.format(n=report.files_reoptioned))
        # said even with --quiet (someone's proposal is gone), a few of each kind by name
        for kind, notices in _notices_by_kind(report.notices).items():
            for notice in notices[:NOTICES_NAMED]:
                where = notice.location(names[(notice.source, notice.path)])
                output.note_parts("note", where, notice.reason)
            if len(notices) > NOTICES_NAMED:
                more = len(notices) - NOTICES_NAMED
                output.note(f"note: {more:,} more like it: {kind} (--json lists them all)")
    if report.interrupted or terminated:  # said even with --quiet or --json: not finished
        code, word = (TERMINATED, "terminated") if terminated else (INTERRUPTED, "interrupted")
        changed = report.items_added or report.items_removed or report.items_rewritten
        kept = "the files completed before it are stored" if changed else "nothing was changed"
        state_of_run = f"{kept}, run the command again to finish"
        if saved_all:  # the interrupt came as the run ended: nothing is left to do
            state_of_run = "every input was ingested and saved before it"
        output.note(f"error: {word}; {state_of_run}")
        raise typer.Exit(code)
    if not report.ok:
        raise typer.Exit(FOUND)


# Past this many notices of one kind (a moved tree's thousands of published copies, each
# told it stays), the rest are counted on one line
NOTICES_NAMED = 10
_AN_ID = re.compile(r"\b[0-9a-f]{16}\b")


def _notices_by_kind(notices: list[IngestIssue]) -> dict[str, list[IngestIssue]]:
    """The notices by what their first clause says but for the ids in it ("item ID,
    published into public, stays there"; after it, each tells where its file went), in the
    order first told."""
    kinds: dict[str, list[IngestIssue]] = {}
    for notice in notices:
        said = _AN_ID.sub("ID", _CLAUSE_END.split(notice.reason, maxsplit=1)[0])
        kinds.setdefault(said, []).append(notice)
    return kinds


_CLAUSE_END = re.compile(r"[;:]")


def _capped(issues: list[IngestIssue]) -> Iterator[tuple[IngestIssue, int]]:
    """The problems to print, a file's together, each with 0; past the first
    ``KEPT_REJECTIONS`` rejected lines of a file, one ``(its last, how many more)`` instead,
    before what is said of the whole file: a CSV of 569 short rows printed 569 lines, where a
    run that finds the file unchanged tells the first 20 (``--json`` lists them all)."""
    from substrate import KEPT_REJECTIONS

    for _, told in groupby(issues, key=lambda issue: (issue.source, issue.path)):
        of_file = list(told)
        lines = [i for i in of_file if not i.fatal and i.line is not None]
        yield from ((issue, 0) for issue in lines[:KEPT_REJECTIONS])
        if len(lines) > KEPT_REJECTIONS:
            yield lines[-1], len(lines) - KEPT_REJECTIONS
        yield from ((issue, 0) for issue in of_file if issue.fatal or issue.line is None)


# Past this many files skipped for one reason (a source tree's .py files: thousands, on every
# run), they are counted by kind on one line instead of named one by one
SKIPS_NAMED = 10


def _skips_by_reason(skipped: list[FileOutcome]) -> dict[str, list[FileOutcome]]:
    """The skipped files by their reason, without what is each file's own in it (a size:
    "larger than the size limit (3001 > 2000 bytes)")."""
    by_reason: dict[str, list[FileOutcome]] = {}
    for outcome in skipped:
        by_reason.setdefault(_OWN_PART.sub("", outcome.reason), []).append(outcome)
    return by_reason


_OWN_PART = re.compile(r" \(\d+ > \d+ bytes\)$")


def _each_told(
    skipped: list[FileOutcome], by_reason: dict[str, list[FileOutcome]]
) -> list[FileOutcome]:
    """The skipped files named one by one: those of a reason few files share."""
    few = {id(o) for files in by_reason.values() if len(files) <= SKIPS_NAMED for o in files}
    return [outcome for outcome in skipped if id(outcome) in few]  # in the walk's order


def _grouped_skips(by_reason: dict[str, list[FileOutcome]]) -> list[str]:
    """``skipped: 7,510 files: unsupported format (.py 6,012, .pyc 1,203, ...)``, for each
    reason many files share. An extension is taken from the name masked whole, as it is
    spelt: a key may end a name, and only the whole name, in its own case, shows it as one."""
    lines = []
    for reason, files in by_reason.items():
        if len(files) <= SKIPS_NAMED:
            continue
        kinds = Counter(PurePath(safe_text(o.source)).suffix or "no extension" for o in files)
        commonest = sorted(kinds.items(), key=lambda kind_n: (-kind_n[1], kind_n[0]))[:5]
        shown = [f"{kind} {n:,}" for kind, n in commonest]
        if len(kinds) > 5:
            shown.append(f"{len(kinds) - 5} more kind(s)")
        hint = ""
        if reason == UNSUPPORTED and commonest[0][0].lower() in TEXT_EXTENSIONS:
            hint = f"; --as-text '*{commonest[0][0]}' reads such files as plain text"
        lines.append(f"skipped: {len(files):,} files: {reason} ({', '.join(shown)}){hint}")
    return lines


UNSUPPORTED = "unsupported format"  # (the reason a walk gives a file of no format it reads)
# Extensions of files that are text, source code and configuration, which --as-text reads
# well (not .png or .so: a binary file is passed over whatever the option says)
TEXT_EXTENSIONS = frozenset(
    ".py .pyi .js .mjs .cjs .ts .tsx .jsx .go .rs .java .kt .kts .scala .c .h .cc .cpp .hpp "
    ".cs .rb .php .pl .lua .r .swift .m .sh .bash .zsh .fish .ps1 .bat .sql .yaml .yml .toml "
    ".ini .cfg .conf .properties .env .xml .html .htm .css .scss .vue .svelte .tf .proto "
    ".graphql .gradle .cmake .mk .ex .exs .erl .hs .clj .dart .el .vim .adoc .org .tex".split()
)


def ingest(
    ctx: typer.Context,
    paths: Annotated[
        list[str], typer.Argument(help="Files or folders to ingest, or - for standard input.")
    ],
    as_format: Annotated[
        str | None,
        typer.Option(
            "--as",
            help="Parse every input as: docs (prose: Markdown, split into sections at its "
            "headings; ingest-docs reads a JSON Lines file of documents instead), records "
            "(CSV, TSV and JSON files as they are, "
            "anything else as JSON Lines), traces, artifacts (in a folder, its manifest.json "
            "files only), or one of "
            f"{', '.join(INGEST_FORMATS)}. Default: by file extension (.md, .markdown, "
            ".mdown, .mkd, .mdx; .txt, .text, .log and README, LICENSE, COPYING, AUTHORS, "
            "CHANGELOG, NEWS, INSTALL, TODO and other files named as prose by convention, "
            "with no extension or one such as .Debian; .rst; .json; "
            ".jsonl, .ndjson; .csv; .tsv, .tab), also rotated (app.log.1) or compressed "
            "with gzip (NEWS.gz, run.jsonl.1.gz: the text inside is read); a file of any "
            "other is skipped, as an unsupported format. Standard input is read as a file "
            "named by --source would be, else as plain text.",
        ),
    ] = None,
    as_text: Annotated[
        list[str] | None,
        typer.Option(
            "--as-text",
            metavar="PATTERN",
            help="Also read the files this pattern matches as plain text, when their "
            "extension is none of those above: source code, configuration ('*.py', "
            "'src/**/*.js'; written as in .gitignore; repeat; mixle.toml's \\[ingest] as_text "
            "adds more). A file read so that no pattern takes any longer loses its items when "
            "it changes, or at once with --rehash.",
        ),
    ] = None,
    scope: IngestScopeOpt = None,
    by: WriterOpt = None,
    tag: TagOpt = None,
    chunk_chars: Annotated[
        int | None,
        typer.Option(
            "--chunk-chars",
            min=MIN_CHUNK_CHARS,  # as [ingest] chunk_chars: one rule
            help="Longest chunk in characters (default: mixle.toml's \\[ingest] chunk_chars, "
            f"else {DEFAULT_CHUNK_CHARS}).",
        ),
    ] = None,
    max_file_size: Annotated[
        int | None,
        typer.Option(
            "--max-file-size",
            min=1,
            help="Skip files larger than this many bytes in a folder (default: mixle.toml's "
            f"\\[ingest] max_file_size, else {DEFAULT_MAX_FILE_SIZE:,} (32 MiB)); a skipped "
            "file keeps the items it gave before unless its size changed since. A file named "
            "that long fails (exit 1) instead of being skipped; standard input that long "
            "fails, keeping what its source gave before.",
        ),
    ] = None,
    no_redact: NoRedactOpt = False,
    no_prune: Annotated[
        bool,
        typer.Option(
            "--no-prune",
            help="Keep the items of files that disappeared or that the walk now leaves out "
            "(ignored, or hidden without --hidden).",
        ),
    ] = False,
    prune_empty: Annotated[
        bool,
        typer.Option(
            "--prune-empty",
            help="Prune a folder in which no file was found too (by default its items are "
            "kept and the run exits 1: an unmounted drive or share leaves an empty folder).",
        ),
    ] = False,
    hidden: HiddenOpt = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            min=0,
            help="Worker processes that read and parse files (0: automatic, one per CPU up "
            "to 4 when over a thousand files must be read; 1: this process only; at most 4 "
            "per CPU).",
        ),
    ] = 0,
    rehash: Annotated[
        bool,
        typer.Option(
            "--rehash",
            help="Read and parse every file, even one whose size, modification time and "
            "change time are unchanged (for a file system that keeps no change time); files "
            "that give the same items are still told unchanged, and not written again.",
        ),
    ] = False,
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Name standard input (-) as this source: a later run under the same name "
            "replaces its items, and its extension gives the format, as a file's does "
            "(notes.md: Markdown). Default: stdin-<content hash>, so each text piped in is "
            "kept.",
            callback=named_source,
        ),
    ] = None,
    json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Ingest files and folders incrementally (secrets are redacted before storing).

    Unchanged files (same size, modification time and change time) are skipped without
    being read (see --rehash), changed files have their items
    replaced in one atomic write, and the items of files that disappeared, or that the walk
    now leaves out (an ignore rule, a hidden file without --hidden), are removed (see
    --no-prune), unless the walk of a folder found no file at all: then they are kept (see
    --prune-empty), or iCloud keeps it online only (a .NAME.icloud in its place). A new file
    with the content of a file gone from the disk, even from another folder, was moved: the
    gone file's items are removed.

    A folder's walk leaves out what its .gitignore files and a .mixleignore (same syntax, for
    files only mixle should pass by, such as one that is not UTF-8) name, and the copies sync
    and merge tools leave beside a file ("x (conflicted copy ...).md", "x.sync-conflict-...",
    "x_REMOTE_123.md", logseq/bak/) and the lock files package managers write
    (package-lock.json), which it tells of.
    """
    if not all(p.strip() for p in paths):
        usage("a path is empty (was a variable left unset?)")
    check_tags(tag)
    if paths.count("-") > 1:
        usage("standard input (-) can be read only once")
    if source is not None and "-" not in paths:
        usage("--source names standard input: give - among the paths")
    if no_prune and prune_empty:
        usage("--no-prune and --prune-empty contradict each other: give one")
    if paths == ["-"] and (hidden or no_prune or prune_empty or jobs):
        usage(
            "--hidden, --no-prune, --prune-empty and --jobs apply to folders, not to standard input"
        )
    if paths == ["-"] and rehash:
        usage("--rehash applies to files and folders: standard input is always read")
    if as_text and as_format is not None:
        usage("--as reads every file as one format already: --as-text adds nothing to it")
    _check_format(as_format)
    app_state = state(ctx)
    substrate = app_state.substrate(quiet=quiet)
    _refuse_a_format_for_a_team(app_state, scope, _is_ingest_format, quiet)
    target_scope = app_state.write_scope(scope, by)
    acting = app_state.acting_name(by)  # who the run acts as, fixed at its start
    told = not (quiet or json)
    new_scope = app_state.new_scope(target_scope, named=scope is not None) if told else ""
    from substrate import IngestReport, authorize_write, ingest_path

    report = IngestReport()
    common: dict[str, Any] = {
        "scope": target_scope,
        "tags": tag or (),
        "chunk_chars": chunk_chars,
        "redact": not no_redact,
        "report": report,
        # the scope's approvers, checked again as each batch is saved: a grant saved by
        # another process during a long run (or while standard input is read) must not be
        # written past
        "authorize": lambda: authorize_write(substrate, target_scope, by=acting),
    }
    refused = {p: why for p in paths if p != "-" and (why := _why_not_ingested(p))}
    failed: dict[str, tuple[FileOutcome, IngestIssue]] = {}
    for path, why in refused.items():  # failed on their own: the others are ingested
        report.files_scanned += 1  # (the counts add up)
        failed[path] = (report.failed(path, path, why), report.issues[-1])
    paths = [p for p in paths if p not in refused]
    _refuse_the_shard(substrate, paths)
    terminated = threading.Event()
    inputs = _distinct(paths)
    left = len(inputs)  # not yet ingested and saved whole
    try:
        # (not while the user types standard input at the terminal: it drew over the line)
        typed = "-" in paths and sys.stdin is not None and sys.stdin.isatty()
        with _progress(not (json or quiet or typed)) as progress:
            for raw, outermost in inputs:
                if terminated.is_set():
                    break
                if raw == "-":
                    _ingest_stdin(substrate, source, as_format, max_file_size, common)
                    left -= 1
                    continue
                with _cancelled_by_sigterm(terminated):
                    ingest_path(
                        substrate,
                        raw,
                        as_format=as_format,
                        max_file_size=max_file_size,
                        prune=not no_prune,
                        prune_empty=prune_empty,
                        hidden=hidden,
                        progress=progress,
                        jobs=jobs or None,
                        cancel=terminated,
                        rehash=rehash,
                        named_from=outermost,
                        as_text=as_text or (),
                        **common,
                    )
                left -= 1
    except KeyboardInterrupt as exc:  # (standard input is stopped at once, as Ctrl-C stops it)
        _interrupted(report, exc, terminated)
    except (ShardError, OSError) as exc:  # a full disk, a shard that cannot be written
        if isinstance(exc, BrokenPipeError) or os.environ.get("MIXLE_DEBUG") == "1":
            raise
        code, message, hint = classify(exc)
        if report.files_scanned == len(refused) or isinstance(
            exc, CorruptShardError | LostCommitsError
        ):  # refused before a file was read (a bad mixle.toml), or a shard no write is
            # taken in until it is mended: running again would not finish it, and no report
            # of nothing done stands on stdout as if the run had been a quiet one
            fail(message, code, hint or None)
        if json:  # what was done before it, for a script to read
            _tell_what_is_kept(
                substrate, report, failed, target_scope, moves=not no_prune, terminated=terminated
            )
            output.emit_json(report.as_dict())
        # saves are batched: the batch under way is lost, the ones before it are not
        if isinstance(exc, AccessDeniedError):  # refused as it saved: a grant since it began
            saved = "earlier batches are kept" if app_state.saved else "nothing was saved"
            if report.interrupted or terminated.is_set():  # the save on its way out, refused
                # (a SIGTERM while waiting for the lock stops it as Ctrl-C does)
                saved = f"{'terminated' if terminated.is_set() else 'interrupted'}; {saved}"
            fail(message, code, saved)  # (not "run it again": that would be refused too)
        if denied(message) or isinstance(exc, SharedFolderError):  # refused again if run again
            saved = "earlier batches are kept" if app_state.saved else "nothing was saved"
            fail(message, code, f"{hint}; {saved}" if hint else saved)
        again = "run the command again to finish"
        kept = "earlier batches are kept" if app_state.saved else "nothing was saved"
        fail(message, code, f"{hint}; {again}" if hint else f"{kept}; {again}")
    # said once the others are ingested: a folder moved into one of them took its items along
    _tell_what_is_kept(
        substrate, report, failed, target_scope, moves=not no_prune, terminated=terminated
    )
    if not (quiet or json) and substrate.root is not None and not is_shard(substrate.root):
        output.note(f"note: nothing was stored, so {substrate.root} is still no shard")
    if new_scope and report.items_added:
        output.note(f"note: {new_scope}")
    if told and app_state.team is None and (report.items_rewritten or report.items_removed):
        from mixle_cli.compaction import reclaim_note

        if note := reclaim_note(substrate):  # (another team's old versions are not a team's)
            output.note(note)
    saved_all = not left and not report.cancelled  # (a SIGTERM ends an input early, quietly)
    _finish(report, json=json, quiet=quiet, terminated=terminated.is_set(), saved_all=saved_all)


def _interrupted(report: IngestReport, exc: KeyboardInterrupt, terminated: threading.Event) -> None:
    """Mark the run as stopped by ``exc``: a SIGTERM (``Terminated``) ends it with 143."""
    report.interrupted = True
    if isinstance(exc, Terminated):
        terminated.set()


@contextmanager
def _cancelled_by_sigterm(event: threading.Event) -> Iterator[None]:
    """For the block, SIGTERM (a ``timeout``, systemd) sets ``event``: the ingest stops after
    the file at hand and saves what it completed, as on Ctrl-C; a second one ends the process
    at once (``sigterm_handled``)."""

    def stop(signum: int, frame: FrameType | None) -> None:
        if second_sigterm():
            os._exit(TERMINATED)
        if event.is_set():  # the same stop, sent to the process group as well
            return
        event.set()
        if waiting_for_a_lock():  # no file at hand: stop now, as Ctrl-C does
            raise KeyboardInterrupt

    with sigterm_handled(stop, over=(signal.SIG_DFL, terminate)):  # (the command line's own)
        yield


# What a path given may be that is neither a file nor a folder
_SPECIAL_KINDS = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def _why_not_ingested(path: str) -> str | None:
    """Why a path given cannot be ingested (it is not there, or is a FIFO, a device: reading
    one could block forever, so it is not opened), or None when it is a file or a folder."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # or a dead link
        return _why_missing(path)
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kind = _SPECIAL_KINDS.get(stat.S_IFMT(mode), "a special file")
    return f"not a regular file or folder ({kind}); not read"


def _tell_what_is_kept(
    substrate: Substrate,
    report: IngestReport,
    failed: dict[str, tuple[FileOutcome, IngestIssue]],
    scope: str,
    *,
    moves: bool,
    terminated: threading.Event,
) -> None:
    """Add to the failure of each path given that is gone what is kept of it (``_kept_from``).
    Only a hint: a shard that cannot be read for it leaves it out, and so does a Ctrl-C,
    which the report then tells (everything was saved before it)."""
    try:
        kept = _kept_from(substrate, list(failed), scope, moves=moves)
    except (ShardError, OSError):
        return
    except KeyboardInterrupt as exc:
        _interrupted(report, exc, terminated)
        return
    for path, (outcome, issue) in failed.items():
        outcome.reason += kept.get(path, "")
        issue.reason += kept.get(path, "")


def _kept_from(
    substrate: Substrate, paths: list[str], scope: str, *, moves: bool
) -> dict[str, str]:
    """What to say of the items earlier runs took from each of ``paths`` that is gone: they
    are kept (a folder on a drive not mounted must not empty the shard), and how to remove
    them, or, if it was moved (``moves``: a prune is on), to let its new place take them.
    One pass over the scope's items for all of them."""
    gone = {
        path: os.path.realpath(path)  # where a link led: its items were recorded there
        for path in paths
        if not os.path.lexists(path) or os.path.islink(path)  # not a FIFO or a device
    }
    if not gone:
        return {}
    counts = dict.fromkeys(gone, 0)
    files: set[str] = set()  # the paths that were a file, not a folder
    for item in substrate.iter_items(scope=scope):
        at = item.provenance.get("path")
        if isinstance(at, str):
            for path, where in gone.items():
                if at == where:
                    files.add(path)
                if at == where or at.startswith(where.rstrip(os.sep) + os.sep):
                    counts[path] += 1
    return {
        path: f"; the {n} item(s) ingested from it before are kept "
        f"({_how_to_go_on(path, path in files, moves=moves)})"
        for path, n in counts.items()
        if n
    }


def _how_to_go_on(path: str, was_a_file: bool, *, moves: bool) -> str:
    """How the items of ``path``, gone, may be moved or removed. An ingest elsewhere takes
    their place only when ``path`` is gone, not out of reach: where it was is no empty
    folder (as a drive not mounted leaves its mount point) nor a place of mount points."""
    from substrate import gone_from_disk

    gone = gone_from_disk(path)
    if was_a_file:  # (its folder, empty, keeps the items but with --prune-empty)
        remove = "ingest the folder that held it" + ("" if gone else " with --prune-empty")
    else:
        remove = "ingest an empty folder at that path with --prune-empty"
    if not moves:
        return f"to remove them, {remove}"
    if gone:
        takes = "it takes" if was_a_file else "its files take"
        return (
            f"moved? ingest it where it is now, and {takes} their place; else, to remove "
            f"them, {remove}"
        )
    return (
        "what held it is empty, or a place drives are mounted on, as when a drive is not "
        f"mounted: nothing ingested elsewhere takes their place; to remove them, {remove}"
    )


def _why_missing(path: str) -> str:
    """Why a path given cannot be ingested, as ``os.path.exists`` found."""
    from substrate import link_trouble

    return link_trouble(path) if os.path.islink(path) else "no such file or folder"


def _ingest_stdin(
    substrate: Substrate,
    source: str | None,
    as_format: str | None,
    max_file_size: int | None,
    common: dict[str, Any],
) -> None:
    """Ingest standard input as one source (skipped, as a file is, past the size limit)."""
    from substrate import ingest_text

    ingest_text(
        substrate,
        stdin_stream(),
        source=source,
        as_format=as_format,
        max_file_size=max_file_size,
        **common,
    )


def _adds_on_rerun(command: Callable[..., None]) -> Callable[..., None]:
    """Say in an explicit form's help what running it again does."""
    command.__doc__ = (command.__doc__ or "") + (
        "\n\n    A run adds what it reads: unchanged content keeps its ids while it keeps its "
        "place (a row\n    inserted gives the rows after it new ones), and the items of content "
        "edited, moved or\n    removed since an earlier run stay beside the new ones. For "
        "files kept up to date\n    (edits replaced, deletions pruned), use `mixle ingest`."
    )
    return command


def _distinct(paths: list[str]) -> list[tuple[str, str | None]]:
    """``paths`` without repeats (``a ./a``), so that no file is counted twice, and with a
    path inside another given folder before that folder; each with the outermost given folder
    around it, which names its files, whichever path reached them first.

    Such a path may name what the folder's walk leaves out (a hidden or ignored file), so it
    stays (its files are then counted again, as unchanged). Coming first, it is one the
    folder's prune knows was just considered, and keeps its items.
    """
    resolved: dict[str, Path | None] = {}
    seen: set[Path] = set()
    for raw in paths:  # each resolved once: a shell glob may give thousands of files
        here = Path(raw).resolve() if raw != "-" else None
        if here is None or here not in seen:
            resolved[raw] = here
        if here is not None:
            seen.add(here)
    folders = [here for here in resolved.values() if here is not None and here.is_dir()]
    around = {
        raw: [f for f in folders if f != here and here.is_relative_to(f)] if here else []
        for raw, here in resolved.items()
    }
    ordered = sorted(resolved, key=lambda raw: len(around[raw]), reverse=True)
    return [
        (raw, str(min(around[raw], key=lambda f: len(f.parts))) if around[raw] else None)
        for raw in ordered
    ]


def _refuse_the_shard(substrate: Substrate, paths: Iterable[str]) -> None:
    """A usage error for a path inside the shard: ingesting its own files would copy every
    item (of every scope) back in as new ones."""
    if substrate.root is None:
        return
    shard = substrate.root.resolve()
    inside = [p for p in paths if p != "-" and _inside(p, shard)]
    if inside:
        usage(f"{inside[0]} is (inside) the shard itself; ingest the files it was built from")


def _inside(path: str, folder: Path) -> bool:
    try:
        return Path(path).resolve().is_relative_to(folder)
    except (OSError, RuntimeError):  # a link loop: it is read nowhere, and fails as missing
        return False


def _adapt(
    ctx: typer.Context,
    adapter: Callable[..., list[str]],
    target: Any,
    scope: str | None,
    *,
    json: bool,
    quiet: bool,
    by: str | None = None,
    root: str | None = None,
    problems: list[IngestIssue] | None = None,
    read: int | None = None,
    **options: Any,
) -> None:
    """Run one of the reference adapters on ``target``, save once, and report (``root`` names
    the input in the report; default: ``target``; ``problems`` were found before; ``read``:
    the bytes of the file the command read itself; ``by``: the --by name)."""
    from substrate import IngestReport, InvalidInputError

    started = time.monotonic()
    app_state = state(ctx)
    substrate = app_state.substrate(quiet=quiet)
    name = root or str(target)
    _refuse_the_shard(substrate, [name])
    where = None if name == "-" else str(Path(name).absolute())  # as `ingest` reports a path
    if name == "-":  # standard input is told by its source's name, as `ingest -` tells it
        name = options.get("source") or "stdin"
    found = [replace(issue, path=issue.path or where) for issue in problems or []]
    report = IngestReport(roots=[where or f"stream:{name}"], issues=found)
    if read is not None:
        report.files_scanned, report.bytes_read = 1, read
    writes_to = app_state.write_scope(scope, by)
    # The adapter reads the stored items it replaces or carries over: it runs under the lock,
    # with the scope checked again there, so that a publish or an approval another process
    # saves meanwhile is not written over with the version read before it, nor a grant
    # saved since the first check written past.
    with substrate.exclusive():
        app_state.write_scope(writes_to, by)
        try:
            adapter(substrate, target, scope=writes_to, report=report, **options)
        except InvalidInputError:
            if not report.issues:
                raise  # not the input's content: a usage error (an unsupported format)
        if substrate.unsaved:
            substrate.save()
    if read is not None and not report.files:  # read here: its outcome, as the others give
        _note_file(report, name, where)
    report.elapsed_s = time.monotonic() - started
    _finish(report, json=json, quiet=quiet)  # rejected content: reported, exit 1


def _note_file(report: IngestReport, name: str, path: str | None) -> None:
    """The outcome of a file this command read and handed on as content (``name`` as its
    problems are told, ``path`` where it is)."""
    whole = next((issue for issue in report.issues if issue.fatal), None)
    if whole is not None:  # rejected as a whole (binary, invalid UTF-16): said once
        report.failed_for(whole, path)
        return
    report.record_file(
        name,
        path,
        added=report.items_added,
        rewritten=report.items_rewritten,
        gave_items=bool(report.ids),
        errors=len(report.issues),
        empty=report.items_dropped,
    )


def _existing(given: str, *, folder: bool = False) -> Path:
    """The file (or folder) named by ``given`` as typed: a usage error when it is empty or
    ``-`` (``./-`` names a file called "-"), an operational one when it is not there."""
    if not given.strip():
        usage("a path is empty (was a variable left unset?)")
    if given == "-" and not folder:
        usage("this command reads a file; for standard input use `mixle ingest - --as FORMAT`")
    if given == "-":  # an artifact is the folder its manifest describes: no stream has one
        usage("this command reads a folder, not standard input (./- names a folder called -)")
    path = Path(given)
    if path.is_dir() if folder else path.is_file():
        if not os.access(path, os.R_OK | (os.X_OK if folder else 0)):
            fail(f"cannot read {path}: permission denied", OPERATIONAL)
        return path
    if not path.exists():
        why = (
            _why_missing(given)
            if path.is_symlink()
            else f"no such {'folder' if folder else 'file'}"
        )
        fail(f"{why}: {path}", OPERATIONAL)
    # a folder given for a file, or a file for a folder: the command was not the one meant
    if path.is_dir():
        usage(f"{path} is a folder; ingest a folder with `mixle ingest {path}`")
    if path.is_file():
        usage(f"{path} is not a folder")
    fail(f"{path} is not a {'folder' if folder else 'regular file'}", OPERATIONAL)


@_adds_on_rerun
def ingest_file_command(
    ctx: typer.Context,
    path: Annotated[str, typer.Argument(help="A data file (.txt .md .jsonl .csv ...).")],
    as_format: Annotated[
        str | None,
        typer.Option(
            "--as",
            help="The file's format, one of "
            f"{', '.join(sorted(FILE_FORMATS))} (default: from the extension; for other "
            "formats and whole folders, use ingest --as).",
        ),
    ] = None,
    source: SourceOpt = None,
    scope: WriteScopeOpt = None,
    by: WriterOpt = None,
    no_redact: NoRedactOpt = False,
    json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Ingest one data file the way the reference does: one item per line, JSON row or CSV row."""
    from substrate import ingest_file, safe_repr

    if as_format is not None and not _is_file_format(as_format):
        known = ", ".join(sorted(FILE_FORMATS))
        hint = _TEAM_HINT.format(command="ingest-file")
        if _unknown_format(as_format) is None:  # a format, but not one of the reference's
            hint = f"`mixle ingest --as {as_format} PATH` reads it"
        fail(
            f"unsupported file format {safe_repr(as_format)}; expected one of {known}", USAGE, hint
        )
    _refuse_a_format_for_a_team(state(ctx), scope, _is_file_format, quiet)
    _adapt(
        ctx, ingest_file, _existing(path), scope, json=json, quiet=quiet, by=by,
        as_format=as_format, source=source, redact=not no_redact,
    )  # fmt: skip


@_adds_on_rerun
def ingest_docs_command(
    ctx: typer.Context,
    file: Annotated[
        str,
        typer.Argument(help="JSON Lines of strings or {text, tags, payload} objects; - for stdin."),
    ],
    source: SourceOpt = None,
    scope: WriteScopeOpt = None,
    by: WriterOpt = None,
    no_redact: NoRedactOpt = False,
    json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Ingest text passages (one JSON string or {"text": ...} object per line).

    A line with neither text nor payload is dropped and counted, as an empty chunk is; an
    object with none of the keys text, tags and payload (a mistyped "txt") is reported with its
    line and left out, and the run exits 1.
    """
    from substrate import file_provenance, ingest_documents, read_passages, shard_file

    # ids come from the source: the file's absolute path, however it was spelled
    name = source or ("stdin" if file == "-" else os.path.abspath(file))
    own_file = file != "-" and shard_file(Path(file))  # refused unread, as other forms do
    shown = source or ("stdin" if file == "-" else file)  # as typed, as `ingest` tells a file
    raw = b"" if own_file else _passages_within_limit(ctx, file, shown, json=json,
                                                         quiet=quiet)  # fmt: skip
    if raw is None:  # failed, as a file named to `ingest` does, and said why
        return
    read = read_passages(raw, source or file, shard_file=own_file)  # told as the file given
    # a file's items record it and its hash, so that freshness checks see it change (not
    # its mtime: a file only touched would rewrite them all), that it has a passage a line
    # (one appended to is fresh), and which command to run again when it changed
    origin = None
    if file != "-":
        origin = {**file_provenance(Path(file), raw, stat=False), "format": "jsonl"}
        origin[INGESTED_AS] = DOCS
    _adapt(ctx, ingest_documents, read.docs, scope, json=json, quiet=quiet, by=by, root=file,
           source=name, redact=not no_redact, problems=read.problems, read=len(raw),
           origin=origin, drop_empty=True, lines=read.lines)  # fmt: skip


def _passages_within_limit(
    ctx: typer.Context, file: str, shown: str, *, json: bool, quiet: bool
) -> bytes | None:
    """The bytes of ``file`` (``-``: standard input), or None when they are over the size
    limit (``[ingest] max_file_size``): then the input fails (exit 1), as a file named to
    `ingest` does, without being held, told as ``shown`` (its ``--source`` name)."""
    from substrate import IngestReport, read_within, size_limit, too_large

    path = None if file == "-" else _existing(file)
    limit = size_limit(state(ctx).substrate(quiet=quiet))
    if path is None:
        raw = read_within(stdin_stream(), limit)
        size: int | None = None if len(raw) > limit else len(raw)  # not read on: unknown
    else:
        size = path.stat().st_size
        raw = _read(path) if size <= limit else b""
    if size is not None and size <= limit:
        return raw
    where = None if path is None else os.path.abspath(path)
    report = IngestReport(roots=[where or f"stream:{shown}"], files_scanned=1)
    report.failed(shown, where, too_large(size, limit))
    _finish(report, json=json, quiet=quiet)
    return None


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror}", OPERATIONAL)


@_adds_on_rerun
def ingest_artifacts_command(
    ctx: typer.Context,
    registry: Annotated[str, typer.Argument(help="Folder of artifact dirs with manifest.json.")],
    scope: WriteScopeOpt = None,
    by: WriterOpt = None,
    hidden: HiddenOpt = False,
    json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Index model artifacts (directories holding a manifest.json), by reference.

    The folder is walked as `mixle ingest` walks one: hidden folders (but with --hidden),
    version-control folders and what ignore rules name are left out.
    """
    from substrate import ingest_artifacts

    _adapt(
        ctx, ingest_artifacts, _existing(registry, folder=True), scope, json=json, quiet=quiet,
        by=by, hidden=hidden,
    )  # fmt: skip


@_adds_on_rerun
def ingest_traces_command(
    ctx: typer.Context,
    path: Annotated[
        str,
        typer.Argument(
            help='JSON Lines of {"input", "answer"|"label"|"call"} (the first of those three '
            'a row has is its answer; a row with none is stored as "<input> => null").'
        ),
    ],
    source: SourceOpt = None,
    scope: WriteScopeOpt = None,
    by: WriterOpt = None,
    no_redact: NoRedactOpt = False,
    json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Index harvested traces: one trace item per JSON line."""
    from substrate import ingest_traces

    _adapt(ctx, ingest_traces, _existing(path), scope, json=json, quiet=quiet, by=by, source=source,
           redact=not no_redact)  # fmt: skip


COMMANDS: dict[str, Callable[..., None]] = {
    "ingest": ingest,
    "ingest-file": ingest_file_command,
    "ingest-docs": ingest_docs_command,
    "ingest-artifacts": ingest_artifacts_command,
    "ingest-traces": ingest_traces_command,
}
