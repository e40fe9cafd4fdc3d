"""One integrity sweep of a shard: lineage, log health, index health and stored secrets.

Each check is independent: one that cannot run (a corrupt log, no search engine installed) is
reported as such and the others still run. For a reader limited to some scopes, only the items
in those scopes are audited and nothing about any other item (not even a count) is reported.
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from substrate.derived import END_FILE
from substrate.errors import CorruptShardError, scope_set
from substrate.lineage import audit_with_holders
from substrate.logend import HEADER_LOST, OLDER_COPY
from substrate.secrets import safe_text
from substrate.settings import SETTINGS_FILE

if TYPE_CHECKING:
    from substrate.item import SubstrateItem
    from substrate.store import Substrate

log = logging.getLogger(__name__)

# Index states that need attention: "behind" is folded in by the next search, so it is fine.
_BAD_INDEX_STATES = {
    "stale": "the search index is stale and will be rebuilt (run `mixle reindex`)",
    "unsupported": "the search index was written by a newer mixle (run `mixle reindex`)",
}
_DEFAULT_MAX_SEGMENTS = 8
# Fields of a secret finding that are safe to show: never the secret or a preview of it.


@dataclass
class AuditReport:
    """The result of ``audit_shard``: one section per check, and every problem in words."""

    lineage: dict[str, Any] = field(default_factory=dict)
    log: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    index: dict[str, Any] = field(default_factory=dict)
    secrets: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)

    def problems(self) -> list[str]:
        """Every finding, one line each, in section order."""
        found: list[str] = []
        for section in (self.log, self.settings, self.lineage, self.index, self.secrets):
            found.extend(section.get("problems", []))
        return found

    @property
    def ok(self) -> bool:
        return not self.problems()

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "problems": self.problems(),
            "log": self.log,
            "settings": self.settings,
            "lineage": self.lineage,
            "index": self.index,
            "secrets": self.secrets,
            "notes": self.notes,
        }


def audit_shard(
    substrate: Substrate,
    *,
    scope: str | None = None,
    scopes: Collection[str] | None = None,
    own_scope: str | None = None,
) -> AuditReport:
    """Check a shard's integrity: lineage, log, index and secrets left in stored items.

    Args:
        substrate: the shard.
        scope: audit only the items of this scope (lineage and secrets).
        scopes: the scopes the reader may see (None: all).
        own_scope: the reader's own scope: its items' links to what the reader cannot see
            are reported (``lineage.UNRESOLVED``).

    Returns:
        An ``AuditReport``; ``report.ok`` is False when anything needs attention.

    Raises:
        ShardError: the shard cannot be read at all (I/O failure). A corrupt line is reported,
            not raised.
    """
    report = AuditReport()
    damaged: list[tuple[str, str]] | None = None  # the index's damage, when read before
    report.log = _log_section(substrate, scoped=scopes is not None)
    report.settings = _settings_section(substrate)
    report.lineage = _lineage_section(substrate, scope, scopes, own_scope, report.log)
    if "error" in report.log:
        unread = {"checked": False, "problems": [], "note": "the log cannot be read"}
        report.secrets, report.notes = unread, dict(unread)
    else:
        report.secrets = _secrets_section(substrate, scope, scopes)
        # the notes' links are looked up in the index, which that search builds, brings up to
        # date or rebuilds when damaged: damage is read first, as the disk may be failing
        damaged = _damaged_index(substrate)
        report.notes = _notes_section(substrate, scope, scopes)
    # last: the report tells of the index as the audit leaves it, and of damage it repaired
    report.index = _index_section(substrate, scoped=scopes is not None, damaged=damaged)
    return report


def _log_section(substrate: Substrate, *, scoped: bool) -> dict[str, Any]:
    try:
        health = substrate.log_health()
        substrate.check_every_line()
    except CorruptShardError as exc:
        reason = safe_text(str(exc))  # a damaged line may quote a secret
        return {"ok": False, "error": reason, "problems": [f"corrupt log: {reason}"]}
    uncommitted = int(health.get("uncommitted_bytes", 0))
    problems = []
    if uncommitted:
        # the size of another team's write under way is not a team's to see
        what = (
            "an unfinished write follows"
            if scoped
            else f"{uncommitted} bytes of an unfinished write follow"
        )
        problems.append(
            f"{what} the last commit (a crash?); it is ignored and the next write removes it"
        )
    miscounted = substrate.miscounted_batches()
    for line, written, found in miscounted:
        # where and how many lines another team's batch holds is not a team's to see
        where = "a committed batch" if scoped else f"the batch committed at line {line}"
        counts = "" if scoped else f" (written with {written} line(s), {found} now)"
        problems.append(
            f"{where} lost or gained lines by hand{counts}: an item may be missing; "
            "restore items.jsonl from a backup to recover it"
        )
    lost_bytes = int(health.get("lost_bytes", 0))
    if lost_bytes and not miscounted:  # (lines lost inside a batch shorten it too: said above)
        lost = "" if scoped else f" ({lost_bytes} bytes)"
        problems.append(
            f"the log ends before the end noted at its last commit{lost}: whole committed "
            "batches are missing (an older copy restored, or cut by hand?), and no write is "
            "taken: restore items.jsonl from a backup to recover them, or remove "
            "index/log-end.json to go on without them"
        )
    if health.get("header_lost"):
        problems.append(HEADER_LOST)
    if health.get("older_copy"):
        problems.append(OLDER_COPY)
    if scoped:
        return {"ok": not problems, "unfinished_write": bool(uncommitted), "problems": problems}
    return {"ok": not problems, "uncommitted_bytes": uncommitted, "problems": problems}


def _settings_section(substrate: Substrate) -> dict[str, Any]:
    """Whether the shard's settings are its own: a ``mixle.toml`` deleted from a shard
    mixle wrote takes its approvers with it."""
    if not substrate.settings.lost:
        return {"ok": True, "problems": []}
    lost = (
        f"{SETTINGS_FILE} is {substrate.settings.lost}: the shard's settings, its approvers "
        "among them, are the defaults; restore it from a backup, or grant the approvers again"
    )
    return {"ok": False, "problems": [lost]}


def _lineage_section(
    substrate: Substrate,
    scope: str | None,
    scopes: Collection[str] | None,
    own_scope: str | None,
    log_section: dict[str, Any],
) -> dict[str, Any]:
    try:
        result, nearest = audit_with_holders(
            substrate, scope=scope, scopes=scopes, own_scope=own_scope
        )
    except CorruptShardError as exc:
        # The whole sweep reads every line, so this is where a corrupt line shows up.
        if "error" not in log_section:
            reason = safe_text(str(exc))  # a damaged line may quote a secret
            log_section.update(ok=False, error=reason)
            log_section["problems"].append(f"corrupt log: {reason}")
        return {"checked": False, "problems": [], "note": "the log cannot be read"}
    problems = []
    for entry in result["broken"]:  # which item holds each link that dangles, as verify-lineage
        # (by id: a link into a scope the reader cannot read is named by no id, nor held here)
        held = nearest.get(entry["item_id"], {})
        entry["held_by"] = {
            target: [held[target]] for target in entry["dangling"] if target in held
        }
        shown = (held_by(t, held.get(t), entry["item_id"]) for t in entry["dangling"])
        problems.append(f"item {entry['item_id']}: dangling link(s) to " + ", ".join(shown))
    return {"checked": True, **result, "problems": problems}


def _notes_section(
    substrate: Substrate, scope: str | None, scopes: Collection[str] | None
) -> dict[str, Any]:
    """The links between notes that lead nowhere the reader can see. Told, not a problem:
    a link to a note not written yet is how many people plan their notes."""
    from substrate.notelinks import note_link_targets, root_of, unresolved_links
    from substrate.retrieval import lines_of, shown_source

    allowed = scope_set(scopes)
    linking = [
        item for item in substrate.iter_items(scope=scope, scopes=scopes) if note_link_targets(item)
    ]
    unresolved = []
    for item, link in unresolved_links(substrate, linking, allowed):
        root = root_of(item)
        if root is not None and link.startswith(root.rstrip("/") + "/"):
            link = link[len(root.rstrip("/")) + 1 :]  # as the folder ingested names it
        start = link_line(item, link, lines_of(item)[0])
        where = {"item_id": item.id, "source": shown_source(item), "line": start}
        unresolved.append({**where, "link": safe_text(link)})
    n_links = sum(len(note_link_targets(item)) for item in linking)
    return {"checked": True, "n_links": n_links, "unresolved": unresolved, "problems": []}


def link_line(item: SubstrateItem, link: str, start: int | None) -> int | None:
    """The line of ``item``'s source that holds ``link`` (as the folder ingested names it),
    where its section begins at line ``start``. The note may write it from its own folder
    (``other.md`` in ``services/README.md`` for ``services/other.md``), or by its name alone
    (``../other.md``, never inside another name: ``data.md`` does not hold ``a.md``), and a
    link to one of its own headings by the anchor alone; the section's start when its text
    holds it in none of these ways."""
    if start is None:
        return None
    source = item.provenance.get("source")
    folder = posixpath.dirname(source) if isinstance(source, str) else ""
    written = [link, posixpath.basename(link)]
    if folder and link.startswith(folder + "/"):
        written.insert(1, link[len(folder) + 1 :])
    if link.partition("#")[0] == source:  # a heading of the note itself: "(#usage)"
        written.append("#" + link.partition("#")[2])
    for form in written:
        at = _standing_alone(item.text, form)
        if at is not None:
            return start + item.text.count("\n", 0, at)
    return start


def _standing_alone(text: str, form: str) -> int | None:
    """Where ``form`` first stands in ``text`` as a whole name: no word character, dot or dash
    before it, none but an extension's dot after it. (A regular expression built per link
    cost its compilation for each: most of an audit of a wiki's many links.)"""
    at = text.find(form)
    while at != -1:
        end = at + len(form)
        if not _name_char(text[at - 1 : at], ".-") and not (
            _name_char(text[end : end + 1], "-")
            or (text[end : end + 1] == "." and _name_char(text[end + 1 : end + 2], ""))
        ):
            return at
        at = text.find(form, at + 1)
    return None


