"""Secret detection and redaction for text, substrate items and files.

The seed API (``detect_secrets``, ``redact_secrets``, ``safe_text``, ``scan_item``,
``scan_substrate``, ``SecretScan``, ``SecretFinding``) plus file scanning for a pre-commit
check (``scan_text``, ``scan_file``), baselines and SARIF output. The rule table lives in
``substrate.secrets.rules``. This package imports nothing outside the standard library.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Public name -> the module that defines it, loaded on first use: a command that masks one
# text (a search) does not pay for the baselines, file scans and SARIF it never touches.
_EXPORTS: dict[str, str] = {
    "Baseline": "substrate.secrets.baseline",
    "baseline_from_findings": "substrate.secrets.baseline",
    "detect_secrets": "substrate.secrets.scan",
    "fingerprint": "substrate.secrets.textscan",
    "load_baseline": "substrate.secrets.baseline",
    "masked_repr": "substrate.secrets.scan",
    "merge_baseline": "substrate.secrets.baseline",
    "new_findings": "substrate.secrets.baseline",
    "redact_secrets": "substrate.secrets.scan",
    "Rule": "substrate.secrets.rule",
    "RULE_NAMES": "substrate.secrets.rules",
    "RULES": "substrate.secrets.rules",
    "safe_repr": "substrate.secrets.scan",
    "safe_text": "substrate.secrets.scan",
    "sarif_log": "substrate.secrets.sarif",
    "save_baseline": "substrate.secrets.baseline",
    "scan_file": "substrate.secrets.textscan",
    "scan_files": "substrate.secrets.textscan",
    "scan_item": "substrate.secrets.fields",
    "scan_substrate": "substrate.secrets.fields",
    "scan_text": "substrate.secrets.textscan",
    "ScanConfig": "substrate.secrets.textscan",
    "SecretFinding": "substrate.secrets.scan",
    "SecretScan": "substrate.secrets.scan",
    "stale_fingerprints": "substrate.secrets.baseline",
    "TextFinding": "substrate.secrets.textscan",
    "TextScan": "substrate.secrets.textscan",
    "update_baseline": "substrate.secrets.baseline",
}


if TYPE_CHECKING:
    from substrate.secrets.baseline import Baseline as Baseline
    from substrate.secrets.baseline import baseline_from_findings as baseline_from_findings
    from substrate.secrets.baseline import load_baseline as load_baseline
    from substrate.secrets.baseline import merge_baseline as merge_baseline
    from substrate.secrets.baseline import new_findings as new_findings
    from substrate.secrets.baseline import save_baseline as save_baseline
    from substrate.secrets.baseline import stale_fingerprints as stale_fingerprints
    from substrate.secrets.baseline import update_baseline as update_baseline
    from substrate.secrets.fields import scan_item as scan_item
    from substrate.secrets.fields import scan_substrate as scan_substrate
    from substrate.secrets.rule import Rule as Rule
    from substrate.secrets.rules import RULE_NAMES as RULE_NAMES
    from substrate.secrets.rules import RULES as RULES
    from substrate.secrets.sarif import sarif_log as sarif_log
    from substrate.secrets.scan import SecretFinding as SecretFinding
    from substrate.secrets.scan import SecretScan as SecretScan
    from substrate.secrets.scan import detect_secrets as detect_secrets
    from substrate.secrets.scan import masked_repr as masked_repr
    from substrate.secrets.scan import redact_secrets as redact_secrets
    from substrate.secrets.scan import safe_repr as safe_repr
    from substrate.secrets.scan import safe_text as safe_text
    from substrate.secrets.textscan import ScanConfig as ScanConfig
    from substrate.secrets.textscan import TextFinding as TextFinding
    from substrate.secrets.textscan import TextScan as TextScan
    from substrate.secrets.textscan import fingerprint as fingerprint
    from substrate.secrets.textscan import scan_file as scan_file
    from substrate.secrets.textscan import scan_files as scan_files
    from substrate.secrets.textscan import scan_text as scan_text


if not TYPE_CHECKING:  # a type checker, which cannot read this list, takes the imports above
    __all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # (looked up once)
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
