"""Records on the `scores` topic: per-answer window counts, batched per app.

A score record (version 2) carries every answer of one app from one check batch::

    {"v": 2, "app": "search", "kind": "scores", "fields": [COUNT_FIELDS...],
     "events": [[event_id, event_time, counted_at, failed, [counts...]], ...]}

`counts` follows `fields` (trailing zeros left out), `counted_at` is when the check agent
counted the answer (its window bucket), `event_id` is null for a rejected record. A judge
record (`kind: "judge"`) has the same shape: one entry per judged answer with its judge call
counts and, for an answer of the estimation sample, the label sums of the support and
hallucination estimates (monitor.estimation.window), placed in the answer's original bucket. Sums of counts over a window give exactly
the answer-level rates of monitor.checks.scoring, pooled over events (ratio of sums, not mean of
ratios), which is what `sum(rate(..))/sum(rate(..))` over the counters gives in Prometheus.
Version 1 records (one answer, `counts` as an object) are still read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from monitor.estimation.vector import count_vector
from monitor.estimation.window import ESTIMATION_FIELDS, label_sums
from monitor.records.models import Verdict

SCORE_VERSION = 2

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
    # the support and hallucination estimates' sums (monitor.estimation.window)
    *ESTIMATION_FIELDS,
    # answers whose every claim abstains ("the passages do not say"): the abstention ratio
    "abstained_answers",
)
_INDEX = {name: i for i, name in enumerate(COUNT_FIELDS)}
REJECTED_VECTOR: tuple[int, ...] = (1, 1)

#: One checked answer's counts in COUNT_FIELDS order: in the core (monitor.estimation.vector),
#: compiled with it, since it runs for every answer in the check process
verdict_vector = count_vector


def verdict_counts(verdict: Verdict) -> dict[str, int]:
    """`verdict_vector` by name (zeros left out except `events`)."""
    vector = verdict_vector(verdict)
    return {name: n for name, n in zip(COUNT_FIELDS, vector, strict=False) if n or name == "events"}


def trimmed(vector: Sequence[int]) -> list[int]:
    end = len(vector)
    while end and not vector[end - 1]:
        end -= 1
    return list(vector[:end])


def score_entry(
    event_id: str | None, event_time: float, counted_at: float, failed: bool, vector: Sequence[int]
) -> list[Any]:
    return [
        event_id,
        round(event_time, 3),
        round(counted_at, 6),
        1 if failed else 0,
        trimmed(vector),
    ]


def score_record(app: str, entries: list[list[Any]], kind: str = "scores") -> dict[str, Any]:
    return {
        "v": SCORE_VERSION,
        "app": app,
        "kind": kind,
        "fields": list(COUNT_FIELDS),
        "events": entries,
    }


@dataclass(frozen=True, slots=True)
class ScoreEntry:
    event_id: str | None
    event_time: float | None
    counted_at: float | None
    failed: bool
    vector: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ScoreBatch:
    app: str
    kind: str  # scores | judge
    entries: tuple[ScoreEntry, ...]


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, int | float) and not isinstance(x, bool) else None


def _vector(names: Sequence[Any], values: Iterable[Any], negative: bool) -> tuple[int, ...]:
    vector = [0] * len(COUNT_FIELDS)
    for name, n in zip(names, values, strict=False):
        i = _INDEX.get(name) if isinstance(name, str) else None
        if i is None or not isinstance(n, int) or isinstance(n, bool):
            continue
        if n > 0 or (negative and n < 0):
            vector[i] = n
    return tuple(vector)


_PADDING = (0,) * len(COUNT_FIELDS)
_FIELD_LIST = list(COUNT_FIELDS)


def _own_vector(values: list[Any], negative: bool) -> tuple[int, ...] | None:
    """`_vector` of a record in this version's field order, without its per-field look-ups;
    None when a value is not one `_vector` would keep as it is (then `_vector` decides)."""
    if len(values) > len(COUNT_FIELDS):
        values = values[: len(COUNT_FIELDS)]
    for n in values:
        if type(n) is not int or (n < 0 and not negative):
            return None
    return (*values, *_PADDING[len(values) :])


def _entry(
    raw: Any, names: Sequence[Any], negative: bool, own_order: bool = False
) -> ScoreEntry | None:
    if not isinstance(raw, list) or len(raw) < 5 or not isinstance(raw[4], list):
        return None
    event_id = raw[0] if isinstance(raw[0], str) and raw[0] else None
    vector = _own_vector(raw[4], negative) if own_order else None
    if vector is None:
        vector = _vector(names, raw[4], negative)
    return ScoreEntry(event_id, _number(raw[1]), _number(raw[2]), bool(raw[3]), vector)


def parse_score_record(value: Any, key: str | None = None) -> ScoreBatch | None:
    """Tolerant reader: None for anything that is not a score record (never raises); entries
    that do not parse are left out."""
    if not isinstance(value, Mapping):
        return None
    app = value.get("app") or key
    if not isinstance(app, str) or not app:
        return None
    counts = value.get("counts")
    if isinstance(counts, Mapping):  # version 1: one answer
        event_id = value.get("event_id")
        entry = ScoreEntry(
            event_id if isinstance(event_id, str) and event_id else None,
            _number(value.get("event_time")),
            _number(value.get("processed_at")),
            bool(value.get("failed")),
            _vector(list(counts), counts.values(), negative=False),
        )
        return ScoreBatch(app, "scores", (entry,))
    kind = value.get("kind", "scores")
    names, events = value.get("fields"), value.get("events")
    if kind not in ("scores", "judge") or not isinstance(names, list):
        return None
    if not isinstance(events, list):
        return None
    own = names == _FIELD_LIST  # a record of this version: its fields in COUNT_FIELDS order
    entries = (_entry(e, names, kind == "judge", own) for e in events)
    return ScoreBatch(app, kind, tuple(e for e in entries if e is not None))


#: The judge's verdicts that are labels for the estimates (a timeout's `unverifiable` is not).
LABEL_VERDICTS = frozenset({"supported", "partially_supported", "not_supported"})


def judge_delta(
    claims: Iterable[Mapping[str, Any]], scores: Sequence[float] | None = None
) -> list[int]:
    """What a judge record adds to its answer's window: every judged claim counts in
    judge_calls, each failed one in judge_errors; and, for an answer of the estimation sample
    (`scores`: the cheap scores of the judged claims, in order), the label sums — only when
    the judge gave every claim a verdict (an answer half judged is left out of the sample
    rather than counted with a guess).

    The judge's verdicts no longer change the cheap counts (supported, decided, unsupported):
    those stay the cheap tier's own figures, and the judge enters the support and hallucination
    rates through the estimates (monitor.estimation).
    """
    claims = list(claims)
    delta = [0] * len(COUNT_FIELDS)
    for claim in claims:
        delta[_INDEX["judge_calls"]] += 1
        if claim.get("outcome") != "ok":
            delta[_INDEX["judge_errors"]] += 1
    if scores is not None and claims and len(scores) == len(claims):
        # a claim the judge calls a refusal is in no rate's denominator: left out with its score
        kept = [(s, c.get("verdict")) for s, c in zip(scores, claims, strict=True)]
        kept = [(s, v) for s, v in kept if v != "abstain"]
        scores = [s for s, _ in kept]
        verdicts = [v for _, v in kept]
        if kept and all(v in LABEL_VERDICTS for v in verdicts):
            supported = sum(v == "supported" for v in verdicts)
            unsupported = sum(v == "not_supported" for v in verdicts)
            for name, n in label_sums(scores, supported, unsupported).items():
                delta[_INDEX[name]] += n
    return delta


def labelled(vector: Sequence[int]) -> bool:
    """The judge record's entry carries labels (its answer entered the estimation sample)."""
    i = _INDEX["lab_n"]
    return i < len(vector) and vector[i] > 0


def add_vectors(current: Sequence[int] | None, delta: Sequence[int]) -> list[int]:
    """The windowed table's update: element-wise sum (a missing window starts at zero)."""
    if not current:
        return list(delta)
    if len(current) < len(delta):  # a record from a newer version with more fields
        current = [*current, *([0] * (len(delta) - len(current)))]
    return [a + b for a, b in zip(current, delta, strict=False)] + list(current[len(delta) :])


def vector_to_counts(vector: Sequence[int]) -> dict[str, int]:
    return {name: (vector[i] if i < len(vector) else 0) for i, name in enumerate(COUNT_FIELDS)}


def event_ids(value: Any) -> list[str]:
    """The answer ids a `scores` record counts (for tests and tools that read the topic)."""
    batch = parse_score_record(value)
    if batch is None or batch.kind != "scores":
        return []
    return [e.event_id for e in batch.entries if e.event_id is not None]
