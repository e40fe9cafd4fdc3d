"""Action-based investigation: fire evidence-acquiring actions under a cost budget, or abstain.

Actions are ranked once by a scorer (default ``score_action``, a lexical relevance-per-cost
prior). When an action's fragments carry a measured relevance (``Fragment.score``, e.g. the
retrieval score of the item a fragment came from), the step's relevance is that measurement,
not the prior, so a retrieval that finds nothing relevant cannot make a confident answer.
Errors raised by an action are recorded in its step, not swallowed silently.
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from substrate.answer import (
    CONFIDENCE_KIND,
    DEFAULT_MIN_RELEVANCE,
    answer_text,
    unmentioned_in,
    unmentioned_weight,
)
from substrate.context.compress import truncate
from substrate.errors import (
    InvalidInputError,
    require_count,
    require_number,
    require_text,
    scope_set,
)
from substrate.gate import refuse_non_list
from substrate.retrieval import retrieve
from substrate.search.filters import SearchFilters
from substrate.secrets import masked_repr, safe_text
from substrate.telemetry import Recorder, emit

if TYPE_CHECKING:
    from substrate.store import Substrate

log = logging.getLogger(__name__)

ACTION_KINDS: tuple[str, ...] = ("retrieve", "compute", "simulate", "create", "delegate")

# The reference's 32-word stoplist for action overlap (the core list without it/its/my).
_STOP = frozenset(
    "a an and are as at be by do does for from how in is of on or the to was what when where "
    "which who will with you your this that".split()
)
_TOKEN = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> set[str]:
    return {t for t in _TOKEN.findall(text.lower()) if t not in _STOP}


class Fragment(str):
    """An evidence fragment carrying how relevant its source measured it (0..1)."""

    score: float

    def __new__(cls, text: str, score: float) -> Fragment:
        obj = super().__new__(cls, text)
        obj.score = float(score)
        return obj


@dataclass
class Action:
    """One evidence-acquiring move: run it on a question, get fragments back, at a cost."""

    name: str
    kind: str
    run: Callable[[str], list[Any]]
    cost: float = 1.0
    description: str = ""
    base_score: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise InvalidInputError(
                f"unknown action kind {self.kind!r}; expected one of {', '.join(ACTION_KINDS)}"
            )
        if self.cost < 0:
            raise InvalidInputError(f"action cost must be >= 0, got {self.cost}")


@dataclass
class Step:
    """A fired action and what it yielded; ``error`` says why it yielded nothing, if it failed."""

    __repr__ = masked_repr  # a fragment may echo the question

    action: str
    kind: str
    fragments: list[str]
    cost: float
    score: float
    relevance: float = 0.0
    error: str | None = None


@dataclass
class Investigation:
    """A cited answer (or abstention) plus the actions that acquired its evidence."""

    __repr__ = masked_repr  # a secret typed in is not printed back

    question: str
    answer: str | None
    abstained: bool
    confidence: float
    steps: list[Step] = field(default_factory=list)
    note: str = ""
    factuality: Any = None
    proposal: Any = None

    @property
    def evidence(self) -> list[str]:
        """Every fragment the steps gathered, in the order they were fired."""
        return [f for s in self.steps for f in s.fragments]

    @property
    def spent(self) -> float:
        """The total cost of the actions fired."""
        return float(sum(s.cost for s in self.steps))

    def trace(self) -> list[dict[str, Any]]:
        """The actions taken, in order."""
        return [
            {
                "action": s.action,
                "kind": s.kind,
                "n_fragments": len(s.fragments),
                "relevance": round(s.relevance, 4),
                "error": s.error,
            }
            for s in self.steps
        ]

    def as_dict(self) -> dict[str, Any]:
        """The investigation as plain data: question (secrets masked), answer, abstained,
        confidence, note and the trace of actions, plus the factuality receipt if checked."""
        out = {
            "question": safe_text(self.question),  # a secret typed in is not given back
            "answer": self.answer,
            "abstained": self.abstained,
            "confidence": round(self.confidence, 4),
            "confidence_kind": CONFIDENCE_KIND,
            "note": self.note,
            "trace": self.trace(),
        }
        if self.factuality is not None:
            out["factuality"] = self.factuality.as_dict()
        return out


def _overlap(action: Action, question: str) -> float:
    q = _tokens(question)
    if not q:
        return 0.0
    return len(q & _tokens(action.description)) / len(q)


def relevance_of(action: Action, question: str) -> float:
    """How on-topic an action is for a question: its base floor plus description overlap."""
    return action.base_score + _overlap(action, question)


def score_action(action: Action, question: str) -> float:
    """Relevance per unit cost: the default prior for which action to fire first."""
    return relevance_of(action, question) / max(action.cost, 1e-9)


def action_features(action: Action, question: str) -> dict[str, Any]:
    """The features a learned acquisition policy keys on: kind, cost and query overlap."""
    return {
        "kind": action.kind,
        "cost": float(action.cost),
        "overlap": round(_overlap(action, question), 4),
    }


def confidence_of(steps: Sequence[Step], min_evidence: int) -> float:
    """Best relevance among productive steps, scaled by how much evidence there is (heuristic)."""
    productive = [s for s in steps if s.fragments]
    if not productive:
        return 0.0
    n = sum(len(s.fragments) for s in productive)
    best = max(s.relevance for s in productive)
    return round(min(1.0, best) * min(1.0, n / max(min_evidence, 1)), 4)


def investigate(
    question: str,
    actions: Sequence[Action],
    answerer: Callable[[str, str], str],
    *,
    budget_cost: float | None = None,
    min_evidence: int = 1,
    min_confidence: float = 0.15,
    target_confidence: float | None = None,
    max_actions: int | None = None,
    scorer: Callable[[Action, str], float] | None = None,
    telemetry: Recorder | None = None,
) -> Investigation:
    """Answer ``question`` by firing actions highest-score-first under a cost budget, or abstain.

    Args:
        question: what to answer.
        actions: the action space.
        answerer: ``(question, evidence_text) -> answer``; called only when evidence clears
            the bar.
        budget_cost: the most total cost to spend (an action that would exceed it is skipped,
            so cheaper later ones may still fire).
        min_evidence: fewest fragments needed to answer.
        min_confidence: heuristic confidence below which the answer is withheld.
        target_confidence: stop firing once this is reached (default ``min_confidence``).
        max_actions: consider only the best this many actions.
        scorer: ``(action, question) -> score`` (default ``score_action``); called once each.
        telemetry: an optional recorder: one ``route`` event per fired action, one ``reason``.

    Raises:
        InvalidInputError: ``question`` is not text, an action is not an ``Action``, or a
            limit is not a number (or is negative where a negative one means nothing).
    """
    require_text(question, "a question")
    actions = _actions_given(actions)
    _check_limits(budget_cost, min_evidence, min_confidence, target_confidence, max_actions)
    score = scorer or score_action
    stop_at = target_confidence if target_confidence is not None else min_confidence
    scored = [(a, float(score(a, question))) for a in actions]
    scored.sort(key=lambda pair: -pair[1])
    if max_actions is not None:
        scored = scored[:max_actions]
    steps: list[Step] = []
    spent = 0.0
    confidence = 0.0
    for action, sc in scored:
        if budget_cost is not None and spent + action.cost > budget_cost:
            continue
        if sc <= 0:
            continue
        step = _fire(action, question, sc)
        steps.append(step)
        spent += action.cost
        emit(
            telemetry,
            "route",
            features=action_features(action, question),
            choice=action.kind,
            outcome={"value": 1.0 if step.fragments else 0.0, "n_fragments": len(step.fragments)},
        )
        confidence = confidence_of(steps, min_evidence)
        n = sum(len(s.fragments) for s in steps)
        if n >= min_evidence and confidence >= stop_at:
            break
    evidence = [f for s in steps for f in s.fragments]
    if len(evidence) < min_evidence or confidence < min_confidence:
        answer = None
        note = (
            f"abstained: {len(evidence)} fragment(s) at confidence {confidence:.2f} from "
            f"{len(steps)} action(s) -- escalate rather than guess"
        )
    else:
        # an answerer that says nothing abstains, as in ``answer_from_substrate``; one that
        # adds a secret (from its own context) has it masked
        answer = safe_text(answer_text(answerer(question, "\n".join(evidence)))) or None
        note = f"answered from {len(evidence)} fragment(s) across {len(steps)} action(s)"
        if answer is None:
            note = f"abstained: the answerer gave no answer from {len(evidence)} fragment(s)"
    result = Investigation(question, answer, answer is None, confidence, steps, note)
    emit(
        telemetry,
        "reason",
        features={
            "action": "investigate",
            "n_actions": len(steps),
            "kinds": sorted({s.kind for s in steps}),
        },
        choice="abstain" if result.abstained else "answer",
        outcome={"confidence": confidence, "spent": result.spent},
    )
    return result


def _actions_given(actions: Iterable[object]) -> list[Action]:
    """``actions`` as a list, refused unless each is an ``Action`` (a bare function has no
    name, kind or cost to rank it by)."""
    refuse_non_list(actions, "actions")
    given: list[Action] = []
    for action in actions:
        if not isinstance(action, Action):
            raise InvalidInputError(
                f"actions must be Action objects, not {type(action).__name__} "
                "(wrap a function as Action(name, kind, run))"
            )
        given.append(action)
    return given


def _check_limits(
    budget_cost: object,
    min_evidence: object,
    min_confidence: object,
    target_confidence: object,
    max_actions: object,
) -> None:
    """Refuse limits ``investigate`` would fail on midway, or that silently fire nothing (a
    negative budget or action count)."""
    if budget_cost is not None:
        require_number(budget_cost, "budget_cost", minimum=0)
    require_number(min_evidence, "min_evidence", minimum=0)
    require_number(min_confidence, "min_confidence")
    if target_confidence is not None:
        require_number(target_confidence, "target_confidence")
    if max_actions is not None:
        require_count(max_actions, "max_actions")


def _fire(action: Action, question: str, score: float) -> Step:
    error = None
    try:
        ran = action.run(question)
        raw = [ran] if isinstance(ran, str) else list(ran)  # one text is one fragment
    except Exception as exc:  # noqa: BLE001 - a failing action is recorded, not fatal
        log.warning("action %s failed: %s", action.name, type(exc).__name__)
        raw = []
        # masked before it is cut: a message may quote a URL with its token
        error = truncate(safe_text(f"{type(exc).__name__}: {exc}"), 200)
    kept = [f for f in raw if str(f).strip()]
    measured = [f.score for f in kept if isinstance(f, Fragment)]
    # A step that produced nothing lends no relevance, whatever its prior said.
    relevance = max(measured) if measured else relevance_of(action, question) if kept else 0.0
    return Step(
        action.name,
        action.kind,
        [str(f) for f in kept],
        float(action.cost),
        score,
        float(relevance),
        error,
    )


# -- action builders ------------------------------------------------------------------------------


def retrieve_action(
    substrate: Substrate,
    *,
    name: str = "retrieve",
    k: int = 6,
    scope: str | None = None,
    scopes: Iterable[str] | None = None,
    cost: float = 1.0,
    min_score: float | None = None,
) -> Action:
    """A RETRIEVE action whose fragments carry their retrieval scores.

    ``min_score`` defaults to the answer module's relevance floor, so irrelevant items are
    not evidence; pass 0.0 to keep every hit.
    """
    floor = DEFAULT_MIN_RELEVANCE if min_score is None else min_score
    visible = scope_set(scopes)

    def run(question: str) -> list[Fragment]:
        found = retrieve(substrate, question, k=k, scope=scope, scopes=visible, min_score=floor)
        # a score earned by one word in common is weighed as answers weigh it
        readable = SearchFilters(scopes=_readable(scope, visible))
        weight = unmentioned_weight(unmentioned_in(substrate, question, readable)[1])
        return [
            Fragment(i.text, s * weight)
            for i, s in zip(found.items, found.scores, strict=True)
            if i.text
        ]

    return Action(name, "retrieve", run, cost=cost, description="", base_score=0.35)


def _readable(scope: str | None, visible: frozenset[str] | None) -> frozenset[str] | None:
    """The scopes a retrieve action reads: its ``scope``, of those ``visible`` (None: all)."""
    if scope is None:
        return visible
    return frozenset({scope}) if visible is None else visible & {scope}


def compute_action(
    skill: Any, *, name: str | None = None, cost: float = 1.0, description: str | None = None
) -> Action:
    """A COMPUTE action that runs a skill (a callable with optional ``name``/``description``)."""
    if not callable(skill):
        raise InvalidInputError(f"a skill is called with the question, not {type(skill).__name__}")
    label = name or getattr(skill, "name", None) or "compute"
    about = description if description is not None else (getattr(skill, "description", "") or "")

    asks = _takes_an_argument(skill)

    def run(question: str) -> list[str]:
        result = skill(question) if asks else skill()
        return [f"{label} => {result}"]

    return Action(str(label), "compute", run, cost=cost, description=str(about))


def _takes_an_argument(skill: Any) -> bool:
    """Whether ``skill`` is called with the question (as a skill of no parameters is not).
    Told by its signature, so that a ``TypeError`` the skill itself raises is its error, not
    a reason to call it again without the question."""
    try:
        signature = inspect.signature(skill)
    except (TypeError, ValueError):  # (a builtin with no signature: given the question)
        return True
    try:
        signature.bind("question")
    except TypeError:
        return False
    return True


def simulate_action(
    simulator: Any,
    field_index: int,
    scenario: str,
    *,
    name: str | None = None,
    cost: float = 2.0,
    description: str = "",
) -> Action:
    """A SIMULATE action reporting the simulated mean of one field under a scenario."""

    def run(question: str) -> list[str]:
        mean = float(simulator.outcome_mean(field_index, scenario=scenario))
        return [f"under scenario '{scenario}', mean of field {field_index} = {mean:.3f}"]

    return Action(
        name or f"simulate:{scenario}", "simulate", run, cost=cost, description=description
    )


def create_action(
    build: Callable[[str], Any],
    *,
    name: str = "create",
    cost: float = 4.0,
    description: str = "",
    report: Callable[[Any], str] | None = None,
) -> Action:
    """A CREATE action that builds an artifact on demand and reports what it made."""

    def default_report(artifact: Any) -> str:
        guarantee = getattr(artifact, "guarantee", None)
        if guarantee is not None:
            why = artifact.why() if callable(getattr(artifact, "why", None)) else ""
            return f"{name} => built a model (guarantee {guarantee}). {why}".strip()
        try:
            size: Any = len(artifact)
        except TypeError:
            size = "?"
        return f"{name} => built an artifact ({size} rows/items)"

    def run(question: str) -> list[str]:
        return [(report or default_report)(build(question))]

    return Action(name, "create", run, cost=cost, description=description)


def delegate_action(
    delegate: Callable[[str], Any],
    *,
    name: str = "delegate",
    cost: float = 8.0,
    description: str = "",
    priced: bool = True,
) -> Action:
    """A DELEGATE action handing the question to an external worker (the last resort)."""
    prefix = "delegate (priced)" if priced else "delegate"

    def run(question: str) -> list[str]:
        return [f"{prefix} => {delegate(question)}"]

    return Action(name, "delegate", run, cost=cost, description=description)
