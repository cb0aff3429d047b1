"""monitor.estimation.window's estimates over many windows at once (numpy), for the alert
simulator (agents/evaluation/alert_sim.py), which needs one window per simulated second.

Every expression is the scalar code's (monitor.estimation.ppi.ppi_mean, tuned_lambda, adjusted,
t_value; monitor.estimation.window.rate_figures) written on arrays, in the same order of
operations, so the figures are the same floats up to the last bits of tan/sqrt; the simulator does
not rely on that: it hands every second whose outcome could differ to the real code
(tests/agents/evaluation/test_window_vec.py checks the agreement on random windows).
"""

from __future__ import annotations

from collections.abc import Mapping
from statistics import NormalDist
from typing import Any

import numpy as np

from monitor.estimation.ppi import LEVEL, MIN_PREDICTOR_VARIANCE
from monitor.estimation.window import SCALE

Arr = Any  # numpy float64 array (numpy's own stubs are not in the strict mypy set)


def _z(level: float) -> float:
    return NormalDist().inv_cdf(0.5 + level / 2)


def t_values(level: float, df: Arr) -> Arr:
    """monitor.estimation.ppi.t_value for an array of degrees of freedom."""
    z = _z(level)
    p = 0.5 + level / 2
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    d = np.where(df > 0, df, 1.0)
    out = z + g1 / d + g2 / d**2 + g3 / d**3 + g4 / d**4
    out = np.where(df == 1, np.tan(np.pi * (p - 0.5)), out)
    out = np.where(df == 2, (2 * p - 1) / np.sqrt(2 * p * (1 - p)), out)
    return np.where(df <= 0, z, out)


def _var(n: Arr, s: Arr, ss: Arr) -> Arr:
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.maximum(0.0, (ss - s * s / n) / (n - 1))
    return np.where(n < 2, 0.0, v)


def _cov(n: Arr, a: Arr, b: Arr, ab: Arr) -> Arr:
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (ab - a * b / n) / (n - 1)
    return np.where(n < 2, 0.0, c)


def _lambda(lab: tuple[Arr, ...], pop: tuple[Arr, Arr, Arr]) -> Arr:
    n, y, f, _yy, ff, yf = lab
    pn, pf, pff = pop
    with np.errstate(divide="ignore", invalid="ignore"):
        den = _var(n, f, ff) + (n / pn) * _var(pn, pf, pff)
        lam = _cov(n, y, f, yf) / den
    den = np.where(pn != 0, den, 0.0)
    return np.where(den <= MIN_PREDICTOR_VARIANCE, 0.0, lam)


def _mean(lab: tuple[Arr, ...], pop: tuple[Arr, Arr, Arr], lam: Arr) -> Arr:
    n, y, f = lab[0], lab[1], lab[2]
    return lam * pop[1] / pop[0] + (y - lam * f) / n


def _variance(lab: tuple[Arr, ...], pop: tuple[Arr, Arr, Arr], lam: Arr) -> Arr:
    n, y, f, yy, ff, yf = lab
    residual = np.maximum(
        0.0, _var(n, y, yy) - 2 * lam * _cov(n, y, f, yf) + lam * lam * _var(n, f, ff)
    )
    return residual / n + lam * lam * _var(*pop) / pop[0]


def _adjusted(lab: tuple[Arr, ...], top: Arr, level: float) -> tuple[Arr, ...]:
    n, y, f, yy, ff, yf = lab
    k = _z(level) ** 2 / (2 * top)
    mean_f = f / n
    return (
        n + 2 * k,
        y + k * top,
        f + 2 * k * mean_f,
        yy + k * top * top,
        ff + 2 * k * mean_f * mean_f,
        yf + k * top * mean_f,
    )


def ppi_bounds(
    lab: tuple[Arr, ...],
    pop: tuple[Arr, Arr, Arr],
    scale: Arr,
    offset: Arr,
    top: Arr,
    level: float = LEVEL,
) -> tuple[Arr, Arr, Arr]:
    """(value, lower, upper) of ppi_mean (power-tuned, Agresti-Coull) per element; NaN where
    ppi_mean gives None (fewer than 2 labelled units or no unit)."""
    n = lab[0]
    ok = (n >= 2) & (pop[0] >= 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = _lambda(lab, pop)
        mu = _mean(lab, pop, lam)
        wide = _adjusted(lab, top, level)
        wlam = _lambda(wide, pop)
        centre, variance = _mean(wide, pop, wlam), _variance(wide, pop, wlam)
        shrink = np.where(n <= pop[0], np.sqrt(np.maximum(0.0, 1.0 - n / pop[0])), 1.0)
        stderr = scale * np.sqrt(variance) * shrink
        value = offset + scale * mu
        half = t_values(level, n - 1) * stderr
        middle = value + shrink * scale * (centre - mu)
        lower = np.clip(np.minimum(value, middle - half), 0.0, 1.0)
        upper = np.clip(np.maximum(value, middle + half), 0.0, 1.0)
        value = np.clip(value, 0.0, 1.0)
    nan = np.nan
    return np.where(ok, value, nan), np.where(ok, lower, nan), np.where(ok, upper, nan)


def rate_bounds(
    sums: Mapping[str, Arr], rate: str, level: float = LEVEL
) -> tuple[Arr, Arr, Arr, Arr]:
    """monitor.estimation.window.rate_figures' estimate for arrays of window sums: (value,
    lower, upper, judged claims); NaN where the scalar code has no estimate."""

    def g(name: str) -> Arr:
        return np.asarray(sums.get(name, 0), dtype=np.float64)

    s2, s = float(SCALE * SCALE), float(SCALE)
    claims = g("ruled_supported") + g("ruled_unsupported") + g("ruled_other") + g("all_m")
    mm, f, ff, mf = g("all_mm"), g("all_f") / s, g("all_ff") / s2, g("all_mf") / s
    lmm, lf, lff, lmf = g("lab_mm"), g("lab_f") / s, g("lab_ff") / s2, g("lab_mf") / s
    n_all, m_all, n_lab, m_lab = g("all_n"), g("all_m"), g("lab_n"), g("lab_m")
    if rate == "support":  # 1 − the share not called supported (window.rate_figures)
        pop = (n_all, m_all - f, mm - 2 * mf + ff)
        lsm, lss, lsf = g("lab_sm"), g("lab_ss"), g("lab_sf") / s
        y = m_lab - g("lab_s")
        lab = (
            n_lab,
            y,
            m_lab - lf,
            lmm - 2 * lsm + lss,
            lmm - 2 * lmf + lff,
            lmm - lmf - lsm + lsf,
        )
        ruled = g("ruled_unsupported") + g("ruled_other")
    elif rate == "hallucination":
        pop = (n_all, m_all - f, mm - 2 * mf + ff)
        hf = g("lab_hf") / s
        lab = (n_lab, g("lab_h"), m_lab - lf, g("lab_hh"), lmm - 2 * lmf + lff, g("lab_hm") - hf)
        ruled = g("ruled_unsupported")
    else:
        raise ValueError(f"unknown rate {rate!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        scale, offset = n_all / claims, ruled / claims
        top = np.where(n_all != 0, m_all / n_all, 1.0)
    value, lower, upper = ppi_bounds(lab, pop, scale, offset, top, level)
    if rate == "support":
        value, lower, upper = 1.0 - value, 1.0 - upper, 1.0 - lower
    none = claims <= 0
    return (
        np.where(none, np.nan, value),
        np.where(none, np.nan, lower),
        np.where(none, np.nan, upper),
        m_lab,
    )
