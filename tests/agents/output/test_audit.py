from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from agents.output.audit import AuditTrail
from agents.output.audit_record import MAX_RECORD_BYTES
from agents.output.records import COUNT_FIELDS, verdict_vector
from monitor.config.settings import load_settings
from monitor.output.audit import Redactor, audit_reason, audit_reason_of, has_failure
from tests.agents.helpers import citation, claim, fresh_metrics, mixed_verdict, value, verdict


def healthy(event_id: str) -> Any:
    return verdict(event_id, citations=(citation(0),), claims=(claim(0, (0,), "supported"),))


def test_failures_are_always_audited() -> None:
    invalid_citation = verdict("a", citations=(citation(0, "invalid", "document_not_found"),))
    contradicted = verdict("b", citations=(citation(0),), claims=(claim(0, (0,), "not_supported"),))
    assert has_failure(invalid_citation) and has_failure(contradicted)
    assert audit_reason(invalid_citation, 0.0) == "failure"
    assert audit_reason(contradicted, 0.0) == "failure"
    assert not has_failure(healthy("c"))
    assert audit_reason(healthy("c"), 0.0) is None
    assert audit_reason(healthy("c"), 1.0) == "sample"


def test_sampling_is_a_stable_share_of_event_ids() -> None:
    ids = [f"evt-{i}" for i in range(10_000)]
    first = [audit_reason(healthy(i), 0.1) for i in ids]
    again = [audit_reason(healthy(i), 0.1) for i in ids]
    assert first == again  # same id, same decision, on any worker
    share = sum(r == "sample" for r in first) / len(ids)
    assert 0.09 < share < 0.11
    # Raising the rate only adds events.
    wider = {i for i in ids if audit_reason(healthy(i), 0.2) == "sample"}
    assert {i for i, r in zip(ids, first, strict=True) if r} <= wider


@pytest.mark.parametrize("rate", [0.0, 0.1, 0.5, 1.0])
def test_audit_reason_of_an_id_and_a_failure_is_the_verdicts(rate: float) -> None:
    """What the worker decides for an answer a check process kept (its id and `failed` only)."""
    failing = verdict("x", citations=(citation(0, "invalid", "document_not_found"),))
    assert audit_reason_of("x", True, rate) == audit_reason(failing, rate) == "failure"
    for i in range(500):
        event_id = f"evt-{i}"
        assert audit_reason_of(event_id, False, rate) == audit_reason(healthy(event_id), rate)
    assert audit_reason_of("evt-1", False, 0.0) is None
    assert audit_reason_of("evt-1", False, 1.0) == "sample"


def test_redaction_of_builtins_and_custom_patterns() -> None:
    redactor = Redactor(["email", "phone", r"ACCT-\d+"])
    text = "Mail jane.doe@example.com or call +1 415-555-0123 about ACCT-991 (revenue 12345678)."
    assert redactor.text(text) == (
        "Mail [redacted:email] or call [redacted:phone] about [redacted:pattern] "
        "(revenue 12345678)."
    )
    record = {"event_id": "x@y.io", "claims": [{"text": "x@y.io said", "verdict": "supported"}]}
    assert redactor.record(record) == {
        "event_id": "x@y.io",  # identifiers and codes are left alone
        "claims": [{"text": "[redacted:email] said", "verdict": "supported"}],
    }
    assert not Redactor.from_setting("")
    with pytest.raises(ValueError, match="invalid redaction pattern"):
        Redactor(["("])


class Sent:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, key: str, data: bytes) -> None:
        self.records.append((key, json.loads(data)))


class Lines:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def info(self, event: str, **kw: Any) -> None:
        self.lines.append({"event": event, **kw})


def test_audit_trail_sends_redacted_verdict_records_and_counts_them() -> None:
    settings = load_settings(audit_sample_rate=0.0, redact="email")
    metrics, sent, lines = fresh_metrics(), Sent(), Lines()
    trail = AuditTrail(settings, metrics, send=sent, logger=lines)
    bad = replace(
        mixed_verdict("evt-1"),
        claims=(claim(0, (0,), "not_supported", text="Ask bob@corp.example for the figures."),),
    )
    source = {"topic": "ragmon.answers", "partition": 1, "offset": 7}
    assert trail.offer(bad, source) == "failure"
    assert trail.offer(healthy("evt-2"), source) is None
    assert len(sent.records) == 1 and len(lines.lines) == 1
    key, record = sent.records[0]
    assert key == "evt-1"
    assert record["audit_reason"] == "failure"
    assert record["source"] == source
    assert record["claims"][0]["text"] == "Ask [redacted:email] for the figures."
    assert {"event_id", "citations", "claims", "scores"} <= set(record)  # verdict.schema.json
    assert lines.lines[0]["claims"][0]["text"] == "Ask [redacted:email] for the figures."
    assert value(metrics, "ragmon_audit_records_total", reason="failure") == 1


