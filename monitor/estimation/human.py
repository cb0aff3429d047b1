"""Support and hallucination on the human scale: the judge's rate corrected for its error. Pure.

The window's estimate (monitor.estimation.window, PPI++) is what the judge would say. A judge
with sensitivity Se and specificity Sp for a class reads a human rate p as

    p_J = Se·p + (1 − Sp)·(1 − p)

so, when Se + Sp > 1, the human rate is Rogan and Gladen's correction ("Estimating prevalence
from the results of a screening test", American Journal of Epidemiology, 1978):

    p = (p_J + Sp − 1) / (Se + Sp − 1)

Se and Sp come from the calibration pairs (monitor.estimation.judge_error), pooled over a longer
horizon than the window; p_J and its standard error from the window's PPI++ estimate. Why this
and not PPI with the judge's verdict as predictor and the human label as truth: that rectifier,
mean(human − judge) = p(1 − Se) − (1 − p)(1 − Sp), depends on the rate p itself, so a rectifier
pooled over a day is biased in a window whose rate differs from the day's (the windows alerts
care about). Rogan-Gladen assumes only that Se and Sp, the judge's error per human class, are
the same in the window as over the horizon: the `judge_drift` rule watches that.

Interval (delta method): with J = Se + Sp − 1,

    Var(p̂) ≈ [Var(p̂_J) + p²·Var(Ŝe) + (1 − p)²·Var(Ŝp) + W] / J²

- Var(p̂_J): the PPI++ estimate's (judge sample, finite-population corrected);
- Var(Ŝe), Var(Ŝp): Agresti-Coull's adjusted binomial variances (never 0, so 20 agreements out
  of 20 do not make the calibration look exact);
- W = [p·Se(1 − Se) + (1 − p)·Sp(1 − Sp)] / M, with M the window's judgeable claims: the judge's
  own coin flips inside the window. The estimand is the window's human rate, and even a judge
  with a known Se misses a Binomial share of the window's positives; PPI's interval covers the
  judge's reading of the window, not this. 0 when M is not given.

The interval is p̂ ± t·√Var (t with the judge sample's degrees of freedom, as the window's),
clipped to [0, 1] and widened to hold the clipped point. With human labels of the window's own
claims averaged in (`direct`), it is the score interval of the average instead
(monitor.estimation.score_interval: both variances taken at each rate tested, Wilson's without a
judge), which misses as often above the truth as below. Its coverage is measured, not assumed
(tests/unit/monitor/estimation/test_human.py; `ragmon eval --rates --human-labels`).

Degenerate cases give no estimate and a reason: no human label of the positive class
(`no_human_positive`: Se unknown), none of the negative class (`no_human_negative`: Sp unknown),
or Se + Sp ≤ 1 measured (`judge_no_better_than_chance`: the judge's reading carries no
information the correction could invert; the rate would be a division by ~0). Callers then show
the judge's scale.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from monitor.estimation.judge_error import JudgeError, Share
from monitor.estimation.ppi import LEVEL, t_value
from monitor.estimation.score_interval import score_bounds
from monitor.estimation.window import rate_figures, window_claims

NO_HUMAN_POSITIVE = "no_human_positive"
NO_HUMAN_NEGATIVE = "no_human_negative"
NO_BETTER_THAN_CHANCE = "judge_no_better_than_chance"


@dataclass(frozen=True, slots=True)
class HumanEstimate:
    """A rate on the human scale with its interval, or why there is none (`reason`)."""

    value: float | None
    lower: float | None
    upper: float | None
    stderr: float | None
    judged: float  # the judge-scale rate it corrects
    labels: int  # calibration pairs behind Se and Sp
    reason: str | None = None
    level: float = LEVEL

    @property
    def halfwidth(self) -> float | None:
        """(upper − lower)/2 after clipping: the width a reader sees."""
        if self.lower is None or self.upper is None:
            return None
        return (self.upper - self.lower) / 2

    def covers(self, truth: float) -> bool:
        return (
            self.lower is not None and self.upper is not None and self.lower <= truth <= self.upper
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "estimate": self.value,
            "lower": self.lower,
            "upper": self.upper,
            "stderr": self.stderr,
            "judged": self.judged,
            "labels": self.labels,
            "reason": self.reason,
            "level": self.level,
        }


def rogan_gladen(judged: float, sensitivity: float, specificity: float) -> float:
    """(p_J + Sp − 1)/(Se + Sp − 1), unclipped; Se + Sp must exceed 1."""
    youden = sensitivity + specificity - 1
    if youden <= 0:
        raise ValueError("sensitivity + specificity must exceed 1")
    return (judged + specificity - 1) / youden


def why_not(error: JudgeError) -> str | None:
    """The degenerate case `error` is in, or None when the correction is defined."""
    if not error.sensitivity.trials:
        return NO_HUMAN_POSITIVE
    if not error.specificity.trials:
        return NO_HUMAN_NEGATIVE
    youden = error.youden()
    if youden is None or youden <= 0:
        return NO_BETTER_THAN_CHANCE
    return None


def correct(
    judged: float,
    judged_stderr: float,
    error: JudgeError,
    df: float = math.inf,
    window_claims: float = 0.0,
    scale: float = 1.0,
    offset: float = 0.0,
    direct: Share | None = None,
) -> HumanEstimate:
    """offset + scale·p̂ on the human scale, from the judge-scale share `judged` (of the claims
    the judge sees) with its standard error and the calibration table `error`.

    `scale` and `offset` as in monitor.estimation.ppi.ppi_mean: the rate over all claims is the
    rule-decided claims' share (`offset`) plus the judgeable claims' share (`scale`) times the
    judgeable claims' human rate. Rule-decided claims are not corrected: no judge read them.
    `window_claims`: the window's judgeable claims (the W term); 0 leaves W out. `df`: degrees
    of freedom of the judge-scale estimate (judged answers − 1).

    `direct`: human labels of a *uniform sample of this window's* judgeable claims (positives
    of the rate / labelled). They observe the window's rate without a judge, so the two
    estimates, each unbiased for the window's rate, are averaged with inverse-variance weights
    (`combine`); the interval is then the average's score interval (`score_bounds`). Labels
    pooled from outside the window, or picked by a reviewer, calibrate only: pass them in
    `error`, not here."""
    level = error.level
    reason = why_not(error)
    rg: tuple[float, float] | None = None  # (raw rate, variance) on the judgeable claims
    if reason is None:
        rg = _rogan_gladen_variance(judged, judged_stderr, error, window_claims)
    own = _direct(direct, window_claims) if direct is not None and direct.trials else None
    if rg is None and own is None:
        return HumanEstimate(None, None, None, None, judged, error.labels, reason, level)
    raw, variance = combine(rg, own)
    p = _clip(raw)
    stderr = scale * math.sqrt(variance)
    t = t_value(level, df if rg else math.inf)
    if direct is not None and own is not None:
        # the window's own labels: the score interval of the average (Wilson's without a judge)
        other = None
        if rg is not None:
            other = (rg[0], lambda at: _rg_variance(at, judged_stderr, error, window_claims))
        fpc = _direct_fpc(direct, window_claims)
        low, high = score_bounds(direct.successes, direct.trials, fpc, t, other)
        low, high = offset + scale * low, offset + scale * high
    else:
        centre = offset + scale * raw
        low, high = centre - t * stderr, centre + t * stderr
    value = _clip(offset + scale * p)
    return HumanEstimate(
        value=value,
        lower=_clip(min(value, low)),
        upper=_clip(max(value, high)),
        stderr=stderr,
        judged=judged,
        labels=error.labels,
        level=level,
    )


def _rogan_gladen_variance(
    judged: float, judged_stderr: float, error: JudgeError, window_claims: float
) -> tuple[float, float]:
    """(raw Rogan-Gladen rate, its delta-method variance) for a non-degenerate table."""
    se_v, sp_v = error.sensitivity.value, error.specificity.value
    assert se_v is not None and sp_v is not None  # why_not checked both classes
    raw = rogan_gladen(judged, se_v, sp_v)
    # the derivatives' weights: a rate, not an extrapolation past [0, 1]
    return raw, _rg_variance(_clip(raw), judged_stderr, error, window_claims)


def _rg_variance(p: float, judged_stderr: float, error: JudgeError, window_claims: float) -> float:
    """The delta-method variance of the Rogan-Gladen rate, its weights taken at the rate `p`."""
    se, sp = error.sensitivity, error.specificity
    se_v, sp_v = se.value, sp.value
    assert se_v is not None and sp_v is not None
    variance = judged_stderr**2 + p * p * se.variance() + (1 - p) ** 2 * sp.variance()
    if window_claims > 0:
        se_a, _ = se.adjusted()
        sp_a, _ = sp.adjusted()
        variance += (p * se_a * (1 - se_a) + (1 - p) * sp_a * (1 - sp_a)) / window_claims
    return variance / (se_v + sp_v - 1) ** 2


def _direct(share: Share, window_claims: float) -> tuple[float, float]:
    """(share of positives, variance) of a uniform sample of the window's claims: Agresti-
    Coull's adjusted variance, finite-population corrected when the window's size is known."""
    value = share.value
    assert value is not None
    return value, share.variance() * _direct_fpc(share, window_claims)


def _direct_fpc(share: Share, window_claims: float) -> float:
    return max(0.0, 1.0 - share.trials / window_claims) if window_claims > 0 else 1.0


def combine(
    first: tuple[float, float] | None, second: tuple[float, float] | None
) -> tuple[float, float]:
    """Inverse-variance average of two independent unbiased estimates (value, variance); one
    alone is returned as it is. A variance of 0 wins outright (an exact figure)."""
    if first is None or second is None:
        got = first or second
        assert got is not None
        return got
    (a, va), (b, vb) = first, second
    if va <= 0 or vb <= 0:
        return first if va <= 0 else second
    w = vb / (va + vb)
    return w * a + (1 - w) * b, va * vb / (va + vb)


def human_only(error: JudgeError) -> tuple[float, float] | None:
    """The calibration labels alone as an estimate of the rate: Agresti-Coull's interval of
    their share of positives (what the same human labels give without any judge)."""
    share = error.human_positive
    if not share.trials:
        return None
    lo, hi = share.lower, share.upper
    assert lo is not None and hi is not None
    return lo, hi


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))


def window_human(
    sums: Mapping[str, int], rate: str, error: JudgeError, direct: Share | None = None
) -> HumanEstimate | None:
    """The window's `rate` on the human scale from its sums (monitor.estimation.window) and the
    calibration table for that rate (`direct`: see `correct`); None while the window has no
    judge-scale estimate."""
    fig = rate_figures(sums, rate)
    est = fig.estimate
    judgeable = sums.get("all_m", 0)
    claims = window_claims(sums)
    if est is None or judgeable <= 0 or claims <= 0:
        return None
    ruled = sums.get("ruled_supported" if rate == "support" else "ruled_unsupported", 0)
    scale, offset = judgeable / claims, ruled / claims
    judged = _clip((est.value - offset) / scale)
    return correct(
        judged,
        est.stderr / scale,
        error,
        df=fig.judged_answers - 1,
        window_claims=judgeable,
        scale=scale,
        offset=offset,
        direct=direct,
    )