def _name_char(char: str, also: str) -> bool:
    """Whether ``char`` (one character, or none) is a word's (as ``\\w`` reads) or in ``also``."""
    return bool(char) and (char.isalnum() or char == "_" or char in also)


def held_by(target: str, holder: str | None, item_id: str) -> str:
    """``target``, and which item holds the link when ``item_id`` only leads to it."""
    if holder is None or holder == item_id:
        return target
    return f"{target} (held by {holder})"


def _derived_files_problems(index: Path) -> list[str]:
    """What is wrong with the files derived from the log besides the search index: a folder
    standing in the place of one, which no write can replace, and a damaged log-end note (a
    damaged catalog is rebuilt as the shard is opened, before an audit looks). Either is only
    evidence or speed lost, but it should not pass for sound."""
    from substrate.logend import noted_end

    if index.exists() and not index.is_dir():
        return [
            "index/ is not a folder: no search index, catalog or log-end note can be written "
            "(move it away)"
        ]
    problems = _folders_in_place_problems(index)
    end = index / END_FILE
    if end.is_file() and end.stat().st_size and noted_end(end) is None:
        problems.append(
            "index/log-end.json is damaged: a log cut short could not be told from a crash "
            "(the next write notes the end again)"
        )
    return problems


def _folders_in_place_problems(index: Path) -> list[str]:
    """A folder standing where a derived file besides the search index's belongs (those are
    told with the search index's damage, and kept from readers confined to some scopes)."""
    from substrate.indexnames import CONSEQUENCES, folders_in_place

    return [
        f"index/{path.name} is a folder where a file belongs: {CONSEQUENCES[path.name]}; "
        "run `mixle reindex` to remove it"
        for path in folders_in_place(index)
        if path.name in CONSEQUENCES
    ]


