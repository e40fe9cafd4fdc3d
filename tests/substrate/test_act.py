"""investigate, Action, Step, Investigation, the action builders, Reasoner, external models."""

from __future__ import annotations

import math
from typing import Any

import pytest

from substrate.act import (
    Action,
    Fragment,
    Investigation,
    Step,
    action_features,
    compute_action,
    confidence_of,
    create_action,
    delegate_action,
    investigate,
    relevance_of,
    retrieve_action,
    score_action,
    simulate_action,
)
from substrate.answer import answer_from_substrate
from substrate.errors import InvalidInputError
from substrate.external import (
    ExternalModel,
    external_action,
    quantile,
    semantic_entropy,
)
from substrate.factuality import check_factuality
from substrate.kg import link_entities
from substrate.locking import wait_for_locks_at_most
from substrate.reasoner import Reasoner
from substrate.store import Substrate
from substrate.telemetry import Telemetry


def echo(question: str, evidence: str) -> str:
    return f"answer from: {evidence}"


def fixed(
    name: str,
    fragments: list[Any],
    *,
    cost: float = 1.0,
    description: str = "",
    base: float = 0.0,
    kind: str = "compute",
) -> Action:
    return Action(
        name, kind, lambda q: list(fragments), cost=cost, description=description, base_score=base
    )


@pytest.fixture
def shop(lexical_search: list[str]) -> Substrate:
    s = Substrate()
    s.add("text", "The refund policy allows returns within 30 days.")
    return s


def test_scores_and_features() -> None:
    a = fixed("weather", [], cost=2.0, description="weather forecast tool", base=0.1)
    q = "what is the weather forecast"
    assert relevance_of(a, q) == pytest.approx(0.1 + 1.0)
    assert score_action(a, q) == pytest.approx(1.1 / 2)
    assert action_features(a, q) == {"kind": "compute", "cost": 2.0, "overlap": 1.0}
    assert score_action(a, "the of") == pytest.approx(0.05)  # stopwords only: base alone


def test_action_validation() -> None:
    with pytest.raises(InvalidInputError):
        Action("x", "teleport", lambda q: [])
    with pytest.raises(InvalidInputError):
        Action("x", "compute", lambda q: [], cost=-1)


def test_investigate_fires_best_first_and_stops_early() -> None:
    cheap = fixed("cheap", ["fact one"], description="refund policy", base=0.5)
    costly = fixed("costly", ["fact two"], cost=8.0, description="refund policy", base=0.5)
    inv = investigate("refund policy", [costly, cheap], echo)
    assert [s.action for s in inv.steps] == ["cheap"]
    assert inv.answer == "answer from: fact one" and not inv.abstained
    assert inv.spent == 1.0 and inv.evidence == ["fact one"]
    assert inv.trace() == [
        {"action": "cheap", "kind": "compute", "n_fragments": 1, "relevance": 1.5, "error": None}
    ]
    assert set(inv.as_dict()) >= {"question", "answer", "abstained", "confidence", "note", "trace"}


def test_an_answerer_that_says_nothing_abstains_and_one_that_adds_a_secret_is_masked() -> None:
    found = fixed("found", ["fact one"], description="refund policy", base=0.5)
    inv = investigate("refund policy", [found], lambda q, c: "  ")
    assert inv.abstained and inv.answer is None and "no answer" in inv.note
    token = "ghp_" + "Q8vKq2LmN5pXw7Tz3YbH9cJd1FgA6sUe4Qo0"
    inv = investigate("refund policy", [found], lambda q, c: f"use {token}")
    assert not inv.abstained and inv.answer is not None and "[REDACTED:" in inv.answer
    assert token not in str(inv.as_dict())
    with pytest.raises(InvalidInputError, match="must return text"):
        investigate("refund policy", [found], lambda q, c: 42)  # type: ignore[arg-type,return-value]


def test_budget_skips_expensive_actions_but_not_cheaper_later_ones() -> None:
    big = fixed("big", ["x"], cost=5.0, description="refund", base=2.0)
    small = fixed("small", ["y"], cost=1.0, description="refund", base=0.2)
    inv = investigate("refund", [big, small], echo, budget_cost=2.0)
    assert [s.action for s in inv.steps] == ["small"]


