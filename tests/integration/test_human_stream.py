"""Rates on the human scale through the real broker (and Prometheus when installed).

A scripted judge with a known error (WiCE dev: a claim people call not supported is read as
supported with probability 1 − S, a supported or partially supported one as not supported with
probability 1 − P, by a hash of the claim's text) judges a 30% sample. Then:

1. with no human label the gauges are the judge's scale, as before (`ragmon_rate_scale_human`
   0, no human-scale series);
2. `ragmon label import` of every judgeable claim's human label: the judged ones pair with the
   judge's verdicts; the judge's sensitivity/specificity gauges hold the scripted truth in their
   intervals, and the human-scale gauges equal the correction computed offline from the same
   window sums and pairs (monitor.estimation.human.window_human);
3. the judge drifts (its specificity falls to 0.1) on a second copy of the stream, labelled the
   same way: `judge_drift` fires in the stream (and Prometheus's expression reads it).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents.judging.fake_server import JudgeHTTPServer
from agents.kafka.broker import EmbeddedBroker
from agents.output.records import COUNT_FIELDS, add_vectors, judge_delta, verdict_vector
from monitor.estimation.human import window_human
from monitor.estimation.judge_error import judge_error
from monitor.sampling.policy import hash_fraction
from tests.integration.conftest import ROOT, Namespace, WorkerProcess, produce, wait_until
from tests.integration.prometheus_server import PROMETHEUS, Prometheus
from tests.integration.promql_checks import RULES_FILE
from tests.integration.test_pipeline import _key

pytestmark = pytest.mark.integration

DEV = ROOT.parent / "shared" / "eval" / "dev"
RATE = 0.3
S, P = 0.9, 0.7  # the scripted judge's sensitivity and specificity for "not supported"
DRIFT_P = 0.1
APP = "wice"
JUDGEMENT = {
    "supported": "ENTAILMENT",
    "partially_supported": "NEUTRAL",
    "not_supported": "CONTRADICTION",
}
RULES = """
rules:
  - name: judge_drift
    figure: judge_agreement
    below: 0.6
    resolve_at: 0.7
    min_events: 10
    for: 0s
    severity: warning
"""


def _u(text: str) -> float:
    return int(hashlib.sha256(("judge:" + text).encode()).hexdigest()[:12], 16) / 16**12


def scripted_verdict(human: str, claim: str, specificity: float) -> str:
    """What the scripted judge says about a claim people gave `human`."""
    if human == "not_supported":
        return human if _u(claim) < S else "supported"
    return "not_supported" if _u(claim) >= specificity else human


class Stream:
    """The dev set checked offline, with the scripted judge's verdicts: what the window should
    hold, the judged claims' (verdict, human) pairs, and the human labels to import."""

    def __init__(self, prefix: str, specificity: float) -> None:
        from monitor.check import check_bytes
        from monitor.config.settings import load_settings
        from monitor.inputs.decode import decode_event
        from monitor.judge.request import judge_items

        options = load_settings().check_options()
        labels = {}
        for line in (DEV / "wice-dev.labels.jsonl").read_text().splitlines():
            row = json.loads(line)
            labels[prefix + row["event_id"]] = row["label"]
        self.values: list[bytes] = []
        self.scripted: dict[str, str] = {}
        self.sums: list[int] = [0] * len(COUNT_FIELDS)
        self.pairs: list[tuple[str, str]] = []
        self.import_rows: list[dict[str, Any]] = []
        for line in (DEV / "wice-dev.events.jsonl").read_bytes().splitlines():
            event = json.loads(line)
            event["event_id"] = prefix + event["event_id"]
            event["app"] = APP
            raw = json.dumps(event).encode()
            human = labels[event["event_id"]]
            verdict = check_bytes(raw, options)
            decoded = decode_event(raw, options)
            self.values.append(raw)
            self.sums = add_vectors(self.sums, verdict_vector(verdict))  # type: ignore[arg-type]
            items = judge_items(verdict, event=decoded)  # type: ignore[arg-type]
            said = []
            for item in items:
                claim = " ".join(item.claim.split())
                said.append(scripted_verdict(human, claim, specificity))
                self.scripted[claim] = JUDGEMENT[said[-1]]
                self.import_rows.append(
                    {
                        "event_id": event["event_id"],
                        "claim_index": item.claim_index,
                        "label": human,
                        "reviewer": "importer",
                    }
                )
            if items and hash_fraction(event["event_id"]) < RATE:
                entries = [{"outcome": "ok", "verdict": v} for v in said]
                scores = [i.cheap_score or 0.0 for i in items]
                self.sums = add_vectors(self.sums, judge_delta(entries, scores))
                self.pairs += [(v, human) for v in said]

    def counts(self) -> dict[str, int]:
        return dict(zip(COUNT_FIELDS, self.sums, strict=True))


