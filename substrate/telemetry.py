"""Opt-in telemetry for retrieval, context, answer and action decisions.

Telemetry is off unless the caller passes a recorder: ``telemetry=None`` records nothing, and
there is no process-wide buffer. A recorder is any object with ``record(kind, *, features,
choice, outcome)``; ``Telemetry`` is a small bounded in-memory one.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger(__name__)

EVENT_KINDS: tuple[str, ...] = ("reason", "context", "route")


class Recorder(Protocol):
    """What the library needs from a telemetry sink."""

    def record(
        self,
        kind: str,
        *,
        features: dict[str, Any] | None = ...,
        choice: Any = ...,
        outcome: dict[str, Any] | None = ...,
    ) -> Any: ...


@dataclass(slots=True)
class Event:
    """One recorded decision: what was known, what was chosen, what came of it."""

    kind: str
    features: dict[str, Any] = field(default_factory=dict)
    choice: Any = None
    outcome: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    ts: float = field(default_factory=time.time)


class Telemetry:
    """A bounded in-memory recorder (the oldest events are dropped past ``max_events``).

    Args:
        max_events: how many events to keep; bounded so a long-running process cannot grow it
            without limit.
    """

    def __init__(self, max_events: int = 10_000) -> None:
        self._events: deque[Event] = deque(maxlen=max_events)

    def record(
        self,
        kind: str,
        *,
        features: dict[str, Any] | None = None,
        choice: Any = None,
        outcome: dict[str, Any] | None = None,
        tags: list[str] | None = None,
    ) -> Event:
        """Append an event and return it."""
        event = Event(kind, dict(features or {}), choice, dict(outcome or {}), list(tags or []))
        self._events.append(event)
        return event

    def events(self, kind: str | None = None) -> list[Event]:
        """The recorded events, oldest first, optionally of one kind."""
        return [e for e in self._events if kind is None or e.kind == kind]

    def __len__(self) -> int:
        return len(self._events)


def emit(
    telemetry: Recorder | None,
    kind: str,
    *,
    features: dict[str, Any],
    choice: Any,
    outcome: dict[str, Any],
) -> None:
    """Record an event if a recorder was given; a failing recorder never breaks the caller."""
    if telemetry is None:
        return
    try:
        telemetry.record(kind, features=features, choice=choice, outcome=outcome)
    except Exception:  # noqa: BLE001 - telemetry is best-effort by contract
        log.debug("telemetry recorder failed for a %s event", kind, exc_info=True)
