"""Durations as people type them: ``90s``, ``15m``, ``12h``, ``30d``, ``2w``, ``1d12h``.

Units are fixed lengths. Months and years are not (28 to 31 days, 365 or 366), so they have no
unit: ``M``, ``mo`` and ``y`` are refused with a hint to count days (``30d``, ``365d``) instead of
being read as something the user did not mean (``6M`` used to be six minutes).
"""

from __future__ import annotations

import math
import re

from substrate.errors import InvalidInputError

UNITS: dict[str, float] = {
    "s": 1.0,
    "m": 60.0,
    "min": 60.0,
    "h": 3600.0,
    "d": 86400.0,
    "w": 7 * 86400.0,
}

_PART = re.compile(r"(\d+(?:\.\d+)?|\.\d+)([a-zA-Z]+)")
_EXAMPLES = "write it like 90s, 15m, 12h, 30d or 2w (units: s, m or min, h, d, w)"
# Units of months or years, refused with the way to say them in days (and so is 'M').
_NOT_FIXED = {"mo": "months", "mon": "months", "y": "years", "yr": "years"}


def parse_duration(text: str) -> float:
    """Seconds in a duration such as ``30d``, ``1.5h``, ``1w2d`` or a bare number of seconds.

    Units: ``s`` seconds, ``m`` or ``min`` minutes, ``h`` hours, ``d`` days, ``w`` weeks. Parts
    may be combined (``1d12h``); whitespace is ignored, and so is case except in ``M``, which
    is refused: it reads as months as readily as minutes. Months and years vary in length, so
    they are written in days (``30d``, ``365d``).

    Raises:
        InvalidInputError: the text is empty, negative, not made of number-unit parts, or uses
            ``M`` or a unit of months or years.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"a duration must be text like '30d', not {type(text).__name__}")
    compact = "".join(text.split())
    if not compact:
        raise InvalidInputError(f"empty duration; {_EXAMPLES}")
    if is_bare_number(compact):
        return _finite(float(compact), text)
    pos = 0
    total = 0.0
    last = math.inf  # the unit before: each is given once, the largest first ("1d1d" is a slip)
    for match in _PART.finditer(compact):
        if match.start() != pos:
            break
        unit = _unit_seconds(match.group(2), text)
        if unit >= last:
            raise InvalidInputError(
                f"bad duration {_shown(text)}: give each unit once, the largest first (1w2d12h)"
            )
        total += float(match.group(1)) * unit
        last, pos = unit, match.end()
    if pos != len(compact) or pos == 0:
        raise InvalidInputError(f"bad duration {_shown(text)}; {_EXAMPLES}")
    return _finite(total, text)


def _unit_seconds(unit: str, text: str) -> float:
    """Seconds in one unit; ``M`` and units of months or years are refused, with the fix."""
    if unit == "M":
        raise InvalidInputError(
            f"bad duration {_shown(text)}: 'M' could mean minutes or months; write minutes as "
            "m or min, and months in days (30d)"
        )
    loose = unit.lower()
    if loose in _NOT_FIXED:
        raise InvalidInputError(
            f"bad duration {_shown(text)}: {_NOT_FIXED[loose]} vary in length; write them in "
            "days (30d for a month, 365d for a year)"
        )
    if loose not in UNITS:
        raise InvalidInputError(f"bad duration {_shown(text)}; {_EXAMPLES}")
    return UNITS[loose]


def _shown(text: str) -> str:
    from substrate.secrets import safe_repr  # only for messages

    return safe_repr(text)


def format_duration(seconds: float) -> str:
    """A short human form of a number of seconds, its two largest units: ``45s``, ``1m 30s``,
    ``3h 5m``, ``40d 2h``."""
    remaining = max(0, int(round(seconds)))
    if remaining < 60:
        return f"{remaining}s"
    parts: list[str] = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        count, remaining = divmod(remaining, size)
        if count:
            parts.append(f"{count}{unit}")
        if len(parts) == 2:
            break
    return " ".join(parts) if parts else "0s"


def is_bare_number(text: str) -> bool:
    """Whether ``text`` is a number with no unit ("30", "1.5", ".5", " 7 "): seconds to the
    library, but a year, a Unix time or days to a person typing an option."""
    compact = "".join(text.split())
    try:
        float(compact)
    except ValueError:
        return False
    return compact[-1].isdigit() or compact[-1] == "."


def _finite(value: float, text: str) -> float:
    if not math.isfinite(value) or value < 0:
        shown = _shown(text)
        raise InvalidInputError(f"bad duration {shown}: it must be a finite, non-negative amount")
    return value
