"""Answer-level judging (seed 004) and canary agreement. Pure.

Seed 004's overall score: mean citation support × 0.5 + interpretability × 0.25 + correctness ×
0.25, where a citation's support score is 1.0 / 0.5 / 0.0 for ENTAILMENT / NEUTRAL /
CONTRADICTION. Here the mean runs over the claims the judge decided (one support score per claim
against all its evidence); with no decided claim there is no overall score.

Canary agreement follows seed 001 §7.3: the judge (or the cheap tier) "says supports" for an
answer when every judged claim is supported; a person says so when the gold label is supported or
partially_supported (their 0-3 scale's 2 and 3). Agreement is the share of the last `size`
canaries of an app where both say the same.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from monitor.judge.schema import AnswerVerdict, PairVerdict

W_SUPPORT, W_INTERPRETABILITY, W_CORRECTNESS = 0.5, 0.25, 0.25


def overall_score(support_scores: Sequence[float], answer: AnswerVerdict) -> float | None:
    if not support_scores:
        return None
    mean_support = sum(support_scores) / len(support_scores)
    return (
        mean_support * W_SUPPORT
        + answer.interpretability_score * W_INTERPRETABILITY
        + answer.correctness_score * W_CORRECTNESS
    )


def answer_record(verdicts: Iterable[PairVerdict], answer: AnswerVerdict) -> dict[str, Any]:
    scores = [v.support_score for v in verdicts if v.judgement != "ABSTAIN"]
    return {
        "alignment": answer.alignment,
        "correctness_score": answer.correctness_score,
        "interpretability_score": answer.interpretability_score,
        "missing_information": list(answer.missing_information),
        "reasoning": answer.reasoning,
        "mean_support": sum(scores) / len(scores) if scores else None,
        "overall": overall_score(scores, answer),
    }


def says_supported(verdicts: Iterable[str | None]) -> bool | None:
    """All decided claims supported → True; any decided and not supported → False; none → None."""
    decided = [v for v in verdicts if v is not None and v != "unverifiable"]
    if not decided:
        return None
    return all(v == "supported" for v in decided)


def human_says_supported(label: str) -> bool:
    return label in ("supported", "partially_supported")


class AgreementWindow:
    """Agreement of one tier with canary labels over the last `size` canaries, per app."""

    def __init__(self, size: int = 200) -> None:
        self.size = size
        self._seen: dict[str, deque[bool]] = {}

    def observe(self, app: str, predicted: bool | None, label: str) -> float | None:
        """Record one canary; returns the app's agreement ratio (None if nothing decided yet)."""
        window = self._seen.setdefault(app, deque(maxlen=self.size))
        if predicted is not None:
            window.append(predicted == human_says_supported(label))
        return self.ratio(app)

    def ratio(self, app: str) -> float | None:
        window = self._seen.get(app)
        if not window:
            return None
        return sum(window) / len(window)
