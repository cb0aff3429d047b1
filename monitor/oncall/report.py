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
from monitor.oncall.contribution import FIGURE_FIELDS
from monitor.oncall.query import Answer, AuditFilter, AuditItem, group, ranked_answers


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


def build_report(
    items: Iterable[AuditItem],
    query: EvidenceQuery,
    sample_rate: float,
    *,
    records_read: int,
    truncated: bool,
) -> dict[str, Any]:
    selected = AuditFilter(app=query.app, start=query.start, end=query.end)
    answers = group(i for i in items if selected.matches(i))
    figure, op = _figure(query.rule)
    ranked, totals = ranked_answers(answers, figure, op, sample_rate)
    shown: list[dict[str, Any]] = []
    for answer, move in ranked:
        if move is not None and move <= 0 and not query.verdicts:
            break  # the rest moved the rate away from breaching (a verdict asked for: all)
        if query.verdicts and not _has_verdict(answer, query.verdicts):
            continue
        shown.append(answer_entry(answer, move, len(shown) + 1))
        if len(shown) >= query.limit:
            break
    estimate = None
    if totals is not None and figure is not None:
        num, den = FIGURE_FIELDS[figure]
        estimate = {
            "numerator": round(totals[num], 3),
            "denominator": round(totals[den], 3),
            "rate": round(totals[num] / totals[den], 6) if totals[den] else None,
        }
    rule = query.rule
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


def answer_entry(answer: Answer, move: float | None, position: int) -> dict[str, Any]:
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
        "scores": record.get("scores"),
        "claims": claims,
        "citations": record.get("citations") or [],
        "source": record.get("source"),
        "audit_record": None
        if where is None
        else {"partition": where.partition, "offset": where.offset},
        "duplicates": answer.duplicates,
    }
    for key in ("question", "answer", "answer_chars", "model", "tenant", "timestamp"):
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
