from __future__ import annotations

import json
from typing import Any

import pytest

import agents.checking.work as check_work
from agents.stream.check_agent import CheckProcessor, RecordMeta
from monitor.config.settings import load_settings
from monitor.records.models import Verdict
from tests.agents.helpers import fresh_metrics, labels, mixed_verdict, samples, value


class Capture:
    """What the processor emits, by topic role: (key, decoded JSON value)."""

    def __init__(self) -> None:
        self.scores: list[tuple[Any, Any]] = []
        self.dlq: list[tuple[Any, Any]] = []
        self.audit: list[tuple[Any, Any]] = []

    def emit(self, role: str, key: bytes | None, value: bytes) -> None:
        getattr(self, role).append((key, json.loads(value)))

    def audit_send(self, key: str, value: bytes) -> None:
        self.emit("audit", key.encode(), value)


def meta(offset: int = 7, key: bytes | None = b"k") -> RecordMeta:
    return RecordMeta("ragmon.answers", 3, offset, 1000.0, key)


def event(event_id: str = "e1", app: str = "search", **extra: Any) -> bytes:
    return json.dumps({"event_id": event_id, "app": app, "answer": "A claim.", **extra}).encode()


@pytest.fixture
def processor(monkeypatch: pytest.MonkeyPatch) -> tuple[CheckProcessor, Capture, Any]:
    """The real decoder in front of a checker that returns a hand-made verdict."""

    def fake_check(ev: Any, options: Any) -> Verdict:
        return mixed_verdict(ev.event_id, ev.app)

    monkeypatch.setattr(check_work, "check_event", fake_check)
    settings = load_settings(apps="search,docs-qa", audit_sample_rate=0.0, dlq_max_value_bytes=10)
    metrics, capture = fresh_metrics(), Capture()
    from agents.output.audit import AuditTrail

    audit = AuditTrail(settings, metrics, send=capture.audit_send)
    proc = CheckProcessor(settings, metrics, capture.emit, audit=audit, clock=lambda: 1010.0)
    return proc, capture, metrics


def test_a_checked_event_is_counted_scored_and_audited(processor: Any) -> None:
    proc, capture, m = processor
    outcome = proc.handle(event(timestamp="2023-11-14T22:13:20Z"), meta())
    assert value(m, "ragmon_events_total", app="search", outcome="checked") == 0  # batch open
    proc.flush()
    assert outcome.kind == "checked" and outcome.app == "search"
    assert value(m, "ragmon_events_total", app="search", outcome="checked") == 1
    assert samples(m, "ragmon_citations_total") == {
        labels(app="search", format="span", status="valid"): 2,
        labels(app="search", format="span", status="invalid"): 1,
    }
    assert samples(m, "ragmon_citation_errors_total") == {
        labels(app="search", error="span_out_of_bounds"): 1
    }
    assert samples(m, "ragmon_claims_total") == {
        labels(app="search", verdict="supported", tier="lexical"): 1,
        labels(app="search", verdict="not_supported", tier="lexical"): 1,
        labels(app="search", verdict="unverifiable", tier="lexical"): 1,
        labels(app="search", verdict="partially_supported", tier="lexical"): 1,
        labels(app="search", verdict="unverifiable", tier="rules"): 1,
    }
    # The numerators and denominators of support, hallucination and coverage (hand counts in
    # helpers.mixed_verdict: 4 of 5 claims cited, 3 decided, 1 supported, 2 unsupported: the
    # uncited claim is unverifiable against the documents, a coverage gap only).
    assert samples(m, "ragmon_claim_counts_total") == {
        labels(app="search", kind="claims"): 5,
        labels(app="search", kind="cited"): 4,
        labels(app="search", kind="decided"): 3,
        labels(app="search", kind="supported"): 1,
        labels(app="search", kind="hallucinated"): 2,
    }
    assert samples(m, "ragmon_uncited_claims_total") == {
        labels(app="search", verdict="unverifiable"): 1
    }
    # Lag from the event's own timestamp (1700000000) to the processing clock (1010) is
    # negative here: clamped to 0 rather than exported as nonsense.
    assert value(m, "ragmon_event_lag_seconds_count") == 1
    assert value(m, "ragmon_event_lag_seconds_sum") == 0
    ((key, record),) = capture.scores
    assert key == b"search" and record["app"] == "search" and record["kind"] == "scores"
    # id, event time, counted at, failed, counts (COUNT_FIELDS order, trailing zeros cut)
    # then judge calls/errors 0, and the estimation sums: claims 0-2 cite a passage and 4 is
    # uncited (judged on the context), score 0.5 each: f = 2.0 = 20000 in 1e-4 units; 3 (an
    # invalid citation only) is decided by rule: ruled supported 0, unsupported 1, other 0; one
    # answer, m = 4, m^2 = 16, f, f^2 = 400000000, m f = 80000.
    assert record["events"] == [
        [
            "e1",
            1700000000.0,
            1010.0,
            1,
            [1, 0, 3, 2, 5, 4, 3, 1, 2, 0, 0, 0, 1, 0, 1, 4, 16, 20000, 400000000, 80000],
        ]
    ]
    assert record["fields"][:9] == [
        "events",
        "rejected",
        "citations",
        "valid_citations",
        "claims",
        "cited_claims",
        "decided_claims",
        "supported_claims",
        "unsupported_claims",
    ]
    assert len(capture.audit) == 1 and capture.dlq == []


