"""Secrets in substrate items: every string field, not only the text.

An item's ``text``, ``tags`` and every string inside ``payload`` and ``provenance`` (nested
dicts and lists included) are scanned. A payload entry whose *key* names a secret
(``{"db": {"password": "..."}}``) is judged as an assignment even though the string alone
carries no context; so is an integer under such a key (``vpn_password: 83920174`` in front
matter reads as one), judged as the text scanner judges it written bare. Findings name
the field path where they were found, for example ``payload.db.password`` or ``tags[2]``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from substrate.secrets.assignments import KUBERNETES_SECRET_RULE
from substrate.secrets.copies import (
    LOCATIONS,
    Copies,
    copies_of,
    copy_spans,
    free_key,
    mask_spans,
)
from substrate.secrets.engine import find_secrets
from substrate.secrets.headers import header_value_hits, is_header_key
from substrate.secrets.hits import Hit
from substrate.secrets.keynames import classify_key
from substrate.secrets.kubernetes import secret_value
from substrate.secrets.paths import PATH_KEYS, find_secrets_in_path
from substrate.secrets.placeholders import worth_reporting
from substrate.secrets.scan import SecretFinding, SecretScan, preview, safe_text
from substrate.secrets.screen import SHORT_LEN, may_hold_secret, may_hold_secrets

KEYED_RULE = "sensitive_assignment"  # a value that is a secret by the name it is under
_SEQUENCES = (list, tuple)  # tuples of types: ``isinstance`` with ``a | b`` builds a union per call
_CONTAINERS = (dict, list, tuple)
# A value judged by the key it is under
Judged = str | int
# A number a password may be read as: an integer (a PIN, digits only), by exact type (True and
# False are no secret numbers); never a fraction ("pass_rate: 0.73", "pass@1: 0.85" are
# measures) nor an integer longer than any password (str() refuses 4,300 digits and more)
_MAX_SECRET_BITS = 128
_MAX_DEPTH = 64
MAX_NESTING = _MAX_DEPTH  # deeper values are refused by the write-time gate
# A setting written as an entry with its name beside its value: a Kubernetes env entry
# ({"name": "DB_PASSWORD", "value": "..."}), a CloudFormation parameter (ParameterKey,
# ParameterValue), an Elastic Beanstalk option (OptionName, Value), a CSV of "key,value"
# rows. The value is judged by the name it is given.
_NAME_FIELDS = frozenset(
    {"name", "key", "parameter", "parameterkey", "parametername", "property", "option"}
    | {"optionname", "variable", "setting", "field"}
)
_VALUE_FIELDS = frozenset({"value", "Value", "VALUE", "parameterValue", "ParameterValue"})
# Every value of a Kubernetes Secret's data map is a secret by the object's kind alone
# (``kubernetes``): the map is judged by one of these names, which no real key has, and each
# of its values by the map's name, a NUL and the value's own key (``_in_secret_map``).
# (keys in lower case: "Kind", "Data" and "stringdata" are read in any case, as the text scan
# reads them and Kubernetes decodes JSON keys)
_SECRET_MAPS = {"data": "\x00kubernetes data", "stringdata": "\x00kubernetes stringData"}
_SECRET_MAP_HOW = {_SECRET_MAPS["data"]: "encoded", _SECRET_MAPS["stringdata"]: "plain"}
_MANIFEST_RULE = KUBERNETES_SECRET_RULE.name


def _in_secret_map(key: str | None) -> tuple[str, str | None] | None:
    """For a value judged by ``key``: if it is in a Secret's data map, how the map holds its
    values and the value's own key there (None for a value standing for the map itself)."""
    if key is None or not key.startswith("\x00"):
        return None
    cut = key.find("\x00", 1)
    how = _SECRET_MAP_HOW.get(key if cut == -1 else key[:cut])
    if how is None:
        return None
    return how, None if cut == -1 else key[cut + 1 :]


def _own_key(key: str | None) -> str | None:
    """The key a value is judged by as in any other map: for one in a Secret's data map, its
    own key there."""
    in_map = _in_secret_map(key)
    return key if in_map is None else in_map[1]


