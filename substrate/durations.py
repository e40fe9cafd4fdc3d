"""Durations as people type them: ``90s``, ``15m``, ``12h``, ``30d``, ``2w``, ``1d12h``."""

from __future__ import annotations

import math
import re

from substrate.errors import InvalidInputError

UNITS: dict[str, float] = {
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
    "d": 86400.0,
    "w": 7 * 86400.0,
}

_PART = re.compile(r"(\d+(?:\.\d+)?|\.\d+)([smhdw])")


def parse_duration(text: str) -> float:
    """Seconds in a duration such as ``30d``, ``1.5h``, ``1w2d`` or a bare number of seconds.

    Units: ``s`` seconds, ``m`` minutes, ``h`` hours, ``d`` days, ``w`` weeks. Parts may be
    combined (``1d12h``); whitespace and case are ignored.

    Raises:
        InvalidInputError: the text is empty, negative, or not made of number-unit parts.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"a duration must be text like '30d', not {type(text).__name__}")
    compact = "".join(text.split()).lower()
    if not compact:
        raise InvalidInputError("empty duration; write it like 90s, 15m, 12h, 30d or 2w")
    if _is_number(compact):
        return _finite(float(compact), text)
    pos = 0
    total = 0.0
    for match in _PART.finditer(compact):
        if match.start() != pos:
            break
        total += float(match.group(1)) * UNITS[match.group(2)]
        pos = match.end()
    if pos != len(compact) or pos == 0:
        from substrate.secrets import safe_repr  # only for the message

        raise InvalidInputError(
            f"bad duration {safe_repr(text)}; write it like 90s, 15m, 12h, 30d or 2w "
            "(units: s m h d w)"
        )
    return _finite(total, text)


def format_duration(seconds: float) -> str:
    """A short human form of a number of seconds: ``45s``, ``12m``, ``3h 5m``, ``40d 2h``."""
    remaining = max(0, int(round(seconds)))
    if remaining < 60:
        return f"{remaining}s"
    parts: list[str] = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        count, remaining = divmod(remaining, size)
        if count:
            parts.append(f"{count}{unit}")
        if len(parts) == 2:
            break
    return " ".join(parts) if parts else "0s"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text[-1].isdigit() or text[-1] == "."


def _finite(value: float, text: str) -> float:
    if not math.isfinite(value) or value < 0:
        from substrate.secrets import safe_repr  # only for the message

        shown = safe_repr(text)
        raise InvalidInputError(f"bad duration {shown}: it must be a finite, non-negative amount")
    return value
