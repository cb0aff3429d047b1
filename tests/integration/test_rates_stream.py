"""The support and hallucination estimates on a real broker, with a scripted judge that answers
every claim with its human label (WiCE dev): the gauges equal the estimate computed offline from
the same sums, and the interval holds the true rate; the same after the worker that owns the
app's window is killed mid-stream and another takes over."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.judging.fake_server import JudgeHTTPServer
from agents.output.records import COUNT_FIELDS, add_vectors, judge_delta, verdict_vector
from monitor.alerting.alerts import WindowFigures
from monitor.sampling.policy import hash_fraction
from tests.integration.conftest import Namespace, WorkerProcess, produce, wait_until
from tests.integration.prometheus_server import PROMETHEUS, Prometheus
from tests.integration.promql_checks import RULES_FILE
from tests.integration.test_faults_crash import Feeder
from tests.integration.test_pipeline import _key

pytestmark = pytest.mark.integration

DEV = Path(__file__).resolve().parents[2].parent / "shared" / "eval" / "dev"
RATE = 0.3  # the judge's base rate: ~100 of the 349 answers labelled
JUDGEMENT = {
    "supported": "ENTAILMENT",
    "partially_supported": "NEUTRAL",
    "not_supported": "CONTRADICTION",
}
APP = "wice"


class Labelled:
    """The dev set checked offline: the scripted judge's verdicts, the window's expected sums,
    and the true rates (every judgeable claim with its human label)."""

    def __init__(self) -> None:
        from monitor.check import check_bytes
        from monitor.config.settings import load_settings
        from monitor.inputs.decode import decode_event
        from monitor.judge.request import judge_items

        options = load_settings().check_options()
        labels = {}
        for line in (DEV / "wice-dev.labels.jsonl").read_text().splitlines():
            row = json.loads(line)
            labels[row["event_id"]] = row["label"]
        self.values: list[bytes] = []
        self.scripted: dict[str, str] = {}
        self.sums: list[int] = [0] * len(COUNT_FIELDS)
        self.labelled = 0
        supported = unsupported = claims = 0
        for line in (DEV / "wice-dev.events.jsonl").read_bytes().splitlines():
            event = json.loads(line)
            label = labels[event["event_id"]]
            verdict = check_bytes(line, options)
            self.values.append(line)
            self.sums = add_vectors(self.sums, verdict_vector(verdict))  # type: ignore[arg-type]
            items = judge_items(verdict, event=decode_event(line, options))  # type: ignore[arg-type]
            for item in items:
                self.scripted[" ".join(item.claim.split())] = JUDGEMENT[label]
            judged = len(items)
            claims += len(verdict.claims)  # type: ignore[union-attr]
            rest = len(verdict.claims) - judged  # type: ignore[union-attr]
            supported += judged * (label == "supported")
            unsupported += judged * (label == "not_supported") + rest
            if items and hash_fraction(event["event_id"]) < RATE:
                entries = [{"outcome": "ok", "verdict": label} for _ in items]
                scores = [i.cheap_score or 0.0 for i in items]
                self.sums = add_vectors(self.sums, judge_delta(entries, scores))
                self.labelled += 1
        self.truth = {"support": supported / claims, "hallucination": unsupported / claims}
        counts = dict(zip(COUNT_FIELDS, self.sums, strict=True))
        self.figures = WindowFigures.from_counts(APP, 0.0, **counts).values


@pytest.fixture(scope="module")
def dev() -> Labelled:
    if not DEV.is_dir():
        pytest.skip("needs ../shared/eval/dev")
    return Labelled()


@pytest.fixture(scope="module")
def judge(dev: Labelled) -> Iterator[JudgeHTTPServer]:
    server = JudgeHTTPServer().start()
    server.scripted = dev.scripted
    yield server
    server.stop()


def judge_env(server: JudgeHTTPServer, model: str = "ok") -> dict[str, str]:
    return {
        "RAGMON_JUDGE_ENABLED": "true",
        "OPENAI_BASE_URL": server.url,
        "OPENAI_API_KEY": "test-key",
        "RAGMON_JUDGE_MODEL": model,
        "RAGMON_ESCALATION_MODEL": "",
        "RAGMON_JUDGE_SAMPLE_RATE": str(RATE),
        "RAGMON_JUDGE_OVERSAMPLE_RATE": str(RATE),  # no oversampling: every request is a label
        "RAGMON_JUDGE_CALLS_PER_MINUTE": "0",
        "RAGMON_JUDGE_TOKENS_PER_HOUR": "0",
        "RAGMON_JUDGE_QUEUE_SIZE": "10000",
    }


def estimates(worker: WorkerProcess) -> dict[str, float]:
    m = worker.metrics()
    out = {}
    for rate in ("support", "hallucination"):
        for suffix in ("", "_lower", "_upper"):
            got = m.get(_key(f"ragmon_{rate}_ratio{suffix}", app=APP))
            if got is not None:
                out[rate + suffix] = got
    judged = m.get(_key("ragmon_window_judged_claims", app=APP))
    if judged is not None:
        out["judged"] = judged
    events = m.get(_key("ragmon_window_events", app=APP))
    if events is not None:
        out["events"] = events
    return out


def queued(worker: WorkerProcess) -> float:
    return worker.metrics().get(_key("ragmon_judge_queue_depth"), 0.0)


def test_labelled_stream_drives_the_gauges_to_the_estimate(
    broker: Any, start_worker: Any, dev: Labelled, judge: JudgeHTTPServer, tmp_path: Path
) -> None:
    ns = Namespace("rates")
    worker = start_worker(ns, **judge_env(judge))
    worker.wait_assigned()
    prom = None
    if PROMETHEUS is not None:  # Prometheus scrapes the worker and evaluates the shipped rules
        prom = Prometheus(tmp_path / "prometheus", [f"127.0.0.1:{worker.port}"], [RULES_FILE])
        prom.wait_ready()
        prom.wait_for('up{job="ragmon"} == 1')
    try:
        _labelled_stream(broker, worker, ns, dev, prom)
    finally:
        if prom is not None:
            prom.close()


def _labelled_stream(
    broker: Any, worker: WorkerProcess, ns: Namespace, dev: Labelled, prom: Prometheus | None
) -> None:
    records = [(None, v) for v in dev.values]
    if prom is not None:
        # the rules need increase(ragmon_events_total[5m]) >= 20, and increase() does not count
        # a series' first sample: a stream checked within one scrape would never reach it
        produce(broker.bootstrap, ns.topic("answers"), records[:1])
        wait_until(
            lambda: bool(prom.series(f'ragmon_events_total{{app="{APP}"}}')),
            timeout=30,
            what="Prometheus's first sample of the events counter",
        )
        records = records[1:]
    produce(broker.bootstrap, ns.topic("answers"), records)
    want = dev.figures
    judged_claims = want["support_judged"]
    assert dev.labelled > 60 and judged_claims

    def done() -> bool:
        got = estimates(worker)
        return got.get("events") == len(dev.values) and got.get("judged") == judged_claims

    wait_until(done, timeout=180, what="every answer counted and every label in the window")
    got = estimates(worker)
    for rate in ("support", "hallucination"):
        for suffix in ("", "_lower", "_upper"):
            assert got[rate + suffix] == pytest.approx(want[rate + suffix], rel=1e-9)
        # the interval holds the true rate (every judgeable claim with its human label)
        assert got[rate + "_lower"] <= dev.truth[rate] <= got[rate + "_upper"], (rate, got)
    m = worker.metrics()
    labelled = m.get(_key("ragmon_estimation_answers_total", app=APP, outcome="labelled"))
    assert labelled == dev.labelled
    assert m.get(_key("ragmon_judge_enabled")) == 1
    # the cheap tier alone reads far from the truth; the estimate is what the gauges show
    cheap = m[_key("ragmon_cheap_verdict_share", app=APP, verdict="supported")]
    assert abs(cheap - dev.truth["support"]) > abs(got["support"] - dev.truth["support"])
    if prom is None:
        return
    # Prometheus reads the same bound, and the support rule fires: the upper bound (~0.4, and
    # the rule's own at its level, ragmon_alert_bound_ratio) is below 0.8 with more than 30
    # judged claims (`for: 0s`: no pending state)
    query = f'max by (app) (ragmon_support_ratio_upper{{app="{APP}"}})'

    def scraped() -> bool:  # its latest sample may predate the last label by a scrape
        found = prom.series(query)
        return bool(found) and float(found[0]["value"][1]) == pytest.approx(
            got["support_upper"], rel=1e-9
        )

    wait_until(scraped, timeout=30, what="Prometheus's sample of the final upper bound")
    alert = f'ALERTS{{alertname="RagmonSupportLow",app="{APP}",alertstate="firing"}}'
    assert prom.wait_for(alert, timeout=90)


def test_the_estimate_survives_a_killed_worker(
    broker: Any, start_worker: Any, dev: Labelled, judge: JudgeHTTPServer
) -> None:
    ns = Namespace("rates-kill")
    # the judge answers after 0.2 s, one call at a time per worker (a local server): requests
    # queue up in the workers, so the victim dies with some taken and not answered
    env = judge_env(judge, model="ok@0.2")
    workers: list[WorkerProcess] = [start_worker(ns, **env), start_worker(ns, **env)]

    def split() -> bool:
        parts = [w.answers_partitions() for w in workers]
        return all(parts) and sorted(parts[0] + parts[1]) == [0, 1, 2, 3]

    wait_until(split, timeout=90, interval=0.5, what="two-worker assignment")
    records = [(json.loads(v)["event_id"].encode(), v) for v in dev.values]
    feeder = Feeder(broker.bootstrap, ns.topic("answers"), records).start()

    # the victim owns the app's window, has counted part of the stream and holds judge
    # requests it has not answered
    def owner() -> WorkerProcess | None:
        for w in workers:
            if estimates(w).get("events", 0) >= 60 and queued(w) >= 2:
                return w
        return None

    victim = wait_until(owner, timeout=120, interval=0.1, what="a window with 60 answers")
    survivor = workers[1] if victim is workers[0] else workers[0]
    assert victim.proc is not None
    os.kill(victim.proc.pid, signal.SIGKILL)
    sent_at_kill = feeder.sent
    victim.proc.wait(10)
    assert sent_at_kill < len(records), "the stream ended before the kill: not mid-stream"
    feeder.join(60)

    # Labels: the judge requests the victim had taken but not answered were never acked, so
    # the survivor reads and judges them again: the sample is the offline one, every label
    # once (a request judged by both sends its label twice; the window keeps one)
    expected = dev.figures["support_judged"]
    assert expected is not None

    def recovered() -> dict[str, float] | None:
        got = estimates(survivor)
        full = got.get("events") == len(records) and got.get("judged", 0) >= expected
        return got if full and "support" in got else None

    got = wait_until(recovered, timeout=180, interval=0.5, what="survivor's window complete")
    assert got is not None
    assert got["events"] == len(records)  # every answer once: dedup by event id
    assert got["judged"] == expected
    for rate in ("support", "hallucination"):
        assert got[rate + "_lower"] <= dev.truth[rate] <= got[rate + "_upper"], (rate, got)