def _hits_for(value: str, key: str | None) -> list[Hit]:
    in_map = _in_secret_map(key)
    if in_map is not None:
        how, key = in_map
        if secret_value(value, how, quoted=True):
            return [Hit(_MANIFEST_RULE, 0, len(value), 0, 0, len(value))]
        # no secret by the kind: judged by its own key, as in any other map
    # a short string's screen verdict is remembered; a longer one screens itself as fast as
    # find_secrets does, so it goes there directly
    find = find_secrets_in_path if key in PATH_KEYS else find_secrets
    hits = find(value) if len(value) > SHORT_LEN or may_hold_secret(value) else []
    if hits or key is None:
        return hits
    if is_header_key(key):
        return header_value_hits(value)
    return _keyed_hits(value, key, quoted=True)


def _keyed_hits(value: str, key: str, *, quoted: bool) -> list[Hit]:
    """``value`` whole, when the name ``key`` gives it makes it a secret."""
    # a key that holds a secret is stored masked ("[REDACTED:aws_access_key]"): its value is
    # judged by the key as stored, as a later scan of the stored item judges it
    stored_key = key if len(key) <= SHORT_LEN and not may_hold_secret(key) else safe_text(key)
    strength = classify_key(stored_key)
    if strength and worth_reporting(value, strength=strength, quoted=quoted, key=stored_key):
        return [Hit(KEYED_RULE, 0, len(value), 0, 0, len(value))]
    return []


def _secret_number(value: object) -> bool:
    """Whether ``value`` is a number that may be a password (``_MAX_SECRET_BITS``)."""
    return type(value) is int and value.bit_length() <= _MAX_SECRET_BITS


def _keyed_number(value: object, key: str | None) -> bool:
    """Whether ``value`` is a number under a key that names a secret: the only numbers the
    gate judges (most are sizes, counts and times, under keys that name none)."""
    key = _own_key(key)
    return _secret_number(value) and key is not None and classify_key(key) is not None


def _value_hits(value: Judged, key: str | None) -> list[Hit]:
    """The hits of a string, or of an integer under a key (in its digits, ``str(value)``): a
    number carries no context of its own, so only its key can make it a secret, and it is
    judged as written bare (``pin = 83920174``), as the text scanner reads it in a file."""
    if isinstance(value, str):
        return _hits_for(value, key)
    key = _own_key(key)  # no string, so no secret by a Secret's kind: its own key judges it
    return _keyed_hits(str(value), key, quoted=False) if key is not None else []


def holds_secret(value: str, key: str | None = None) -> bool:
    """Whether ``value``, found under ``key``, holds a secret the write-time gate masks."""
    return bool(_hits_for(value, key))


@lru_cache(maxsize=1024)
def _each_of(key: str | None) -> str | None:
    """The key a list's strings are judged by: each of ``passwords``, ``db_secrets`` or
    ``api_keys`` is one. Not each of ``tokens``: a tokenizer's, or a model's log
    probabilities, list words under it."""
    if not key or key[-1] not in "sS" or classify_key(key) is not None:
        return key
    one = key[:-1]
    strength = classify_key(one)
    if strength == "password" or (strength and _KEYS_BY_NAME.search(one)):
        return one
    return key


_KEYS_BY_NAME = re.compile(r"(?i)(?:api|access|secret|private|auth)[_\-.]?(?:key|token)$")


def _entry_name(mapping: dict[Any, Any]) -> str | None:
    """The name ``mapping`` gives the value beside it (``_NAME_FIELDS``), if it is such an
    entry: its ``_VALUE_FIELDS`` value is judged by that name instead of its own key."""
    if _VALUE_FIELDS.isdisjoint(mapping):  # nearly every mapping: one set operation in C
        return None
    names = [v for k, v in mapping.items() if isinstance(v, str) and str(k).lower() in _NAME_FIELDS]
    return names[0] if len(names) == 1 else None