def test_a_batch_sends_one_score_record_per_app(processor: Any) -> None:
    proc, capture, m = processor
    for i, app in enumerate(("search", "docs-qa", "search", "search")):
        proc.handle(event(f"b{i}", app=app), meta(offset=i))
    proc.handle(b"{bad", meta(offset=9))
    assert capture.scores == []  # nothing before the end of the batch
    proc.flush()
    by_app = {key: [e[0] for e in record["events"]] for key, record in capture.scores}
    assert by_app == {b"search": ["b0", "b2", "b3"], b"docs-qa": ["b1"], b"other": [None]}
    assert value(m, "ragmon_events_total", app="search", outcome="checked") == 3
    assert value(m, "ragmon_check_duration_seconds_count") == 4
    proc.flush()  # an empty batch sends nothing more
    assert len(capture.scores) == 3


def test_lag_falls_back_to_the_record_timestamp(processor: Any) -> None:
    proc, _, m = processor
    proc.handle(event(), meta())
    proc.flush()
    assert value(m, "ragmon_event_lag_seconds_sum") == 10.0  # 1010 - record time 1000


def test_unknown_apps_are_labelled_other(processor: Any) -> None:
    proc, capture, m = processor
    proc.handle(event(app="not-listed"), meta())
    proc.flush()
    assert value(m, "ragmon_events_total", app="other", outcome="checked") == 1
    assert capture.scores[0][0] == b"other"


def test_redelivery_to_the_same_worker_is_skipped(processor: Any) -> None:
    proc, capture, m = processor
    assert proc.handle(event(), meta(1)).kind == "checked"
    assert proc.handle(event(), meta(2)).kind == "duplicate"
    proc.flush()
    assert value(m, "ragmon_events_total", app="search", outcome="checked") == 1
    assert value(m, "ragmon_events_total", app="search", outcome="duplicate") == 1
    assert value(m, "ragmon_duplicate_events_total", app="search") == 1
    assert len(capture.scores) == 1
    assert sum(samples(m, "ragmon_citations_total").values()) == 3


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "empty"),
        (b"{not json", "invalid_json"),
        (b"\xff\xfe{}", "invalid_utf8"),
        (b"[1, 2]", "not_an_object"),
        (b'{"event_id": 5, "answer": "x"}', "schema_violation"),
    ],
)
def test_bad_records_go_to_the_dlq_and_the_stream_goes_on(
    processor: Any, raw: bytes, reason: str
) -> None:
    proc, capture, m = processor
    outcome = proc.handle(raw, meta(offset=11))
    proc.flush()
    assert outcome.kind == "rejected" and outcome.reason == reason
    ((key, letter),) = capture.dlq
    assert key == b"k"
    assert letter["reason"] == reason and letter["error"]
    assert (letter["topic"], letter["partition"], letter["offset"]) == ("ragmon.answers", 3, 11)
    assert letter["value_bytes"] == len(raw) and letter["truncated"] == (len(raw) > 10)
    assert value(m, "ragmon_dlq_total", reason=reason) == 1
    assert value(m, "ragmon_events_total", app="other", outcome="rejected") == 1
    # The window counts the reject (the dlq_rate alert) without an id to dedup on.
    ((app, record),) = capture.scores
    assert app == b"other" and record["events"] == [[None, 1000.0, 1010.0, 0, [1, 1]]]
    assert proc.handle(event("after"), meta(offset=12)).kind == "checked"