def _log_rewritten_since(status: dict[str, Any]) -> bool:
    """Whether the index covers an earlier generation of the log (before a ``compact``, or
    a hand edit found since)."""
    covered, current = status.get("watermark"), status.get("log_watermark")
    if not (isinstance(covered, dict) and isinstance(current, dict)):
        return False
    return bool(covered.get("generation")) and covered["generation"] != current.get("generation")


def _damaged_index(substrate: Substrate) -> list[tuple[str, str]] | None:
    """``damaged_index_files`` of ``substrate``'s index (None: an in-memory shard, or no index
    support)."""
    if substrate.root is None:
        return None
    try:
        from substrate.search.status import damaged_index_files
    except ImportError:
        return None
    return damaged_index_files(substrate.root / "index")


def _index_section(
    substrate: Substrate, *, scoped: bool, damaged: list[tuple[str, str]] | None
) -> dict[str, Any]:
    """The index's state, and each damaged file: those of ``damaged`` (read before the
    audit's search) that the search rebuilt too."""
    if substrate.root is None:
        return {"checked": False, "problems": [], "note": "in-memory shard: no index on disk"}
    derived = _derived_files_problems(substrate.root / "index")
    try:
        from substrate.search.engine import index_status
        from substrate.search.status import confined_state, damaged_index_files
    except ImportError:
        return {"checked": False, "problems": derived, "note": "no search index support installed"}
    try:
        status = index_status(substrate)
    except CorruptShardError:
        return {"checked": False, "problems": derived, "note": "the log cannot be read"}
    state = str(status.get("state", "unknown"))
    if scoped:
        state = confined_state(state)
    segments = int(status.get("segments", 0) or 0)
    problems: list[str] = derived
    section: dict[str, Any] = {"checked": True, "state": state, "problems": problems}
    if state == "stale" and _log_rewritten_since(status):
        # compact deletes the index with the old log: one left behind (its deletion failed)
        # still holds the words of every item the compaction reclaimed; a log edited by hand
        # is given a new generation too (``log.renew_generation``)
        problems.append(
            "the search index was built before the log was rewritten (compacted, or edited by "
            "hand) and may still hold the words of items no longer in it; run `mixle reindex`"
        )
    elif state in _BAD_INDEX_STATES:
        problems.append(_BAD_INDEX_STATES[state])
    found = damaged_index_files(substrate.root / "index") if damaged != [] else []
    repaired = [(name, why) for name, why in damaged or [] if (name, why) not in found]
    if scoped:
        # segments, files and items all grow with every team's writes: a team sees the state
        if found:
            problems.append("the search index is damaged; run `mixle reindex`")
        elif repaired:
            problems.append("the search index was damaged; the audit's search rebuilt it")
        return section
    problems.extend(f"{_index_file(name, why)}; run `mixle reindex`" for name, why in found)
    problems.extend(
        f"{_index_file(name, why, was=True)}; the audit's search rebuilt it"
        for name, why in repaired
    )
    limit = _max_segments() + 1
    if segments > limit:
        problems.append(
            f"the search index is fragmented into {segments} segments (more than {limit}); "
            "run `mixle reindex`"
        )
    section.update(
        segments=segments, files=len(status.get("files") or []), items=status.get("items")
    )
    return section


