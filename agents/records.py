"""The compact per-answer record on the `scores` topic and the window counts it carries.

A score record is JSON: `{"event_id", "app", "event_time", "processed_at", "failed", "counts"}`
where `counts` maps COUNT_FIELDS names to integers. Sums of counts over a window give exactly the
answer-level rates of monitor.scoring, pooled over events (ratio of sums, not mean of ratios),
which is what `sum(rate(..))/sum(rate(..))` over the counters gives in Prometheus.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from monitor.models import Verdict

#: Order of the count vector stored in the windowed table (names of WindowFigures.from_counts).
COUNT_FIELDS: tuple[str, ...] = (
    "events",
    "rejected",
    "citations",
    "valid_citations",
    "claims",
    "cited_claims",
    "decided_claims",
    "supported_claims",
    "unsupported_claims",
    "judge_calls",
    "judge_errors",
)
_INDEX = {name: i for i, name in enumerate(COUNT_FIELDS)}


def verdict_counts(verdict: Verdict) -> dict[str, int]:
    """Numerators and denominators of one answer's rates, as monitor.scoring defines them:
    decided = cited claims that are not `unverifiable`; unsupported (hallucinated) = claims with
    no valid citation, or judged not_supported."""
    valid_ids = {r.citation.index for r in verdict.citations if r.valid}
    cited = decided = supported = unsupported = 0
    for c in verdict.claims:
        v = c.support.verdict
        if c.claim.cited:
            cited += 1
            if v != "unverifiable":
                decided += 1
                if v == "supported":
                    supported += 1
        if not (set(c.claim.citation_indexes) & valid_ids) or v == "not_supported":
            unsupported += 1
    return {
        "events": 1,
        "citations": len(verdict.citations),
        "valid_citations": sum(1 for r in verdict.citations if r.valid),
        "claims": len(verdict.claims),
        "cited_claims": cited,
        "decided_claims": decided,
        "supported_claims": supported,
        "unsupported_claims": unsupported,
    }


REJECTED_COUNTS: dict[str, int] = {"events": 1, "rejected": 1}


def score_record(
    *,
    event_id: str | None,
    app: str,
    counts: Mapping[str, int],
    event_time: float,
    processed_at: float,
    failed: bool,
) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "app": app,
        "event_time": round(event_time, 6),
        "processed_at": round(processed_at, 6),
        "failed": failed,
        "counts": {k: v for k, v in counts.items() if v},
    }


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    event_id: str | None
    app: str
    failed: bool
    vector: tuple[int, ...]


def parse_score_record(value: Any, key: str | None = None) -> ScoreRecord | None:
    """Tolerant reader: None for anything that is not a score record (never raises)."""
    if not isinstance(value, Mapping):
        return None
    counts = value.get("counts")
    app = value.get("app") or key
    if not isinstance(counts, Mapping) or not isinstance(app, str) or not app:
        return None
    vector = [0] * len(COUNT_FIELDS)
    for name, n in counts.items():
        i = _INDEX.get(name)
        if i is not None and isinstance(n, int) and not isinstance(n, bool) and n > 0:
            vector[i] = n
    event_id = value.get("event_id")
    return ScoreRecord(
        event_id=event_id if isinstance(event_id, str) and event_id else None,
        app=app,
        failed=bool(value.get("failed")),
        vector=tuple(vector),
    )


def add_vectors(current: Sequence[int] | None, delta: Sequence[int]) -> list[int]:
    """The windowed table's update: element-wise sum (a missing window starts at zero)."""
    if not current:
        return list(delta)
    if len(current) < len(delta):  # a record from a newer version with more fields
        current = [*current, *([0] * (len(delta) - len(current)))]
    return [a + b for a, b in zip(current, delta, strict=False)] + list(current[len(delta) :])


def vector_to_counts(vector: Sequence[int]) -> dict[str, int]:
    return {name: (vector[i] if i < len(vector) else 0) for i, name in enumerate(COUNT_FIELDS)}
