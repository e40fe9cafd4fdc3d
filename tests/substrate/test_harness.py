"""Harnesses: schema, action whitelist, secret guardrails, escalation, and the registry."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from substrate import (
    Action,
    Harness,
    HarnessResult,
    Reasoner,
    Substrate,
    find_harnesses,
    monitoring_harness,
    register_harness,
    support_triage_harness,
)
from substrate.errors import InvalidInputError

AWS_KEY = "AKIA" + "Q7XJ2KLMN4PQRS5T"


def echo(question: str, evidence: str) -> str:
    """An answerer that repeats its first line of evidence."""
    return evidence.splitlines()[0] if evidence else ""


@pytest.fixture
def shop(tmp_path: Path) -> Substrate:
    s = Substrate(tmp_path / "shard")
    s.add("text", "Refunds for defective items are given within 30 days of purchase.")
    s.add("text", "The store opens at nine and closes at five on weekdays.")
    s.save()
    return s


def test_result_shape() -> None:
    result = HarnessResult("answered", "yes", "", None, 2)
    shape = {"status": "answered", "answer": "yes", "reason": "", "redactions": 2}
    assert result.as_dict() == shape


def test_the_schema_refuses_before_anything_runs(shop: Substrate) -> None:
    asked: list[str] = []

    def answerer(question: str, evidence: str) -> str:
        asked.append(question)
        return "x"

    harness = support_triage_harness(shop, answerer, max_chars=50)
    assert harness.handle("   ").as_dict() == {
        "status": "refused",
        "answer": None,
        "reason": "schema: empty request",
        "redactions": 0,
    }
    assert harness.handle("x" * 51).reason == "schema: request over 50 chars"
    assert asked == []


def test_support_triage_answers_from_the_shard_or_escalates(shop: Substrate) -> None:
    tickets: list[str] = []

    def escalate(request: str, investigation: Any) -> str:
        tickets.append(request)
        return "ticket #17"

    harness = support_triage_harness(shop, echo, escalate=escalate)
    answered = harness.handle("How long do refunds for defective items take?")
    assert answered.status == "answered" and "30 days" in (answered.answer or "")
    assert answered.investigation is not None and not answered.investigation.abstained
    escalated = harness.handle("Can I pay for the quantum flux capacitor in doubloons?")
    assert escalated.status == "escalated" and escalated.answer == "ticket #17"
    assert escalated.reason == escalated.investigation.note
    assert tickets == ["Can I pay for the quantum flux capacitor in doubloons?"]
    unhandled = support_triage_harness(shop, echo).handle("quantum doubloons")
    assert unhandled.status == "escalated" and unhandled.answer is None


def test_secrets_are_masked_on_the_way_in_and_out(shop: Substrate) -> None:
    seen: list[str] = []

    def answerer(question: str, evidence: str) -> str:
        seen.append(question)
        return f"refunds take 30 days; your key {AWS_KEY} is noted"

    handled: list[str] = []

    def escalate(request: str, investigation: Any) -> str:
        handled.append(request)
        return "ticket"

    harness = support_triage_harness(shop, answerer, escalate=escalate)
    result = harness.handle(f"How long do refunds for defective items take? {AWS_KEY}")
    assert result.redactions == 1 and result.status == "answered"
    assert AWS_KEY not in (result.answer or "") and AWS_KEY not in "".join(seen)
    # the reasoner's search gets the secret left out, not the mask's words
    assert "items take?" in seen[0] and "REDACTED" not in seen[0]
    harness.handle(f"quantum doubloons {AWS_KEY}")
    # the escalation handler gets the masked request: a ticket system is no place for a key
    assert handled and AWS_KEY not in handled[0] and "[REDACTED:aws_access_key]" in handled[0]


def test_the_whitelist_applies_to_a_copy_of_the_reasoner() -> None:
    fired: list[str] = []

    def action(name: str, kind: str) -> Action:
        def run(question: str) -> list[str]:
            fired.append(name)
            return [f"{name} says refunds take 30 days"]

        return Action(name, kind, run, description="refunds days")

    reasoner = Reasoner(echo, actions=[action("sim", "simulate"), action("out", "delegate")])
    harness = monitoring_harness(reasoner)
    assert [a.kind for a in harness.reasoner.actions] == ["simulate"]
    assert [a.kind for a in reasoner.actions] == ["simulate", "delegate"]  # untouched
    harness.handle("refunds days?")
    assert fired == ["sim"]
    with pytest.raises(InvalidInputError, match="unknown action kind"):
        Harness(reasoner, name="x", allowed_kinds=("teleport",))


def test_a_failing_result_hook_is_logged_not_raised(
    shop: Substrate, caplog: pytest.LogCaptureFixture
) -> None:
    def hook(result: HarnessResult) -> None:
        raise RuntimeError("the UI is down")

    harness = Harness(Reasoner(echo, substrate=shop), name="h", on_result=hook)
    with caplog.at_level(logging.WARNING, logger="substrate.harness"):
        assert harness.handle("refunds for defective items").status in ("answered", "escalated")
    assert "on_result failed (RuntimeError)" in caplog.text


def test_register_and_find_harnesses(shop: Substrate) -> None:
    triage = support_triage_harness(shop, echo)
    monitor = monitoring_harness(Reasoner(echo))
    first = register_harness(shop, triage, scope="support")
    register_harness(shop, monitor)
    item = shop.get(first)
    assert item is not None and item.kind == "artifact" and item.tags == ["harness"]
    assert item.text == (
        "harness support-triage: answer support questions from the knowledge base or escalate "
        "to a human"
    )
    assert item.provenance["origin"] == "harness-registry"
    assert find_harnesses(shop, "support") == [
        {
            "id": first,
            "text": item.text,
            "harness": "support-triage",
            "allowed_kinds": ["retrieve"],
            "min_confidence": 0.3,
            "scope": "support",
        }
    ]
    assert [h["harness"] for h in find_harnesses(shop)] == ["support-triage", "monitoring"]
    assert [h["harness"] for h in find_harnesses(shop, scope="local")] == ["monitoring"]
    assert find_harnesses(shop, scopes={"local"}, query="support") == []  # another team's
    assert find_harnesses(shop, "weather") == []


def test_odd_hooks_and_inputs(shop: Substrate) -> None:
    def ticket(request: str, investigation: Any) -> Any:
        return {"ticket": 17, "key": AWS_KEY}

    harness = support_triage_harness(shop, echo, escalate=ticket)  # type: ignore[arg-type]
    result = harness.handle("quantum doubloons")
    assert result.status == "escalated" and AWS_KEY not in str(result.as_dict())
    with pytest.raises(InvalidInputError, match="a request is text"):
        harness.handle(None)  # type: ignore[arg-type]
    one = Harness(Reasoner(echo, substrate=shop), name="r", allowed_kinds="retrieve")
    assert [a.kind for a in one.reasoner.actions] == ["retrieve"]


def test_a_harness_is_found_by_its_name(shop: Substrate) -> None:
    register_harness(shop, monitoring_harness(Reasoner(echo)))
    assert [h["harness"] for h in find_harnesses(shop, "monitoring")] == ["monitoring"]


def test_registry_arguments_of_the_wrong_type_are_refused_in_words(shop: Substrate) -> None:
    """Not an AttributeError from reading a name or lower-casing a query."""
    with pytest.raises(InvalidInputError, match="harness must be a Harness, not NoneType"):
        register_harness(shop, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="the query is text, not NoneType"):
        find_harnesses(shop, None)  # type: ignore[arg-type]
    assert find_harnesses(shop, "") == []  # the default: every harness (none registered)
