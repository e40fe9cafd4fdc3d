"""Which rules a text may need, from the keywords it holds, found in one search.

Each rule names keywords, and a rule is only tried on a text holding one of them. Looking
them up one ``in`` at a time would cost a pass of the text per keyword; ``KeywordRules`` finds
all of them in one search, each looked for from its least common character.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TypeVar

from substrate.secrets.rule import Rule
from substrate.secrets.rules import RULES


def _is_token_rule(rule: Rule) -> bool:
    return rule.kind == "token" and not rule.lines


def _keyword_index(tokens: bool) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """keyword -> indexes of the rules it enables (provider-token rules or the others)."""
    index: dict[str, list[int]] = {}
    for i, rule in enumerate(RULES):
        if _is_token_rule(rule) == tokens:
            for k in rule.keywords:
                index.setdefault(k, []).append(i)
    return tuple((k, tuple(v)) for k, v in sorted(index.items()))


def _any_of(words: Sequence[str]) -> re.Pattern[str]:
    """A pattern that finds whether any of ``words`` occurs.

    Each word is looked for from its least common character (its anchor, ``_anchor``): the
    anchor, then a look-behind for the characters before it and the characters after it. The
    engine skips in C to the next place holding one of the few anchors, where a search from
    each word's first character would stop at nearly every letter of a text. A word that
    holds another is left out: the other already answers yes.
    """
    distinct = set(words)
    kept = sorted(w for w in distinct if not any(o != w and o in w for o in distinct))
    return re.compile(_anchored(kept, capture=False)[0])


def _anchored(words: Sequence[str], *, capture: bool) -> tuple[str, list[str]]:
    """An alternative per word, each from the word's anchor, grouped by anchor; and the words
    in the order of their alternatives. With ``capture``, the rest of each word after its
    anchor is a group, numbered in that order (a match's ``lastindex`` names its word)."""
    by_anchor: dict[str, list[tuple[str, str]]] = {}
    for word in words:
        at = _anchor(word)
        before, anchor, after = word[:at], word[at], word[at + 1 :]
        behind = f"(?<={re.escape(before + anchor)})" if before else ""
        rest = f"({re.escape(after)})" if capture else re.escape(after)
        by_anchor.setdefault(anchor, []).append((word, behind + rest))
    alts, order = [], []
    for anchor, rests in sorted(by_anchor.items()):
        order += [word for word, _ in rests]
        either = "|".join(rest for _, rest in rests)
        alts.append(re.escape(anchor) + (either if len(rests) == 1 else f"(?:{either})"))
    return ("|".join(alts) if alts else "(?!)"), order


@lru_cache(maxsize=1024)
def _anchor(word: str) -> int:
    """Where the least common character of ``word`` is (its first such place)."""
    return max(range(len(word)), key=lambda i: _rarity(word[i]))


# Characters from the most to the least common in notes, command-line pages and their file
# paths (lower-cased); any other character is rarer than all of them.
_COMMON_FIRST = " eatrnios\ndml/cpu-g{}`.hfbk:vxywz_|#j[]"


def _rarity(ch: str) -> int:
    """How uncommon ``ch`` is in text (higher: rarer)."""
    at = _COMMON_FIRST.find(ch)
    return len(_COMMON_FIRST) if at == -1 else at


_V = TypeVar("_V")


class _Memo(dict[str, _V]):
    """A dict that works out a missing key's value on first use, and keeps it."""

    def __init__(self, work_out: Callable[[str], _V]) -> None:
        super().__init__()
        self._work_out = work_out

    def __missing__(self, key: str) -> _V:
        value = self[key] = self._work_out(key)
        return value


class KeywordRules:
    """The rules whose keywords occur in a lower-cased text, found in one pass.

    One search runs over the text for all keywords at once, each from its anchor (see
    ``_any_of``), and goes on after the keyword it found. What that skips is still known: a
    keyword inside one found (``auth`` in ``authorization``) is counted with it
    (``_within``), and one whose anchor falls on or inside one found but that reaches past it
    (``secret`` in ``passecret``, ``asia`` in ``akiasia``) is looked up on its own
    (``hidden``). Every keyword that occurs is thus counted, as one ``in`` per keyword would
    count it.
    """

    def __init__(self, index: Sequence[tuple[str, tuple[int, ...]]]) -> None:
        words = [k for k, _ in index]
        own = dict(index)
        # a yes/no screen for every keyword: the exact rule set is only worked out when it
        # says yes
        self.any = _any_of(words)
        pattern, self._words = _anchored(words, capture=True)
        self._pattern = re.compile(pattern)
        # Worked out for a keyword when a search first finds it: all at once would cost every
        # process that imports this module a quarter of a second (pairs of keywords).
        # keyword -> the rules of every keyword it holds, itself included
        self._within = _Memo(lambda k: frozenset(i for w in words if w in k for i in own[w]))
        # keyword -> the keywords it holds, itself included
        self.inside = _Memo(lambda k: frozenset(w for w in words if w in k))
        # keyword -> the keywords a search may pass over where it finds this one
        self.hidden = _Memo(lambda k: tuple(w for w in words if _may_hide(k, w)))

    def rules_in(self, low: str) -> set[int]:
        """The indexes of the rules one of whose keywords occurs in ``low``."""
        return self.search(low)[0]

    def search(self, low: str) -> tuple[set[int], list[tuple[str, int]]]:
        """``rules_in``, and each keyword the search found with where it found it (its
        anchor). Every keyword that occurs overlaps one of those, and is one it holds
        (``inside``) or one it may hide (``hidden``)."""
        if not self.any.search(low):  # most texts: one search that stops at the first
            return set(), []
        words = self._words
        found = []
        for m in self._pattern.finditer(low):
            group = m.lastindex  # each word's alternative is a group: it names the word
            assert group is not None
            found.append((words[group - 1], m.start()))
        rules: set[int] = set()
        for k in {k for k, _ in found}:
            rules.update(self._within[k])
        for k in {k for k, _ in found}:
            for other in self.hidden[k]:
                # (a keyword whose rules are all counted already need not be looked up)
                if not self._within[other] <= rules and other in low:
                    rules.update(self._within[other])
        return rules, found


def _may_hide(found: str, other: str) -> bool:
    """Whether a search that finds ``found`` may pass over ``other``: placed so that both
    agree where they overlap, the anchor of ``other`` falls from the anchor of ``found`` to its
    end (where the search tries another word first, or does not look), and ``other`` is no
    part of ``found``."""
    if other in found:
        return False  # counted with it
    first, second = _anchor(found), _anchor(other)
    for shift in range(first - second, len(found) - second):  # other starts at ``shift``
        lo, hi = max(0, shift), min(len(found), shift + len(other))
        if found[lo:hi] == other[lo - shift : hi - shift]:
            return True
    return False


_BY_KEYWORD_TOKEN = _keyword_index(tokens=True)
_BY_KEYWORD_CONTEXT = _keyword_index(tokens=False)
TOKEN_KEYWORDS = KeywordRules(_BY_KEYWORD_TOKEN)
CONTEXT_KEYWORDS = KeywordRules(_BY_KEYWORD_CONTEXT)
ANY_TOKEN_KEYWORD = TOKEN_KEYWORDS.any
ANY_CONTEXT_KEYWORD = CONTEXT_KEYWORDS.any
# The longest keyword of either index.
LONGEST_KEYWORD = max(len(k) for k, _ in (*_BY_KEYWORD_TOKEN, *_BY_KEYWORD_CONTEXT))


@lru_cache(maxsize=1)
def any_keyword() -> re.Pattern[str]:
    """A yes/no screen for a keyword of either index, compiled on first use (only ingestion
    needs it; compiling it costs every process a few milliseconds)."""
    return _any_of([k for k, _ in (*_BY_KEYWORD_TOKEN, *_BY_KEYWORD_CONTEXT)])


@lru_cache(maxsize=1)
def keywords_by_need() -> tuple[re.Pattern[str], tuple[tuple[str, str], ...]]:
    """The context keywords split by what their rules need to be tried: a yes/no search for
    those one of whose rules a scan tries whenever the keyword occurs; and each other keyword,
    all of whose rules are rules of lines that need a character (``Rule.needs``), with the
    characters one of which a text must hold for one of them to be tried."""
    needs = {i: rule.needs for i, rule in enumerate(RULES) if rule.lines and rule.needs}
    always: list[str] = []
    restricted: list[tuple[str, str]] = []
    for keyword, rules in _BY_KEYWORD_CONTEXT:
        if all(i in needs for i in rules):
            restricted.append((keyword, "".join(sorted({ch for i in rules for ch in needs[i]}))))
        else:
            always.append(keyword)
    return _any_of(always), tuple(restricted)
