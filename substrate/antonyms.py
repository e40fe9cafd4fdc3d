"""Words made opposite by a prefix: "independent" of "dependent", "unaffected" of "affected",
"decrypted" of "encrypted".

A claim saying one where its evidence says the other is contradicted by it, though the two
share every other word: without this, "The cache is independent of the database" read as
supported by "The cache is strongly dependent on the database" (all its other words are there).
Told on the words as written: the stemmer keeps no prefix apart ("unreadable" is "unread",
"readable" is "readabl").

"Un-" and "non-" negate whatever follows them (but "unless"). "In-", "im-", "il-", "ir-",
"dis-" and the trade of "de-" and "en-" pair only words shaped as qualities or states
("invalid", "incomplete", "disconnected", "decrypted"): on other words they most often make
another word, not an opposite ("count" and "discount", "side" and "inside", "port" and
"import").
"""

from __future__ import annotations

import functools

# Prefixes that negate any word ("unsafe", "unknown", "nonblocking")
_ALWAYS = ("un", "non")
_NOT_NEGATED = frozenset({"unless"})  # un + less
# Prefixes that negate a word of quality ("invalid", "impossible", "illegal", "irregular",
# "disallowed")
_OF_QUALITIES = ("in", "im", "il", "ir", "dis")
# Prefixes that trade places: "decrypted" undoes "encrypted", "decoded" undoes "encoded"
_UNDOING = ("de", "en")
# Endings of adjectives and participles, the words such a prefix turns into their opposites
_QUALITY_ENDINGS = (
    "able", "ible", "ed", "ent", "ant", "ive", "al", "ous", "ic", "ure", "id", "ete", "ect",
    "ing", "ary", "ful", "ate", "ite", "ar", "ile", "ane",
)  # fmt: skip
# Shorter stems pair by chance ("unit" is no opposite of "it", "union" of "ion")
_MIN_STEM = 4


@functools.lru_cache(maxsize=4096)
def prefixed_opposites(word: str) -> frozenset[str]:
    """The words (lower case, as written) that say the opposite of ``word`` by a prefix: the
    word without its negating prefix, the word with one, or with "de" and "en" traded."""
    word = word.lower()
    if word in _NOT_NEGATED or len(word) < _MIN_STEM:
        return frozenset()
    quality = word.endswith(_QUALITY_ENDINGS)
    prefixes = _ALWAYS + _OF_QUALITIES if quality else _ALWAYS
    found = {prefix + word for prefix in prefixes} - _NOT_NEGATED
    for prefix in prefixes:
        if word.startswith(prefix) and len(word) - len(prefix) >= _MIN_STEM:
            found.add(word[len(prefix) :])
    undo, do = _UNDOING
    if quality and word[:2] in _UNDOING and len(word) - 2 >= _MIN_STEM:
        found.add((do if word.startswith(undo) else undo) + word[2:])
    return frozenset(found)
