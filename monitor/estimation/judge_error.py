"""The LLM judge measured against people: sensitivity and specificity from paired labels. Pure.

A calibration pair is one claim with both a judge verdict and a human label (three grades:
supported, partially_supported, not_supported). Each rate reads them as a binary class:

- hallucination: positive = `not_supported`;
- support: positive = `supported`.

Sensitivity = P(judge positive | human positive), specificity = P(judge negative | human
negative), each a binomial share of the human labels of one class. Their 95% intervals are
Agresti and Coull's (add z²/2 ≈ 1.92 successes and as many failures: "Approximate is better than
'exact' for interval estimation of binomial proportions", The American Statistician, 1998): a
share of 20/20 gets an interval of width > 0, so the correction's variance never collapses on a
small calibration sample that happens to hold no judge error.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from monitor.estimation.ppi import LEVEL, z_value

#: the human grade each rate counts as its positive class
POSITIVE: dict[str, str] = {"support": "supported", "hallucination": "not_supported"}

GRADES = ("supported", "partially_supported", "not_supported")


@dataclass(frozen=True, slots=True)
class Share:
    """`successes` of `trials` with Agresti-Coull's interval; `value` None with no trial."""

    successes: int
    trials: int
    level: float = LEVEL

    @property
    def value(self) -> float | None:
        return self.successes / self.trials if self.trials else None

    def adjusted(self) -> tuple[float, float]:
        """(p̃, ñ): the share with z²/2 pseudo-successes and z²/2 pseudo-failures, and the
        adjusted number of trials."""
        z2 = z_value(self.level) ** 2
        n = self.trials + z2
        return (self.successes + z2 / 2) / n, n

    def variance(self) -> float:
        """p̃(1 − p̃)/ñ: the adjusted share's variance (what the correction carries)."""
        p, n = self.adjusted()
        return p * (1 - p) / n

    @property
    def lower(self) -> float | None:
        return None if not self.trials else _interval(self)[0]

    @property
    def upper(self) -> float | None:
        return None if not self.trials else _interval(self)[1]

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "value": self.value,
            "lower": self.lower,
            "upper": self.upper,
            "count": self.trials,
        }


def _interval(share: Share) -> tuple[float, float]:
    p, _ = share.adjusted()
    half = z_value(share.level) * math.sqrt(share.variance())
    return max(0.0, p - half), min(1.0, p + half)


@dataclass(frozen=True, slots=True)
class JudgeError:
    """The 2×2 table of judge against human for one binary class."""

    true_positive: int  # human positive, judge positive
    false_negative: int  # human positive, judge negative
    true_negative: int  # human negative, judge negative
    false_positive: int  # human negative, judge positive
    level: float = LEVEL

    @property
    def sensitivity(self) -> Share:
        return Share(self.true_positive, self.true_positive + self.false_negative, self.level)

    @property
    def specificity(self) -> Share:
        return Share(self.true_negative, self.true_negative + self.false_positive, self.level)

    @property
    def agreement(self) -> Share:
        agree = self.true_positive + self.true_negative
        return Share(agree, agree + self.false_negative + self.false_positive, self.level)

    @property
    def labels(self) -> int:
        return self.agreement.trials

    @property
    def human_positive(self) -> Share:
        """The human labels alone: the share of positives (the human-only estimate)."""
        return Share(self.true_positive + self.false_negative, self.labels, self.level)

    def youden(self) -> float | None:
        """sensitivity + specificity − 1: 0 for a judge no better than a coin, 1 for a perfect
        one; None while one class has no human label."""
        se, sp = self.sensitivity.value, self.specificity.value
        return None if se is None or sp is None else se + sp - 1

    def __add__(self, other: JudgeError) -> JudgeError:
        return JudgeError(
            self.true_positive + other.true_positive,
            self.false_negative + other.false_negative,
            self.true_negative + other.true_negative,
            self.false_positive + other.false_positive,
            self.level,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "sensitivity": self.sensitivity.to_dict(),
            "specificity": self.specificity.to_dict(),
            "agreement": self.agreement.to_dict(),
            "labels": self.labels,
        }


NO_ERROR_TABLE = JudgeError(0, 0, 0, 0)


def judge_error(pairs: Iterable[tuple[str, str]], rate: str, level: float = LEVEL) -> JudgeError:
    """The table for `rate` from (judge verdict, human label) pairs of the three grades. A pair
    whose judge verdict or human label is not a grade (`unverifiable`, "can't tell") is left
    out: it says nothing about either class."""
    positive = POSITIVE[rate]
    tp = fn = tn = fp = 0
    for judged, human in pairs:
        if judged not in GRADES or human not in GRADES:
            continue
        if human == positive:
            if judged == positive:
                tp += 1
            else:
                fn += 1
        elif judged == positive:
            fp += 1
        else:
            tn += 1
    return JudgeError(tp, fn, tn, fp, level)
