"""A baseline of accepted findings, keyed by fingerprint.

The file holds, per accepted finding, its fingerprint, rule and path: never the secret and
never a line number, so it can be committed and survives edits that move lines. A later scan
reports only findings whose fingerprint is not in the baseline.

File format (JSON)::

    {"version": 1, "tool": "mixle",
     "findings": [{"fingerprint": "<sha256 hex>", "rule": "github_token", "path": "ci.yml"}]}
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from substrate.errors import InvalidInputError, NotFoundError, ShardError
from substrate.locking import exclusive_lock
from substrate.replacing import open_temporary, remove_abandoned_temporaries, replacing
from substrate.secrets.hits import MASK_LEAD
from substrate.secrets.textscan import TextFinding

BASELINE_VERSION = 1
_FP_CHARS = frozenset("0123456789abcdef")


@dataclass
class Baseline:
    """Accepted findings: fingerprint -> ``{"rule", "path"}``."""

    entries: dict[str, dict[str, str]] = field(default_factory=dict)

    def __contains__(self, fingerprint: object) -> bool:
        return fingerprint in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def as_dict(self) -> dict[str, Any]:
        """The JSON document, entries sorted by path, rule and fingerprint."""
        rows = sorted(
            ({"fingerprint": fp, **meta} for fp, meta in self.entries.items()),
            key=lambda r: (r["path"], r["rule"], r["fingerprint"]),
        )
        return {"version": BASELINE_VERSION, "tool": "mixle", "findings": rows}


def baseline_from_findings(findings: Iterable[TextFinding]) -> Baseline:
    """A baseline accepting every given finding."""
    return Baseline({f.fingerprint: {"rule": f.rule, "path": f.path} for f in findings})


def merge_baseline(
    baseline: Baseline,
    findings: Iterable[TextFinding],
    *,
    scanned_paths: Iterable[str] | None = None,
) -> Baseline:
    """A baseline accepting ``findings``, keeping what the scan could not have seen.

    Args:
        baseline: the current baseline.
        findings: every finding of the latest scan.
        scanned_paths: the paths that scan read. Entries for other paths are kept, so
            updating from a scan of a few files does not drop the rest; None means the scan
            covered the whole tree and the old entries are replaced. An entry whose path
            has a secret masked in it is kept too: two files whose names hold two tokens
            are named alike masked, and one scanned would drop the other's entry.
    """
    entries: dict[str, dict[str, str]] = {}
    if scanned_paths is not None:
        seen = set(scanned_paths)
        entries = {
            fp: dict(m) for fp, m in baseline.entries.items() if not _updated_by(m["path"], seen)
        }
    entries.update(baseline_from_findings(findings).entries)
    return Baseline(entries)


def _updated_by(path: str, scanned: Collection[str]) -> bool:
    """Whether the baseline entries of ``path`` are those a scan of the paths ``scanned``
    replaces: they were read, and the name holds no masked secret (two such names may read
    alike; the entry could be another file's)."""
    return path in scanned and MASK_LEAD not in path


def new_findings(findings: Iterable[TextFinding], baseline: Baseline) -> list[TextFinding]:
    """The findings the baseline does not accept yet."""
    return [f for f in findings if f.fingerprint not in baseline]


def stale_fingerprints(
    baseline: Baseline,
    findings: Iterable[TextFinding],
    *,
    scanned_paths: Collection[str] | None = None,
) -> list[str]:
    """Baseline entries no scan result matches any more (fixed or removed secrets); with
    ``scanned_paths`` (a scan of some files), only the entries an update from that scan
    would drop (``merge_baseline``)."""
    seen = {f.fingerprint for f in findings}
    return sorted(
        fp
        for fp, entry in baseline.entries.items()
        if fp not in seen and (scanned_paths is None or _updated_by(entry["path"], scanned_paths))
    )


def load_baseline(path: str | Path) -> Baseline:
    """Read a baseline file.

    Raises:
        NotFoundError: the file does not exist.
        InvalidInputError: the file is not a baseline (bad JSON, wrong shape or version).
    """
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise NotFoundError(f"baseline {p} not found") from exc
    except NotADirectoryError as exc:  # a file where its folder should be
        raise ShardError(
            f"cannot read baseline {p}: its folder {p.parent} is not a folder"
        ) from exc
    except OSError as exc:
        raise ShardError(f"cannot read baseline {p}: {exc.strerror or exc}") from exc
    try:
        doc = json.loads(raw)
    except ValueError as exc:
        raise InvalidInputError(f"baseline {p} is not valid JSON: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("findings"), list):
        raise InvalidInputError(f"baseline {p} has no 'findings' list")
    version = doc.get("version")
    if type(version) is not int or version != BASELINE_VERSION:  # (true == 1, 1.0 == 1)
        raise InvalidInputError(f"baseline {p} has unsupported version {doc.get('version')!r}")
    entries: dict[str, dict[str, str]] = {}
    for i, row in enumerate(doc["findings"]):
        if not isinstance(row, dict):
            raise InvalidInputError(f"baseline {p}: entry {i} is not an object")
        fp, rule, where = row.get("fingerprint"), row.get("rule"), row.get("path")
        if not (isinstance(fp, str) and len(fp) == 64 and set(fp) <= _FP_CHARS):
            raise InvalidInputError(f"baseline {p}: entry {i} has no valid fingerprint")
        if not isinstance(rule, str) or not isinstance(where, str):
            raise InvalidInputError(f"baseline {p}: entry {i} needs string 'rule' and 'path'")
        entries[fp] = {"rule": rule, "path": where}
    return Baseline(entries)


def save_baseline(path: str | Path, baseline: Baseline) -> None:
    """Write a baseline atomically (temporary file, fsync, rename).

    Raises:
        ShardError: the file cannot be written.
    """
    p = Path(path)
    data = json.dumps(baseline.as_dict(), indent=2, sort_keys=True) + "\n"
    # a write killed midway left its copy in the user's folder, where `git add` would take it
    remove_abandoned_temporaries(p.parent, p.name)
    try:
        with (
            replacing(p, follow=True, durable=True) as tmp,
            open_temporary(tmp, "w") as fh,
        ):
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise ShardError(f"cannot write baseline {p}: {exc.strerror or exc}") from exc


def update_baseline(
    path: str | Path,
    findings: Iterable[TextFinding],
    *,
    scanned_paths: Iterable[str] | None = None,
) -> tuple[Baseline, Baseline]:
    """Accept ``findings`` in the baseline file at ``path`` (``merge_baseline``), created if
    missing; returns the baseline before and after.

    Reading, merging and writing hold a lock on the file's folder, so that two updates at
    once (two hooks, two CI steps) both land; a lock on the folder itself leaves no lock file
    in a repository.

    Raises:
        InvalidInputError: the file is not a baseline.
        ShardError: the file or its folder cannot be read or written.
    """
    p = Path(path)
    folder = p.parent.absolute()
    if not folder.is_dir():  # else the lock would make a file of the folder's name
        why = "is not a folder" if folder.exists() else "does not exist"
        raise ShardError(f"cannot write baseline {p}: its folder {p.parent} {why}")
    with exclusive_lock(folder):
        try:
            old = load_baseline(p)
        except NotFoundError:
            old = Baseline()
        new = merge_baseline(old, findings, scanned_paths=scanned_paths)
        save_baseline(p, new)
    return old, new
