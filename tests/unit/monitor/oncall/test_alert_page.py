"""The page and the alert agree: the alert's audit record carries its figures, the report finds
it in the range, the page shows them with their scale; what became of a sampled answer; 404s."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from monitor.alerting.alerts import AlertRule, Transition, WindowFigures
from monitor.oncall.alert_record import alert_record, alerts_for, scale_of
from monitor.oncall.judge_status import judge_dropped_record, judge_status
from monitor.oncall.page import render_not_found, render_page
from monitor.oncall.query import AuditItem, slimmed
from monitor.oncall.report import ESTIMATE_WHAT, EvidenceQuery, build_report
from tests.unit.monitor.conftest import audit_record, event_dict

RULE = AlertRule("hallucination_high", "hallucination", "above", 0.1, 0.07, window_seconds=300)
AT = 1_800_000_000.25
STATED = "hallucination 0.174 (95% interval 0.162-0.192, 353 judged claims)"


def transition(kind: str = "firing", at: float = AT, app: str = "shop") -> Transition:
    figures = WindowFigures(
        app,
        at,
        events=900,
        values={
            "hallucination": 0.17449,
            "hallucination_lower": 0.16213,
            "hallucination_upper": 0.19187,
            "hallucination_judged": 353.0,
        },
    )
    return Transition(kind, RULE, app, at, at - 60, 0.16213, figures, "n1", examples=("e1",))  # type: ignore[arg-type]


def slim(record: dict[str, Any], offset: int, timestamp: float | None = None) -> AuditItem:
    raw = json.dumps(record).encode()
    return slimmed(record, raw, 0, offset, timestamp or record.get("audited_at"))


def test_the_alert_record_holds_what_the_rule_decided_on() -> None:
    record = alert_record(transition())
    assert record["text"] == STATED  # the alert's own words (WindowFigures.describe)
    assert (record["estimate"], record["lower"], record["upper"]) == (0.17449, 0.16213, 0.19187)
    assert (record["judged"], record["scale"], record["compared"]) == (353, "judge", 0.16213)
    assert (record["reason"], record["kind"], record["audited_at"]) == ("alert", "firing", AT)
    assert "event_id" not in record  # no answer: ranking skips it
    assert record["window_seconds"] == 300  # the rule's, unless the worker's window is given
    assert alert_record(transition(), 60.0)["window_seconds"] == 60.0
    assert scale_of("validity") == "count"
    assert scale_of("support", {"support_scale": "human"}) == "human"
    # the stream's flag (agents/stream/human_scale.py): 1.0 once calibrated, 0.0 before
    assert scale_of("hallucination", {"hallucination_scale_human": 1.0}) == "human"
    assert scale_of("hallucination", {"hallucination_scale_human": 0.0}) == "judge"


def test_the_report_finds_the_alert_of_its_rule_in_the_range_and_the_page_shows_it() -> None:
    answer = audit_record(event_dict(app="shop"), audit_reason="failure", audited_at=AT - 30)
    other_rule = {**alert_record(transition()), "rule": "validity_low", "text": "validity 0.5"}
    items = [
        slim(answer, 1),
        # sent a few ms after the evaluation, stamped by the broker later still
        slim(alert_record(transition()), 2, timestamp=AT + 0.2),
        slim(other_rule, 3),
        slim(alert_record(transition(app="other")), 4),
        slim(alert_record(transition(at=AT - 900)), 5),  # before the range
    ]
    # the link's `to` is the evaluation time to the millisecond
    query = EvidenceQuery("shop", AT - 360, round(AT, 3), RULE)
    report = build_report(items, query, 1.0, records_read=5, truncated=False)
    assert [a["rule"] for a in report["alerts"]] == ["hallucination_high"]
    assert report["alerts"][0]["text"] == STATED
    assert report["estimate"]["what"] == ESTIMATE_WHAT
    assert report["answers_in_range"] == 1  # the alert records are no answers
    page = render_page(report)
    assert STATED in page
    assert "0.174</b> (95% interval 0.162–0.192, 353 judged claims)" in page
    assert "judge scale" in page and "not the alert&#x27;s estimate" in page
    # without a rule: every rule's transitions of the app
    unruled = build_report(items, EvidenceQuery("shop", AT - 360, AT), 1.0, records_read=5,
                           truncated=False)  # fmt: skip
    assert {a["rule"] for a in unruled["alerts"]} == {"hallucination_high", "validity_low"}


def test_a_rule_without_a_transition_in_range_says_so() -> None:
    query = EvidenceQuery("shop", AT - 360, AT, RULE)
    page = render_page(build_report([], query, 1.0, records_read=0, truncated=False))
    assert "no transition of this rule for this app in the range" in page
    assert "No audited answer of shop in this range." in page


def test_alerts_for_orders_newest_first_and_filters() -> None:
    records = [alert_record(transition(at=AT + i)) for i in (0, 2, 1)]
    assert [r["audited_at"] for r in alerts_for(records, "shop", "hallucination_high")] == [
        AT + 2,
        AT + 1,
        AT,
    ]
    assert alerts_for(records, "shop", "validity_low") == []
    assert alerts_for(records, "nope", None) == []


def test_what_became_of_a_sampled_answer() -> None:
    ok = {"outcome": "ok", "claims": [{"outcome": "ok"}]}
    failed = {"outcome": "failed", "claims": [{"outcome": "timeout"}, {"outcome": "http_5xx"}]}
    partial = {"outcome": "partial", "claims": [{"outcome": "ok"}, {"outcome": "timeout"}]}
    dropped = judge_dropped_record("e1", "shop", "budget_calls", AT, "base")
    assert judge_status(True, ok, AT)["state"] == "done"
    assert judge_status(True, failed, AT) == {
        "state": "failed",
        "why": "the judge call failed: http_5xx, timeout",
    }
    assert judge_status(True, partial, AT)["why"] == "some claims failed: timeout"
    assert judge_status(True, dropped, AT) == {
        "state": "dropped",
        "why": "request not sent: budget_calls",
    }
    assert judge_status(True, None, AT) == {
        "state": "pending",
        "why": "no judge record in the audit trail up to 08:00:00 UTC",
    }
    assert judge_status(False, None, AT)["state"] == "not_sampled"
    assert judge_status(None, None, AT)["state"] == "unknown"


def test_the_judge_record_after_the_range_says_what_became_of_the_answer() -> None:
    answer = audit_record(
        event_dict(app="shop"), audit_reason="failure", audited_at=AT - 30, sampled_for_judge=True
    )
    dropped = judge_dropped_record("e1", "shop", "queue_full", AT + 20)
    query = EvidenceQuery("shop", AT - 60, AT, verdicts=("not_supported",))
    items = [slim(answer, 1), slim(dropped, 2, timestamp=AT + 20)]
    report = build_report(items, query, 1.0, records_read=2, truncated=False, looked_until=AT + 600)
    [entry] = report["answers"]
    assert entry["judge_status"] == {"state": "dropped", "why": "request not sent: queue_full"}
    assert "judge: dropped (request not sent: queue_full)" in render_page(report)
    # the same answer without the later record: pending, up to where the trail was read
    report = build_report(items[:1], query, 1.0, records_read=1, truncated=False,
                          looked_until=AT + 600)  # fmt: skip
    assert report["answers"][0]["judge_status"]["state"] == "pending"


def test_an_invalid_citation_shows_why_instead_of_a_missing_passage() -> None:
    answer = audit_record(event_dict(app="shop"), audit_reason="failure", audited_at=AT - 30)
    query = EvidenceQuery("shop", AT - 60, AT, verdicts=("not_supported",))
    page = render_page(build_report([slim(answer, 1)], query, 1.0, records_read=1,
                                    truncated=False))  # fmt: skip
    assert "span 500-600 past the end of page 1 of r.pdf" in page
    assert "no passage kept" not in page


class Missing(Exception):
    what = "app"
    known: ClassVar[list[str]] = ["search", "sh<op>"]


def test_the_not_found_page_lists_the_known_names_as_links() -> None:
    page = render_not_found(Missing("no app 'shpo'"), {"app": "shpo", "rule": "r"}, "http://h")
    assert "no app &#x27;shpo&#x27;" in page
    assert 'href="http://h/evidence?app=search&amp;rule=r"' in page
    assert ">sh&lt;op&gt;</a>" in page and "sh<op>" not in page


def test_a_missing_passage_says_which_setting_left_it_out() -> None:
    from monitor.output.audit_text import AuditText

    answer = audit_record(
        event_dict(app="shop"), AuditText(level="claims"), audit_reason="failure", audited_at=AT
    )
    query = EvidenceQuery("shop", AT - 60, AT, verdicts=("not_supported",))
    page = render_page(build_report([slim(answer, 1)], query, 1.0, records_read=1,
                                    truncated=False))  # fmt: skip
    assert "(no passage kept: RAGMON_AUDIT_TEXT=claims)" in page  # the valid citation's
    assert "span 500-600 past the end of page 1 of r.pdf" in page  # the invalid one's why