def test_scorer_called_once_per_action_and_max_actions() -> None:
    calls: list[str] = []

    def scorer(action: Action, question: str) -> float:
        calls.append(action.name)
        return 1.0

    acts = [fixed(f"a{i}", []) for i in range(4)]
    inv = investigate("q", acts, echo, scorer=scorer, max_actions=2)
    assert sorted(calls) == ["a0", "a1", "a2", "a3"]
    assert [s.action for s in inv.steps] == ["a0", "a1"] and inv.abstained


def test_failing_action_is_recorded_not_swallowed() -> None:
    def boom(question: str) -> list[str]:
        raise RuntimeError("backend down")

    bad = Action("bad", "compute", boom, description="refund", base_score=1.0)
    inv = investigate("refund", [bad], echo)
    assert inv.abstained and inv.steps[0].error == "RuntimeError: backend down"
    assert inv.spent == 1.0 and inv.steps[0].relevance == 0.0


def test_a_failing_actions_message_is_kept_masked() -> None:
    token = "ghp_" + "Q8vKq2LmN5pXw7Tz3YbH9cJd1FgA6sUe4Qo0"

    def leaky(question: str) -> list[str]:
        raise RuntimeError(f"GET https://api.example/refunds?token={token} failed")

    inv = investigate("refund", [Action("api", "compute", leaky, base_score=1.0)], echo)
    error = inv.steps[0].error
    assert error is not None and "[REDACTED:" in error and token not in str(inv.as_dict())


def test_an_action_that_returns_one_text_gives_one_fragment() -> None:
    single = Action("one", "compute", lambda q: "refunds take 30 days", base_score=1.0)
    inv = investigate("refund", [single], echo)
    assert inv.steps[0].fragments == ["refunds take 30 days"]


def test_zero_score_actions_do_not_fire() -> None:
    inv = investigate("refund", [fixed("off", ["x"], description="weather")], echo)
    assert inv.steps == [] and inv.abstained
    assert "escalate" in inv.note


def test_measured_relevance_beats_the_prior() -> None:
    weak = fixed("r", [Fragment("weak match", 0.05)], description="refund", base=0.35)
    inv = investigate("refund", [weak], echo)
    assert inv.steps[0].relevance == pytest.approx(0.05) and inv.abstained


def test_confidence_of() -> None:
    steps = [Step("a", "compute", ["x"], 1.0, 1.0, 0.8), Step("b", "compute", [], 1.0, 1.0, 2.0)]
    assert confidence_of(steps, 2) == pytest.approx(0.4)
    assert confidence_of([], 1) == 0.0


def test_telemetry_route_and_reason_events() -> None:
    tel = Telemetry()
    investigate("refund", [fixed("a", ["x"], description="refund", base=0.5)], echo, telemetry=tel)
    (route,) = tel.events("route")
    assert route.choice == "compute" and route.outcome == {"value": 1.0, "n_fragments": 1}
    (reason,) = tel.events("reason")
    assert reason.features["action"] == "investigate" and reason.choice == "answer"


def test_retrieve_action_reflects_real_scores(shop: Substrate) -> None:
    action = retrieve_action(shop)
    assert action.kind == "retrieve" and action.base_score == 0.35
    assert investigate("airspeed of an unladen swallow", [action], echo).abstained
    inv = investigate("refund policy returns", [action], echo)
    assert not inv.abstained and inv.confidence == 1.0
    assert retrieve_action(shop, min_score=0.0).run("refund cats")


def test_one_word_in_common_is_no_evidence_for_a_question_about_something_else() -> None:
    from substrate.harness import support_triage_harness

    store = Substrate()
    store.add("text", "The refund policy allows returns within 30 days.")
    store.add("text", "Our office cat is named Biscuit.")
    reasoner = Reasoner(echo, substrate=store)
    for other in ("What is the parking policy?", "What is the name of the CEO?"):
        assert reasoner.ask(other).abstained, other  # "policy", "name": nothing of parking
        assert support_triage_harness(store, echo).handle(other).status == "escalated"
    asked = reasoner.ask("What is the refund policy?")
    assert not asked.abstained and "30 days" in (asked.answer or "")


