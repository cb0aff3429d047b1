"""Opt-in (RAGMON_BENCH=1): the monitor end to end on the embedded broker next to a bare Faust
pass-through, lag at 50% of the monitor's rate, RSS after RAGMON_BENCH_RSS_EVENTS (100,000).
Prints the figures; asserts only what is not a timing (everything arrived, figures exist)."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import standard_mix

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.environ.get("RAGMON_BENCH"), reason="benchmark: set RAGMON_BENCH=1"),
]


def test_end_to_end_throughput_lag_and_memory(tmp_path: object) -> None:
    from agents.bench.e2e import measure

    events = [json.dumps(e).encode() for e in standard_mix(2000)]
    n = int(os.environ.get("RAGMON_BENCH_E2E_EVENTS", "10000"))
    rss_events = int(os.environ.get("RAGMON_BENCH_RSS_EVENTS", "100000"))
    result = measure(events, throughput_events=n, rss_events=rss_events, workdir=str(tmp_path))
    print(json.dumps(result, indent=2))
    assert result["monitor_events_checked"] >= rss_events
    assert result["monitor_lag"]["events"] > 0
    # at half the pass-through's rate too, for each monitor that can keep up with it
    for name in ("monitor", "monitor_pool"):
        half = result[f"{name}_lag_passthrough_half_rate_events_per_s"]
        keeps_up = result[f"{name}_events_per_s"] > half
        assert half == result["passthrough_events_per_s"] / 2
        assert (result[f"{name}_lag_passthrough_half"] is not None) == keeps_up
    assert result["passthrough_lag_same_rate"]["events"] == result["monitor_lag"]["events"]
    assert result["monitor_rss_mb"] > 0 and result["passthrough_events_per_s"] > 0
    # the bare pass-through batches as Faust does unless the bench is told otherwise
    apart = os.environ.get("RAGMON_BENCH_PASSTHROUGH_PRODUCER_BATCH_BYTES")
    assert result["passthrough_producer_batch_bytes"] == int(apart or 16_384)
    # the broker worked for every round, and each process of a pooled monitor is named
    for name in ("passthrough", "monitor"):
        assert all(us > 0 for us in result[f"rounds_{name}_broker_cpu_us_per_event"]), name
    for each in result.get("rounds_monitor_pool_process_cpu_us_per_event", []):
        # the worker's own first (it has the most to do besides checks), then the others
        assert len(each) >= 2 and each[1:] == sorted(each[1:], reverse=True)
