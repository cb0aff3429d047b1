"""What became of an answer the judge's sample took: done, failed, dropped (why) or pending.

An audited answer says `sampled_for_judge: true` when the sampling rule took it. What follows
is in the audit trail: the judge agent's record (`reason: judge`) once it judged the answer, or,
when the check path shed the request (budget, fair share, a full queue, the judge down), a
record of the drop written by the worker (`judge_dropped_record`). Neither yet: pending.

Pure: standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

DROPPED = "dropped"


def judge_dropped_record(
    event_id: str, app: str | None, reason: str, at: float, sampled_because: str | None = None
) -> dict[str, Any]:
    """The audit record of a sampled answer whose judge request was never sent."""
    return {
        "reason": "judge",
        "event_id": event_id,
        "app": app,
        "outcome": DROPPED,
        "dropped_because": reason,
        "sampled_because": sampled_because,
        "claims": [],
        "judged_at": round(at, 6),
    }


def judge_status(
    sampled: bool | None, judge: Mapping[str, Any] | None, looked_until: float | None
) -> dict[str, Any]:
    """`{"state": done | failed | partial | dropped | pending | not_sampled | unknown, "why": str}`."""
    if judge is not None:
        outcome = str(judge.get("outcome") or "")
        if outcome == DROPPED:
            why = str(judge.get("dropped_because") or "unknown")
            return {"state": "dropped", "why": f"request not sent: {why}"}
        if outcome == "ok":
            return {"state": "done", "why": "every claim judged"}
        failures = sorted(
            {
                str(c.get("outcome"))
                for c in judge.get("claims") or []
                if c.get("outcome") not in (None, "ok")
            }
        )
        detail = ", ".join(failures) or outcome or "no outcome"
        if outcome == "partial":
            return {"state": "partial", "why": f"some claims failed: {detail}"}
        return {"state": "failed", "why": f"the judge call failed: {detail}"}
    if sampled is None:
        return {
            "state": "unknown",
            "why": "the record predates the judge flag, or the judge is off",
        }
    if not sampled:
        return {"state": "not_sampled", "why": "the sampling rule did not take it"}
    until = ""
    if looked_until is not None:
        until = " up to " + datetime.fromtimestamp(looked_until, UTC).strftime("%H:%M:%S UTC")
    return {"state": "pending", "why": f"no judge record in the audit trail{until}"}
