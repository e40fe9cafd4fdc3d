"""The one error hierarchy of the library.

Every failure a caller can act on is a ``SubstrateError`` subclass; the command line maps each
subclass to a message and an exit code in one place (``mixle_cli.errors``).
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Iterable
from typing import TypeGuard


class SubstrateError(Exception):
    """Base class of every error the library raises on purpose."""


class InvalidInputError(SubstrateError, ValueError):
    """The caller passed something malformed (bad JSON, unknown kind, bad duration)."""


class NotFoundError(SubstrateError, LookupError):
    """A named item, file or shard does not exist (or is not visible to the caller)."""


class ShardError(SubstrateError):
    """The shard cannot be read or written (I/O failure, permissions, full disk)."""


class MissingShardError(NotFoundError, FileNotFoundError):
    """``load`` was given a folder without ``items.jsonl`` (a ``FileNotFoundError`` too, as the
    seed API raises)."""


class CorruptShardError(ShardError):
    """A line of ``items.jsonl`` (other than a torn final line) cannot be parsed."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: corrupt record ({reason})")
        self.path = path
        self.line = line
        self.reason = reason


class LostCommitsError(ShardError):
    """Lines committed to the log are missing from it (cut short, an older copy restored):
    no write is taken until it is restored, as the next one would hide the loss."""


class ShardFormatError(ShardError):
    """The shard or an index was written by a newer, incompatible format."""


class AccessDeniedError(SubstrateError, PermissionError):
    """The caller may not perform this action (not an approver, another team's item)."""


def scope_names(scopes: Iterable[str]) -> tuple[str, ...]:
    """``scopes`` in their order. One string given for them is refused: its letters, or its
    substrings to ``in``, would stand for scope names."""
    if isinstance(scopes, (str, bytes)):
        raise InvalidInputError(
            "scopes is a collection of scope names, not one string (scopes={'team'}, or "
            "scope='team' where the call takes one)"
        )
    return tuple(scopes)


def scope_set(scopes: Iterable[str] | None) -> frozenset[str] | None:
    """The scopes a reader may read, as a set (None: every scope); see ``scope_names``."""
    if scopes is None or isinstance(scopes, frozenset):
        return scopes  # (checked where it was made: called again for each item of a walk)
    return frozenset(scope_names(scopes))


def require_text(value: object, what: str) -> None:
    """Refuse ``value`` unless it is a string: a query, a question or a text to check given as
    None or a number would otherwise fail deep inside (``what``: how the message names it)."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} is text, not {type(value).__name__}")


def require_number(value: object, what: str, *, minimum: float | None = None) -> None:
    """Refuse ``value`` unless it is a number (not a bool, not NaN), at least ``minimum`` when
    given: a threshold given as text or None would otherwise fail deep inside with a
    TypeError, or be compared and silently match nothing (``what``: the argument's name)."""
    if isinstance(value, bool) or not _real(value):
        raise InvalidInputError(f"{what} must be a number, not {type(value).__name__}")
    if _not_a_number(value):
        raise InvalidInputError(f"{what} must be a number, not NaN")
    if minimum is not None and value < minimum:
        raise InvalidInputError(f"{what} must be >= {minimum}, got {value!r}")


def _not_a_number(value: object) -> bool:
    """Whether ``value`` is a NaN (math.isnan overflows on a huge whole number, and a
    Decimal's signalling NaN refuses even to be compared)."""
    try:
        return bool(value != value)
    except ArithmeticError:
        return True


def _real(value: object) -> TypeGuard[float]:  # (compared as one: a Decimal is no float)
    """Whether ``value`` is a real number: numpy's float32, a Fraction, a Decimal (a Number
    but no Complex; named so, not imported: this module loads with every command)."""
    return isinstance(value, numbers.Real) or (
        isinstance(value, numbers.Number) and not isinstance(value, numbers.Complex)
    )


def require_count(value: object, what: str, *, minimum: int | None = 0) -> None:
    """Refuse ``value`` unless it is a whole number (numpy's too; not a bool, nor a float)
    of at least ``minimum`` (None: any): a negative count would slice from the end or
    silently give nothing (``what``: the argument's name)."""
    try:
        whole = None if isinstance(value, bool) else operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        whole = None
    at_least = "" if minimum is None else f" >= {minimum}"
    if whole is None or (minimum is not None and whole < minimum):
        raise InvalidInputError(f"{what} must be a whole number{at_least}, got {value!r}")
