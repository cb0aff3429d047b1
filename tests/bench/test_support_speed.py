"""Opt-in (RAGMON_BENCH=1), or run directly: `python -m tests.bench.test_support_speed [N]`.

CPU µs per event of each checking stage on the standard mix, and µs per claim of the claim
splitter and the cheap support tier, overall and by citation format. Reports figures; asserts
nothing about time.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from typing import Any

import pytest

from monitor.checks.claims import split_claims
from monitor.checks.quotes import check_quotes
from monitor.checks.scoring import answer_scores
from monitor.checks.support import assess_claim
from monitor.citations.extract import extract_citations
from monitor.citations.resolve import resolve_citations
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.records.models import AnswerEvent, ClaimResult
from tests.conftest import standard_mix

STAGES = ("extract", "resolve", "split", "quotes", "support", "scores")


def measure(raw_events: list[dict[str, Any]]) -> dict[str, Any]:
    options = CheckOptions()
    events = []
    for raw in raw_events:
        event = decode_event(json.dumps(raw), options)
        assert isinstance(event, AnswerEvent)
        events.append((raw["metadata"]["format"], event))
    clock = time.process_time  # CPU time: the machine is shared
    spent = dict.fromkeys(STAGES, 0.0)
    by_format: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    claims = 0
    for fmt, event in events:
        t0 = clock()
        citations, _ = extract_citations(event, options)
        t1 = clock()
        results = resolve_citations(event, citations, options)
        t2 = clock()
        found = split_claims(event, citations, options)
        t3 = clock()
        results = check_quotes(event, found, results, options)
        t4 = clock()
        by_index = {r.citation.index: r for r in results}
        assessed = tuple(
            ClaimResult(
                c, assess_claim(c, [by_index[i] for i in c.citation_indexes], event, options)
            )
            for c in found
        )
        t5 = clock()
        answer_scores(event, tuple(results), assessed, options)
        t6 = clock()
        for stage, a, b in zip(
            STAGES, (t0, t1, t2, t3, t4, t5), (t1, t2, t3, t4, t5, t6), strict=True
        ):
            spent[stage] += b - a
        claims += len(found)
        by_format[fmt][0] += t5 - t4
        by_format[fmt][1] += len(found)
    n = len(events)
    return {
        "events": n,
        "claims": claims,
        "us_per_event": {k: round(v / n * 1e6, 1) for k, v in spent.items()},
        "core_events_per_cpu_second": round(n / sum(spent.values())),
        "split_us_per_claim": round(spent["split"] / claims * 1e6, 1),
        "support_us_per_claim": round(spent["support"] / claims * 1e6, 1),
        "support_us_per_claim_by_format": {
            fmt: round(t / max(k, 1) * 1e6, 1) for fmt, (t, k) in sorted(by_format.items())
        },
    }


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RAGMON_BENCH"), reason="benchmark: set RAGMON_BENCH=1")
def test_support_speed_figures() -> None:
    figures = measure(standard_mix(int(os.environ.get("RAGMON_BENCH_EVENTS", "3000"))))
    print(json.dumps(figures, indent=2))
    assert figures["claims"] > figures["events"]


if __name__ == "__main__":
    print(
        json.dumps(measure(standard_mix(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)), indent=2)
    )
