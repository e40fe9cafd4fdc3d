"""Secret scanning for pre-commit hooks and CI: ``mixle scan-secrets``.

``scan-secrets`` reads files, the staged blobs of a git work tree, every tracked file, standard
input or the items of a shard, and exits 0 when clean, 1 when it found secrets, 2 on a usage
error and 3 when something could not be read (3 wins over 1; findings are printed either way).
The secret rules load only when one of these commands runs, so other commands never pay for them.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from mixle_cli import output
from mixle_cli.context import AppState, given, state
from mixle_cli.errors import FOUND, OK, OPERATIONAL, fail, usage
from mixle_cli.stdin import stdin_piped, stdin_stream

if TYPE_CHECKING:
    from substrate import ScanConfig, ScanSource, TextFinding, TextScan

T = TypeVar("T")

# Scans smaller than this run in one process: starting workers costs more than it saves.
PARALLEL_MIN_BYTES = 8 * 1024 * 1024
PARALLEL_MIN_FILES = 16
_TOO_LARGE_HINT = "; raise max_file_bytes in [secrets], or list the file in allow_paths"
# Control characters in previews and paths are shown escaped so a scanned file cannot drive
# the terminal that displays the report.
_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F) if c != 0x09}


@dataclass(frozen=True)
class ScanError:
    """A file that could not be scanned: ``what`` was tried on ``path`` (as reports show it,
    None for an unnamed folder), and ``why`` it failed."""

    what: str
    path: str | None
    why: str

    def subject(self) -> str:
        return f"{self.what} {self.path or 'a folder'}"

    def message(self) -> str:
        return f"{self.subject()}: {self.why}"

    def as_dict(self) -> dict[str, str | None]:
        return {"path": self.path, "reason": f"{self.what}: {self.why}"}


@dataclass
class Run:
    """Everything one file scan produced, before the baseline is applied."""

    scans: list[TextScan] = field(default_factory=list)
    errors: list[ScanError] = field(default_factory=list)
    complete: bool = False  # every file of the tree was scanned (baseline entries may be pruned)
    # paths the staged change deletes or renames away: covered too, so their entries go
    removed: list[str] = field(default_factory=list)
    stale_baseline: int = 0  # baseline entries of the files scanned that match nothing now
    settings: str = ""  # the file whose [secrets] table was applied ("": none)
    unmerged: int = 0  # staged paths with an unresolved conflict, which nothing stands for
    missing: int = 0  # tracked files --all found deleted from the work tree: nothing to read

    def note_unreadable(self, exc: OSError) -> None:
        self.errors.append(_unreadable(exc))


def _safe(text: str) -> str:
    """A path or line as reports show it: bytes of a name that are not UTF-8 written ``\\xNN``
    (as the scan reports them), secrets masked (a file may be named after one) and control
    characters made visible."""
    from substrate import reported_path

    # masked before the escape: "\\xff" then "AKIA…" would read as one word, holding no key
    return reported_path(text).translate(_CONTROL)


# a file with thousands of findings names its path on each line: it is screened once
_safe_path = lru_cache(maxsize=256)(_safe)


def _finding_line(f: TextFinding) -> str:
    """``path:line:column: rule: preview``, as compilers write it (for a secret in the file's
    name: ``path: rule: in the file's name``)."""
    if f.line == 0:
        return f"{_safe_path(f.path)}: {f.rule}: in the file's name"
    # the scan masked every secret of the preview's line already: it is not screened again
    # (half the time of a file full of findings)
    preview = f.preview.translate(_CONTROL)
    return f"{_safe_path(f.path)}:{f.line}:{f.column}: {f.rule}: {preview}"


def _unreadable(exc: OSError) -> ScanError:
    from substrate import scan_path

    where = _safe(scan_path(os.fsdecode(exc.filename))) if exc.filename else None
    return ScanError("cannot read", where, str(exc.strerror or exc))


# -- configuration -------------------------------------------------------------------------------


def _load_config(app_state: AppState, config: Path | None) -> tuple[ScanConfig, str]:
    """The ``[secrets]`` settings: from ``--config``, else the discovered shard's mixle.toml,
    and the file they came from ("" for none: the defaults).

    Never creates a shard; a missing shard or file means defaults. Any problem is an
    operational error (exit 3), not a usage error: the command line was fine, the file is not.
    """
    import tomllib

    from substrate import ScanConfig, SubstrateError

    table: Any = None
    where = ""
    try:
        if config is not None:
            where = str(config)
            with config.open("rb") as fh:
                doc = tomllib.load(fh)
            if "secrets" not in doc:
                fail(f"{where} has no [secrets] table", OPERATIONAL)
            table = doc["secrets"]
        else:
            from substrate import SETTINGS_FILE, Settings

            root = app_state.shard_path
            where = str(root / SETTINGS_FILE)
            if (root / SETTINGS_FILE).is_file():
                table = Settings.load(root).data.get("secrets")
        if table is not None and not isinstance(table, dict):
            fail(f"{where}: [secrets] must be a table", OPERATIONAL)
        return ScanConfig.from_settings(table), where if table else ""
    except OSError as exc:
        fail(f"cannot read {where}: {exc.strerror or exc}", OPERATIONAL)
    except tomllib.TOMLDecodeError as exc:
        fail(f"{where}: invalid TOML: {exc}", OPERATIONAL)
    except SubstrateError as exc:
        message = str(exc)
        fail(message if where in message else f"{where}: {message}", OPERATIONAL)


# -- where the files come from -------------------------------------------------------------------


def _from_git(what: str, get: Callable[[], T]) -> T:
    from substrate import InvalidInputError, SubstrateError

    try:
        return get()
    except InvalidInputError as exc:
        usage(f"{what}, and {exc}")
    except SubstrateError as exc:
        fail(str(exc), OPERATIONAL)


def _staged(cfg: ScanConfig, jobs: int) -> Run:
    from substrate import reported_path, staged_changes

    changes = _from_git("no files given to scan", lambda: staged_changes(max_bytes=cfg.max_bytes))
    run = Run(removed=[reported_path(p) for p in changes.removed], unmerged=len(changes.unmerged))
    _scan_stored(run, changes.blobs, changes.oversized, cfg, jobs)
    return run


def _tracked(cfg: ScanConfig, jobs: int) -> Run:
    from substrate import tracked_paths

    tracked = _from_git(
        "--all scans the files git tracks", lambda: tracked_paths(max_bytes=cfg.max_bytes)
    )
    run = Run(_scan_sources(tracked.files, cfg, jobs), complete=True, missing=len(tracked.missing))
    _scan_stored(run, tracked.stored, tracked.oversized, cfg, jobs)
    return run


def _scan_stored(
    run: Run,
    blobs: list[tuple[str, bytes | None]],
    oversized: list[tuple[str, bytes]],
    cfg: ScanConfig,
    jobs: int,
) -> None:
    """Add to ``run`` the scans of content git gave (``blobs``; None: git gave none, an
    error) and of the blobs over the size cap, from their first bytes (``oversized``)."""
    from substrate import scan_contents, scan_oversized

    contents: list[tuple[str, bytes]] = []
    for path, blob in blobs:
        if blob is None:
            unread = ScanError("cannot read the staged content of", _safe(path), "git gave none")
            run.errors.append(unread)
        else:
            contents.append((path, blob))
    workers = jobs or _auto_workers(len(contents), (len(blob) for _, blob in contents))
    run.scans += scan_contents(contents, config=cfg, workers=workers)
    run.scans += [scan_oversized(head, path=p, config=cfg) for p, head in oversized]


def _scan_sources(sources: list[ScanSource], cfg: ScanConfig, jobs: int) -> list[TextScan]:
    from substrate import scan_files

    workers = jobs or _auto_workers(len(sources), _sizes(sources))
    real = [s.real for s in sources]
    shown = [s.shown for s in sources]
    return list(scan_files(real, config=cfg, workers=workers, display_paths=shown))


def _sizes(sources: list[ScanSource]) -> Iterator[int]:
    """The sizes of ``sources`` on disk, as far as ``_auto_workers`` needs them."""
    for s in sources:
        try:
            yield os.stat(s.real).st_size
        except OSError:
            continue


def _auto_workers(count: int, sizes: Iterable[int]) -> int:
    """Several processes only for big scans (``count`` files of ``sizes`` bytes): starting
    them costs more than a few files."""
    from substrate import available_cpus

    cpus = available_cpus()
    if cpus < 2 or count < PARALLEL_MIN_FILES:
        return 1
    total = 0
    for size in sizes:
        total += size
        if total >= PARALLEL_MIN_BYTES:
            return min(cpus, 8)
    return 1


def _scan_arguments(paths: list[str], cfg: ScanConfig, jobs: int, stdin_name: str | None) -> Run:
    """Scan the files and folders named; ``-`` is standard input unless ``stdin_name`` is
    None (every path names a file)."""
    from substrate import ScanSource, read_within, scan_path, scan_text, walk_sources

    run = Run()
    sources: list[ScanSource] = []
    stdin_scan: TextScan | None = None
    for p in paths:
        if p == "-" and stdin_name is not None:
            if stdin_scan is None:
                # read no further than the cap: over it, the scan says "too large"
                data = read_within(stdin_stream(), cfg.max_bytes)
                stdin_scan = scan_text(data, path=stdin_name, config=cfg)
        elif os.path.isdir(p):
            sources.extend(walk_sources(p, on_error=run.note_unreadable))
        elif os.path.exists(p) and not os.path.isfile(p):
            # a pipe or device would block or never end; "-" is the way to scan a stream
            run.errors.append(ScanError("cannot read", _safe(scan_path(p)), "not a regular file"))
        else:
            sources.append(ScanSource(p, scan_path(p)))
    run.scans = _scan_sources(sources, cfg, jobs)
    if stdin_scan is not None:
        run.scans.append(stdin_scan)
    return run


# -- baseline ------------------------------------------------------------------------------------


def _note_unstaged(baseline: Path) -> None:
    """Say so when a staged scan judged the commit by a baseline the commit would not hold as
    it is (updated, or never added): CI, checking the commit, would not accept the same."""
    from substrate import unstaged

    path = os.path.abspath(baseline)
    if not baseline.exists():
        return
    real = os.path.realpath(path)
    if unstaged(path):
        changed = str(baseline)
    elif real != path and unstaged(real):
        # reached through a link (to it, or to a folder on its way): the file it leads to
        changed = os.path.relpath(real)
    else:
        return
    shown = shlex.quote(changed)
    output.note(
        f"note: {shown} has changes that are not staged: the commit will not hold them "
        f"(git add {shown})"
    )


def _apply_baseline(
    run: Run, baseline_path: Path | None, update: bool, quiet: bool
) -> tuple[list[TextFinding], int]:
    """The findings to report and how many the baseline accepted; with ``update``, rewrite the
    baseline to accept every current finding (entries of files not scanned now are kept)."""
    from substrate import (
        Baseline,
        NotFoundError,
        SubstrateError,
        load_baseline,
        stale_fingerprints,
        update_baseline,
    )

    found = [f for s in run.scans for f in s.findings]
    if baseline_path is None:
        return found, 0
    try:
        old = load_baseline(baseline_path)
    except NotFoundError:
        if not update:
            fail(
                f"baseline {baseline_path} not found",
                OPERATIONAL,
                "create it with --update-baseline",
            )
        old = Baseline()
    except SubstrateError as exc:
        fail(str(exc), OPERATIONAL)
    scanned = None if run.complete else _covered(run)
    if not update:
        fresh = [f for f in found if f.fingerprint not in old]
        stale = stale_fingerprints(old, found, scanned_paths=scanned)
        run.stale_baseline = len(stale)
        if stale and not quiet:
            one = len(stale) == 1
            output.note(
                f"{len(stale)} baseline entr{'y' if one else 'ies'} no longer "
                f"match{'es' if one else ''} anything (fixed or moved); --update-baseline drops "
                f"{'it' if one else 'them'}"
            )
        return fresh, len(found) - len(fresh)
    try:  # read again under a lock: another update may have landed since
        old, new = update_baseline(baseline_path, found, scanned_paths=scanned)
    except SubstrateError as exc:
        fail(str(exc), OPERATIONAL)
    added = len(set(new.entries) - set(old.entries))
    removed = len(set(old.entries) - set(new.entries))
    if not quiet:  # a summary like the scan's own, which -q drops
        output.note(
            f"baseline {baseline_path}: {len(new)} accepted finding(s) (+{added}, -{removed})"
        )
    return [], len(found)


def _covered(run: Run) -> set[str]:
    """The paths whose baseline entries this scan can judge: the files read, and those the
    staged change removes (their secrets leave with them)."""
    return {s.path for s in run.scans if s.skipped is None} | set(run.removed)


# -- output --------------------------------------------------------------------------------------


def _report_files(
    run: Run, findings: list[TextFinding], accepted: int, fmt: str, quiet: bool
) -> None:
    from substrate import SKIPPED_TOO_LARGE, SKIPPED_UNREADABLE

    skipped = _skipped(run)
    for s in run.scans:
        why = s.notes[0].removeprefix("skipped: ") if s.notes else str(s.skipped)
        if s.skipped == SKIPPED_UNREADABLE:
            run.errors.append(ScanError("cannot read", _safe(s.path), why))
        elif s.skipped == SKIPPED_TOO_LARGE:
            # not a pass: a hook would let a secret in a big file through unseen
            run.errors.append(ScanError("cannot scan", _safe(s.path), why + _TOO_LARGE_HINT))
        elif not quiet:
            for note in s.notes:
                output.note_parts(_safe(s.path), note)
    suppressed = sum(s.suppressed for s in run.scans)
    if fmt == "json":
        output.emit_json(
            {
                "clean": not findings and not run.errors,  # a file not scanned is no pass
                "n_findings": len(findings),
                "n_files": sum(1 for s in run.scans if s.skipped is None),
                "n_baselined": accepted,
                "n_suppressed": suppressed,
                "settings": _safe(run.settings) if run.settings else None,
                "n_stale_baseline": run.stale_baseline,
                "n_missing": run.missing,
                "findings": [f.as_dict() for f in findings],
                "skipped": [{"path": s.path, "reason": s.skipped} for s in skipped],
                "errors": [error.as_dict() for error in run.errors],
            }
        )
    elif fmt == "jsonl":
        output.emit_jsonl(f.as_dict() for f in findings)
    elif fmt == "sarif":
        from substrate import __version__, sarif_log

        # each file not scanned is named in the log, which is marked unsuccessful
        not_scanned = [error.message() for error in run.errors]
        output.emit_json(sarif_log(findings, tool_version=__version__, not_scanned=not_scanned))
    else:
        if findings:
            output.emit_text("\n".join(map(_finding_line, findings)))
    for error in run.errors:
        output.note_parts("error", error.subject(), error.why)
    if fmt == "text" and not quiet:  # last, so that it counts the errors above it too
        _summary(run, findings, accepted, suppressed)


def _skipped(run: Run) -> list[TextScan]:
    """The files left out on purpose, which are no error: binary, or listed in allow_paths."""
    from substrate import SKIPPED_ALLOWED, SKIPPED_BINARY

    return [s for s in run.scans if s.skipped in (SKIPPED_BINARY, SKIPPED_ALLOWED)]


def _summary(run: Run, findings: list[TextFinding], accepted: int, suppressed: int) -> None:
    # a file is counted when it was read, or when its name alone held a finding (unreadable)
    n_files = len({s.path for s in run.scans if s.skipped is None} | {f.path for f in findings})
    extra = [
        f"{n} {what}"
        for n, what in ((accepted, "accepted by the baseline"), (suppressed, "allowed"))
        if n
    ]
    tail = f" ({', '.join(extra)})" if extra else ""
    from substrate import SKIPPED_ALLOWED, SKIPPED_TOO_LARGE

    if run.settings and (suppressed or any(s.skipped == SKIPPED_ALLOWED for s in run.scans)):
        # a hook's verdict may rest on a shard's settings that are not the repository's own
        tail += f"; the [secrets] allowances of {_safe(run.settings)} applied"

    too_large = sum(1 for s in run.scans if s.skipped == SKIPPED_TOO_LARGE)  # each is in run.errors
    if len(run.errors) > too_large:
        tail += f"; {len(run.errors) - too_large} could not be read"
    if too_large:
        tail += f"; {too_large} too large to scan"
    if skipped := len(_skipped(run)):
        tail += f"; {skipped} skipped"
    if not findings:
        if not n_files:
            output.note(f"no file was scanned{tail}")
        else:  # "new" only when a baseline accepted some
            output.note(f"no {'new ' if accepted else ''}secrets in {n_files} file(s){tail}")
        return
    n_dirty = len({f.path for f in findings})
    output.note(f"{len(findings)} secret(s) in {n_dirty} of {n_files} file(s){tail}")
    output.note(
        "hint: remove the secret (and revoke it), mark a false positive with `mixle:allow` on "
        "its line, or accept it with --baseline FILE --update-baseline"
    )


def _format(json: bool, jsonl: bool, sarif: bool) -> str:
    if json + jsonl + sarif > 1:
        usage("choose one of --json, --jsonl and --sarif")
    return "json" if json else "jsonl" if jsonl else "sarif" if sarif else "text"


# -- shard items ---------------------------------------------------------------------------------


def _scan_items(
    app_state: AppState, scope: str | None, cfg: ScanConfig, fmt: str, quiet: bool
) -> int:
    from substrate import scan_item

    substrate = app_state.substrate()
    n_items = 0
    rows: list[dict[str, Any]] = []
    items = substrate.iter_items(scope=app_state.read_scope(scope), scopes=app_state.scopes)
    with output.working(
        "scanning the shard's items for secrets", shown=fmt == "text" and not quiet
    ):
        for item in items:
            n_items += 1
            for f in scan_item(item).findings:
                if f.rule not in cfg.allow_rules:
                    rows.append(
                        output.with_id({"item_id": item.id, "scope": item.scope, **f.as_dict()})
                    )
    if not n_items:  # not "clean": nothing was checked
        app_state.fail_if_nothing_matched(scope)
    empty = app_state.own_scope_empty(scope)
    if fmt == "json":
        dirty = len({r["item_id"] for r in rows})
        output.emit_json(
            {
                "clean": not rows,
                "n_items": n_items,
                "n_dirty": dirty,
                "n_findings": len(rows),
                "findings": rows,
                "own_scope_empty": empty,
            }
        )
    elif fmt == "jsonl":
        output.emit_jsonl(rows)
    else:
        if rows:
            output.emit_text(
                "\n".join(
                    f"item:{r['item_id']} {_safe(r['field'])}: {_safe(r['preview'])}" for r in rows
                )
            )
        if not quiet:
            output.note(f"{len(rows)} secret(s) in {n_items} item(s)")
    app_state.fail_if_none_of_its_own(empty)  # told even beside findings in shared scopes
    return FOUND if rows else OK


# -- commands ------------------------------------------------------------------------------------


def scan_secrets(
    ctx: typer.Context,
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            help="Files or folders to scan; - reads standard input. "
            "Default: the changes staged for the next git commit.",
            show_default=False,
        ),
    ] = None,
    all_files: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Scan every file tracked by git (the work tree copy; the index's for the files "
            "a sparse checkout leaves out).",
        ),
    ] = False,
    items: Annotated[
        bool,
        typer.Option(
            "--items", help="Sweep the items of the shard (chosen with the global --shard)."
        ),
    ] = False,
    scope: Annotated[
        str | None, typer.Option("--scope", help="With --items: only this scope.")
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            help="JSON file of accepted findings; only new ones count.",
            readable=False,  # (read by the command: an unreadable one is exit 3, as any file)
        ),
    ] = None,
    update_baseline: Annotated[
        bool,
        typer.Option("--update-baseline", help="Accept every current finding into --baseline."),
    ] = False,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="TOML file whose \\[secrets] table replaces mixle.toml's.",
            readable=False,
        ),
    ] = None,
    stdin_name: Annotated[
        str | None,
        typer.Option(
            "--stdin-name",
            help="Path to report for standard input (-). Default: <stdin>.",
            show_default=False,
        ),
    ] = None,
    literal_paths: Annotated[
        bool,
        typer.Option(
            "--literal-paths",
            help="Every PATH names a file: - too, and after this flag a name like an option "
            "(-h) when such a file exists (for tools that pass the names of staged files, as "
            "the pre-commit hook does).",
        ),
    ] = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            min=0,
            help="Worker processes (0: automatic; at most 4 per CPU, and one per file).",
        ),
    ] = 0,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="No summary, no notes on skipped files, no word of waiting for another "
            "update of the baseline.",
            callback=output.quiet_waits,
        ),
    ] = False,
    json: output.JsonOpt = False,
    jsonl: Annotated[
        bool, typer.Option("--jsonl", help="Print one JSON object per finding.")
    ] = False,
    sarif: Annotated[bool, typer.Option("--sarif", help="Print a SARIF 2.1.0 log.")] = False,
) -> None:
    """Find secrets (API keys, tokens, passwords, private keys) before they are committed.

    Exits 0 when clean, 1 when secrets were found (or when `--items` checked no item: its
    `--scope` or team matched none), 2 on a usage error, 3 when a file or the
    configuration could not be read, or a file is over max_file_bytes (3 wins over 1;
    findings are still printed). Previews mask every secret.
    """
    fmt = _format(json, jsonl, sarif)
    chosen = [
        name
        for name, on in (("PATHS", bool(paths)), ("--all", all_files), ("--items", items))
        if on
    ]
    if len(chosen) > 1:
        usage(f"{' and '.join(chosen)} cannot be combined")
    if update_baseline and baseline is None:
        usage("--update-baseline needs --baseline FILE")
    if scope is not None and not items:
        usage("--scope applies to --items")
    if stdin_name is not None and literal_paths:
        usage("--stdin-name names standard input, which --literal-paths never reads")
    if stdin_name is not None and "-" not in (paths or []):
        usage("--stdin-name names standard input: give - among the paths")
    app_state = state(ctx)
    cfg, settings = _load_config(app_state, config)
    if items:
        if baseline is not None or fmt == "sarif":
            usage("--baseline and --sarif apply to files, not to --items")
        if literal_paths or given(ctx, "jobs"):  # items are read from the shard, in-process
            usage("--literal-paths and --jobs apply to files, not to --items")
        raise typer.Exit(_scan_items(app_state, scope, cfg, fmt, quiet))
    if all_files:
        run = _tracked(cfg, jobs)
        if run.missing and not quiet:  # a tracked file left out must not go unsaid
            output.note(
                f"note: {run.missing} tracked file(s) deleted from the work tree were not "
                "scanned (a commit -a would delete them)"
            )
    elif paths:
        run = _scan_arguments(paths, cfg, jobs, None if literal_paths else stdin_name or "<stdin>")
    else:
        run = _staged(cfg, jobs)
        if run.unmerged and not quiet:  # a scan mid-merge must not read as complete
            output.note(
                f"note: {run.unmerged} path(s) with an unresolved conflict were not scanned; "
                "resolve them and git add them"
            )
        if not (run.scans or run.errors or run.removed) and stdin_piped() and not quiet:
            # `git show HEAD:app.env | mixle scan-secrets` must not read as a clean scan of it
            # (a warning, not an error: an editor runs `git commit --amend` with a pipe)
            output.note("nothing is staged; standard input is read only when given as -")
    run.settings = settings
    findings, accepted = _apply_baseline(run, baseline, update_baseline, quiet)
    if baseline is not None and not (paths or all_files or quiet):
        _note_unstaged(baseline)
    _report_files(run, findings, accepted, fmt, quiet)
    if run.errors:
        raise typer.Exit(OPERATIONAL)
    if findings:
        raise typer.Exit(FOUND)


COMMANDS: dict[str, Callable[..., None]] = {"scan-secrets": scan_secrets}
