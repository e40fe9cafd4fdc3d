"""Spelling suggestions: for a query word no item mentions ("pgbouncr", "Kuberentes"), a word
the items do mention that is one or two edits away ("pgbouncer", "Kubernetes").

Only the items a query may return count, both for "no item mentions it" and for the word
suggested: a suggestion never names a word that only items outside the reader's scopes hold.
A word is suggested as the items write it, not as the index keeps it (stemmed, case-folded).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from substrate.search.corpus import CorpusStats
from substrate.search.ranker import allowed_rows

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from substrate.item import SubstrateItem
    from substrate.search.filters import SearchFilters
    from substrate.search.state import IndexState
    from substrate.search.tokenize import Analyzer

MIN_CHARS = 4  # shorter words have too many neighbours one edit away to guess between
MAX_WORDS = 5  # unknown words of one text given a suggestion, at most
_WORDS = re.compile(r"[\w'-]+")


def suggestions(
    state: IndexState,
    analyzer: Analyzer,
    text: str,
    filters: SearchFilters | None,
    read: Callable[[str], SubstrateItem | None],
) -> dict[str, str]:
    """For each word of ``text`` no item passing ``filters`` mentions, the word most items
    passing them mention among those closest to it in spelling; ``read`` fetches an item by
    id (to find how it writes the word)."""
    allowed = allowed_rows(state, filters) if state.n_rows else None
    if allowed is None or not allowed.any():
        return {}
    stats = CorpusStats(state, allowed, local=True)
    found: dict[str, str] = {}
    tried = 0
    for word in dict.fromkeys(w.strip("'-") for w in _WORDS.findall(text)):
        terms = analyzer.terms(word)
        if len(terms) != 1 or len(terms[0]) < MIN_CHARS or stats.df(terms[0]):
            continue
        tried += 1
        if tried > MAX_WORDS:  # each scans the vocabulary: a pasted page must not take minutes
            break
        typed, limit = word.lower(), 1 if len(word) < 8 else 2
        # the index keeps stems ("compres" is "compr", "recursively" is "recurs"): terms near
        # the stem or the word as typed, or a stem it starts with, each judged by how its
        # items write it ("compare" is near "compr", not near "compres")
        best: tuple[int, int, str] | None = None
        for term, df in _nearest(terms[0], typed, limit, state, stats)[:_TRIES]:
            written = _as_written(term, typed, state, stats, analyzer, read)
            if written is None:
                continue
            distance = edit_distance(typed, written.lower(), limit)
            if distance <= limit and (best is None or (distance, -df) < best[:2]):
                best = (distance, -df, written)
        if best is not None:
            found[word] = best[2]
    return found


def respelled(text: str, found: Mapping[str, str]) -> str:
    """``text`` with each of its words that ``found`` (from ``suggestions``) spells otherwise
    spelled so, its quotes and the rest kept."""

    def meant(m: re.Match[str]) -> str:
        word = m.group().strip("'-")
        return m.group().replace(word, found[word]) if word in found else m.group()

    return _WORDS.sub(meant, text)


_TRIES = 12  # nearest terms whose written forms are looked up, at most


def _nearest(
    term: str, typed: str, limit: int, state: IndexState, stats: CorpusStats
) -> list[tuple[str, int]]:
    """The vocabulary terms at most ``limit`` + 1 edits from ``term`` or ``typed`` that an allowed
    item holds (or a stem ``typed`` starts with), nearest first, then the most common; each
    with how many allowed items hold it."""
    ranked: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    for segment in state.segments:
        for candidate in segment.postings.terms:
            # a typo rarely hits the first letter: keeping it makes the scan cheap
            if candidate[:1] != term[:1] or candidate in seen:
                continue
            if abs(len(candidate) - len(term)) > limit + 2:  # (stems are shorter)
                continue
            seen.add(candidate)
            # one edit more than asked: a stem may lie further from a typo than the word it
            # stands for ("stage" from "stagng", where "staging" is one edit away); the word
            # as written is held to ``limit`` (``suggestions``)
            near = limit + 1
            distance = min(
                edit_distance(term, candidate, near), edit_distance(typed, candidate, near)
            )
            stem = len(candidate) >= MIN_CHARS and typed.startswith(candidate)
            if distance > near and not stem:
                continue
            df = stats.df(candidate)
            if df:
                ranked.append((distance, -df, candidate))
    return [(candidate, -df) for _, df, candidate in sorted(ranked)]


def _as_written(
    term: str,
    typed: str,
    state: IndexState,
    stats: CorpusStats,
    analyzer: Analyzer,
    read: Callable[[str], SubstrateItem | None],
) -> str | None:
    """How allowed items holding ``term`` write it: of the words of a few of them that the
    analyzer turns into ``term``, the one nearest ``typed``."""
    from substrate.search.tokenize import surface_of

    words: set[str] = set()
    for si, segment in enumerate(state.segments):
        tid = stats.term_id(si, term)
        if tid < 0:
            continue
        rows, _ = segment.postings.frequencies(tid)
        for row in rows[stats.masks()[si][rows]][:3].tolist():
            item = read(str(segment.docs.ids[row]))
            if item is not None:
                surface = surface_of(item)
                words.update(w for w in _WORDS.findall(surface) if analyzer.terms(w) == [term])
        if words:
            break
    return min(words, key=lambda w: (edit_distance(typed, w.lower(), len(w)), w), default=None)


def edit_distance(a: str, b: str, limit: int) -> int:
    """The edits (insert, delete, replace, swap two neighbours) turning ``a`` into ``b``;
    anything over ``limit`` is reported as ``limit + 1``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before_last: list[int] = []
    last = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(row[j - 1] + 1, last[j] + 1, last[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], before_last[j - 2] + 1)
        if min(row) > limit:
            return limit + 1
        before_last, last = last, row
    return min(last[len(b)], limit + 1)
