"""Broker outage: the broker stops, stays away, and comes back on the same port.

The worker must notice (`ragmon_broker_up` 0), log the outage a few times rather than once per
client retry, reconnect by itself when the broker is back (`ragmon_broker_up` 1) and check new
events. The CI version keeps the broker away ~8 s; `RAGMON_SLOW=1` adds the 30 s version.

tansu keeps its data in memory, so a restart comes back empty. A real Kafka cluster keeps topics,
records and committed offsets across a restart; the test restores that state before new traffic:
it recreates every topic (ragmon's, the tables' changelogs) and republishes the records the
answers topic held, in the same order and partitions, so offsets match what the worker had read.
Those republished records reach the worker again only if it re-reads from the start, and then
its in-memory dedup must skip them (counted as duplicates, never checked twice).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agents.kafka.broker import EmbeddedBroker
from tests.conftest import standard_mix
from tests.integration.conftest import Namespace, WorkerProcess, produce, wait_until
from tests.integration.test_pipeline import total

pytestmark = pytest.mark.integration

BEFORE, AFTER = 120, 60  # events before the outage, new events after it
LOG_INTERVAL = 30.0  # agents.stream.runner.quiet_client_logs: one line per message per interval


def _broker_up(worker: WorkerProcess) -> float | None:
    return worker.metrics().get(("ragmon_broker_up", frozenset()))


def _changelog_topics(settings: Any) -> list[str]:
    """The changelog topics of the worker's tables, as the app factory declares them."""
    from agents.stream.app import create_app

    app = create_app(settings.model_copy(update={"metrics_port": 0})).faust
    return sorted(table.changelog_topic.get_topic_name() for table in app.tables.values())


def _restore_topics(bootstrap: str, ns: Namespace, partitions: int = 4) -> None:
    """What a persistent broker would still have: every topic the worker uses."""
    from agents.kafka.connection import client_kwargs
    from agents.kafka.topics import TopicSpec, ensure_topics, topic_specs
    from monitor.config.settings import load_settings

    settings = load_settings(bootstrap_servers=bootstrap, topic_prefix=ns.prefix, app_id=ns.app_id)
    specs = dict(topic_specs(settings))
    for name in _changelog_topics(settings):
        specs[name] = TopicSpec(name, name, partitions)
    asyncio.run(ensure_topics(settings, client_kwargs(settings), specs))


def _messages(lines: list[str]) -> Counter[str]:
    """Log lines by message (JSON `event` of structlog, else the text after the level)."""
    out: Counter[str] = Counter()
    for line in lines:
        try:
            out[str(json.loads(line).get("event"))] += 1
        except ValueError:
            out[line.split(":", 1)[-1].strip()[:120]] += 1
    return out


def _run_outage(tmp_path: Path, outage_s: float) -> None:
    events = standard_mix(BEFORE + AFTER, seed=41)
    records = [(e["event_id"].encode(), json.dumps(e).encode()) for e in events]
    before, after = records[:BEFORE], records[BEFORE:]
    broker = EmbeddedBroker(log=tmp_path / "tansu.log")
    broker.start()
    port = broker.port
    ns = Namespace(f"outage{int(outage_s)}")
    worker = WorkerProcess(broker.bootstrap, ns, tmp_path, {}).start()
    try:
        worker.wait_assigned(timeout=60)
        produce(broker.bootstrap, ns.topic("answers"), list(before))
        wait_until(
            lambda: total(worker.metrics(), "ragmon_events_total", outcome="checked") >= BEFORE,
            timeout=60,
            what="events before the outage",
        )
        wait_until(lambda: _broker_up(worker) == 1, timeout=15, what="broker_up 1")
        lines_before = len(worker.log_tail(10**8).splitlines())

        stopped = time.monotonic()
        broker.stop()
        wait_until(lambda: _broker_up(worker) == 0, timeout=20, what="broker_up 0")
        noticed_s = time.monotonic() - stopped
        time.sleep(max(0.0, outage_s - (time.monotonic() - stopped)))
        assert worker.proc is not None and worker.proc.poll() is None, worker.log_tail()
        outage_lines = worker.log_tail(10**8).splitlines()[lines_before:]

        broker = EmbeddedBroker(port=port, log=tmp_path / "tansu-restarted.log")
        broker.start()
        restarted = time.monotonic()
        _restore_topics(broker.bootstrap, ns)
        produce(broker.bootstrap, ns.topic("answers"), list(before))
        wait_until(lambda: _broker_up(worker) == 1, timeout=30, what="broker_up back to 1")
        up_s = time.monotonic() - restarted
        produce(broker.bootstrap, ns.topic("answers"), list(after))

        def resumed() -> dict[Any, float] | None:
            m = worker.metrics()
            return (
                m if total(m, "ragmon_events_total", outcome="checked") >= BEFORE + AFTER else None
            )

        metrics = wait_until(resumed, timeout=90, interval=0.5, what="new events checked")
        assert metrics is not None
        resumed_s = time.monotonic() - restarted
    finally:
        worker.stop()
        broker.stop()

    # Each new event checked once; a republished old one, if re-read, is a duplicate.
    assert total(metrics, "ragmon_events_total", outcome="checked") == BEFORE + AFTER
    assert total(metrics, "ragmon_events_total", outcome="duplicate") <= BEFORE
    by_message = _messages(outage_lines)
    per_message_cap = math.ceil(outage_s / LOG_INTERVAL) + 1
    storm = {m: n for m, n in by_message.items() if n > per_message_cap}
    assert storm == {}, f"repeated log lines during the outage: {storm}"
    assert len(outage_lines) <= 40, "\n".join(outage_lines)
    assert not any("Traceback" in line for line in outage_lines)
    if os.environ.get("RAGMON_FAULT_VERBOSE"):
        print("\n".join(outage_lines))
    print(
        f"\nFAULT broker outage {outage_s:g} s: broker_up 0 after {noticed_s:.1f} s, "
        f"{len(outage_lines)} log lines during the outage ({len(by_message)} distinct, most "
        f"repeated {max(by_message.values(), default=0)}x), broker_up 1 {up_s:.1f} s after the "
        f"restart, {AFTER} new events checked {resumed_s:.1f} s after it; republished records "
        f"re-read as duplicates: {total(metrics, 'ragmon_events_total', outcome='duplicate'):.0f}"
    )


def test_worker_rides_out_a_short_broker_outage(tmp_path: Path) -> None:
    _run_outage(tmp_path, outage_s=8.0)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RAGMON_SLOW"), reason="30 s outage: set RAGMON_SLOW=1")
def test_worker_rides_out_a_30s_broker_outage(tmp_path: Path) -> None:
    _run_outage(tmp_path, outage_s=30.0)
