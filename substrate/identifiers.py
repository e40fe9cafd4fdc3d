"""Hyphenated identifiers: "payments-api", "us-east-1", "ADR-002".

In technical notes such a word names a service, a host, a region or a record as a capital
names a person, though written in small letters. Kept apart from the question readers so
that what only needs the pattern (``supersession``) does not load them.
"""

from __future__ import annotations

import re

IDENTIFIER = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?![\w-])")


def identifiers(text: str) -> list[str]:
    """The hyphenated identifiers of ``text``, as written, in order."""
    return IDENTIFIER.findall(text)
