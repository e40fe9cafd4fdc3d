"""Text folded as users type it: accents composed (macOS writes names decomposed) or dropped
(a keyboard without them), shared by search, tags, sources and ignore rules."""

from __future__ import annotations

import unicodedata

# Letters with a stroke or without a dot, which have no decomposition: "ł" of Polish, "ı" of
# Turkish ("ışık" is typed "isik", and "IŞIK" folds to "işik"), "ø", "đ"
_LETTERS_WITHOUT_ACCENTS = str.maketrans(
    {"ł": "l", "ı": "i", "ø": "o", "đ": "d", "ħ": "h", "ŧ": "t", "ƚ": "l"}
)


def composed(text: str) -> str:
    """``text`` with its accents composed: "Café.md" however macOS wrote it."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def without_marks(text: str) -> str:
    """``text`` without accents or other marks, and with the letters that have none folded
    (``_LETTERS_WITHOUT_ACCENTS``): "munchen", "lodzi", "isik"."""
    if text.isascii():
        return text
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return bare.translate(_LETTERS_WITHOUT_ACCENTS)