def test_oversized_audit_records_shrink_to_fit_a_kafka_message() -> None:
    settings = load_settings(audit_sample_rate=1.0)
    sent = Sent()
    trail = AuditTrail(settings, None, send=sent)  # RAGMON_AUDIT_LOG unset: no log
    huge = "word " * (MAX_RECORD_BYTES // 4)
    big = verdict("big", citations=(citation(0),), claims=(claim(0, (0,), "supported", text=huge),))
    assert trail.offer(big, {}) == "sample"
    record = sent.records[0][1]
    assert record["truncated"] is True
    assert "text" not in record["claims"][0]
    assert record["claims"][0]["verdict"] == "supported"


def test_audit_log_file_gets_one_json_line_per_record(tmp_path: Any) -> None:
    path = tmp_path / "audit.jsonl"
    settings = load_settings(audit_sample_rate=0.0, audit_log=str(path))
    trail = AuditTrail(settings, None, send=None)
    trail.offer(mixed_verdict("evt-9"), {"topic": "t", "partition": 0, "offset": 3})
    trail.offer(healthy("evt-10"), {})
    for handler in __import__("logging").getLogger(f"ragmon.audit.{path}").handlers:
        handler.flush()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["event"] == "audit"
    assert record["event_id"] == "evt-9" and record["audit_reason"] == "failure"
    assert record["source"] == {"topic": "t", "partition": 0, "offset": 3}
    assert "logged_at" in record


def test_audit_records_keep_the_evidence_unless_told_not_to() -> None:
    source = {"topic": "ragmon.answers", "partition": 0, "offset": 1}
    lean, default, short = Sent(), Sent(), Sent()
    AuditTrail(load_settings(audit_text="claims"), None, send=lean).offer(
        mixed_verdict("e1"), source
    )
    AuditTrail(load_settings(), None, send=default).offer(mixed_verdict("e1"), source)
    AuditTrail(load_settings(audit_cited_text_chars=3), None, send=short).offer(
        mixed_verdict("e1"), source
    )
    record = lean.records[0][1]
    assert [sorted(c) for c in record["citations"]] == [
        ["doc_id", "error", "format", "index", "raw", "status"]
    ] * 3
    assert [c["status"] for c in record["citations"]] == ["valid", "valid", "invalid"]
    # Otherwise the same verdict record as the offline checks write, with claim offsets.
    from monitor.output.verdict_io import verdict_to_dict

    v = mixed_verdict("e1")
    expected = verdict_to_dict(v)
    for c in expected["citations"]:
        del c["cited_text"]
    for c, result in zip(expected["claims"], v.claims, strict=True):
        c["start"], c["end"] = result.claim.start, result.claim.end
    expected["text_level"] = "claims"
    # what the answer added to its app's window, for the evidence page's ranking
    vector = verdict_vector(v, load_settings().answer_claim_weight)
    expected["counts"] = dict(zip(COUNT_FIELDS[2:], vector[2:], strict=False))
    assert {
        k: v for k, v in record.items() if k not in ("audit_reason", "source", "audited_at")
    } == (expected)
    full = [c["cited_text"] for c in default.records[0][1]["citations"]]
    assert full == [c.cited_text for c in v.citations]
    assert [c["cited_text"] for c in short.records[0][1]["citations"]] == ["te…"] * 3


def test_sampled_for_judge_is_the_judge_sampling_rule() -> None:
    from monitor.records.models import AnswerEvent

    event = AnswerEvent(event_id="e1", answer="x", app="a", question="q?", model="m")
    source: dict[str, Any] = {}

    def offered(**settings: Any) -> dict[str, Any]:
        sent = Sent()
        AuditTrail(load_settings(**settings), None, send=sent).offer(
            mixed_verdict("e1"), source, event
        )
        return sent.records[0][1]

    assert offered(judge_enabled=True, judge_sample_rate=1.0)["sampled_for_judge"] is True
    off = offered(judge_enabled=True, judge_sample_rate=0.0, judge_oversample_rate=0.0)
    assert off["sampled_for_judge"] is False
    assert offered(judge_enabled=False, judge_sample_rate=1.0)["sampled_for_judge"] is False
    rec = offered()
    assert (rec["question"], rec["answer"], rec["model"]) == ("q?", "x", "m")
    assert "question" not in offered(audit_text="none")


def test_lone_surrogates_are_escaped_not_fatal() -> None:
    from agents.output.audit_record import encode_record

    assert encode_record({"text": "a\ud800b"}) == b'{"text":"a\\ud800b"}'
    assert encode_record({"text": "café"}) == '{"text":"café"}'.encode()