def _index_file(name: str, why: str, *, was: bool = False) -> str:
    """What is wrong with the index file ``name`` (``why``, from ``damaged_index_files``)."""
    from substrate.search.status import MISSING

    verb = "was" if was else "is"
    if why == MISSING:
        return f"index file {name} {verb} missing, though the index's manifest names it"
    return f"index file {name} {verb} damaged ({why})"


def _max_segments() -> int:
    try:
        from substrate.search.params import DEFAULT_PARAMS
    except ImportError:
        return _DEFAULT_MAX_SEGMENTS
    return int(getattr(DEFAULT_PARAMS, "max_segments", _DEFAULT_MAX_SEGMENTS))


def _secrets_section(
    substrate: Substrate, scope: str | None, scopes: Collection[str] | None
) -> dict[str, Any]:
    from substrate.secrets import scan_item

    # Scanning only the items this reader may see keeps the report inside their scopes.
    findings: list[dict[str, Any]] = []
    scanned = 0
    for item in substrate.iter_items(scope=scope, scopes=scopes):
        scanned += 1
        for finding in scan_item(item).findings:
            findings.append({"item_id": item.id, "rule": finding.rule, "field": finding.field})
    items = sorted({f["item_id"] for f in findings})
    problems = [
        f"item {item_id}: {len(rules)} secret(s) stored ({', '.join(sorted(set(rules)))}); "
        "remove or re-add it redacted"
        for item_id, rules in _rules_by_item(findings).items()
    ]
    return {
        "checked": True,
        "n_findings": len(findings),
        "n_items": scanned,  # as scan-secrets --items counts them
        "n_dirty": len(items),
        "findings": findings,
        "problems": problems,
    }


def _rules_by_item(findings: list[dict[str, Any]]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for finding in findings:
        item_id = str(finding.get("item_id", "?"))
        grouped.setdefault(item_id, []).append(str(finding.get("rule", "secret")))
    return grouped
