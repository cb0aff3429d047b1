"""Soak: steady load through the embedded broker and one worker for RAGMON_SOAK_SECONDS (600),
with the judge slow (every reply after 2 s) and Grafana down (connection refused).

Opt-in: `RAGMON_SOAK=1 pytest tests/soak -m soak -s` (RAGMON_SOAK_SECONDS=60 for a short run).

Load: synthetic answers (agents.demo.traffic) at RAGMON_SOAK_RATE events/s (100), alternating 60 s of
drift (broken citations: the validity alert fires) and 60 s of healthy answers (it resolves),
so the Grafana notifier keeps failing, the judge keeps getting sampled work it cannot finish
in time, and the window gauges keep moving. Every 10 s the worker's RSS (/proc), its counters,
the judge queue depth and the event lag are sampled. Reported: RSS at start (after a 30 s
warm-up) and end, the least-squares RSS slope over the second half, judge queue depth and
drops, event lag (from the histogram, per interval) and consumer backlog (sent - processed).

The dedup horizon is set to 120 s (default 3600 s) so the event-id memory reaches its steady
state inside the run: with the default, RSS grows during the first hour by design (bounded by
RAGMON_DEDUP_MAX_IDS) and a 10-minute slope would measure that fill, not a leak.

Asserted (memory, not time): the worker survives, RSS stays under 300 MB, the second half's
slope is below 1 MB/min, and the judge queue never exceeds its bound.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agents.bench.e2e_procs import rss_mb
from agents.demo.traffic import make_answer
from agents.judging.fake_server import JudgeHTTPServer
from agents.kafka.broker import EmbeddedBroker, free_port
from tests.integration.conftest import Namespace, WorkerProcess
from tests.integration.test_pipeline import total

pytestmark = [
    pytest.mark.soak,
    pytest.mark.integration,
    pytest.mark.skipif(not os.environ.get("RAGMON_SOAK"), reason="soak: set RAGMON_SOAK=1"),
]

SECONDS = float(os.environ.get("RAGMON_SOAK_SECONDS", "600"))
RATE = float(os.environ.get("RAGMON_SOAK_RATE", "100"))
SAMPLE_EVERY = 10.0
WARMUP = 30.0
PHASE = 60.0  # seconds of drift, then of healthy traffic
QUEUE_SIZE = 100
RULES = """
rules:
  - name: validity_low
    figure: validity
    below: 0.95
    resolve_at: 0.97
    window: 30s
    min_events: 50
    for: 5s
    severity: critical
