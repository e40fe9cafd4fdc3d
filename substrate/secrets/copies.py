"""Copies of a secret found elsewhere in an item, masked with it.

A secret is often found in one field only, where its context shows (a payload's ``password``
entry), while another repeats the bare value: a record's text joins its values, a trace's
text quotes its answer, a section's title and its text share words. Once a secret is found,
its copies standing alone are masked too. Copies are looked for as they are, and as JSON and
Python write them inside a string (escaped quotes and backslashes), without the white space
around them. Copies shorter than four characters, or inside a longer word (or, for a plain
word, a name or a hyphenated word: ``_WORD``), are left alone, and so are file locations (see
``LOCATIONS``).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from substrate.secrets.hits import DEFAULT_MASK, Hit
from substrate.secrets.placeholders import plain_word

# Shorter copies are left alone: a four-character password masked wherever those characters
# stand alone is already generous.
MIN_COPY = 4
# Payload and provenance fields that locate a file or folder: a short password such as
# ``admin`` also names folders, and a masked ``path`` or artifact ``ref`` would no longer lead
# to its file (freshness checks, re-ingests). The gate's own scan still masks a secret found
# in them.
LOCATIONS = frozenset({"source", "path", "ref", "manifest", "artifact_dir", "parent"})

# Up to this many forms, copies are found by one regular expression; past it, an alternation
# that wide is slow to search (each position tries every branch), and an index of the forms by
# their first characters is used instead.
_REGEX_FORMS = 64
# What a copy must not stand beside: it would be part of a longer word. A plain word's copy
# must not be joined by "_" or "-" to a letter or digit either: it would be part of a name
# (``assert_python_ok``, ``python-dev`` for ``python``), where a generated value's still is one
# (``dump_Xk9pQ2mZ7v.sql``), and where "_" only marks emphasis (``_marmalade_``) it is one
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


@dataclass(frozen=True, slots=True)
class Copies:
    """How to find the copies of some secrets: the forms a copy can take and their rules,
    longest first, as one pattern (few forms) or grouped by their first characters (many)."""

    forms: dict[str, str]
    pattern: re.Pattern[str] | None
    by_head: dict[str, list[int]]  # the lengths of the forms starting so, longest first
    words: frozenset[str] = frozenset()  # the forms that are plain words (``_alone``)


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
    longest_first = sorted(forms, key=len, reverse=True)
    words = frozenset(form for form in forms if plain_word(form))
    if len(forms) <= _REGEX_FORMS:
        pattern = re.compile("|".join(_standing_alone(f, f in words) for f in longest_first))
        return Copies(forms, pattern, {}, words)
    by_head: dict[str, list[int]] = {}
    for form in longest_first:  # many secrets share a head ("Tr0u..."), few lengths
        lengths = by_head.setdefault(form[:MIN_COPY], [])
        if len(form) not in lengths:
            lengths.append(len(form))
    return Copies(forms, None, by_head, words)


# Before a copy, a letter of an escape ("auth with\\nmarmalade" in a logged JSON string) is
# no letter of a longer word
_OPENS = r"(?:(?<![A-Za-z0-9])|(?<=\\[nrtbf]))"


def _standing_alone(form: str, word: bool) -> str:
    """A pattern of ``form`` with nothing beside it that would make it part of a longer word
    (or, for a plain word, a longer name or a hyphenated word: see ``_WORD``)."""
    if word:
        return f"{_OPENS}(?<![A-Za-z0-9][_-]){re.escape(form)}(?![A-Za-z0-9])(?![_-][A-Za-z0-9])"
    return f"{_OPENS}{re.escape(form)}(?![A-Za-z0-9])"


def copy_spans(text: str, copies: Copies) -> list[tuple[int, int, str]]:
    """``(start, end, rule)`` of every copy in ``text``, in order, not overlapping."""
    forms = copies.forms
    if copies.pattern is not None:
        # most texts hold no copy: a substring search per form (in C) tells, where the
        # pattern, whose look-behinds defeat the regex engine's search for a literal, would
        # try every form at every character (a section of 5,000 lines took seconds)
        if not any(form in text for form in forms):
            return []
        return [(m.start(), m.end(), forms[m.group()]) for m in copies.pattern.finditer(text)]
    heads = copies.by_head
    if not any(head in text for head in heads):  # (the walk below is a step per character)
        return []
    spans: list[tuple[int, int, str]] = []
    pos, last = 0, len(text) - MIN_COPY
    while pos <= last:
        lengths = heads.get(text[pos : pos + MIN_COPY])
        if lengths:  # (whether it stands alone is for each form to say: ``_alone``)
            for length in lengths:
                end = pos + length
                if end > len(text):  # (a slice past the end is shorter: another form's length)
                    continue
                form = text[pos:end]
                rule = forms.get(form)
                if rule is not None and _alone(text, pos, end, form in copies.words):
                    spans.append((pos, end, rule))
                    pos = end
                    break
            else:
                pos += 1
        else:
            pos += 1
    return spans


def _alone(text: str, start: int, end: int, word: bool) -> bool:
    """Whether ``text[start:end]`` stands alone (``_standing_alone``)."""

    def word_char(at: int) -> bool:
        return 0 <= at < len(text) and text[at] in _WORD

    escaped = start >= 2 and text[start - 2] == "\\" and text[start - 1] in "nrtbf"
    if (word_char(start - 1) and not escaped) or word_char(end):
        return False
    if not word:
        return True
    joined_before = start >= 1 and text[start - 1] in "_-" and word_char(start - 2)
    joined_after = end < len(text) and text[end] in "_-" and word_char(end + 1)
    return not (joined_before or joined_after)


def copies_across(secrets: Mapping[str, str], text: str) -> Copies | None:
    """``copies_of`` the ``secrets`` found in one item of a file, to mask in its other items
    (``text``: all of the file's). A plain word (``nodejs``, a weak password) that stands bare
    in the file more than ``FILE_WORD`` times is left out: masked where it was found and in
    its own item, its copies elsewhere are the file's word, not the secret (a changelog's
    ``PASSWORD=nodejs`` example would mask the project's name in every link)."""
    kept = {
        secret: rule
        for secret, rule in secrets.items()
        if not (plain_word(secret.strip()) and _bare_count(secret.strip(), text) > FILE_WORD)
    }
    return copies_of(kept)


# A password said again once or twice ("try it again: ..."), not a word of the file's prose
FILE_WORD = 4


def _bare_count(word: str, text: str) -> int:
    """How many times ``word`` stands bare in ``text`` (where it would be masked as a copy:
    ``_standing_alone``), counted up to ``FILE_WORD + 1``."""
    bare = re.compile(_standing_alone(word, word=True))
    return sum(1 for _ in itertools.islice(bare.finditer(text), FILE_WORD + 1))


def copies_of_hits(text: str, hits: Sequence[Hit]) -> Copies | None:
    """``copies_of`` the secrets ``hits`` found in ``text`` (a secret found twice keeps the
    rule of its first finding)."""
    secrets: dict[str, str] = {}
    for hit in hits:
        secrets.setdefault(text[hit.start : hit.end], hit.rule)
    return copies_of(secrets)


def copies_outside(
    text: str, copies: Copies | None, masked: Sequence[Hit]
) -> list[tuple[int, int, str]]:
    """``(start, end, rule)`` of the ``copies`` in ``text``, leaving out those overlapping a
    span of ``masked`` (hits in ``text``, sorted by start)."""
    if copies is None:
        return []
    kept: list[tuple[int, int, str]] = []
    i = 0
    for start, end, rule in copy_spans(text, copies):
        while i < len(masked) and masked[i].end <= start:
            i += 1
        if i == len(masked) or masked[i].start >= end:
            kept.append((start, end, rule))
    return kept


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


def free_key(name: Any, taken: dict[Any, Any]) -> Any:
    """``name``, or ``name #2``, ``#3``... when ``taken`` holds it already: two keys masked
    alike (two tokens used as keys) must not keep only the last one's value."""
    if name not in taken:
        return name
    n = 2
    while f"{name} #{n}" in taken:
        n += 1
    return f"{name} #{n}"


def mask_copies(value: Any, copies: Copies | None) -> Any:
    """``value`` (a string, or dicts and lists of them) with the ``copies`` masked."""
    return value if copies is None else _masked(value, copies)


def mask_copies_in_fields(
    fields: dict[str, Any], copies: Copies | None, whole: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """``mask_copies`` for a payload or provenance dict, whose file locations (``LOCATIONS``)
    are left alone, and so are the entries named in ``whole``, keys too."""
    if copies is None:
        return fields
    out: dict[str, Any] = {}
    for k, v in fields.items():
        if k in whole:
            out[k] = v
        else:
            out[free_key(_masked(k, copies), out)] = v if k in LOCATIONS else _masked(v, copies)
    return out


def _masked(value: Any, copies: Copies) -> Any:
    if isinstance(value, str):
        spans = copy_spans(value, copies)
        return mask_spans(value, spans) if spans else value
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for k, v in value.items():
            out[free_key(_masked(k, copies), out)] = _masked(v, copies)
        return out
    if isinstance(value, list):
        return [_masked(v, copies) for v in value]
    if isinstance(value, tuple):
        return tuple(_masked(v, copies) for v in value)
    return value