def _judging(mapping: dict[Any, Any], key: str | None) -> dict[Any, str] | None:
    """The names some values of ``mapping`` (found under ``key``) are judged by instead of
    their own keys, if any: the name an entry gives its value (``_entry_name``), a Kubernetes
    Secret's data maps (``_SECRET_MAPS``), or for each value of such a map, the map's name
    with the value's own key (``_in_secret_map``)."""
    if key in _SECRET_MAP_HOW:  # a Secret's data map: each value is judged by both names
        return {k: f"{key}\x00{k}" for k in mapping}
    judging: dict[Any, str] = {}
    named = _entry_name(mapping)
    if named is not None:
        judging.update(dict.fromkeys(_VALUE_FIELDS, named))
    if _is_secret(mapping):  # its data maps, their names in any case as the kind's key
        # (and still the name it gives a value: {"kind": "secret", "name": "DB_PASSWORD",
        # "value": ...} is an entry of a list of settings as much as a Secret)
        for k in mapping:
            name = _SECRET_MAPS.get(k.lower()) if isinstance(k, str) else None
            if name is not None:
                judging[k] = name
    return judging or None


def _is_secret(mapping: dict[Any, Any]) -> bool:
    """Whether ``mapping`` is a Kubernetes Secret: its kind is Secret, in any case, under a
    key spelled ``kind``, ``Kind`` or ``KIND`` (looked up, not searched for: every mapping
    of every item is asked)."""
    for name in _KIND_KEYS:
        kind = mapping.get(name)
        if kind is not None:
            return isinstance(kind, str) and kind.lower() == "secret"
    return False


_KIND_KEYS = ("kind", "Kind", "KIND")


def _judged_by(key: Any, judging: dict[Any, str] | None) -> str:
    name = judging.get(key) if judging is not None else None
    return str(key) if name is None else name


def _walk(
    value: Any, path: str, key: str | None, depth: int
) -> Iterator[tuple[str, str | None, Judged]]:
    """Yield ``(field path, enclosing key, value)`` for every string under ``value``, and
    every number under a key."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, str) or _keyed_number(value, key):
        yield path, key, value
    elif isinstance(value, dict):
        judging = _judging(value, key)
        for i, (k, v) in enumerate(value.items()):
            name = str(k)
            # a key can hold a pasted secret too; then the path names its position instead,
            # since field paths are printed
            shown = f"<key {i}>" if _hits_for(name, None) else name
            where = f"{path}.{shown}" if path else shown
            yield f"{where}<key>", None, name
            yield from _walk(v, where, _judged_by(k, judging), depth + 1)
    elif isinstance(value, _SEQUENCES):
        each = _each_of(key)
        for i, v in enumerate(value):
            yield from _walk(v, f"{path}[{i}]", each, depth + 1)


def item_strings(item: Any) -> Iterator[tuple[str, str | None, Judged]]:
    """Every string field of an item, and every number under a key, as ``(field path,
    enclosing key, value)``."""
    text = getattr(item, "text", None)
    if isinstance(text, str):
        yield "text", None, text
    for name in ("payload", "provenance", "tags"):
        value = getattr(item, name, None)
        if value is not None:
            yield from _walk(value, name, None, 0)


def _strings(value: Any, key: str | None, depth: int, out: list[tuple[str | None, Judged]]) -> None:
    """Collect what ``_walk`` yields, without building field paths: ``(key, value)`` pairs."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, str) or _keyed_number(value, key):
        out.append((key, value))
    elif isinstance(value, dict):
        judging = _judging(value, key)
        for k, v in value.items():
            out.append((None, str(k)))
            if isinstance(v, str):
                if depth < _MAX_DEPTH:
                    out.append((_judged_by(k, judging), v))
            elif isinstance(v, _CONTAINERS):
                _strings(v, _judged_by(k, judging), depth + 1, out)
            elif depth < _MAX_DEPTH and _keyed_number(v, judged := _judged_by(k, judging)):
                out.append((judged, v))
    elif isinstance(value, _SEQUENCES):
        each = _each_of(key)
        for v in value:
            _strings(v, each, depth + 1, out)