def test_builders() -> None:
    class Skill:
        name = "adder"
        description = "adds numbers"

        def __call__(self) -> int:
            return 4

    c = compute_action(Skill())
    assert (c.name, c.description, c.run("q")) == ("adder", "adds numbers", ["adder => 4"])
    assert compute_action(lambda q: len(q), name="len").run("abc") == ["len => 3"]
    broken = compute_action(lambda q: len(None), name="broken")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="NoneType"):  # its own error, not one of a retry
        broken.run("abc")

    class Sim:
        def outcome_mean(self, field: int, *, scenario: str) -> float:
            return 1.23456

    s = simulate_action(Sim(), 2, "hot")
    assert s.name == "simulate:hot" and s.cost == 2.0
    assert s.run("q") == ["under scenario 'hot', mean of field 2 = 1.235"]

    class Model:
        guarantee = 0.9

        def why(self) -> str:
            return "because"

    assert create_action(lambda q: Model()).run("q") == [
        "create => built a model (guarantee 0.9). because"
    ]
    assert create_action(lambda q: [1, 2]).run("q") == [
        "create => built an artifact (2 rows/items)"
    ]
    assert create_action(lambda q: object()).run("q") == [
        "create => built an artifact (? rows/items)"
    ]
    d = delegate_action(lambda q: "done")
    assert d.kind == "delegate" and d.cost == 8.0 and d.run("q") == ["delegate (priced) => done"]
    assert delegate_action(lambda q: "x", priced=False).run("q") == ["delegate => x"]


def test_reasoner(shop: Substrate) -> None:
    extra = fixed("extra", ["y"], description="weather")
    r = Reasoner(echo, substrate=shop, skills=[lambda q: 1], actions=[extra])
    assert [a.kind for a in r.actions] == ["retrieve", "compute", "compute"]
    r.actions.clear()  # a copy
    assert len(r.actions) == 3
    assert r.add_action(fixed("z", [])) is r and r.use_policy(score_action) is r
    inv = r.ask("refund policy returns", verify=True)
    assert not inv.abstained and isinstance(inv, Investigation)
    assert inv.factuality is not None
    assert "factuality" in inv.as_dict()
    assert r.ask("airspeed of an unladen swallow", min_confidence=0.9).abstained


def test_semantic_entropy_and_quantile() -> None:
    assert semantic_entropy(["a", "b", "c", "d"] * 2) == pytest.approx(math.log(4))
    assert semantic_entropy(["x"] * 5) == 0.0 and semantic_entropy([]) == 0.0
    same = semantic_entropy(["Yes", "yes", "YES"], lambda a, b: a.lower() == b.lower())
    assert same == 0.0
    assert quantile([0.0, 1.0, 2.0, 3.0], 0.5) == 1.5
    with pytest.raises(InvalidInputError):
        quantile([], 0.5)


