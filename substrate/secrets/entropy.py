"""Character statistics used to tell random-looking values from words, names and placeholders."""

from __future__ import annotations

import math
from collections import Counter

_SEQUENCES: tuple[str, ...] = (
    "0123456789" * 3,
    "abcdefghijklmnopqrstuvwxyz" * 2,
    "qwertyuiopasdfghjklzxcvbnm",
    "0123456789abcdef" * 3,
)
# every pair of characters that follow each other in one of the alphabets
_SUCCESSORS = frozenset(seq[k : k + 2] for seq in _SEQUENCES for k in range(len(seq) - 1))


def shannon(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character (0.0 for an empty string)."""
    if not value:
        return 0.0
    n = len(value)
    return sum(-(c / n) * math.log2(c / n) for c in Counter(value).values())


def char_classes(value: str) -> int:
    """How many of lower case, upper case, digits and other characters ``value`` uses."""
    lower = upper = digit = other = 0
    for ch in value:
        if ch.islower():
            lower = 1
        elif ch.isupper():
            upper = 1
        elif ch.isdigit():
            digit = 1
        else:
            other = 1
    return lower + upper + digit + other


def longest_run(value: str) -> int:
    """Length of the longest run of one repeated character."""
    best = run = 0
    prev = ""
    for ch in value:
        run = run + 1 if ch == prev else 1
        prev = ch
        best = max(best, run)
    return best


def is_repetitive(value: str) -> bool:
    """One character repeated (``xxxxxxxx``, ``00000000``) or a long run of it.

    Random tokens practically never hold a run of six equal characters, while masks and
    fill-ins (``AKIAXXXXXXXXXXXXXXXX``) always do. A run of slashes is no fill-in: AWS
    session tokens (``IQoJb3JpZ2luX2Vj...//////////wEa...``) all hold one.
    """
    core = value.strip("=").lower()
    if not core:
        return True
    if len(set(core)) <= 2 and len(core) >= 4:
        return True
    return any(longest_run(part) >= 6 for part in core.split("/"))


def sequential_runs(value: str) -> tuple[int, int]:
    """Split the alphanumeric part of ``value`` into runs along ordered alphabets.

    Returns ``(runs, longest)``: how many ascending runs (``0123..``, ``abc..``, ``qwerty``)
    cover the value and the length of the longest one. Random values break into many short runs.
    """
    core = "".join(filter(str.isalnum, value.lower()))
    runs = longest = 0
    i = 0
    while i < len(core):
        j = i + 1
        # a run goes on only over a pair that follows in some alphabet: one set lookup ends
        # most runs of a random value, before any alphabet is searched
        while (
            j < len(core)
            and core[j - 1 : j + 1] in _SUCCESSORS
            and any(core[i : j + 1] in seq for seq in _SEQUENCES)
        ):
            j += 1
        runs += 1
        longest = max(longest, j - i)
        i = j
    return runs, longest


def is_sequential(value: str) -> bool:
    """A walk along an ordered alphabet: ``12345678``, ``abcdefgh``, or a long stretch of one.

    One run of five or more characters, or any run of twelve or more, counts. A value that
    only *contains* short runs (``abcdef123``, ``abcd1234abcd1234...``) does not: plenty of
    weak but real passwords look like that.
    """
    runs, longest = sequential_runs(value)
    core_len = sum(map(str.isalnum, value))
    return (runs == 1 and core_len >= 5) or (longest >= 12 and 2 * longest >= core_len)
