"""`ragmon audit` against the embedded broker: by app, verdict and time range, seeking by
timestamp; with --app it lists the same answers, in the same order, as the evidence page."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agents.evidence.web import evidence_report, parse_query
from agents.kafka.broker import EmbeddedBroker
from agents.output.audit import AuditTrail
from monitor.alerting.alerts import load_rules
from monitor.check import check_event
from monitor.config.settings import load_settings
from monitor.inputs.decode import decode_event
from monitor.records.models import AnswerEvent
from tests.integration.conftest import Namespace, produce, run_ragmon
from tests.integration.test_evidence_browser import GOOD, SMALL, WORST, event

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def audit_records(answers: list[tuple[str, str]], app: str = "shop") -> list[tuple[bytes, bytes]]:
    """The audit records a worker would write for these answers (every one audited)."""
    out: list[tuple[bytes, bytes]] = []

    def send(key: str, value: bytes) -> None:
        out.append((key.encode(), value))

    trail = AuditTrail(load_settings(audit_sample_rate=1.0), None, send=send)
    for i, (eid, answer) in enumerate(answers):
        _, raw = event(eid, answer)
        body = json.loads(raw)
        body["app"] = app
        decoded = decode_event(json.dumps(body).encode(), load_settings().check_options())
        assert isinstance(decoded, AnswerEvent)
        verdict = check_event(decoded, load_settings().check_options())
        trail.offer(verdict, {"topic": "answers", "partition": 0, "offset": i}, decoded)
    return out


def cli(ns: Namespace, bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_ragmon(ns, bootstrap, "audit", *args)


def test_audit_lists_the_pages_answers_and_seeks_by_time(broker: EmbeddedBroker) -> None:
    ns = Namespace("auditcli")
    topic = ns.topic("audit")
    # an hour's worth is not needed: the earlier group is older than --from by real time
    produce(broker.bootstrap, topic, audit_records([("old-worst", WORST), ("old-small", SMALL)]))
    time.sleep(1.5)
    middle = time.time()
    time.sleep(0.5)
    recent = [(f"good-{i}", GOOD) for i in range(20)]
    recent += [("small-0", SMALL), ("small-1", SMALL), ("worst-1", WORST)]
    produce(broker.bootstrap, topic, audit_records(recent))
    produce(broker.bootstrap, topic, audit_records([("other-app", WORST)], app="search"))

    out = cli(ns, broker.bootstrap, "--app", "shop", "--since", "10m", "--verdict",
              "not_supported", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    listed = [json.loads(line)["event_id"] for line in out.stdout.splitlines()]

    settings = load_settings(bootstrap_servers=broker.bootstrap, topic_prefix=ns.prefix)
    rules = {r.name: r for r in load_rules()}
    params = {"app": "shop", "since": "10m", "verdict": "not_supported"}
    page = asyncio.run(evidence_report(settings, parse_query(params, settings, rules, time.time())))
    assert listed == [a["event_id"] for a in page["answers"]]
    assert listed[:2] == ["old-worst", "worst-1"] or listed[:2] == ["worst-1", "old-worst"]
    assert set(listed) == {"old-worst", "worst-1", "old-small", "small-0", "small-1"}

    # from a time between the groups: the earlier records are not listed (nor read)
    out = cli(ns, broker.bootstrap, "--app", "shop", "--from", f"{middle:.3f}", "--verdict",
              "not_supported")  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [line.split()[2] for line in lines] == ["worst-1", "small-0", "small-1"]
    assert lines[0].startswith("#1 +")
    assert "23 audited answers" in out.stderr

    # the trail, any app, time order, by reason and by event id
    out = cli(ns, broker.bootstrap, "--from", f"{middle:.3f}", "--reason", "number_missing")
    assert out.returncode == 0, out.stderr
    ids = [line.split()[4] for line in out.stdout.splitlines()]
    assert ids == ["worst-1", "other-app"]
    out = cli(ns, broker.bootstrap, "--event-id", "small-1", "--json")
    [record] = [json.loads(line) for line in out.stdout.splitlines()]
    assert record["event_id"] == "small-1" and record["question"].startswith("How did")

    # what is not there is an error naming the range (and the apps that are), not an empty 0
    out = cli(ns, broker.bootstrap, "--event-id", "nosuchid", "--since", "-5m")
    assert out.returncode == 1 and out.stdout == ""
    assert "error: no audit record of event 'nosuchid' from " in out.stderr
    out = cli(ns, broker.bootstrap, "--app", "nosuchapp", "--since=-5m")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.rstrip().endswith("apps with records then: search, shop")


def test_follow_prints_records_as_they_arrive(broker: EmbeddedBroker) -> None:
    ns = Namespace("auditfollow")
    topic = ns.topic("audit")
    produce(broker.bootstrap, topic, audit_records([("before", WORST)]))
    env = {
        **os.environ,
        "RAGMON_BOOTSTRAP_SERVERS": broker.bootstrap,
        "RAGMON_TOPIC_PREFIX": ns.prefix,
        "PYTHONUNBUFFERED": "1",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "audit", "--follow", "--json", "--since", "1h"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    guard = threading.Timer(60, proc.kill)  # a hung read fails the test instead of hanging it
    guard.start()
    try:
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["event_id"] == "before"
        produce(broker.bootstrap, topic, audit_records([("after", SMALL)]))
        assert json.loads(proc.stdout.readline())["event_id"] == "after"
    finally:
        guard.cancel()
        proc.terminate()
        proc.wait(10)
