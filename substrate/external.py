"""External models wrapped with semantic-entropy uncertainty, and the action that uses them.

Semantic entropy: sample the model several times, cluster the samples by meaning (greedy: each
joins the first cluster whose first member it is equivalent to), and take the Shannon entropy
(in nats) of the cluster frequencies. High entropy means the model's answers disagree in
meaning, so the answer is not trusted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from substrate.act import Action
from substrate.errors import InvalidInputError, require_count, require_number

CALIBRATION_SAMPLES = 8


def semantic_entropy(
    samples: Sequence[Any], equivalent: Callable[[Any, Any], bool] | None = None
) -> float:
    """Shannon entropy (nats) of the meaning clusters of ``samples`` (0.0 for none or one)."""
    same = equivalent or (lambda a, b: a == b)
    reps: list[Any] = []
    counts: list[int] = []
    for sample in samples:
        for i, rep in enumerate(reps):
            if same(sample, rep):
                counts[i] += 1
                break
        else:
            reps.append(sample)
            counts.append(1)
    total = sum(counts)
    if total == 0:
        return 0.0
    return max(0.0, -sum((c / total) * math.log(c / total) for c in counts))


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile with linear interpolation (numpy's default method)."""
    ordered = sorted(values)
    if not ordered:
        raise InvalidInputError("quantile of no values")
    pos = (len(ordered) - 1) * q
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (pos - low))


@dataclass
class ExternalAnswer:
    """An external model's answer and its self-measured uncertainty."""

    prompt: Any
    answer: Any
    entropy: float
    confident: bool

    def as_dict(self) -> dict[str, Any]:
        """The answer as plain data, its entropy rounded to 4 places."""
        return {
            "prompt": self.prompt,
            "answer": self.answer,
            "entropy": round(self.entropy, 4),
            "confident": self.confident,
        }


class ExternalModel:
    """An external ``generate(prompt) -> answer`` wrapped so each answer carries uncertainty.

    Args:
        generate: the external model, called several times per prompt.
        calibration_prompts: example prompts; the ``1 - alpha`` quantile of their semantic
            entropy (8 samples each) becomes the "too uncertain" cutoff.
        equivalent: ``(a, b) -> bool`` meaning equivalence (default: equality).
        max_entropy: an explicit cutoff, overriding calibration (default: +inf without
            calibration prompts, so every answer counts as confident).
        alpha: the calibration miscoverage level.
        samples: resamples drawn per answer to measure entropy.

    Raises:
        InvalidInputError: ``alpha`` is not in [0, 1], ``samples`` is not a whole number >= 1,
            or ``max_entropy`` is not a number >= 0.
    """

    def __init__(
        self,
        generate: Callable[[Any], Any],
        *,
        calibration_prompts: Iterable[Any] | None = None,
        equivalent: Callable[[Any, Any], bool] | None = None,
        max_entropy: float | None = None,
        alpha: float = 0.1,
        samples: int = 8,
    ) -> None:
        if not callable(generate):
            raise InvalidInputError(f"generate must be callable, not {type(generate).__name__}")
        require_number(alpha, "alpha")
        if not 0.0 <= alpha <= 1.0:
            raise InvalidInputError(f"alpha must be in [0, 1], got {alpha}")
        require_count(samples, "samples", minimum=1)
        if max_entropy is not None:  # an entropy is never negative: no answer would pass
            require_number(max_entropy, "max_entropy", minimum=0)
        self.generate = generate
        self.equivalent = equivalent
        self.alpha = alpha
        self.samples = samples
        if max_entropy is not None:
            self._cutoff = float(max_entropy)
        else:
            prompts = list(calibration_prompts or [])
            if prompts:
                values = [self._entropy(p, CALIBRATION_SAMPLES) for p in prompts]
                self._cutoff = quantile(values, 1.0 - alpha)
            else:
                self._cutoff = math.inf

    @property
    def max_entropy(self) -> float:
        """The entropy above which an answer is treated as uncertain."""
        return self._cutoff

    def _entropy(self, prompt: Any, n: int) -> float:
        return semantic_entropy([self.generate(prompt) for _ in range(n)], self.equivalent)

    def answer(self, prompt: Any) -> ExternalAnswer:
        """One answer plus ``samples`` resamples to measure its semantic entropy."""
        answer = self.generate(prompt)
        entropy = self._entropy(prompt, self.samples)
        return ExternalAnswer(prompt, answer, entropy, entropy <= self._cutoff)

    def confident(self, prompt: Any) -> bool:
        """Whether fresh samples for ``prompt`` fall under the entropy cutoff."""
        return self._entropy(prompt, self.samples) <= self._cutoff


def external_action(
    model: ExternalModel,
    *,
    name: str = "external",
    cost: float = 8.0,
    description: str = "",
    trust_uncertain: bool = False,
) -> Action:
    """A DELEGATE action backed by an uncertainty-wrapped external model.

    An uncertain answer yields no fragment (unless ``trust_uncertain``), so the reasoner treats
    it as no answer rather than a guess. The fragment records the entropy.
    """

    def run(question: str) -> list[str]:
        result = model.answer(question)
        if not result.confident and not trust_uncertain:
            return []
        state = "confident" if result.confident else "uncertain"
        return [f"external[{state}, entropy={result.entropy:.3f}] => {result.answer}"]

    return Action(name, "delegate", run, cost=cost, description=description, base_score=0.0)