def test_a_crashing_check_costs_one_event_not_the_stream(
    processor: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc, capture, m = processor

    def boom(ev: Any, options: Any) -> Verdict:
        raise ZeroDivisionError("bug in a check")

    monkeypatch.setattr(check_work, "check_event", boom)
    outcome = proc.handle(event("crash"), meta())
    proc.flush()
    assert outcome.kind == "rejected" and outcome.reason == "check_error"
    assert capture.dlq[0][1]["error"] == "ZeroDivisionError: bug in a check"
    assert capture.dlq[0][1]["event_id"] == "crash"
    assert value(m, "ragmon_dlq_total", reason="check_error") == 1


@pytest.mark.parametrize("in_check_process", [False, True])
def test_a_redelivered_answer_whose_check_raises_is_dead_lettered_once(
    processor: Any, monkeypatch: pytest.MonkeyPatch, in_check_process: bool
) -> None:
    proc, capture, m = processor

    def boom(ev: Any, options: Any) -> Verdict:
        raise ZeroDivisionError("bug in a check")

    monkeypatch.setattr(check_work, "check_event", boom)
    for offset in (1, 2):  # the same answer twice: a redelivery after a restart
        if in_check_process:  # what a check process sends back, counted by `apply`
            proc.apply(
                proc.work.run(event("crash"), meta(offset).where()), event("crash"), meta(offset)
            )
        else:
            proc.handle(event("crash"), meta(offset))
    proc.flush()
    assert [letter["offset"] for _, letter in capture.dlq] == [1]
    assert value(m, "ragmon_dlq_total", reason="check_error") == 1
    assert value(m, "ragmon_events_total", app="search", outcome="rejected") == 1
    assert value(m, "ragmon_events_total", app="search", outcome="duplicate") == 1
    assert proc.processed == {"rejected": 1, "duplicate": 1}


def test_hooks_see_every_checked_verdict(processor: Any) -> None:
    proc, _, _ = processor
    seen: list[str] = []
    proc.hooks.append(lambda ev, verdict, meta: seen.append(verdict.event_id))
    proc.handle(event("h1"), meta())
    proc.handle(b"bad", meta())
    assert seen == ["h1"]


def test_a_failing_hook_costs_neither_its_answer_nor_the_next(processor: Any) -> None:
    proc, _, m = processor
    seen: list[str] = []

    def broken(ev: Any, verdict: Any, meta: Any) -> None:
        raise RuntimeError("hook bug")

    proc.hooks.extend([broken, lambda ev, verdict, meta: seen.append(verdict.event_id)])
    assert proc.handle(event("h1"), meta()).kind == "checked"
    assert proc.handle(event("h2"), meta(8)).kind == "checked"
    proc.flush()
    assert seen == ["h1", "h2"]  # the hooks after the broken one still run
    assert value(m, "ragmon_events_total", app="search", outcome="checked") == 2


def test_the_real_checks_on_one_event() -> None:
    pytest.importorskip("monitor.check")
    settings = load_settings(audit_sample_rate=0.0)
    metrics, capture = fresh_metrics(), Capture()
    proc = CheckProcessor(settings, metrics, capture.emit)
    doc = {"id": "a.txt", "text": "The premium is 120 dollars per month for every customer."}
    answer = "The premium is 120 dollars per month for every customer [a.txt:1:0-56]."
    raw = json.dumps({"event_id": "r1", "app": "docs-qa", "answer": answer, "documents": [doc]})
    outcome = proc.handle(raw.encode(), meta())
    proc.flush()
    assert outcome.kind == "checked"
    assert outcome.verdict is not None
    assert [c.status for c in outcome.verdict.citations] == ["valid"]
    assert value(metrics, "ragmon_events_total", app="docs-qa", outcome="checked") == 1
