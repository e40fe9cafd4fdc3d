"""Secret detection and redaction for text, substrate items and files.

The seed API (``detect_secrets``, ``redact_secrets``, ``safe_text``, ``scan_item``,
``scan_substrate``, ``SecretScan``, ``SecretFinding``) plus file scanning for a pre-commit
check (``scan_text``, ``scan_file``), baselines and SARIF output. The rule table lives in
``substrate.secrets.rules``. This package imports nothing outside the standard library.
"""

from __future__ import annotations

from substrate.secrets.baseline import (
    Baseline,
    baseline_from_findings,
    load_baseline,
    merge_baseline,
    new_findings,
    save_baseline,
    stale_fingerprints,
    update_baseline,
)
from substrate.secrets.fields import scan_item, scan_substrate
from substrate.secrets.rule import Rule
from substrate.secrets.rules import RULE_NAMES, RULES
from substrate.secrets.sarif import sarif_log
from substrate.secrets.scan import (
    SecretFinding,
    SecretScan,
    detect_secrets,
    masked_repr,
    redact_secrets,
    safe_repr,
    safe_text,
)
from substrate.secrets.textscan import (
    ScanConfig,
    TextFinding,
    TextScan,
    fingerprint,
    scan_file,
    scan_files,
    scan_text,
)

__all__ = [
    "RULES",
    "RULE_NAMES",
    "Baseline",
    "Rule",
    "ScanConfig",
    "SecretFinding",
    "SecretScan",
    "TextFinding",
    "TextScan",
    "baseline_from_findings",
    "detect_secrets",
    "fingerprint",
    "load_baseline",
    "merge_baseline",
    "new_findings",
    "redact_secrets",
    "masked_repr",
    "safe_repr",
    "safe_text",
    "sarif_log",
    "save_baseline",
    "scan_file",
    "scan_files",
    "scan_item",
    "scan_substrate",
    "scan_text",
    "stale_fingerprints",
    "update_baseline",
]