def test_external_model_and_action() -> None:
    steady = ExternalModel(lambda p: "42", max_entropy=0.5)
    ans = steady.answer("q")
    assert ans.answer == "42" and ans.entropy == 0.0 and ans.confident
    assert steady.confident("q")
    counter = iter(range(10_000))
    noisy = ExternalModel(lambda p: str(next(counter) % 4), max_entropy=0.5)
    assert not noisy.answer("q").confident
    assert external_action(noisy).run("q") == []
    trusted = list(external_action(noisy, trust_uncertain=True).run("q"))
    assert trusted[0].startswith("external[uncertain, entropy=1.386] =>")
    assert external_action(steady).run("q") == ["external[confident, entropy=0.000] => 42"]
    assert ExternalModel(lambda p: "x").max_entropy == math.inf
    calibrated = ExternalModel(lambda p: p, calibration_prompts=["a", "b"], alpha=0.1)
    assert calibrated.max_entropy == 0.0
    with pytest.raises(InvalidInputError):
        ExternalModel(lambda p: p, samples=0)


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda: investigate(None, [], echo), "a question is text, not NoneType"),
        (lambda: investigate("q", None, echo), "actions must be a list, not NoneType"),
        (lambda: investigate("q", [lambda q: ["x"]], echo), "actions must be Action objects"),
        (lambda: investigate("q", [], echo, min_confidence="x"), "min_confidence must be a num"),
        (lambda: investigate("q", [], echo, target_confidence="x"), "target_confidence"),
        (lambda: investigate("q", [], echo, min_evidence=-1), "min_evidence must be >= 0"),
        (lambda: investigate("q", [], echo, budget_cost=-1), "budget_cost must be >= 0"),
        (lambda: investigate("q", [], echo, budget_cost="5"), "budget_cost must be a number"),
        (lambda: investigate("q", [], echo, max_actions=-1), "max_actions must be a whole"),
        (lambda: Reasoner(echo).ask(None), "a question is text, not NoneType"),
    ],
)
def test_investigate_refuses_bad_arguments_before_firing_anything(call: Any, said: str) -> None:
    """Not an AttributeError from the scorer, nor a silent abstention on a budget that lets
    nothing fire."""
    with pytest.raises(InvalidInputError, match=said):
        call()


def test_investigate_takes_actions_from_any_iterable_once() -> None:
    """Checking the actions must not use up a generator before they are ranked."""
    acts = (fixed(n, ["fact"], description="refund policy", base=0.5) for n in "ab")
    inv = investigate("refund policy", acts, echo, budget_cost=5, max_actions=1)
    assert not inv.abstained and [s["action"] for s in inv.trace()] == ["a"]


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"max_entropy": -1}, "max_entropy must be >= 0"),
        ({"max_entropy": "low"}, "max_entropy must be a number, not str"),
        ({"alpha": None}, "alpha must be a number, not NoneType"),
        ({"samples": 2.5}, "samples must be a whole number"),
    ],
)
def test_external_model_refuses_settings_that_mean_nothing(
    options: dict[str, Any], said: str
) -> None:
    """A negative entropy cutoff would call every answer uncertain, silently."""
    with pytest.raises(InvalidInputError, match=said):
        ExternalModel(lambda p: p, **options)


@pytest.mark.parametrize(
    ("build", "told"),
    [
        (lambda: ExternalModel(5), "generate must be callable, not int"),
        (lambda: compute_action("adder"), "a skill is called with the question, not str"),
        (lambda: Reasoner(lambda q, c: "a", actions=[1]), "must be Action objects, not int"),
        (lambda: link_entities("new york", "new york"), "not one string"),
        (
            lambda: check_factuality(Substrate(), "refunds take 30 days", min_score="0.2"),
            "min_score must be a number",
        ),
        (
            lambda: answer_from_substrate(Substrate(), "q?", None),  # type: ignore[arg-type]
            "answerer must be a function .* not NoneType",
        ),
        (lambda: Substrate().search("tea", scope=["a"]), "scope must be text, not list"),
        (lambda: wait_for_locks_at_most(-1), "a wait is a number of seconds, 0 or more"),
    ],
)
def test_bad_arguments_are_refused_where_the_call_is_made(build: Any, told: str) -> None:
    # each was taken and failed later as a TypeError, or matched nothing without a word
    with pytest.raises(InvalidInputError, match=told):
        build()


def test_arguments_the_seed_takes_in_any_collection_are_taken_so() -> None:
    import numpy as np

    from substrate.context import ContextPacket
    from substrate.item import SubstrateItem
    from substrate.retrieval import Retrieval

    # a generator of actions, a dict of entities, scores in a numpy array
    echo = external_action(ExternalModel(lambda prompt: "yes"), name="echo")
    assert [a.name for a in Reasoner(lambda q, c: "a", actions=(a for a in [echo])).actions] == [
        "echo"
    ]
    assert link_entities("where is new york?", {"new york": 1, "paris": 2}) == ["new york"]
    items = [SubstrateItem("text", "a"), SubstrateItem("text", "b")]
    for build in (Retrieval, ContextPacket):
        assert (
            build("q", items=items, scores=np.array([0.5, 0.25])).provenance()[1]["score"] == 0.25
        )
