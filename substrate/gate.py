"""The write-time gate: every item passes here before it is stored.

``admit`` scans every string field of an item. By default it returns a copy whose secrets are
replaced by ``[REDACTED:<rule>]`` masks and records what was masked in
``provenance["redactions"]``. With ``redact=False`` the item is stored as given, but the
finding count still goes into ``provenance["unredacted_secrets"]``: nothing secret is stored
silently. The caller's object is never modified, and a clean item costs one keyword check per
string field.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from substrate.errors import InvalidInputError
from substrate.item import SubstrateItem
from substrate.secrets.engine import find_secrets
from substrate.secrets.fields import MAX_NESTING, nesting_depth, redacted_fields, scan_item
from substrate.visibility import UNFIT_NAME, printable_name

log = logging.getLogger(__name__)

REDACTIONS_KEY = "redactions"
UNREDACTED_KEY = "unredacted_secrets"


@dataclass
class GateResult:
    """What the gate let through.

    Attributes:
        item: the item to store (a new object whenever anything was found).
        redactions: how many secrets were masked (0 with ``redact=False``).
        rules: sorted names of the rules that matched.
        secrets: the secrets masked (value -> rule), so that a caller can mask their copies
            in items stored beside this one (never printed: left out of the repr).
    """

    item: SubstrateItem
    redactions: int
    rules: list[str] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict, repr=False)


def _merge(previous: Any, count: int, rules: list[str]) -> dict[str, Any]:
    """Add this pass to an earlier record, so re-admitting an item keeps the full tally."""
    if isinstance(previous, dict):
        old_count = previous.get("count", 0)
        old_rules = previous.get("rules", [])
        if isinstance(old_count, int) and isinstance(old_rules, list):
            return {
                "count": old_count + count,
                "rules": sorted(set(rules) | {str(r) for r in old_rules}),
            }
    return {"count": count, "rules": rules}


def refuse_unfit_names(**names: str | None) -> None:
    """Refuse names that look like secrets, hold control characters or have white space
    around them (scopes, approvers, who published or proposed).

    Names are stored, compared and printed as they are: masking one would change what it
    names, so a secret pasted as a name is refused instead; a control character would break
    the cache keys (a scope follows a NUL), lines and tables they are written into, and an
    invisible one (a zero-width space) would name another scope printed alike; and
    "public " would be another scope than "public", printed alike (a grant would gate the
    wrong one, and what is written there would be hidden from every team).

    Raises:
        InvalidInputError: naming the argument, never its value.
    """
    for what, name in names.items():
        if name is not None:  # (a caller's scope=5)
            refuse_non_text(**{what: name})
        unfit = _unfit(name) if name else None
        if unfit is not None:
            raise InvalidInputError(f"the {what.replace('_', ' ')} {unfit}")


def refuse_non_text(**texts: object) -> None:
    """Refuse arguments that must be text (a scope, a source name) and are not, naming the
    argument and what was given instead: not Python's words from deep inside, later."""
    for what, text in texts.items():
        if not isinstance(text, str):
            shown = what.replace("_", " ")
            raise InvalidInputError(f"{shown} must be text, not {type(text).__name__}")


def refuse_non_list(values: object, name: str) -> None:
    """Refuse ``values`` (the argument ``name``) that is no list: one string (each of its
    characters would be an item), bytes (each a number), one dict (each key), or nothing
    to go through."""
    if isinstance(values, str):
        given = "one string (pass [text])"
    elif isinstance(values, Mapping):
        given = f"one dict (pass [{name.removesuffix('s')}])"
    elif isinstance(values, bytes | bytearray | memoryview) or not isinstance(values, Iterable):
        given = type(values).__name__
    else:
        return
    raise InvalidInputError(f"{name} must be a list, not {given}")


@lru_cache(maxsize=256)
def _unfit(name: str) -> str | None:
    """What is wrong with ``name`` as a name, if anything (remembered: every item a run
    writes names the same scope)."""
    if not printable_name(name):
        return UNFIT_NAME
    if name != name.strip():
        return "has white space around it"
    if find_secrets(name):
        return "looks like a secret; choose another name"
    return None


def admit(item: SubstrateItem, *, redact: bool = True) -> GateResult:
    """Scan an item before storing it; mask its secrets unless told not to.

    Args:
        item: the item about to be written. It is not modified.
        redact: mask secrets (default). With False the item is kept verbatim but the number
            of secrets and their rules are recorded in ``provenance["unredacted_secrets"]``.

    Returns:
        A ``GateResult`` with the item to store.
    """
    for name in ("payload", "provenance"):
        if nesting_depth(getattr(item, name)) > MAX_NESTING:
            raise InvalidInputError(
                f"{name} nests deeper than {MAX_NESTING} levels: it cannot be checked for "
                "secrets; flatten it"
            )
    # an id is shown everywhere the item is (packets, citations), and never masked; nor is a
    # link, an id too: masked, it would point elsewhere
    refuse_unfit_names(scope=item.scope, item_id=item.id)
    for link in item.links:
        refuse_unfit_names(link=link if isinstance(link, str) else None)
    scan = scan_item(item)
    if scan.clean:
        return GateResult(item, 0, [])
    rules = scan.rules()
    if not redact:
        kept = copy.deepcopy(item)
        kept.provenance[UNREDACTED_KEY] = _merge(
            kept.provenance.get(UNREDACTED_KEY), len(scan.findings), rules
        )
        # an item still being built has no id yet: its builder counts it in a report
        # (``mixle ingest`` warns once with the total), so one line per item would be noise
        log.log(
            logging.WARNING if item.id else logging.INFO,
            "item %s stored with %d unredacted secret(s): %s",
            item.id or "(new)",
            len(scan.findings),
            ", ".join(rules),
        )
        return GateResult(kept, 0, rules)
    fields, found, secrets = redacted_fields(item)
    clean = SubstrateItem(
        kind=item.kind,
        text=fields.get("text", item.text),
        payload=fields.get("payload", copy.deepcopy(item.payload)),
        provenance=fields.get("provenance", copy.deepcopy(item.provenance)),
        scope=item.scope,
        tags=fields.get("tags", list(item.tags)),
        links=list(item.links),
        id=item.id,
        created_at=item.created_at,
    )
    clean.provenance[REDACTIONS_KEY] = _merge(
        clean.provenance.get(REDACTIONS_KEY), len(found), sorted(set(found))
    )
    log.info(
        "item %s: %d secret(s) redacted (%s)", item.id or "(new)", len(found), ", ".join(rules)
    )
    return GateResult(clean, len(found), sorted(set(found)), secrets)
