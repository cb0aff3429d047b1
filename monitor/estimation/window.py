"""The sums one window keeps for the support and hallucination estimates, and the estimates.

Unit of sampling: the answer (the judge sample is drawn per event id), so the estimator works on
answer totals (claims, cheap scores, labels of an answer's claims) and the interval holds however
claims cluster in answers. Every answer's claims split in two:

- judgeable: what the judge is asked about (a cited claim with a passage to weigh, an uncited one
  on the event's context). Their labels (the judge's verdicts) are known on the estimation
  sample only and estimated elsewhere;
- decided by rule: cited with no citation resolving to text, or uncited in an event without
  context. The judge never sees them; their labels are the cheap tier's and are exact.
Claims past the claim cap (monitor.checks.scoring.is_over_cap) count nowhere, as in the counts. An
answer with more claims than RAGMON_ANSWER_CLAIM_WEIGHT enters with its weighted cheap counts,
decided by rule (`capped_vector`), and is no label.

rate = (rule-decided claims with the label + Σ over answers of judgeable claims with the label)
       / claims, the second term = N·μ̂ (PPI++, monitor.estimation.ppi) over the N answers that
have a judgeable claim.

Labels: support y = claims the judge calls `supported`; hallucination y = claims it calls
`not_supported` (`partially_supported` is neither). The predictor: for hallucination m − f
(m = judgeable claims, f the sum of the answer's cheap scores). Support is estimated through the
identity

    supported claims = claims − (ruled unsupported + ruled other) − Σ (m − s)

where the claims and the rule-decided ones are counted exactly and only Σ (m − s), the judgeable
claims the judge does not call supported (not supported + partially supported), is estimated:
label m − s, predictor m − f, as for hallucination. support = 1 − that share, its bounds
1 − the other's. Estimating Σ s directly (label s, predictor f) gave an interval 1.4-1.9×
wider than hallucination's on the same claims: s grows with the answer's claim count and the
residual s − λf keeps that swing; m − s, like h, is mostly 0. With no partially supported
claim the two estimates are complements and their intervals equally wide. Scores are kept in units
of 1e-4 (the cheap score is rounded to 4 decimals), so every sum is an exact integer: the window
table adds, subtracts and replays integers, and nothing drifts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from monitor.checks.grounding import NO_CONTEXT
from monitor.checks.scoring import is_over_cap
from monitor.estimation.ppi import (
    LEVEL,
    Estimate,
    Labelled,
    Population,
    classical_mean,
    complement,
    ppi_mean,
)
from monitor.judge.request import is_evidence
from monitor.records.models import Verdict

#: the reason the cheap tier gives an uncited claim of an event without context
NO_CONTEXT_REASON = NO_CONTEXT.reasons[1]

SCALE = 10_000  # cheap scores in units of 1e-4

#: The estimation sums, in the order the window's count vector stores them.
ESTIMATION_FIELDS: tuple[str, ...] = (
    "ruled_supported",  # claims decided by rule, label supported
    "ruled_unsupported",  # claims decided by rule, label not supported (hallucinated)
    "ruled_other",  # claims decided by rule with neither label (e.g. cited, citation unread)
    # over every answer with a judgeable claim
    "all_n",
    "all_m",
    "all_mm",
    "all_f",
    "all_ff",
    "all_mf",
    # over the answers of the estimation sample whose every judgeable claim has a judge verdict
    "lab_n",
    "lab_m",
    "lab_mm",
    "lab_f",
    "lab_ff",
    "lab_mf",
    "lab_s",
    "lab_ss",
    "lab_sf",
    "lab_sm",
    "lab_h",
    "lab_hh",
    "lab_hf",
    "lab_hm",
)

RATES: tuple[str, ...] = ("support", "hallucination")


def scaled(score: float) -> int:
    return round(score * SCALE)


def answer_sums(
    scores: Sequence[float], ruled_supported: int, ruled_unsupported: int, ruled_other: int = 0
) -> dict[str, int]:
    """The `all_*` and `ruled_*` sums of one checked answer: `scores` are the cheap scores of
    its judgeable claims."""
    out = {
        "ruled_supported": ruled_supported,
        "ruled_unsupported": ruled_unsupported,
        "ruled_other": ruled_other,
    }
    if scores:
        m = len(scores)
        f = sum(scaled(s) for s in scores)
        out.update(all_n=1, all_m=m, all_mm=m * m, all_f=f, all_ff=f * f, all_mf=m * f)
    return {k: v for k, v in out.items() if v}


def judgeable_split(verdict: Verdict) -> tuple[list[float], int, int, int]:
    """(cheap scores of the claims the judge would see, then the claims decided by rule:
    supported, not supported, neither). The judge sees (monitor.judge.request.judge_items) a
    cited claim with a passage to weigh and an uncited claim on the event's context, unless
    the event has none; claims past the claim cap count nowhere (monitor.checks.scoring.claim_tally).
    A claim decided by rule keeps the cheap tier's labels as the tally counts them: supported
    when its verdict is (a JSON value the claim states), hallucinated when not supported or
    without a valid citation."""
    evidence = {c.citation.index for c in verdict.citations if is_evidence(c)}
    valid = {c.citation.index for c in verdict.citations if c.valid} if verdict.citations else set()
    scores: list[float] = []
    ruled_supported = ruled_unsupported = ruled_other = 0
    for c in verdict.claims:
        indexes = c.claim.citation_indexes
        if indexes:
            if not evidence.isdisjoint(indexes):
                scores.append(c.support.score)
                continue
            hallucinated = c.support.verdict == "not_supported" or valid.isdisjoint(indexes)
        elif is_over_cap(c) or c.support.verdict == "abstain":
            continue  # a refusal is neither supported nor not (monitor.checks.scoring)
        elif c.support.reasons[1:2] != (NO_CONTEXT_REASON,):
            scores.append(c.support.score)
            continue
        else:
            hallucinated = True  # no context to judge it on: not supported
        if hallucinated:
            ruled_unsupported += 1
        elif c.support.verdict == "supported":
            ruled_supported += 1
        else:
            ruled_other += 1
    return scores, ruled_supported, ruled_unsupported, ruled_other


_NO_LABELS = [0] * (len(ESTIMATION_FIELDS) - 9)


def capped_vector(claims: int, supported: int, hallucinated: int) -> list[int]:
    """The estimation sums of an answer weighed down to `claims` claims (more claims than
    RAGMON_ANSWER_CLAIM_WEIGHT: monitor.estimation.vector.weighted): it enters the estimates as
    the counts take it, with the cheap tier's weighted verdicts as exact labels, and stays out
    of the judge sample (monitor.judge.plan), so one answer of 20,000 sentences weighs no more
    in the estimate than in the counts."""
    other = max(0, claims - supported - hallucinated)
    return [supported, hallucinated, other, 0, 0, 0, 0, 0, 0, *_NO_LABELS]


def answer_vector(verdict: Verdict) -> list[int]:
    """One checked answer's estimation sums in ESTIMATION_FIELDS order (`answer_sums` as a
    vector, built directly: it runs for every answer on the check path)."""
    scores, ruled_s, ruled_u, ruled_o = judgeable_split(verdict)
    if not scores:
        return [ruled_s, ruled_u, ruled_o, 0, 0, 0, 0, 0, 0, *_NO_LABELS]
    m = len(scores)
    f = sum(round(s * SCALE) for s in scores) if m > 1 else round(scores[0] * SCALE)
    return [ruled_s, ruled_u, ruled_o, 1, m, m * m, f, f * f, m * f, *_NO_LABELS]


def label_sums(scores: Sequence[float], supported: int, unsupported: int) -> dict[str, int]:
    """The `lab_*` sums of one answer of the estimation sample: the cheap scores of its
    judgeable claims and how many of them the judge called supported / not supported."""
    m = len(scores)
    f = sum(scaled(s) for s in scores)
    s, h = supported, unsupported
    out = {
        "lab_n": 1,
        "lab_m": m,
        "lab_mm": m * m,
        "lab_f": f,
        "lab_ff": f * f,
        "lab_mf": m * f,
        "lab_s": s,
        "lab_ss": s * s,
        "lab_sf": s * f,
        "lab_sm": s * m,
        "lab_h": h,
        "lab_hh": h * h,
        "lab_hf": h * f,
        "lab_hm": h * m,
    }
    return {k: v for k, v in out.items() if v}


@dataclass(frozen=True, slots=True)
class RateFigures:
    estimate: Estimate | None  # PPI++; None with fewer than 2 labelled answers
    judge_only: Estimate | None
    judged_claims: int
    judged_answers: int


def _get(sums: Mapping[str, int], name: str) -> int:
    return sums.get(name, 0)


def window_claims(sums: Mapping[str, int]) -> int:
    """The claims the rates are shares of: judgeable and decided by rule."""
    ruled = ("ruled_supported", "ruled_unsupported", "ruled_other", "all_m")
    return sum(_get(sums, name) for name in ruled)


def rate_figures(sums: Mapping[str, int], rate: str, level: float = LEVEL) -> RateFigures:
    """The estimate of one rate from a window's sums, its interval at `level` (two-sided)."""
    g = sums.get
    claims = window_claims(sums)
    n_lab, m_lab = _get(sums, "lab_n"), _get(sums, "lab_m")
    if claims <= 0:
        return RateFigures(None, None, m_lab, n_lab)
    s2, s = float(SCALE * SCALE), float(SCALE)
    mm, f, ff, mf = g("all_mm", 0), g("all_f", 0) / s, g("all_ff", 0) / s2, g("all_mf", 0) / s
    lmm, lf, lff, lmf = g("lab_mm", 0), g("lab_f", 0) / s, g("lab_ff", 0) / s2, g("lab_mf", 0) / s
    n_all, m_all = _get(sums, "all_n"), _get(sums, "all_m")
    if rate == "support":
        # Support from what is known exactly (the identity in the module docstring): the claims
        # are counted, so support = 1 − the share the judge does not call supported, whose
        # label m − s (not supported + partially supported) with predictor m − f is estimated
        # like hallucination's. Estimating s itself swings with the answer's claim count.
        pop = Population(n_all, m_all - f, mm - 2 * mf + ff)
        lsm, lss, lsf = g("lab_sm", 0), g("lab_ss", 0), g("lab_sf", 0) / s
        y = m_lab - g("lab_s", 0)
        lab = Labelled(
            n_lab, y, m_lab - lf, lmm - 2 * lsm + lss, lmm - 2 * lmf + lff, lmm - lmf - lsm + lsf
        )
        ruled = _get(sums, "ruled_unsupported") + _get(sums, "ruled_other")
    elif rate == "hallucination":
        # predictor m − f: its sums follow from those of m and f
        pop = Population(n_all, m_all - f, mm - 2 * mf + ff)
        h, hh, hf, hm = g("lab_h", 0), g("lab_hh", 0), g("lab_hf", 0) / s, g("lab_hm", 0)
        lab = Labelled(n_lab, h, m_lab - lf, hh, lmm - 2 * lmf + lff, hm - hf)
        ruled = _get(sums, "ruled_unsupported")
    else:
        raise ValueError(f"unknown rate {rate!r}")
    scale, offset = n_all / claims, ruled / claims
    # Agresti-Coull's pseudo-labels are claims, carried by answers of the window's mean size
    top = m_all / n_all if n_all else 1.0
    tuned = ppi_mean(lab, pop, level=level, scale=scale, offset=offset, top=top)
    judge_only = classical_mean(lab, pop, level=level, scale=scale, offset=offset, top=top)
    if rate == "support":
        tuned, judge_only = complement(tuned), complement(judge_only)
    return RateFigures(tuned, judge_only, m_lab, n_lab)


def window_values(sums: Mapping[str, int]) -> dict[str, float | None]:
    """What the gauges and the alert rules read, per rate: the estimate, its bounds, the judged
    claims and answers behind it (None: no estimate)."""
    out: dict[str, float | None] = {}
    for rate in RATES:
        fig = rate_figures(sums, rate)
        est = fig.estimate
        out[rate] = est.value if est else None
        out[f"{rate}_lower"] = est.lower if est else None
        out[f"{rate}_upper"] = est.upper if est else None
        out[f"{rate}_judged"] = float(fig.judged_claims)
        out[f"{rate}_judged_answers"] = float(fig.judged_answers)
    return out
