"""`ragmon eval --rates`: the estimator against labelled events, over resampled judge samples.

Each labelled event is one unit: its human label is the reference for its claims (an oracle
judge: the judge's answer is the human label), its cheap score the predictor. Every resample
draws the judge sample as the stream does, uniformly (each event with probability `judge_rate`,
independently), and computes from the same window sums as the stream (monitor.estimation.window):

- the new estimate (PPI++) with its 95% interval, and the judge-only interval;
- what today's judge corrections would read: the cheap counts with the judged events' judgeable
  claims replaced by their labels (supported / claims, not supported / claims).

Units without a judgeable claim are decided by the stream's rule (`EvalUnit.ruled`,
monitor.estimation.window.judgeable_split): invalid citations or no context to judge on count as
not supported; a refusal or a claim past the claim cap counts in no rate. The truth is the share
of all labelled units with each human label, refusals included: what the stream leaves out is
measured, not defined away.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from monitor.estimation.window import RATES, answer_sums, label_sums, rate_figures

#: reference label → (supported, not supported) indicator
LABEL_VALUES: dict[str, tuple[int, int]] = {
    "supported": (1, 0),
    "partially_supported": (0, 0),
    "not_supported": (0, 1),
}


@dataclass(frozen=True, slots=True)
class EvalUnit:
    """One labelled event with at least one claim."""

    label: str | None  # the reference (human label, or the judge's verdict with --judge); None:
    # the judge gave no verdict (a drawn event without one drops out of the sample, as in the
    # stream)
    truth: str  # the human label
    score: float | None  # cheap score of its judgeable claim (weakest); None: no judgeable claim
    claims: int  # the cheap tier's claims (today's gauge counts these)
    cheap_supported: int
    cheap_unsupported: int
    judgeable: int  # claims of the event the judge would see
    judgeable_supported: int  # ... of those, cheap verdicts supported / not supported
    judgeable_unsupported: int
    #: without a judgeable claim (`score` None): the label the stream's rule gives the unit (a
    #: key of LABEL_VALUES), or None where it counts in no rate (a refusal asserts nothing)
    ruled: str | None = "not_supported"


def _add(into: dict[str, int], sums: Mapping[str, int]) -> None:
    for k, v in sums.items():
        into[k] = into.get(k, 0) + v


def base_sums(units: Sequence[EvalUnit]) -> dict[str, int]:
    """The window sums over all events (no label yet): the event is the estimation's claim."""
    sums: dict[str, int] = {}
    for u in units:
        if u.score is None:
            if u.ruled is not None:
                s, h = LABEL_VALUES[u.ruled]
                _add(sums, answer_sums([], s, h, 1 - s - h))
        else:
            _add(sums, answer_sums([u.score], 0, 0))
    return sums


def sample_sums(
    units: Sequence[EvalUnit], base: Mapping[str, int], judged: Sequence[int]
) -> dict[str, int]:
    """The window sums of one judge sample: `base` plus the judged units' label sums."""
    sums = dict(base)
    for i in judged:
        u = units[i]
        if u.label is not None and u.score is not None:
            s, h = LABEL_VALUES[u.label]
            _add(sums, label_sums([u.score], s, h))
    return sums


def sample_figures(
    units: Sequence[EvalUnit], base: Mapping[str, int], judged: Sequence[int]
) -> dict[str, Any]:
    """Estimates and correction figures for one judge sample (indexes into `units`)."""
    sums = sample_sums(units, base, judged)
    claims = sup = unsup = 0
    for u in units:
        claims += u.claims
        sup += u.cheap_supported
        unsup += u.cheap_unsupported
    for i in judged:
        u = units[i]
        if u.label is None or u.score is None:
            continue
        s, h = LABEL_VALUES[u.label]
        sup += s * u.judgeable - u.judgeable_supported
        unsup += h * u.judgeable - u.judgeable_unsupported
    out: dict[str, Any] = {"n": len(judged)}
    for rate in RATES:
        fig = rate_figures(sums, rate)
        out[rate] = {
            "estimate": fig.estimate,
            "judge_only": fig.judge_only,
            "correction": (sup if rate == "support" else unsup) / claims if claims else None,
        }
    return out


def truth(units: Sequence[EvalUnit]) -> dict[str, float]:
    n = len(units)
    return {
        "support": sum(LABEL_VALUES[u.truth][0] for u in units) / n,
        "hallucination": sum(LABEL_VALUES[u.truth][1] for u in units) / n,
    }


def reference(units: Sequence[EvalUnit]) -> dict[str, float | None]:
    """The rates the reference (the judge with --judge) gives over the units the stream counts,
    decided by rule where it cannot look: what the estimate targets. Equal to `truth` with the
    oracle judge except for units without a judgeable claim."""
    n = sup = hal = 0
    for u in units:
        # without a judgeable claim the stream's rule decides (None: in no rate); else the
        # reference's label (None: the judge gave no verdict, unknown)
        label = u.ruled if u.score is None else u.label
        if label is not None:
            s, h = LABEL_VALUES[label]
            n, sup, hal = n + 1, sup + s, hal + h
    if not n:
        return {"support": None, "hallucination": None}
    return {"support": sup / n, "hallucination": hal / n}


def cheap(units: Sequence[EvalUnit]) -> dict[str, float]:
    claims = sum(u.claims for u in units)
    return {
        "support": sum(u.cheap_supported for u in units) / claims,
        "hallucination": sum(u.cheap_unsupported for u in units) / claims,
    }


