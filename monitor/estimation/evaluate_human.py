"""`ragmon eval --rates --human-labels N`: the human-scale correction against labelled events.

Every resample r, on top of the judge sample of monitor.estimation.evaluate:

- the judge: the units' own labels (the oracle, or the real judge's verdicts with `--judge`), or
  a simulated judge (`simulate_judge`, seeded per resample) that misreads the human label with
  a known sensitivity S and specificity P for "not supported";
- the calibration sample: N judgeable units drawn uniformly (without replacement) among those
  with a judge verdict, each keeping its human label. It stands for labels pooled over a longer
  horizon than the window, so it is drawn independently of the judge sample;
- the window's judge-scale estimate corrected to the human scale (monitor.estimation.human),
  against the human truth; and the N human labels alone (Agresti-Coull) for comparison.

Simulated judge, per unit: a `not_supported` human label stays with probability S, else reads
`supported`; a `supported` or `partially_supported` one reads `not_supported` with probability
1 − P, else stays. So for hallucination (positive: not_supported) Se = S and Sp = P exactly;
for support (positive: supported) Se = P, and Sp mixes 1 (partially supported claims the judge
never calls supported) with S (not supported ones it does).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from monitor.estimation.evaluate import (
    EvalUnit,
    base_sums,
    draw,
    median_interval,
    sample_sums,
    truth,
)
from monitor.estimation.human import human_only, window_human
from monitor.estimation.judge_error import JudgeError, judge_error
from monitor.estimation.window import RATES, rate_figures


def simulate_judge(
    units: Sequence[EvalUnit], sensitivity: float, specificity: float, rng: random.Random
) -> list[EvalUnit]:
    """The units with a simulated judge's labels (one draw per unit, whatever its label, so
    the stream of draws does not depend on the labels)."""
    out = []
    for u in units:
        flip = rng.random()
        if u.truth == "not_supported":
            label = u.truth if flip < sensitivity else "supported"
        else:
            label = "not_supported" if flip >= specificity else u.truth
        out.append(replace(u, label=label))
    return out


def calibration(units: Sequence[EvalUnit], n: int, rng: random.Random) -> dict[str, JudgeError]:
    """Per rate, the judge-vs-human table of a uniform sample of `n` judgeable units that have
    a judge verdict (all of them when fewer)."""
    pool = [u for u in units if u.score is not None and u.label is not None]
    chosen = rng.sample(pool, min(n, len(pool)))
    pairs = [(u.label or "", u.truth) for u in chosen]
    return {rate: judge_error(pairs, rate) for rate in RATES}


def judge_for(
    units: Sequence[EvalUnit], seed: int, sensitivity: float | None, specificity: float | None
) -> Callable[[int], Sequence[EvalUnit]] | None:
    """The per-resample relabelling of a simulated judge; None for the units' own labels."""
    if sensitivity is None or specificity is None:
        return None
    s, p = sensitivity, specificity
    return lambda r: simulate_judge(units, s, p, random.Random(f"judge:{seed}:{r}"))


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def resample_human(
    units: Sequence[EvalUnit],
    judge_rate: float,
    resamples: int,
    seed: int,
    human_labels: int,
    sensitivity: float | None = None,
    specificity: float | None = None,
) -> dict[str, Any]:
    """Per rate: the judge-scale estimate's error against the human truth, the corrected
    estimate's error, coverage and half-width, the human-only half-width, and the judge's
    measured sensitivity and specificity (medians over resamples)."""
    if not units:
        raise ValueError("no labelled event with a claim")
    base = base_sums(units)
    true = truth(units)
    relabel = judge_for(units, seed, sensitivity, specificity)
    keys = (
        *("judge_err", "err", "val", "half", "cover", "human_half", "human_cover", "se", "sp"),
        *("above", "below"),
        *("rg_err", "rg_half", "rg_cover"),
    )
    per: dict[str, dict[str, list[float]]] = {r: {k: [] for k in keys} for r in RATES}
    reasons: dict[str, dict[str, int]] = {r: {} for r in RATES}
    for r in range(resamples):
        judged_units = units if relabel is None else relabel(r)
        rng = random.Random(seed * 1_000_003 + r)  # the same judge sample as `resample`
        sums = sample_sums(judged_units, base, draw(judged_units, judge_rate, rng))
        tables = calibration(judged_units, human_labels, random.Random(f"cal:{seed}:{r}"))
        for rate in RATES:
            acc, t, table = per[rate], true[rate], tables[rate]
            est = rate_figures(sums, rate).estimate
            if est is not None:
                acc["judge_err"].append(abs(est.value - t))
            for key, share in (("se", table.sensitivity), ("sp", table.specificity)):
                if share.value is not None:
                    acc[key].append(share.value)
            alone = human_only(table)
            if alone is not None:
                acc["human_half"].append((alone[1] - alone[0]) / 2)
                acc["human_cover"].append(1.0 if alone[0] <= t <= alone[1] else 0.0)
            alone_rg = window_human(sums, rate, table)
            if alone_rg is not None and alone_rg.value is not None:
                acc["rg_err"].append(abs(alone_rg.value - t))
                acc["rg_half"].append(alone_rg.halfwidth or 0.0)
                acc["rg_cover"].append(1.0 if alone_rg.covers(t) else 0.0)
            got = window_human(sums, rate, table, direct=table.human_positive)
            if got is None or got.value is None:
                why = "no_judge_scale_estimate" if got is None else str(got.reason)
                reasons[rate][why] = reasons[rate].get(why, 0) + 1
                continue
            acc["err"].append(abs(got.value - t))
            acc["val"].append(got.value)
            acc["half"].append(got.halfwidth or 0.0)
            acc["cover"].append(1.0 if got.covers(t) else 0.0)
            # which side a miss falls on: an alert on the lower bound pages on "above"
            acc["above"].append(1.0 if got.lower is not None and got.lower > t else 0.0)
            acc["below"].append(1.0 if got.upper is not None and got.upper < t else 0.0)
    out: dict[str, Any] = {}
    for rate in RATES:
        acc = per[rate]
        out[rate] = {
            "judge_scale_abs_error_median": _median(acc["judge_err"]),
            "corrected_abs_error_median": _median(acc["err"]),
            "corrected_abs_error_median_interval": median_interval(acc["err"]),
            "corrected_median": _median(acc["val"]),
            "corrected_ci_coverage": statistics.fmean(acc["cover"]) if acc["cover"] else None,
            "corrected_ci_miss_above": statistics.fmean(acc["above"]) if acc["above"] else None,
            "corrected_ci_miss_below": statistics.fmean(acc["below"]) if acc["below"] else None,
            "corrected_ci_halfwidth_median": _median(acc["half"]),
            "human_only_ci_halfwidth_median": _median(acc["human_half"]),
            "human_only_ci_coverage": statistics.fmean(acc["human_cover"])
            if acc["human_cover"]
            else None,
            "rogan_gladen_abs_error_median": _median(acc["rg_err"]),
            "rogan_gladen_ci_coverage": statistics.fmean(acc["rg_cover"])
            if acc["rg_cover"]
            else None,
            "rogan_gladen_ci_halfwidth_median": _median(acc["rg_half"]),
            "judge_sensitivity_median": _median(acc["se"]),
            "judge_specificity_median": _median(acc["sp"]),
            "resamples_without_correction": dict(sorted(reasons[rate].items())),
        }
    return out
