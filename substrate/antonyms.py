"""Words made opposite by a prefix: "independent" of "dependent", "unaffected" of "affected",
"decrypted" of "encrypted".

A claim saying one where its evidence says the other is contradicted by it, though the two
share every other word: without this, "The cache is independent of the database" read as
supported by "The cache is strongly dependent on the database" (all its other words are there).
Told on the words as written: the stemmer keeps no prefix apart ("unreadable" is "unread",
"readable" is "readabl").

Only words shaped as qualities or states are paired ("dependent", "readable", "encrypted",
"valid"): a prefix on other words most often makes another word, not an opposite ("count" and
"discount", "side" and "inside", "port" and "import").
"""

from __future__ import annotations

import functools

# Prefixes that negate what follows ("unsafe", "invalid", "impossible", "illegal",
# "irregular", "nonblocking", "disallowed")
_NEGATING = ("un", "in", "im", "il", "ir", "non", "dis")
# Prefixes that trade places: "decrypt" undoes "encrypt", "decode" undoes "encode"
_UNDOING = ("de", "en")
# Endings of adjectives and participles, the words a prefix turns into their opposites
_QUALITY_ENDINGS = (
    "able", "ible", "ed", "ent", "ant", "ive", "al", "ous", "ic", "ure", "id", "ete", "ect",
    "ing", "ary", "ful",
)  # fmt: skip
# Shorter stems pair by chance
_MIN_STEM = 4


@functools.lru_cache(maxsize=4096)
def prefixed_opposites(word: str) -> frozenset[str]:
    """The words (lower case, as written) that say the opposite of ``word`` by a prefix: the
    word without its negating prefix, the word with one, or with "de" and "en" traded; none
    for a word not shaped as a quality or a state."""
    word = word.lower()
    if not word.endswith(_QUALITY_ENDINGS):
        return frozenset()
    found: set[str] = set()
    for prefix in _NEGATING:
        if word.startswith(prefix) and len(word) - len(prefix) >= _MIN_STEM:
            found.add(word[len(prefix) :])
        if len(word) >= _MIN_STEM:
            found.add(prefix + word)
    undo, do = _UNDOING
    stem = word[2:]
    if len(stem) >= _MIN_STEM and word[:2] in _UNDOING:
        found.add((do if word.startswith(undo) else undo) + stem)
    return frozenset(found)
