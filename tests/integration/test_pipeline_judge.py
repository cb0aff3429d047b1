"""Judge verdicts in the windowed rates, on a real broker with a real (scripted) judge server.

Every answer with a judgeable claim is sampled; the judge agent calls the fake OpenAI-compatible
server, publishes its verdicts and sends the windows a correction. The window gauges must equal
the ratios of the offline cheap counts plus, for every judged answer, the change its judge
verdicts make (the judge's verdict replaces the cheap one: not added to it).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from agents.judging.fake_server import JudgeHTTPServer
from agents.output.records import (
    COUNT_FIELDS,
    add_vectors,
    judge_delta,
    vector_to_counts,
    verdict_vector,
)
from tests.conftest import standard_mix
from tests.integration.conftest import Namespace, consume, produce, wait_until
from tests.integration.test_pipeline import _key, total

pytestmark = pytest.mark.integration

N_EVENTS = 80


@pytest.fixture(scope="module")
def judge_server() -> Iterator[JudgeHTTPServer]:
    server = JudgeHTTPServer().start()
    yield server
    server.stop()


def test_judge_verdicts_replace_cheap_verdicts_in_the_window(
    broker: Any, start_worker: Any, judge_server: JudgeHTTPServer
) -> None:
    from monitor.check import check_bytes
    from monitor.judge.request import judge_items
    from monitor.settings import load_settings

    options = load_settings().check_options()
    events = standard_mix(N_EVENTS, seed=23)
    values = [json.dumps(e).encode() for e in events]
    cheap: dict[str, list[int]] = {}
    judged_ids: set[str] = set()
    for value in values:
        verdict = check_bytes(value, options)
        app = verdict.app or "other"  # type: ignore[union-attr]
        cheap[app] = add_vectors(cheap.get(app), verdict_vector(verdict))  # type: ignore[arg-type]
        if judge_items(verdict):  # type: ignore[arg-type]
            judged_ids.add(verdict.event_id)  # type: ignore[union-attr]
    assert judged_ids

    ns = Namespace("judged")
    worker = start_worker(
        ns,
        RAGMON_JUDGE_ENABLED="true",
        OPENAI_BASE_URL=judge_server.url,
        OPENAI_API_KEY="test-key",
        RAGMON_JUDGE_MODEL="ok",
        RAGMON_ESCALATION_MODEL="ok",
        RAGMON_JUDGE_SAMPLE_RATE="1",
        RAGMON_JUDGE_OVERSAMPLE_RATE="1",
        RAGMON_JUDGE_CALLS_PER_MINUTE="1000000",
        RAGMON_JUDGE_TOKENS_PER_HOUR="1000000000",
        RAGMON_JUDGE_QUEUE_SIZE="10000",
    )
    worker.wait_assigned()
    produce(broker.bootstrap, ns.topic("answers"), [(None, v) for v in values])
    wait_until(
        lambda: total(worker.metrics(), "ragmon_events_total") >= N_EVENTS,
        timeout=120,
        what="every answer checked",
    )
    verdicts = consume(broker.bootstrap, ns.topic("verdicts"), len(judged_ids), timeout=120)
    records = [json.loads(r.value) for r in verdicts]
    assert sorted(r["event_id"] for r in records) == sorted(judged_ids)

    expected = {app: list(v) for app, v in cheap.items()}
    changed: Counter[str] = Counter()
    for record in records:
        delta = judge_delta(record["claims"])
        expected[record["app"]] = add_vectors(expected[record["app"]], delta)
        changed.update(
            name for name, n in zip(COUNT_FIELDS, delta, strict=True) if n and "judge" not in name
        )
    assert changed, "the judge agreed with the cheap tier everywhere: nothing was tested"

    def ratios(vector: list[int]) -> dict[str, float]:
        c = vector_to_counts(vector)
        return {
            "ragmon_validity_ratio": c["valid_citations"] / c["citations"],
            "ragmon_support_ratio": c["supported_claims"] / c["decided_claims"],
            "ragmon_hallucination_ratio": c["unsupported_claims"] / c["claims"],
            "ragmon_coverage_ratio": c["cited_claims"] / c["claims"],
        }

    want = {app: ratios(v) for app, v in expected.items()}

    def matches() -> bool:
        m = worker.metrics()
        return all(
            m.get(_key(name, app=app)) == pytest.approx(value, rel=1e-12)
            for app, figures in want.items()
            for name, value in figures.items()
        )

    wait_until(matches, timeout=60, what="window gauges with the judge's corrections")
    m = worker.metrics()
    for app, vector in expected.items():
        assert m[_key("ragmon_window_events", app=app)] == vector[0]  # no answer counted twice
    # The cheap-only ratios differ: the corrections did change the windows.
    assert any(ratios(cheap[app]) != want[app] for app in want)
