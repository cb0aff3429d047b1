"""Which answers moved an app's rate: each answer's leave-one-out effect on the window's ratio.

A window's rate is a ratio of sums, r = N / D (e.g. hallucinated claims / claims). Without
answer i it would be (N − n_i) / (D − d_i), so the answer moved the rate by

    r − (N − n_i)/(D − d_i)  =  (n_i − r·d_i) / (D − d_i)

its count beyond what an answer of its size at the window's rate would have, spread over the
rest of the window. A rule that fires when the rate is *above* its threshold ranks answers by
this move, largest first; a rule on a rate *below* its threshold ranks by its negative. An
answer that is the whole window (D = d_i) has nothing to be compared with: move 0. The ranking
needs no tuned cut: it is the exact change each answer made, and its sign says which side.

Window totals come either exactly from the aggregate window (the in-stream alert) or, for the
evidence page, estimated from the audit trail: failing answers are all audited, healthy ones
with probability `sample_rate`, so each record counts 1/π (Horvitz–Thompson, unbiased).

Pure: standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: figure → (numerator field, denominator field) of agents.output.records.COUNT_FIELDS
FIGURE_FIELDS: dict[str, tuple[str, str]] = {
    "validity": ("valid_citations", "citations"),
    "support": ("supported_claims", "decided_claims"),
    "hallucination": ("unsupported_claims", "claims"),
    "coverage": ("cited_claims", "claims"),
    "abstention": ("abstained_answers", "events"),
}


@dataclass(frozen=True, slots=True)
class Contribution:
    event_id: str
    move: float  # how far this answer pushed the rate towards breaching (≤ 0: away from it)
    numerator: float
    denominator: float


def moves_rate(figure: str) -> bool:
    return figure in FIGURE_FIELDS


def leave_one_out(total_n: float, total_d: float, n: float, d: float) -> float:
    """r − r_without: how much the answer raised the rate (negative: lowered it)."""
    if total_d <= 0 or total_d - d <= 0:
        return 0.0
    rate = total_n / total_d
    return (n - rate * d) / (total_d - d)


def answer_fraction(counts: Mapping[str, float], figure: str) -> tuple[float, float]:
    num, den = FIGURE_FIELDS[figure]
    return float(counts.get(num, 0)), float(counts.get(den, 0))


def rank(
    answers: Iterable[tuple[str, Mapping[str, float]]],
    figure: str,
    op: str,
    totals: Mapping[str, float] | None = None,
    weights: Mapping[str, float] | None = None,
) -> list[Contribution]:
    """Answers `(event_id, counts)` ranked by how much each moved `figure` in the breaching
    direction (`op` "above" or "below"), largest first; ties by event id for a stable order.

    `totals`: the window's counts when known exactly; otherwise they are estimated from the
    answers themselves, each weighted by `weights[event_id]` (1/π; default 1)."""
    if figure not in FIGURE_FIELDS:
        raise ValueError(f"no per-answer counts for figure {figure!r}")
    items = [(eid, answer_fraction(c, figure)) for eid, c in answers]
    if totals is not None:
        total_n, total_d = answer_fraction(totals, figure)
    else:
        w = weights or {}
        total_n = sum(w.get(eid, 1.0) * n for eid, (n, _) in items)
        total_d = sum(w.get(eid, 1.0) * d for eid, (_, d) in items)
    sign = 1.0 if op == "above" else -1.0
    out = [
        Contribution(eid, sign * leave_one_out(total_n, total_d, n, d), n, d)
        for eid, (n, d) in items
    ]
    out.sort(key=lambda c: (-c.move, c.event_id))
    return out


def top_ids(ranked: Sequence[Contribution], limit: int) -> tuple[str, ...]:
    """The first `limit` answers that moved the rate towards breaching (move > 0)."""
    return tuple(c.event_id for c in ranked if c.move > 0)[:limit]


def inclusion_weight(audit_reason: str | None, sample_rate: float) -> float:
    """1/π of an audit record: failing answers are all kept, healthy ones at `sample_rate`."""
    if audit_reason == "sample":
        return 1.0 / sample_rate if sample_rate > 0 else 1.0
    return 1.0
