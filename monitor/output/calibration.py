"""Agreement statistics between a tier's verdicts/scores and reference (human) labels.

Pure functions over plain sequences. Undefined statistics (one class missing, constant input)
are None rather than a misleading 0 or 0.5.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TypeVar

L = TypeVar("L", bound=Hashable)


def confusion_matrix(
    truth: Sequence[L], predicted: Sequence[L], labels: Sequence[L] | None = None
) -> dict[L, dict[L, int]]:
    """counts[true_label][predicted_label]; `labels` fixes the rows/columns (default: seen ones)."""
    _same_length(truth, predicted)
    if labels is None:
        labels = list(dict.fromkeys([*truth, *predicted]))
    counts: dict[L, dict[L, int]] = {t: dict.fromkeys(labels, 0) for t in labels}
    for t, p in zip(truth, predicted, strict=True):
        if t in counts and p in counts[t]:
            counts[t][p] += 1
    return counts


def balanced_accuracy(truth: Sequence[L], predicted: Sequence[L]) -> float | None:
    """Mean per-class recall over the classes present in `truth` (needs at least two)."""
    _same_length(truth, predicted)
    hits: dict[L, int] = {}
    totals: dict[L, int] = {}
    for t, p in zip(truth, predicted, strict=True):
        totals[t] = totals.get(t, 0) + 1
        hits[t] = hits.get(t, 0) + (t == p)
    if len(totals) < 2:
        return None
    return sum(hits[c] / totals[c] for c in totals) / len(totals)


def agreement_rate(first: Sequence[L], second: Sequence[L]) -> float | None:
    """Share of positions where the two label sequences agree."""
    _same_length(first, second)
    if not first:
        return None
    return sum(a == b for a, b in zip(first, second, strict=True)) / len(first)


def midranks(values: Sequence[float]) -> list[float]:
    """1-based ranks; tied values share the mean of the ranks they span."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        rank = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[order[k]] = rank
        i = j + 1
    return ranks


def auroc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """Area under the ROC curve = P(score of a positive > score of a negative), ties count 1/2.

    Computed from midranks (Mann-Whitney U), so it is exact with ties and O(n log n).
    """
    _same_length(scores, positive)
    n_pos = sum(1 for p in positive if p)
    n_neg = len(positive) - n_pos
    if not n_pos or not n_neg:
        return None
    ranks = midranks(scores)
    rank_sum = sum(r for r, p in zip(ranks, positive, strict=True) if p)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    _same_length(x, y)
    n = len(x)
    if n < 2:
        return None
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho with ties: the Pearson correlation of the midranks."""
    _same_length(x, y)
    return pearson(midranks(x), midranks(y))


def _same_length(a: Sequence[object], b: Sequence[object]) -> None:
    if len(a) != len(b):
        raise ValueError(f"length mismatch: {len(a)} != {len(b)}")


HUMAN_GRADES: dict[str, int] = {"supported": 2, "partially_supported": 1, "not_supported": 0}


def binary_prediction(verdict: str, score: float, threshold: float = 0.5) -> bool:
    """supported → True, not_supported → False; the undecided verdicts by their score."""
    if verdict == "supported":
        return True
    if verdict == "not_supported":
        return False
    return score >= threshold


def agreement_report(
    labels: Sequence[str],
    verdicts: Sequence[str],
    scores: Sequence[float],
    threshold: float = 0.5,
) -> dict[str, object]:
    """Every figure `ragmon eval` prints for one tier against human labels.

    labels: supported / partially_supported / not_supported (seed 001 §7.3 grades 2 / 1 / 0);
    verdicts: the tier's four-way verdicts; scores: its support scores in [0, 1].
    """
    _same_length(labels, verdicts)
    _same_length(labels, scores)
    predicted = [binary_prediction(v, s, threshold) for v, s in zip(verdicts, scores, strict=True)]
    positive = [label == "supported" for label in labels]
    strict = [i for i, label in enumerate(labels) if label != "partially_supported"]
    return {
        "n": len(labels),
        "n_by_label": {k: sum(1 for label in labels if label == k) for k in HUMAN_GRADES},
        "balanced_accuracy": balanced_accuracy(
            [positive[i] for i in strict], [predicted[i] for i in strict]
        ),
        "balanced_accuracy_partial_negative": balanced_accuracy(positive, predicted),
        "auroc": auroc([scores[i] for i in strict], [positive[i] for i in strict]),
        "auroc_partial_negative": auroc(scores, positive),
        # seed 001 §7.3: agree when the tier says supports and human >= 2, or not and <= 1
        "agreement_rate": agreement_rate(positive, predicted),
        "spearman": spearman(scores, [float(HUMAN_GRADES[label]) for label in labels]),
        "confusion": confusion_matrix(
            list(labels),
            list(verdicts),
            ["supported", "partially_supported", "not_supported", "unverifiable"],
        ),
        "threshold": threshold,
    }
