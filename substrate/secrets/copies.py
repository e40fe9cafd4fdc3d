"""Copies of a secret found elsewhere in an item, masked with it.

A secret is often found in one field only, where its context shows (a payload's ``password``
entry), while another repeats the bare value: a record's text joins its values, a trace's
text quotes its answer, a section's title and its text share words. Once a secret is found,
its copies standing alone are masked too. Copies are looked for as they are, and as JSON and
Python write them inside a string (escaped quotes and backslashes), without the white space
around them. Copies shorter than four characters, or inside a longer word, are left alone, and
so are file locations (see ``LOCATIONS``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from substrate.secrets.scan import DEFAULT_MASK

# Shorter copies are left alone: a four-character password masked wherever those characters
# stand alone is already generous.
MIN_COPY = 4
# Payload and provenance fields that locate a file or folder: a short password such as
# ``admin`` also names folders, and a masked ``path`` or artifact ``ref`` would no longer lead
# to its file (freshness checks, re-ingests). The gate's own scan still masks a secret found
# in them.
LOCATIONS = frozenset({"source", "path", "ref", "manifest", "artifact_dir", "parent"})

# A pattern for the copies of some secrets, and the rule of each form a copy can take.
Copies = tuple[re.Pattern[str], dict[str, str]]


def copies_of(secrets: Mapping[str, str]) -> Copies | None:
    """How to find copies of ``secrets`` (secret -> the rule that found it); None when none is
    long enough to look for."""
    forms: dict[str, str] = {}
    for secret, rule in secrets.items():
        core = secret.strip()
        if len(core) >= MIN_COPY:
            for form in (core, json.dumps(core)[1:-1], repr(core)[1:-1]):
                forms.setdefault(form, rule)
    if not forms:
        return None
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    return re.compile(f"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])"), forms


def copy_spans(text: str, copies: Copies) -> list[tuple[int, int, str]]:
    """``(start, end, rule)`` of every copy in ``text``."""
    pattern, forms = copies
    return [(m.start(), m.end(), forms[m.group()]) for m in pattern.finditer(text)]


def mask_spans(text: str, spans: list[tuple[int, int, str]]) -> str:
    """``text`` with each span masked; overlapping spans are masked once, as one."""
    out: list[str] = []
    pos = 0
    for start, end, rule in sorted(spans):
        if end <= pos:
            continue  # inside a span already masked
        out.append(text[pos : max(start, pos)])
        if start >= pos:
            out.append(DEFAULT_MASK.format(rule=rule))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def mask_copies(value: Any, copies: Copies | None) -> Any:
    """``value`` (a string, or dicts and lists of them) with the ``copies`` masked."""
    return value if copies is None else _masked(value, copies)


def mask_copies_in_fields(fields: dict[str, Any], copies: Copies | None) -> dict[str, Any]:
    """``mask_copies`` for a payload or provenance dict, whose file locations (``LOCATIONS``)
    are left alone."""
    if copies is None:
        return fields
    return {
        _masked(k, copies): v if k in LOCATIONS else _masked(v, copies) for k, v in fields.items()
    }


def _masked(value: Any, copies: Copies) -> Any:
    if isinstance(value, str):
        spans = copy_spans(value, copies)
        return mask_spans(value, spans) if spans else value
    if isinstance(value, dict):
        return {_masked(k, copies): _masked(v, copies) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, copies) for v in value]
    if isinstance(value, tuple):
        return tuple(_masked(v, copies) for v in value)
    return value
