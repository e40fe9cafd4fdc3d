"""SARIF 2.1.0 output for secret findings (GitHub code scanning and other viewers).

Each result carries the rule, the location (1-based line and column), the masked line as its
snippet and the finding's fingerprint in ``partialFingerprints``, so viewers can track a
finding across commits. The run's invocation says whether every file was scanned. No secret
characters are ever written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from substrate.secrets.names import slashed
from substrate.secrets.rules import RULES
from substrate.secrets.scan import safe_text
from substrate.secrets.textscan import SKIPPED_TOO_LARGE, SKIPPED_UNREADABLE, TextFinding, TextScan

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
FINGERPRINT_KEY = "mixleSecret/v1"
# how a finding's path shows a byte that is not UTF-8 (substrate.secrets.names): 0x80 and up
_BYTE_SHOWN = re.compile(r"\\x([89a-f][0-9a-f])")


def _rule_descriptors() -> list[dict[str, Any]]:
    seen: dict[str, str] = {}
    for rule in RULES:
        seen.setdefault(rule.name, rule.description or rule.name)
    return [
        {
            "id": name,
            "name": name,
            "shortDescription": {"text": desc},
            "defaultConfiguration": {"level": "error"},
            "properties": {"tags": ["security", "secret"]},
        }
        for name, desc in seen.items()
    ]


def sarif_log(
    results: Iterable[TextScan | TextFinding],
    *,
    tool_version: str = "0.1.0",
    not_scanned: Iterable[str] = (),
) -> dict[str, Any]:
    """Build a SARIF 2.1.0 log (a JSON-ready dict) from scan results or findings.

    The run's invocation says whether every file was scanned (``executionSuccessful``), and
    names each one that was not in a ``toolExecutionNotifications`` entry of level "error":
    a viewer would otherwise take a scan that missed a file for a clean one.

    Args:
        results: ``TextScan`` objects (their findings are used; one that could not be read,
            or was over the size cap, is reported as not scanned) or ``TextFinding`` objects.
        tool_version: the mixle version to record as the driver version.
        not_scanned: messages naming further files that could not be scanned (secrets in
            them are masked).
    """
    rules = _rule_descriptors()
    index = {r["id"]: i for i, r in enumerate(rules)}
    findings: list[TextFinding] = []
    problems = list(not_scanned)
    for r in results:
        findings.extend(r.findings if isinstance(r, TextScan) else [r])
        if isinstance(r, TextScan) and r.skipped in (SKIPPED_UNREADABLE, SKIPPED_TOO_LARGE):
            why = r.notes[0].removeprefix("skipped: ") if r.notes else r.skipped
            problems.append(f"cannot scan {r.path}: {why}")
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mixle",
                        "version": tool_version,
                        "informationUri": "https://pypi.org/project/mixle-cli/",
                        "rules": rules,
                    }
                },
                "invocations": [_invocation(problems)],
                "results": [_result(f, index) for f in findings],
                "columnKind": "unicodeCodePoints",
            }
        ],
    }


def _invocation(problems: list[str]) -> dict[str, Any]:
    """The run's invocation: successful only when no file was left unscanned."""
    return {
        "executionSuccessful": not problems,
        "toolExecutionNotifications": [
            # masked again: a message names a file, and a name may hold a secret
            {"level": "error", "message": {"text": safe_text(p)}}
            for p in problems
        ],
    }


def _result(f: TextFinding, index: dict[str, int]) -> dict[str, Any]:
    return {
        "ruleId": f.rule,
        "ruleIndex": index.get(f.rule, -1),
        "level": "error",
        "message": {"text": f"Possible secret ({f.rule}); the value is not shown."},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(f.path)},
                    **_region(f),
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
    }


def _region(f: TextFinding) -> dict[str, Any]:
    """Where in the file a finding is; none for a secret in the file's name (line 0)."""
    if f.line == 0:
        return {}
    return {
        "region": {
            "startLine": f.line,
            "startColumn": f.column,
            "endLine": f.end_line,
            "endColumn": f.end_column,
            "snippet": {"text": f.preview},
        }
    }


def _uri(path: str) -> str:
    """A path as a relative URI reference: ``/`` separators, and what a URI may not hold
    (spaces, brackets, ``%``, ``#``, ``?``, non-ASCII) percent-encoded; a byte of the name that
    is not UTF-8, which the finding shows as ``\\xNN``, is percent-encoded as itself."""
    pieces = _BYTE_SHOWN.split(path)  # text, byte, text, byte... text
    return "".join(
        f"%{p.upper()}" if i % 2 else quote(slashed(p), safe="/") for i, p in enumerate(pieces)
    )