"""


class Load:
    """Publishes synthetic answers at RATE from a thread, drift toggling every PHASE s."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic = bootstrap, topic
        self.sent = 0
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="soak-load", daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._produce())
        except BaseException as exc:  # reported by the test
            self.error = exc

    async def _produce(self) -> None:
        from aiokafka import AIOKafkaProducer

        rng = random.Random(11)
        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, linger_ms=10)
        await producer.start()
        started = time.monotonic()
        try:
            while not self.stop.is_set():
                elapsed = time.monotonic() - started
                drift = 0.6 if int(elapsed // PHASE) % 2 == 0 else 0.0
                due = int(elapsed * RATE) - self.sent
                for _ in range(max(0, due)):
                    event = make_answer(rng, f"soak-{self.sent:08d}", drift)
                    await producer.send(self.topic, json.dumps(event).encode(), key=None)
                    self.sent += 1
                await asyncio.sleep(0.05)
        finally:
            await producer.stop()


def _hist(m: dict[Any, float], name: str) -> tuple[float, float]:
    return total(m, f"{name}_sum"), total(m, f"{name}_count")


def _slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (t seconds, MB) in MB per minute."""
    n = len(points)
    if n < 2:
        return float("nan")
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    den = sum((t - mt) ** 2 for t, _ in points)
    return 60 * sum((t - mt) * (v - mv) for t, v in points) / den if den else float("nan")


def test_soak_slow_judge_and_grafana_down(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(RULES, encoding="utf-8")
    broker = EmbeddedBroker(log=tmp_path / "tansu.log")
    broker.start()
    judge = JudgeHTTPServer().start()
    ns = Namespace("soak")
    worker = WorkerProcess(
        broker.bootstrap,
        ns,
        tmp_path,
        {
            "RAGMON_JUDGE_ENABLED": "true",
            "OPENAI_BASE_URL": judge.url,
            "OPENAI_API_KEY": "soak-key",
            "RAGMON_JUDGE_MODEL": "ok@2",  # every judge reply takes 2 s
            "RAGMON_ESCALATION_MODEL": "ok@2",
            "RAGMON_JUDGE_QUEUE_SIZE": str(QUEUE_SIZE),
            "RAGMON_GRAFANA_URL": f"http://127.0.0.1:{free_port()}",  # nothing listens
            "RAGMON_GRAFANA_TOKEN": "soak-token",
            "RAGMON_GRAFANA_TIMEOUT_SECONDS": "2",
            "RAGMON_RULES_FILE": str(rules),
            "RAGMON_WINDOW_SECONDS": "30",
            "RAGMON_WINDOW_STEP_SECONDS": "5",
            "RAGMON_DEDUP_HORIZON_SECONDS": "120",
            "RAGMON_LOG_LEVEL": "WARNING",  # one INFO line per event would dominate the disk
        },
    ).start()
    load = Load(broker.bootstrap, ns.topic("answers"))
    samples: list[dict[str, Any]] = []
    try:
        worker.wait_assigned(timeout=90)
        assert worker.proc is not None
        load.thread.start()
        started = time.monotonic()
        previous: dict[Any, float] = {}
        while time.monotonic() - started < SECONDS:
            time.sleep(SAMPLE_EVERY)
            assert load.error is None, load.error
            m = worker.metrics()
            lag_sum, lag_n = _hist(m, "ragmon_event_lag_seconds")
            plag_sum, plag_n = _hist(previous, "ragmon_event_lag_seconds") if previous else (0, 0)
            processed = total(m, "ragmon_events_total")
            samples.append(
                {
                    "t": round(time.monotonic() - started, 1),
                    "rss_mb": round(rss_mb(worker.proc.pid), 1),
                    "sent": load.sent,
                    "processed": processed,
                    "backlog": load.sent - processed,
                    "lag_mean_s": round((lag_sum - plag_sum) / (lag_n - plag_n), 3)
                    if lag_n > plag_n
                    else None,
                    "judge_queue_depth": total(m, "ragmon_judge_queue_depth"),
                    "judge_calls": total(m, "ragmon_judge_requests_total"),
                    "judge_dropped": total(m, "ragmon_judge_dropped_total"),
                    "grafana_notifications": total(
                        m, "ragmon_alert_notifications_total", sink="grafana"
                    ),
                }
            )
            print(json.dumps(samples[-1]), flush=True)
            previous = m
        final = worker.metrics()
    finally:
        load.stop.set()
        load.thread.join(30)
        worker.stop()
        judge.stop()
        broker.stop()

    steady = [(s["t"], s["rss_mb"]) for s in samples if s["t"] >= WARMUP]
    second_half = [(t, v) for t, v in steady if t >= SECONDS / 2]
    outcomes = {
        dict(labels)["outcome"]: v
        for (name, labels), v in final.items()
        if name == "ragmon_alert_notifications_total"
    }
    judged = {
        dict(labels)["outcome"]: v
        for (name, labels), v in final.items()
        if name == "ragmon_judge_requests_total"
    }
    report = {
        "seconds": SECONDS,
        "rate": RATE,
        "sent": samples[-1]["sent"],
        "processed": samples[-1]["processed"],
        "rss_start_mb": steady[0][1] if steady else samples[0]["rss_mb"],
        "rss_end_mb": samples[-1]["rss_mb"],
        "rss_max_mb": max(s["rss_mb"] for s in samples),
        "rss_slope_mb_per_min_second_half": round(_slope(second_half), 3),
        "rss_slope_mb_per_min_after_warmup": round(_slope(steady), 3),
        "judge_queue_depth_max": max(s["judge_queue_depth"] for s in samples),
        "judge_calls_by_outcome": judged,
        "judge_dropped": samples[-1]["judge_dropped"],
        "grafana_notifications_by_outcome": outcomes,
        "backlog_max": max(s["backlog"] for s in samples),
        "backlog_end": samples[-1]["backlog"],
        "lag_mean_s_max": max((s["lag_mean_s"] or 0) for s in samples),
    }
    print("SOAK " + json.dumps(report), flush=True)
    out = os.environ.get("RAGMON_SOAK_OUT")
    if out:
        Path(out).write_text(json.dumps({"report": report, "samples": samples}, indent=2))
    assert report["rss_max_mb"] < 300
    assert report["judge_queue_depth_max"] <= QUEUE_SIZE
    if SECONDS >= 300:  # a trend needs minutes of samples
        assert report["rss_slope_mb_per_min_second_half"] < 1.0
