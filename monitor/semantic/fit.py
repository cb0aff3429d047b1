"""Fitting a cut without tuning it by hand, and the paired bootstrap of an AUROC gain.

The cut of a score (or of a combination of scores) is where a class-balanced logistic
regression, fitted on one half of one dev set, gives probability 1/2: each class weighs half
whatever its share, so the cut aims at balanced accuracy without searching cut values for the
best one on the data it is then judged on.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from monitor.output.calibration import auroc


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the systems here are 2×2 or 3×3)."""
    n = len(b)
    m = [[*row, rhs] for row, rhs in zip(a, b, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-12:
            raise ValueError("singular system: a feature is constant or collinear")
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def balanced_logistic(
    features: Sequence[Sequence[float]],
    positive: Sequence[bool],
    ridge: float = 1e-3,
    iterations: int = 50,
) -> list[float]:
    """Weights [w_1..w_k, bias] of P(positive) = σ(w·x + bias), each class weighted by
    n / (2 n_class); Newton's method with a small ridge on the weights (not the bias) so a
    separable half still has a finite answer."""
    n = len(positive)
    if n != len(features):
        raise ValueError(f"length mismatch: {len(features)} != {n}")
    n_pos = sum(1 for p in positive if p)
    if not n_pos or n_pos == n:
        raise ValueError("both classes are needed")
    weight = {True: n / (2 * n_pos), False: n / (2 * (n - n_pos))}
    k = len(features[0]) + 1
    beta = [0.0] * k
    for _ in range(iterations):
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]
        for x, y in zip(features, positive, strict=True):
            row = [*x, 1.0]
            z = sum(b * v for b, v in zip(beta, row, strict=True))
            p = 1 / (1 + math.exp(-max(-35.0, min(35.0, z))))
            w = weight[bool(y)]
            for i in range(k):
                grad[i] += w * (float(y) - p) * row[i]
                for j in range(k):
                    hess[i][j] += w * p * (1 - p) * row[i] * row[j]
        for i in range(k - 1):
            grad[i] -= ridge * n * beta[i]
            hess[i][i] += ridge * n
        step = _solve(hess, grad)
        beta = [b + s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-10:
            break
    return beta


def linear_score(beta: Sequence[float], x: Sequence[float]) -> float:
    """w·x + bias: positive iff the fitted probability is at least 1/2."""
    return sum(b * v for b, v in zip(beta[:-1], x, strict=True)) + beta[-1]


def paired_auroc_gain(
    new: Sequence[float],
    old: Sequence[float],
    positive: Sequence[bool],
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float] | None:
    """(gain, 2.5th percentile, 97.5th percentile) of AUROC(new) − AUROC(old), both scores
    resampled on the same drawn items; None when a class is missing from the data."""
    gain = _gain(new, old, positive, range(len(positive)))
    if gain is None:
        return None
    rng = random.Random(seed)
    n = len(positive)
    gains: list[float] = []
    for _ in range(resamples):
        pick = [rng.randrange(n) for _ in range(n)]
        g = _gain(new, old, positive, pick)
        if g is not None:
            gains.append(g)
    gains.sort()
    lo = gains[int(0.025 * (len(gains) - 1))]
    hi = gains[math.ceil(0.975 * (len(gains) - 1))]
    return gain, lo, hi


def _gain(
    new: Sequence[float], old: Sequence[float], positive: Sequence[bool], pick: Sequence[int]
) -> float | None:
    truth = [positive[i] for i in pick]
    a = auroc([new[i] for i in pick], truth)
    b = auroc([old[i] for i in pick], truth)
    return None if a is None or b is None else a - b


def split_half(ids: Sequence[str], seed: int) -> tuple[set[str], set[str]]:
    """(fit, test): a seeded random half of the sorted ids, and the rest."""
    order = sorted(set(ids))
    random.Random(seed).shuffle(order)
    cut = len(order) // 2
    return set(order[:cut]), set(order[cut:])