def _item_pairs(item: Any) -> list[tuple[str | None, Judged]]:
    """Every string field of an item, and every number under a key, as ``(enclosing key,
    value)`` (``_strings``)."""
    pairs: list[tuple[str | None, Judged]] = []
    text = getattr(item, "text", None)
    if isinstance(text, str):
        pairs.append((None, text))
    for name in ("payload", "provenance", "tags"):
        value = getattr(item, name, None)
        if value is not None:
            _strings(value, None, 0, pairs)
    return pairs


def _surely_clean(item: Any) -> bool:
    """Whether no string field of ``item`` can hold a finding, decided for all fields at once.

    Most items are clean; screening them together costs one keyword search, where scanning
    each field costs one per field. When this says no, every field is scanned as usual.
    """
    pairs = _item_pairs(item)
    if may_hold_secrets([value for _, value in pairs if isinstance(value, str)]):
        return False
    for key, value in pairs:  # what _value_hits decides when find_secrets finds nothing
        if _in_secret_map(key) is not None:
            return False
        if key is not None:
            strength = classify_key(key)
            if strength and _worth(value, strength, key):
                return False
    return True


@lru_cache(maxsize=256)
def keys_judge_nothing(keys: tuple[Any, ...]) -> bool:
    """Whether a flat mapping with these keys, each value a string, would have no value
    judged by a key: no key names a secret, is an entry's value field or a Secret's kind or
    data map (``_judging``). Then ``_surely_clean`` decides on its strings alone, which lets
    many such mappings (a file's records) be screened together. (Each file repeats its keys.)"""
    for key in keys:
        if not isinstance(key, str) or key in _VALUE_FIELDS or key in _KIND_KEYS:
            return False
        if key.startswith("\x00"):  # a name ``_in_secret_map`` reads
            return False
        if key.lower() in _SECRET_MAPS or classify_key(key) is not None:
            return False
    return True


def _worth(value: Judged, strength: str, key: str) -> bool:
    if isinstance(value, str):
        return worth_reporting(value, strength=strength, quoted=True, key=key)
    return worth_reporting(str(value), strength=strength, quoted=False, key=key)


def scan_item(item: Any) -> SecretScan:
    """Scan every string field of a substrate item, and its links, for secrets.

    Args:
        item: a ``SubstrateItem`` or any object with ``text`` / ``payload`` / ``provenance``
            / ``tags`` / ``links`` attributes (missing ones are skipped).

    Returns:
        A ``SecretScan`` whose findings carry the field path in ``field``; ``start``/``end``
        are offsets within that field's string.
    """
    strings = [] if _surely_clean(item) else list(item_strings(item))
    strings += _link_strings(getattr(item, "links", None))
    return SecretScan(
        [
            SecretFinding(
                h.rule, h.start, h.end, preview(h.rule, str(value)[h.start : h.end], h.prefix), path
            )
            for path, key, value in strings
            for h in _value_hits(value, key)
        ]
    )


def _link_strings(links: Any) -> list[tuple[str, str | None, Judged]]:
    """An item's links as ``item_strings`` gives its fields. ``admit`` refuses a link that
    holds a secret (masked, it would point elsewhere): one found here was written before it
    did, or by hand."""
    if not isinstance(links, list):
        return []
    return [(f"links[{i}]", None, link) for i, link in enumerate(links) if isinstance(link, str)]


def scan_substrate(substrate: Any, *, scope: str | None = None) -> dict[str, Any]:
    """Sweep a substrate for leaked secrets: which items are dirty and which rules tripped.

    Args:
        substrate: a ``Substrate`` (streams with ``iter_items`` when it has it).
        scope: only items of this scope.

    Returns:
        ``{"n_items", "n_dirty", "dirty": [{"item_id", "rules"}]}``.
    """
    items = (
        substrate.iter_items(scope=scope)
        if hasattr(substrate, "iter_items")
        else substrate.all(scope=scope)
    )
    n_items = 0
    dirty: list[dict[str, Any]] = []
    for item in items:
        n_items += 1
        scan = scan_item(item)
        if not scan.clean:
            dirty.append({"item_id": item.id, "rules": scan.rules()})
    return {"n_items": n_items, "n_dirty": len(dirty), "dirty": dirty}


