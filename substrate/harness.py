"""Harnesses: a reasoner behind a schema, an action whitelist, secret guardrails and escalation.

A request goes through four gates, in order: the schema (``validate`` may refuse it before any
model runs), the input guardrail (secrets in it are masked before the reasoner sees it), the
reasoner (which answers or abstains), then escalation (an abstention goes to a handler, say a
ticket queue) or the output guardrail (secrets in the answer are masked).

Differences from the reference implementation, on purpose:

* the escalation handler gets the masked request, not the original: a secret pasted into a
  support request must not travel on to a ticket system (the reasoner gets it with the secret
  left out, "…": the mask's words would weigh in its search);
* the action whitelist applies to a copy of the reasoner; the caller's keeps all its actions;
* a failing ``on_result`` hook is logged, not silently swallowed (it still cannot fail the
  request).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from substrate.errors import InvalidInputError, require_text
from substrate.gate import admit
from substrate.item import SubstrateItem
from substrate.reasoner import Reasoner
from substrate.secrets import redact_secrets, safe_text
from substrate.secrets.scan import detect_and_redact, without_secrets

if TYPE_CHECKING:
    from substrate.store import Substrate

log = logging.getLogger(__name__)

REFUSED, ANSWERED, ESCALATED = "refused", "answered", "escalated"
HARNESS_TAG = "harness"


@dataclass
class HarnessResult:
    """One request's outcome: which gate decided (``refused``, ``answered`` or ``escalated``),
    the answer or the handler's note, why, and the investigation behind it."""

    status: str
    answer: str | None = None
    reason: str = ""
    investigation: Any = None
    redactions: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The outcome as plain data: status, answer, reason and the number of secrets
        redacted from the request (the investigation is left out)."""
        return {
            "status": self.status,
            "answer": self.answer,
            "reason": self.reason,
            "redactions": self.redactions,
        }


class Harness:
    """A reasoner wrapped in gates (see the module docstring).

    Args:
        reasoner: the configured reasoner.
        name: the harness's name (used by the registry).
        description: what it is for (used by the registry).
        validate: ``request -> None | problem``; a problem refuses the request.
        allowed_kinds: the action kinds the reasoner may fire (None: all).
        escalate: ``(masked request, investigation) -> note``, called on abstention.
        min_confidence: the answer bar, passed to ``Reasoner.ask``.
        on_result: called with every result.
    """

    def __init__(
        self,
        reasoner: Reasoner,
        *,
        name: str,
        description: str = "",
        validate: Callable[[str], str | None] | None = None,
        allowed_kinds: Collection[str] | None = None,
        escalate: Callable[[str, Any], str] | None = None,
        min_confidence: float = 0.15,
        on_result: Callable[[HarnessResult], None] | None = None,
    ) -> None:
        self.name = name
        self.description = description
        self.validate = validate
        if isinstance(allowed_kinds, str):  # one kind, not its letters
            allowed_kinds = (allowed_kinds,)
        self.allowed_kinds = tuple(allowed_kinds) if allowed_kinds is not None else None
        self.reasoner = reasoner if allowed_kinds is None else reasoner.restricted_to(allowed_kinds)
        self.escalate = escalate
        self.min_confidence = min_confidence
        self.on_result = on_result

    def handle(self, request: str) -> HarnessResult:
        """Run one request through every gate: schema, guardrails, reasoner, escalation."""
        result = self._decide(request)
        if self.on_result is not None:
            try:
                self.on_result(result)
            except Exception as exc:  # noqa: BLE001 - a UI hook must not fail the request
                log.warning("harness %s: on_result failed (%s)", self.name, type(exc).__name__)
        return result

    def _decide(self, request: str) -> HarnessResult:
        if not isinstance(request, str):
            raise InvalidInputError(f"a request is text, not {type(request).__name__}")
        problem = self.validate(request) if self.validate is not None else None
        if problem:
            return HarnessResult(REFUSED, reason=f"schema: {safe_text(str(problem))}")
        scan, masked = detect_and_redact(request)
        found = len(scan.findings)
        # the reasoner's search must not rank on the mask's words ("redacted aws access key")
        question = without_secrets(masked) if found else request
        inv = self.reasoner.ask(question, min_confidence=self.min_confidence)
        if inv.abstained:
            note = self.escalate(masked, inv) if self.escalate is not None else ""
            answer = safe_text(str(note)) if note else None  # a ticket, whatever its type
            return HarnessResult(ESCALATED, answer, inv.note, inv, found)
        inv.answer = redact_secrets(inv.answer or "")  # the investigation is handed out too
        return HarnessResult(ANSWERED, inv.answer, "", inv, found)


def support_triage_harness(
    substrate: Substrate,
    answerer: Callable[[str, str], str],
    *,
    escalate: Callable[[str, Any], str] | None = None,
    max_chars: int = 2000,
    scopes: Collection[str] | None = None,
) -> Harness:
    """Support triage: answer from the shard's items only, refuse empty or oversized requests,
    and escalate whatever the items cannot support (never guess at a customer).

    ``scopes``: the scopes the caller may read (None: every scope); the answers draw on
    nothing else.
    """

    def validate(request: str) -> str | None:
        if not request.strip():
            return "empty request"
        if len(request) > max_chars:
            return f"request over {max_chars} chars"
        return None

    return Harness(
        Reasoner(answerer, substrate=substrate, retrieve_min_score=0.2, scopes=scopes),
        name="support-triage",
        description="answer support questions from the knowledge base or escalate to a human",
        validate=validate,
        allowed_kinds=("retrieve",),
        escalate=escalate,
        min_confidence=0.3,
    )


def monitoring_harness(
    reasoner: Reasoner, *, escalate: Callable[[str, Any], str] | None = None
) -> Harness:
    """Monitoring and alerting: retrieval, computations and what-ifs, no delegation out."""
    return Harness(
        reasoner,
        name="monitoring",
        description="run drift checks and what-ifs over deployed models; alert on trips",
        allowed_kinds=("retrieve", "compute", "simulate"),
        escalate=escalate,
        min_confidence=0.2,
    )


def register_harness(substrate: Substrate, harness: Harness, *, scope: str = "local") -> str:
    """Record ``harness`` in the shard as an ``artifact`` item tagged ``harness`` in ``scope``,
    so that others who read the scope can find it; returns the item's id (the write gate
    masks any secret in its name or description)."""
    if not isinstance(harness, Harness):
        raise InvalidInputError(f"harness must be a Harness, not {type(harness).__name__}")
    item = SubstrateItem(
        "artifact",
        f"harness {harness.name}: {harness.description}",
        payload={
            "harness": harness.name,
            "allowed_kinds": list(harness.allowed_kinds or []),
            "min_confidence": harness.min_confidence,
        },
        provenance={"origin": "harness-registry"},
        scope=scope,
        tags=[HARNESS_TAG],
    )
    return substrate.put(admit(item).item)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w-]+", text.lower()))


def find_harnesses(
    substrate: Substrate,
    query: str = "",
    *,
    scope: str | None = None,
    scopes: Collection[str] | None = None,
) -> list[dict[str, Any]]:
    """The registered harnesses (in ``scope``, among the ``scopes`` the reader sees), each as
    ``{"id", "text", **payload, "scope"}``; with a query, those whose text shares a word
    with it (lower-cased; punctuation around words does not count, so "harness monitoring:"
    is found by its name)."""
    require_text(query, "the query")  # "" (the default) lists every harness
    wanted = _words(query)
    found = []
    for item in substrate.iter_items(kind="artifact", scope=scope, scopes=scopes):
        if HARNESS_TAG not in item.tags:
            continue
        if wanted and not wanted & _words(item.text):
            continue
        found.append({"id": item.id, "text": item.text, **item.payload, "scope": item.scope})
    return found
