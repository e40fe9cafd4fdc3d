"""A yes/no screen for many short strings at once: could ``find_secrets`` report anything?

The write-time gate looks at every string field of every item, and nearly all of them are
clean. Scanning each field would cost a keyword search per field; this screen joins the
fields with line breaks and decides for all of them with one search for context keywords and
one for token keywords inside long unbroken runs (and one for string literals joined across
a line break, see ``secrets.joined``). It repeats exactly the selection ``find_secrets``
makes for short texts: a field's keywords and long runs are all present in the joined text,
and a keyword selects nothing where each rule it selects is a rule of lines that needs
characters the joined text lacks (``Rule.needs``; a link's ``//`` selects only the rule of
credentials in links, which needs an ``@``). The few rules without keywords never match white
space, so they are tried on the long runs alone, which holds every match they could make, and
on the pieces of those runs a path scan reads alone (``secrets.pieces``): a token that is a
file name's stem does not match with its extension attached. A rule is not tried at all where
the text holds no run of the characters its matches are made of as long as its shortest match.

``False`` is exact: ``find_secrets`` finds nothing in any of the strings, with any syntax, and
neither does ``find_secrets_in_path``. ``True`` only means "scan them".
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

from substrate.secrets.asread import as_read, reads_otherwise
from substrate.secrets.engine import (
    KEYWORD_GATE,
    MIN_TOKEN_LEN,
    keywordless_runs,
    keywordless_widths,
    long_words,
)
from substrate.secrets.joined import may_join
from substrate.secrets.keywords import (
    ANY_CONTEXT_KEYWORD,
    ANY_TOKEN_KEYWORD,
    LONGEST_KEYWORD,
    any_keyword,
    keywords_by_need,
)
from substrate.secrets.pieces import path_pieces
from substrate.secrets.rules import RULES


def may_hold_secrets(texts: Iterable[str]) -> bool:
    """Whether ``find_secrets`` could report anything in any of ``texts`` (False is exact)."""
    short: list[str] = []
    for text in texts:
        if len(text) >= KEYWORD_GATE:
            return True  # long texts are scanned rule-first; no keyword screen applies
        if len(text) >= 4:  # find_secrets skips shorter strings
            short.append(text)
    if not short:
        return False
    joined = "\n".join(short)  # (no escape reaches across a line break)
    if _joined_may_hold(joined):
        return True
    return reads_otherwise(joined) and _joined_may_hold(as_read(joined))


def _joined_may_hold(joined: str) -> bool:
    """``may_hold_secrets`` of the short texts ``joined`` with line breaks, as written."""
    if may_join(joined):
        return True  # literals joined across a gap are scanned as one value
    found = _keywords_or_runs(joined.lower())
    if isinstance(found, bool):
        return found
    return _keywordless_match(joined, max(map(len, found)))


def _keywords_or_runs(low: str, *, alone: bool = True) -> bool | list[str]:
    """The keyword stage of ``find_secrets`` on lower-cased text: True when a rule keyword
    selects a rule that is tried, False when there is no long run either (nothing is tried),
    else the long runs, on which only the rules without keywords remain to be judged.

    ``alone``: the text is scanned alone, so the characters it lacks are lacking in the scan.
    Otherwise (a folder, scanned with the name of each of its files after it) any keyword
    answers yes, whatever the characters its rules need."""
    if ANY_CONTEXT_KEYWORD.search(low) and (not alone or _selects_a_tried_rule(low)):
        return True
    words = long_words(low)
    if not words:
        return False
    return True if ANY_TOKEN_KEYWORD.search(" ".join(words)) else words


def _selects_a_tried_rule(low: str) -> bool:
    """Whether a keyword in ``low`` selects a rule that ``find_secrets`` then tries: not only
    rules of lines that need characters the text lacks (a link's ``//`` selects only the rule
    of credentials in links, which needs an ``@``). The characters rules need are not
    letters: lower-casing keeps them."""
    always, restricted = keywords_by_need()
    if always.search(low):
        return True
    return any(word in low and any(ch in low for ch in chars) for word, chars in restricted)


def may_hold_secret(text: str) -> bool:
    """``may_hold_secrets`` for one string; short strings (key names, paths) are remembered."""
    if len(text) <= SHORT_LEN:
        return _short_may_hold(text)
    return may_hold_secrets((text,))


# Key names and other short strings recur from item to item: their verdicts are kept.
SHORT_LEN = 64


@lru_cache(maxsize=4096)
def _short_may_hold(text: str) -> bool:
    return may_hold_secrets((text,))


def _keywordless_match(joined: str, longest: int) -> bool:
    """Whether a rule without keywords matches a word, or a piece of one a path scan reads
    alone; ``longest`` is the longest lower-cased word (lower-casing never shortens a word, so
    it bounds the original words)."""
    for i, shortest, long in _keywordless_candidates(joined, longest):
        if long is None:
            return True  # a rule that may match anywhere: let find_secrets decide
        found = " ".join([*long, *_long_pieces(long, shortest)])
        if RULES[i].regex.search(found):
            return True
    return False


@lru_cache(maxsize=1)
def _keywordless_table() -> list[tuple[int, int, re.Pattern[str] | None]]:
    """Each rule without keywords: its index, shortest match and run pattern."""
    widths = keywordless_widths()
    return [
        (i, shortest, run) for (i, shortest), run in zip(widths, keywordless_runs(), strict=True)
    ]


def _keywordless_candidates(
    text: str, longest: float
) -> Iterator[tuple[int, int, list[str] | None]]:
    """Each rule without keywords that may match in ``text`` or a slice of it, with its
    shortest match and the words of ``text`` that hold a run of its characters that long (a
    run holds no white space, as the rule matches none); None for a rule that may match
    anywhere. ``longest`` bounds the length of the text's whitespace-free runs: shorter rules
    are passed over without a search."""
    words: list[str] | None = None
    for i, shortest, run in _keywordless_table():
        if run is None:
            yield i, shortest, None
            continue
        if longest < shortest:
            continue
        if words is None:
            words = text.split()
        long = [w for w in words if len(w) >= shortest]
        if run.search(" ".join(long)):
            yield i, shortest, long


def _long_pieces(words: list[str], shortest: int) -> list[str]:
    """The path pieces of ``words`` at least ``shortest`` long. Keywords and long runs in a
    piece are in its word too, but a rule's match in the piece may fail in the word, where
    more follows it."""
    return [piece for word in words for _, piece in path_pieces(word) if len(piece) >= shortest]


def slices_may_hold_secrets(text: str, *, alone: bool = True) -> bool:
    """Whether a slice of ``text`` shorter than ``KEYWORD_GATE`` could hold a finding of
    ``find_secrets`` (False is exact); with ``alone=False``, one of a slice of ``text`` with
    other characters after it (``_keywords_or_runs``).

    A slice only cuts: its keywords and its long whitespace-free runs all lie in ``text``
    (keywords are ASCII, and lower-casing maps each character on its own, so nothing outside
    ``text``'s lower-cased keywords appears in a slice's). The rules without keywords are not
    tried on the runs, since a cut can change what a word boundary sees: a run of one's
    characters long enough for it already answers yes. ``text`` itself may be of any length.

    A text that reads otherwise than written (``secrets.asread``) is screened as read too:
    a slice of it, read so, is a slice of that, but at an end that cuts an escape from what
    makes it one (a backslash left at the end, or the letter before an escaped underscore
    cut off at the start): such an end reads as written, which the screen of the text as
    written answers for.
    """
    if _slices_may_hold(text, alone):
        return True
    return reads_otherwise(text) and _slices_may_hold(as_read(text), alone)


def _slices_may_hold(text: str, alone: bool) -> bool:
    """``slices_may_hold_secrets`` of ``text`` as written."""
    if may_join(text):
        return True
    found = _keywords_or_runs(text.lower(), alone=alone)
    if isinstance(found, bool):
        return found
    return keywordless_may_match(text, max(map(len, found)))


# Where a keyword of a path may start in its folder and still reach past it; and the longest
# last word of the folder whose token keywords its screen did not look for (shorter than a
# long run there, but perhaps not once the name follows it)
_FOLDER_TAIL = max(LONGEST_KEYWORD - 1, MIN_TOKEN_LEN)


def path_slices_may_hold_secrets(path: str) -> bool:
    """``slices_may_hold_secrets`` of a file's path, with its folder's part screened once per
    folder (False is exact).

    Every keyword in a slice of ``folder/name`` lies in the folder, or in its last
    ``_FOLDER_TAIL`` characters, the ``/`` and the name: the screen of the folder answers for
    the first, one keyword search of the second (all of it, whatever its words) for the
    rest, with the folder's last word, which the name makes longer. The rules without keywords
    are judged on the name, as the folder's screen judged the folder, when a ``/`` ends the
    runs they need; else on the whole path. A quote sends the path to the plain screen.
    """
    folder, slash, name = path.rpartition("/")
    if (
        not slash
        or '"' in path
        or "'" in path
        or len(path) >= KEYWORD_GATE
        or reads_otherwise(path)
    ):
        return slices_may_hold_secrets(path)
    if _folder_may_hold_secrets(folder):
        return True
    low = (folder[-_FOLDER_TAIL:] + slash + name).lower()
    if any_keyword().search(low):
        return True
    if _runs_end_at_slash():  # and the folder's screen found none of those runs in it
        return keywordless_may_match(name, len(name))
    return keywordless_may_match(path)


@lru_cache(maxsize=1024)
def _folder_may_hold_secrets(folder: str) -> bool:
    return slices_may_hold_secrets(folder, alone=False)


@lru_cache(maxsize=1)
def _runs_end_at_slash() -> bool:
    """Whether a ``/`` ends every run of characters a rule without keywords needs: then a
    run in a path lies in its folder or in its file name."""
    table = _keywordless_table()
    return all(run is not None and run.search("/" * shortest) is None for _, shortest, run in table)


def keywordless_may_match(text: str, longest: float = math.inf) -> bool:
    """Whether a rule without keywords could match in ``text``, or in a slice of it: it holds
    a run of the characters one's matches are made of as long as its shortest match (a path's
    ``/`` ends such runs). False is exact. ``longest``, when known, bounds the length of the
    text's whitespace-free runs."""
    return next(_keywordless_candidates(text, longest), None) is not None
