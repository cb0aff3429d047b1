"""The evidence report: for an app, a rule and a time range, the answers that moved the rate,
ranked, each with everything its audit records say. The JSON API returns it as is; the page
(monitor.oncall.page) renders it.

Pure: standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from monitor.alerting.alerts import AlertRule
from monitor.oncall.alert_record import alerts_for, is_alert
from monitor.oncall.contribution import FIGURE_FIELDS
from monitor.oncall.judge_status import judge_status
from monitor.oncall.query import Answer, AuditFilter, AuditItem, group, ranked_answers

#: what the report's `estimate` is, said wherever it is shown: not the alert's figure
ESTIMATE_WHAT = (
    "the cheap checks' rate over the audited answers in the range, each sampled healthy "
    "answer weighted 1/RAGMON_AUDIT_SAMPLE_RATE: what the ranking below is measured against, "
    "not the alert's estimate"
)


@dataclass(frozen=True, slots=True)
class EvidenceQuery:
    app: str
    start: float
    end: float
    rule: AlertRule | None = None
    verdicts: tuple[str, ...] = ()  # show only answers with a claim of these verdicts
    limit: int = 20


def _figure(rule: AlertRule | None) -> tuple[str | None, str]:
    # Without a rule the page ranks by hallucination: the figure most pages are about.
    if rule is None:
        return "hallucination", "above"
    return rule.figure, rule.op


#: links carry times to the millisecond; an alert's record is stamped to the microsecond
_LINK_ROUNDING = 0.001


def build_report(
    items: Iterable[AuditItem],
    query: EvidenceQuery,
    sample_rate: float,
    *,
    records_read: int,
    truncated: bool,
    looked_until: float | None = None,
) -> dict[str, Any]:
    """`looked_until`: how far past the range the trail was read for the judge's records of
    the range's answers (and the range's alerts), which come after them."""
    items = list(items)
    selected = AuditFilter(app=query.app, start=query.start, end=query.end, judge=False)
    checked = [i for i in items if selected.matches(i)]
    ids = {i.record.get("event_id") for i in checked}
    judged = [
        i
        for i in items
        if i.is_judge and i.record.get("app") == query.app and i.record.get("event_id") in ids
    ]
    answers = group(checked + judged)
    figure, op = _figure(query.rule)
    until = query.end if looked_until is None else looked_until
    ranked, totals = ranked_answers(answers, figure, op, sample_rate)
    shown: list[dict[str, Any]] = []
    for answer, move in ranked:
        if move is not None and move <= 0 and not query.verdicts:
            break  # the rest moved the rate away from breaching (a verdict asked for: all)
        if query.verdicts and not _has_verdict(answer, query.verdicts):
            continue
        shown.append(answer_entry(answer, move, len(shown) + 1, until))
        if len(shown) >= query.limit:
            break
    estimate = None
    if totals is not None and figure is not None:
        num, den = FIGURE_FIELDS[figure]
        estimate = {
            "numerator": round(totals[num], 3),
            "denominator": round(totals[den], 3),
            "rate": round(totals[num] / totals[den], 6) if totals[den] else None,
            "what": ESTIMATE_WHAT,
        }
    rule = query.rule
    in_range = [
        i.full()
        for i in items
        if is_alert(i.record) and query.start <= (i.at or 0.0) <= query.end + _LINK_ROUNDING
    ]
    return {
        "app": query.app,
        "rule": None if rule is None else rule.name,
        "figure": figure,
        "op": op,
        "threshold": None if rule is None else rule.threshold,
        "severity": None if rule is None else rule.severity,
        "summary": None if rule is None else rule.summary,
        "from": query.start,
        "to": query.end,
        "answers_in_range": sum(1 for a in answers.values() if a.check is not None),
        "records_read": records_read,
        "truncated": truncated,
        "estimate": estimate,
        # the rule's own evaluations in the range, as the alert stated them (newest first)
        "alerts": alerts_for(in_range, query.app, None if rule is None else rule.name),
        "looked_until": until,
        "verdicts": list(query.verdicts),
        "answers": shown,
    }


def _has_verdict(answer: Answer, verdicts: tuple[str, ...]) -> bool:
    for item in (answer.check, answer.judge):
        if item is not None and any(
            c.get("verdict") in verdicts for c in item.record.get("claims") or []
        ):
            return True
    return False


def answer_entry(
    answer: Answer, move: float | None, position: int, looked_until: float | None = None
) -> dict[str, Any]:
    record = answer.check.full() if answer.check is not None else {}
    judge = answer.judge.full() if answer.judge is not None else None
    judged = {c.get("index"): c for c in (judge or {}).get("claims") or []}
    claims = []
    for c in record.get("claims") or []:
        entry = dict(c)
        j = judged.get(c.get("index"))
        if j is not None:
            entry["judge"] = {
                k: j.get(k) for k in ("verdict", "outcome", "confidence", "model", "reasons")
            }
        claims.append(entry)
    where = answer.check
    out: dict[str, Any] = {
        "rank": position,
        "event_id": answer.event_id,
        "move": None if move is None else round(move, 6),
        "at": where.at if where is not None else None,
        "audit_reason": record.get("audit_reason"),
        "sampled_for_judge": record.get("sampled_for_judge"),
        "judge_status": judge_status(record.get("sampled_for_judge"), judge, looked_until),
        "scores": record.get("scores"),
        "claims": claims,
        "citations": record.get("citations") or [],
        "source": record.get("source"),
        "audit_record": None
        if where is None
        else {"partition": where.partition, "offset": where.offset},
        "duplicates": answer.duplicates,
    }
    for key in ("question", "answer", "answer_chars", "model", "tenant", "timestamp", "text_level"):
        if key in record:
            out[key] = record[key]
    if judge is not None:
        out["judge"] = {
            "outcome": judge.get("outcome"),
            "sampled_because": judge.get("sampled_because"),
            "answer": judge.get("answer"),
            "audit_record": {"partition": answer.judge.partition, "offset": answer.judge.offset}
            if answer.judge is not None
            else None,
        }
    return out