# The hits of each string of an item being redacted, as (string, enclosing key) -> hits: the
# strings are scanned once, to learn every secret whose copies are then masked.
_Hits = dict[tuple[Judged, str | None], list[Hit]]


def _redact(
    value: Any,
    key: str | None,
    depth: int,
    found: set[tuple[str, str]],
    copies: Copies | None,
    hits: _Hits,
    *,
    top: bool = False,
) -> Any:
    """``value`` redacted; in a ``top`` dict (a payload or provenance), the file locations
    (``LOCATIONS``) keep copies as they are."""
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, str):
        return _redact_string(value, _known(hits, value, key), found, copies)
    if _keyed_number(value, key):
        masked = _known(hits, value, key)  # a secret number becomes its mask, a string
        return _redact_string(str(value), masked, found, None) if masked else value
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        judging = _judging(value, key)
        for k, v in value.items():
            name = (
                _redact_string(k, _known(hits, k, None), found, copies) if isinstance(k, str) else k
            )
            kept = None if top and k in LOCATIONS else copies  # a file location keeps its copies
            judged_by = _judged_by(k, judging)
            out[free_key(name, out)] = _redact(v, judged_by, depth + 1, found, kept, hits)
        return out
    if isinstance(value, list):
        return [_redact(v, _each_of(key), depth + 1, found, copies, hits) for v in value]
    if isinstance(value, tuple):
        return tuple(_redact(v, _each_of(key), depth + 1, found, copies, hits) for v in value)
    return copy.deepcopy(value)


def _known(hits: _Hits, value: Judged, key: str | None) -> list[Hit]:
    found = hits.get((value, key))
    return _value_hits(value, key) if found is None else found


def _redact_string(
    value: str, hits: list[Hit], found: set[tuple[str, str]], copies: Copies | None
) -> str:
    """``value`` with its own secrets (noted in ``found`` as ``(rule, secret)``) and copies of
    the item's other secrets masked."""
    found.update((h.rule, value[h.start : h.end]) for h in hits)
    spans = [(h.start, h.end, h.rule) for h in hits]
    if copies is not None:
        spans += copy_spans(value, copies)
    return mask_spans(value, spans) if spans else value


def nesting_depth(value: Any, limit: int = _MAX_DEPTH + 1) -> int:
    """How deeply ``value`` nests dicts and lists (counting stops at ``limit``)."""
    depth, level = 0, [value]
    while level and depth < limit:
        level = [
            child
            for node in level
            if isinstance(node, _CONTAINERS)
            for child in (node.values() if isinstance(node, dict) else node)
        ]
        if level:
            depth += 1
    return depth


def redacted_fields(item: Any) -> tuple[dict[str, Any], list[str], dict[str, str]]:
    """New values for ``text``, ``payload``, ``provenance`` and ``tags`` with secrets masked,
    and the copies of each wherever else they stand alone in the item (``copies``).

    Returns:
        ``(fields, rules, secrets)``: the replacement field values (deep copies; the item is
        not touched), the rule name of every redaction made, one entry per secret (copies, and
        the same secret found again in another field, are not counted again), and the secrets
        masked (value -> rule), for masking their copies beyond the item.
    """
    text = getattr(item, "text", None)
    pairs = _item_pairs(item)
    hits: _Hits = {}
    secrets: dict[str, str] = {}
    for key, value in pairs:
        if (value, key) not in hits:
            hits[value, key] = found_here = _value_hits(value, key)
            for h in found_here:
                secrets.setdefault(str(value)[h.start : h.end], h.rule)
    copies = copies_of(secrets)
    found: set[tuple[str, str]] = set()  # one secret found in two fields is one secret
    fields: dict[str, Any] = {}
    if isinstance(text, str):
        fields["text"] = _redact(text, None, 0, found, copies, hits)
    for name in ("payload", "provenance", "tags"):
        field = getattr(item, name, None)
        if field is not None:
            fields[name] = _redact(field, None, 0, found, copies, hits, top=name != "tags")
    return fields, [rule for rule, _ in found], secrets
