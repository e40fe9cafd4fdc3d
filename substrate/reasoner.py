"""A configured reasoner: a shard, skills and actions, asked questions through one method."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from substrate.act import (
    ACTION_KINDS,
    Action,
    Investigation,
    compute_action,
    investigate,
    retrieve_action,
)
from substrate.errors import InvalidInputError, scope_set
from substrate.factuality import check_factuality
from substrate.gate import refuse_non_list
from substrate.telemetry import Recorder

if TYPE_CHECKING:
    from substrate.store import Substrate


class Reasoner:
    """Answers questions over an action space (retrieve, one compute per skill, extras).

    Args:
        answerer: ``(question, evidence_text) -> answer``.
        substrate: the shard to retrieve from (adds a retrieve action) and to verify against.
        skills: callables (or a registry with ``all()``), each becoming a compute action.
        actions: extra actions (simulators, creators, delegates).
        budget_cost: default cost budget per question.
        min_confidence: default heuristic confidence floor.
        retrieve_min_score: relevance floor of the retrieve action (None: the default floor).
        scorer: action scorer (default ``score_action``).
        scopes: the scopes the reasoner may read (None: all).
        telemetry: an optional recorder.
    """

    def __init__(
        self,
        answerer: Callable[[str, str], str],
        *,
        substrate: Substrate | None = None,
        skills: Any = None,
        actions: Iterable[Action] | None = None,
        budget_cost: float | None = None,
        min_confidence: float = 0.15,
        retrieve_min_score: float | None = None,
        scorer: Callable[[Action, str], float] | None = None,
        scopes: Iterable[str] | None = None,
        telemetry: Recorder | None = None,
    ) -> None:
        self.answerer = answerer
        self.substrate = substrate
        self.budget_cost = budget_cost
        self.min_confidence = min_confidence
        self.scorer = scorer
        self.scopes = scope_set(scopes)
        self.telemetry = telemetry
        self._actions: list[Action] = []
        if substrate is not None:
            self._actions.append(
                retrieve_action(substrate, min_score=retrieve_min_score, scopes=self.scopes)
            )
        if skills is not None:
            listed = skills.all() if callable(getattr(skills, "all", None)) else skills
            self._actions.extend(compute_action(sk) for sk in listed)
        refuse_non_list(actions or [], "actions")
        actions = list(actions or [])  # (read once: a generator would be used up by the check)
        for action in actions:
            if not isinstance(action, Action):
                raise InvalidInputError(
                    f"actions must be Action objects, not {type(action).__name__}"
                )
        self._actions.extend(actions)

    @property
    def actions(self) -> list[Action]:
        """A copy of the action space."""
        return list(self._actions)

    def restricted_to(self, kinds: Iterable[str]) -> Reasoner:
        """A copy of this reasoner whose action space holds only actions of ``kinds`` (this
        one is left as it is)."""
        allowed = frozenset(kinds)
        unknown = sorted(allowed.difference(ACTION_KINDS))
        if unknown:
            raise InvalidInputError(
                f"unknown action kind(s) {', '.join(unknown)}; expected {', '.join(ACTION_KINDS)}"
            )
        other = copy.copy(self)
        other._actions = [a for a in self._actions if a.kind in allowed]
        return other

    def add_action(self, action: Action) -> Reasoner:
        """Attach an extra action; chainable."""
        self._actions.append(action)
        return self

    def use_policy(self, scorer: Callable[[Action, str], float]) -> Reasoner:
        """Route by another scorer (e.g. a learned acquisition policy); chainable."""
        self.scorer = scorer
        return self

    def ask(self, question: str, *, verify: bool = False, **overrides: Any) -> Investigation:
        """Answer ``question`` over the action space, or abstain.

        Args:
            question: what to answer.
            verify: check the answer's claims against the shard and attach the receipt as
                ``Investigation.factuality`` (the answer is never suppressed).
            **overrides: passed to ``investigate`` (``budget_cost``, ``min_confidence``,
                ``target_confidence``, ``max_actions``, ``scorer``, ...).
        """
        options: dict[str, Any] = {
            "budget_cost": self.budget_cost,
            "min_confidence": self.min_confidence,
            "scorer": self.scorer,
            "telemetry": self.telemetry,
        }
        options.update(overrides)
        result = investigate(question, self._actions, self.answerer, **options)
        if verify and result.answer is not None and self.substrate is not None:
            result.factuality = check_factuality(self.substrate, result.answer, scopes=self.scopes)
        return result
