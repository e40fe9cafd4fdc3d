"""Words negated by a prefix: a question or claim about non-defective items is not about
defective ones."""

from __future__ import annotations

import pytest

from substrate.extractive import ExtractiveAnswerer
from substrate.factuality import content_overlap
from substrate.negated import other_side, sides

REFUNDS = "Refunds for defective items take 14 days. Exchanges of non-sale items take 3 days."


def test_sides_tell_plain_and_negated_terms() -> None:
    assert sides("non-defective items") == ({"item"}, {"defect"})
    assert sides("Defective and non-defective items") == ({"defect", "item"}, {"defect"})
    assert sides("nonprofit items").negated == frozenset()  # one word: the index keeps it


def test_a_text_on_the_other_side_is_told_apart() -> None:
    asked = sides("How long do refunds for non-defective items take?")
    assert other_side(asked, "Refunds for defective items take 14 days.")
    assert not other_side(asked, "Refunds for non-defective items take 30 days.")
    assert not other_side(asked, "Defective and non-defective items take 14 days.")
    assert not other_side(asked, "Refunds take 14 days.")  # says neither: may still answer
    plain = sides("How long do refunds for defective items take?")
    assert other_side(plain, "Refunds for non-defective items take 30 days.")
    assert not other_side(plain, "Refunds for defective items take 14 days.")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("How long do refunds for defective items take?", REFUNDS.split(". ")[0] + ". [1]"),
        ("How long do refunds for non-defective items take?", ""),
        ("How long do exchanges of sale items take?", ""),
    ],
)
def test_the_answer_speaks_of_the_side_asked_of(question: str, answer: str) -> None:
    assert ExtractiveAnswerer()(question, REFUNDS) == answer


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("Refunds for defective items take 14 days.", True),
        ("Refunds for non-defective items take 14 days.", False),
        ("Exchanges of sale items take 3 days.", False),
    ],
)
def test_a_claim_about_one_side_is_not_supported_by_the_other(claim: str, supported: bool) -> None:
    assert content_overlap(REFUNDS, claim) is supported