def draw(units: Sequence[EvalUnit], rate: float, rng: random.Random) -> list[int]:
    """A uniform judge sample: every judgeable event independently with probability `rate`."""
    return [
        i
        for i, u in enumerate(units)
        if u.score is not None and rng.random() < rate and u.label is not None
    ]


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def median_interval(xs: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    """A distribution-free interval for the median of the distribution `xs` is drawn from: the
    order statistics x_(l) and x_(R−l+1) with the largest l whose binomial tail keeps coverage
    ≥ `level` (the number of draws below the median is Binomial(R, ½)). It says how precisely
    R resamples pin a median down: with 200 resamples a median error of 0.05 is known to about
    ±0.004. None when R is too small for `level` (R < 6 at 95%)."""
    r = len(xs)
    # exact integer arithmetic: 2^r overflows a float from r ≈ 1,024 resamples
    alpha = Fraction(1.0 - level).limit_denominator(1_000_000)
    total = 2**r
    term = 1  # C(r, k)
    tail = 0  # Σ_{k < l} C(r, k): draws below x_(l)
    rank = 0
    for k in range(r // 2 + 1):
        tail += term
        if 2 * tail * alpha.denominator > alpha.numerator * total:
            break
        rank = k + 1
        term = term * (r - k) // (k + 1)
    if rank == 0:
        return None
    ordered = sorted(xs)
    return ordered[rank - 1], ordered[r - rank]


def resample(
    units: Sequence[EvalUnit],
    judge_rate: float = 0.1,
    resamples: int = 200,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
    relabel: Callable[[int], Sequence[EvalUnit]] | None = None,
) -> dict[str, Any]:
    """The figures of `ragmon eval --rates` (per rate: truth, cheap, medians, coverage).
    `relabel(r)`: the units with the judge's labels of resample r (a simulated judge:
    monitor.estimation.evaluate_human); None: `units` as they are."""
    if not units:
        raise ValueError("no labelled event with a claim")
    base = base_sums(units)
    true, cheap_fig, ref = truth(units), cheap(units), reference(units)
    per: dict[str, dict[str, list[float]]] = {
        r: {k: [] for k in ("corr", "est", "est_val", "half", "cover", "judge_half", "jo_cover")}
        for r in RATES
    }
    ns: list[float] = []
    missing = 0
    for r in range(resamples):
        rng = random.Random(seed * 1_000_003 + r)
        judged_units = units if relabel is None else relabel(r)
        fig = sample_figures(judged_units, base, draw(judged_units, judge_rate, rng))
        ns.append(fig["n"])
        for rate in RATES:
            f, acc = fig[rate], per[rate]
            if f["correction"] is not None:
                acc["corr"].append(abs(f["correction"] - true[rate]))
            est, jo = f["estimate"], f["judge_only"]
            if est is None or jo is None:
                missing += rate == "support"
                continue
            acc["est"].append(abs(est.value - true[rate]))
            acc["est_val"].append(est.value)
            acc["half"].append(est.halfwidth)
            acc["cover"].append(1.0 if est.covers(true[rate]) else 0.0)
            acc["judge_half"].append(jo.halfwidth)
            acc["jo_cover"].append(1.0 if jo.covers(true[rate]) else 0.0)
        if progress is not None:
            progress(r)
    out: dict[str, Any] = {
        "events": len(units),
        "judgeable_events": sum(1 for u in units if u.score is not None),
        "uncounted_events": sum(1 for u in units if u.score is None and u.ruled is None),
        "judge_rate": judge_rate,
        "resamples": resamples,
        "seed": seed,
        "judged_events_median": _median(ns),
        "resamples_without_estimate": missing,
    }
    for rate in RATES:
        acc = per[rate]
        out[rate] = {
            "truth": true[rate],
            "reference": ref[rate],
            "cheap": cheap_fig[rate],
            "correction_abs_error_median": _median(acc["corr"]),
            "estimate_abs_error_median": _median(acc["est"]),
            "estimate_abs_error_median_interval": median_interval(acc["est"]),
            "estimate_median": _median(acc["est_val"]),
            "ci_halfwidth_median": _median(acc["half"]),
            "ci_coverage": statistics.fmean(acc["cover"]) if acc["cover"] else None,
            "judge_only_ci_halfwidth_median": _median(acc["judge_half"]),
            "judge_only_ci_coverage": statistics.fmean(acc["jo_cover"])
            if acc["jo_cover"]
            else None,
            "narrower_or_equal_share": (
                statistics.fmean(
                    1.0 if h <= j + 1e-12 else 0.0
                    for h, j in zip(acc["half"], acc["judge_half"], strict=True)
                )
                if acc["half"]
                else None
            ),
        }
    return out


def bands(
    units: Sequence[EvalUnit],
    judge_rates: Sequence[float],
    resamples: int,
    seed: int,
) -> list[dict[str, Any]]:
    """Per judge rate: median estimate and median interval, PPI++ and judge-only (the HTML
    report's plot)."""
    rows = []
    base = base_sums(units)
    for p in judge_rates:
        got: dict[str, dict[str, list[float]]] = {
            r: {k: [] for k in ("v", "lo", "hi", "jlo", "jhi")} for r in RATES
        }
        for r in range(resamples):
            rng = random.Random(seed * 1_000_003 + r)
            fig = sample_figures(units, base, draw(units, p, rng))
            for rate in RATES:
                est, jo = fig[rate]["estimate"], fig[rate]["judge_only"]
                if est is None or jo is None:
                    continue
                g = got[rate]
                g["v"].append(est.value)
                g["lo"].append(est.lower)
                g["hi"].append(est.upper)
                g["jlo"].append(jo.lower)
                g["jhi"].append(jo.upper)
        row: dict[str, Any] = {"judge_rate": p}
        for rate in RATES:
            g = got[rate]
            row[rate] = {k: _median(v) for k, v in g.items()}
        rows.append(row)
    return rows