def judge_env(server: JudgeHTTPServer, rules: Path) -> dict[str, str]:
    return {
        "RAGMON_JUDGE_ENABLED": "true",
        "OPENAI_BASE_URL": server.url,
        "OPENAI_API_KEY": "test-key",
        "RAGMON_JUDGE_MODEL": "ok",
        "RAGMON_ESCALATION_MODEL": "",
        "RAGMON_JUDGE_SAMPLE_RATE": str(RATE),
        "RAGMON_JUDGE_OVERSAMPLE_RATE": str(RATE),
        "RAGMON_JUDGE_CALLS_PER_MINUTE": "0",
        "RAGMON_JUDGE_TOKENS_PER_HOUR": "0",
        "RAGMON_JUDGE_QUEUE_SIZE": "10000",
        "RAGMON_JUDGE_CACHE_SIZE": "0",  # the drifted judge must be asked again
        "RAGMON_CALIBRATION_MIN_LABELS": "5",
        "RAGMON_RULES_FILE": str(rules),
        "RAGMON_CHECK_PROCESSES": "0",
    }


def gauges(worker: WorkerProcess) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return worker.metrics()


def label_import(ns: Namespace, bootstrap: str, rows: list[dict[str, Any]], path: Path) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = {
        "RAGMON_BOOTSTRAP_SERVERS": bootstrap,
        "RAGMON_TOPIC_PREFIX": ns.prefix,
        "PYTHONPATH": str(ROOT),
        "PATH": "/usr/bin:/bin",
    }
    run = subprocess.run(
        [sys.executable, "-m", "agents.cli", "label", "import", str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert f"{len(rows)} labels sent, 0 failed" in run.stderr


def test_gauges_move_from_the_judge_scale_to_the_human_one_and_drift_fires(
    broker: EmbeddedBroker,
    start_worker: Callable[..., WorkerProcess],
    tmp_path: Path,
) -> None:
    if not DEV.is_dir():
        pytest.skip("needs ../shared/eval/dev")
    first, drifted = Stream("", P), Stream("d-", DRIFT_P)
    server = JudgeHTTPServer().start()
    server.scripted = first.scripted
    rules = tmp_path / "rules.yaml"
    rules.write_text(RULES)
    ns = Namespace("human")
    worker = start_worker(ns, **judge_env(server, rules))
    prom = None
    try:
        worker.wait_assigned()
        if PROMETHEUS is not None:
            prom = Prometheus(tmp_path / "prometheus", [f"127.0.0.1:{worker.port}"], [RULES_FILE])
            prom.wait_ready()
        _phases(broker, worker, ns, first, drifted, server, tmp_path, prom)
    finally:
        server.stop()
        if prom is not None:
            prom.close()


def _phases(
    broker: EmbeddedBroker,
    worker: WorkerProcess,
    ns: Namespace,
    first: Stream,
    drifted: Stream,
    server: JudgeHTTPServer,
    tmp_path: Path,
    prom: Prometheus | None,
) -> None:
    want = first.counts()
    judged = sum(1 for _ in first.pairs)

    def window_judged() -> float:
        return gauges(worker).get(_key("ragmon_window_judged_claims", app=APP), -1)

    produce(broker.bootstrap, ns.topic("answers"), [(None, v) for v in first.values])
    wait_until(lambda: window_judged() == judged, 240, what="every judged claim in the window")

    # 1. no human label: the judge's scale, as before
    m = gauges(worker)
    for rate in ("support", "hallucination"):
        assert m[_key("ragmon_rate_scale_human", app=APP, rate=rate)] == 0
        assert _key(f"ragmon_{rate}_human_ratio", app=APP) not in m
        assert _key(f"ragmon_{rate}_ratio", app=APP) in m

    # 2. human labels imported: pairs, the judge's error, the human scale
    label_import(ns, broker.bootstrap, first.import_rows, tmp_path / "labels.jsonl")
    # every pair in, for both rates: the labels arrive over several fetches, and a gauge read
    # between two of them (one rate's pairs complete, the other's not) is not the final one
    counts = {
        _key("ragmon_calibration_labels", app=APP, model="_all", rate=rate, human=human): n
        for rate in ("support", "hallucination")
        for table in [judge_error(first.pairs, rate)]
        for human, n in (
            ("positive", table.sensitivity.trials),
            ("negative", table.specificity.trials),
        )
    }
    assert sum(1 for _, h in first.pairs if h == "not_supported") in counts.values()

    def paired() -> bool:
        m = gauges(worker)
        return all(m.get(k) == n for k, n in counts.items()) and all(
            m.get(_key("ragmon_rate_scale_human", app=APP, rate=r)) == 1
            for r in ("support", "hallucination")
        )

    wait_until(paired, 120, what="every judged claim paired with its human label")
    m = gauges(worker)
    for rate in ("support", "hallucination"):
        table = judge_error(first.pairs, rate)
        expected = window_human(want, rate, table)
        assert expected is not None and expected.value is not None
        for suffix, value in (
            ("", expected.value),
            ("_lower", expected.lower),
            ("_upper", expected.upper),
        ):
            got = m[_key(f"ragmon_{rate}_human_ratio{suffix}", app=APP)]
            assert got == pytest.approx(value, rel=1e-9), (rate, suffix)
        assert m[_key("ragmon_rate_scale_human", app=APP, rate=rate)] == 1
    # the scripted truth for "not supported" lies in the measured intervals
    for name, truth in (("sensitivity", S), ("specificity", P)):
        lab = {"app": APP, "model": "_all", "rate": "hallucination"}
        lo = m[_key(f"ragmon_judge_{name}_ratio_lower", **lab)]
        hi = m[_key(f"ragmon_judge_{name}_ratio_upper", **lab)]
        assert lo <= truth <= hi, (name, lo, hi)
        assert m[_key(f"ragmon_judge_{name}_ratio", model="ok", app=APP, rate="hallucination")]
    assert m.get(_key("ragmon_alert_firing", app=APP, rule="judge_drift"), 0) == 0
    if prom is not None:  # Prometheus reads the same bound
        query = f'min by (app) (ragmon_hallucination_human_ratio_lower{{app="{APP}"}})'
        lower = m[_key("ragmon_hallucination_human_ratio_lower", app=APP)]
        wait_until(
            lambda: any(
                float(s["value"][1]) == pytest.approx(lower, rel=1e-9) for s in prom.series(query)
            ),
            60,
            what="Prometheus scraping the human-scale bound",
        )

    # 3. the judge drifts: its specificity falls to 0.1 on a second copy of the stream
    server.scripted = drifted.scripted
    produce(broker.bootstrap, ns.topic("answers"), [(None, v) for v in drifted.values])
    both = judged + len(drifted.pairs)
    wait_until(lambda: window_judged() == both, 240, what="the drifted judge's verdicts")
    label_import(ns, broker.bootstrap, drifted.import_rows, tmp_path / "drift.jsonl")
    wait_until(
        lambda: gauges(worker).get(_key("ragmon_alert_firing", app=APP, rule="judge_drift")) == 1,
        120,
        what="judge_drift firing",
    )
    pooled = judge_error(first.pairs + drifted.pairs, "hallucination")
    assert pooled.specificity.upper is not None and pooled.specificity.upper < 0.6
    log = worker.log_path.read_text(errors="replace")
    assert "judge_drift" in log
    if prom is not None:
        expr = (
            'min by (app) ({__name__=~"ragmon_judge_(sensitivity|specificity)_ratio_upper",'
            f'model="_all",app="{APP}"}})'
        )
        wait_until(
            lambda: any(float(s["value"][1]) < 0.6 for s in prom.series(expr)),
            60,
            what="Prometheus reading the judge's agreement below the floor",
        )
