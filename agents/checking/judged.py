"""The judge's request of an answer, built where the answer was checked.

With check processes, an answer the judge's sampling rule takes used to come back to the worker
whole (the event with its documents, the verdict with its claims and passages: pickled there,
unpickled here, ~100 µs per sampled answer) for the worker to build the request from it. The
request depends on the answer alone, so a check process builds it (`JudgePlanning.plan`) and
hands back only what the worker's decision needs and the record's bytes (`PlannedRequest`);
what depends on the worker's state stays there (agents/stream/judge_wiring.py): the judge's
queue (shedding), the call and token budgets and the fair share, the counters.

The request is built before the worker asks whether the judge sheds load, so while it does a
check process still builds the requests of the answers the rule takes (~10% of them, as in
normal operation), and the worker drops them, with the same decision and counts as before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from monitor.judge.plan import prepare_request, sample_reason
from monitor.judge.request import JudgeRequest
from monitor.output.audit import audit_reason
from monitor.records.models import AnswerEvent, Verdict
from monitor.sampling.policy import hash_fraction


def request_bytes(request: JudgeRequest) -> bytes:
    """The `judge-requests` record's value."""
    return json.dumps(request.to_dict(), ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True, slots=True)
class PlannedRequest:
    """A request built in a check process, for the worker to admit or drop."""

    reason: str  # the sampling rule's: canary | base | oversample
    items: int  # claims to judge (the budgets count calls by them)
    est_tokens: int
    estimation: bool  # a label of the estimates when sent (counted as such)
    in_base: bool  # in the base-rate hash sample: a drop shrinks the estimates' sample
    audited: bool  # the answer has an audit record: a drop gets a record too
    value: bytes  # the record as published

    def __reduce__(self) -> tuple[Any, ...]:
        # as the constructor's arguments: see agents/checking/work.py's Checked.__reduce__
        return (
            PlannedRequest,
            (
                self.reason,
                self.items,
                self.est_tokens,
                self.estimation,
                self.in_base,
                self.audited,
                self.value,
            ),
        )


@dataclass(frozen=True, slots=True)
class JudgePlanning:
    """The judge's sampling rule and request settings, as a check process needs them
    (picklable: it travels with `CheckWork`)."""

    base_rate: float
    oversample_rate: float
    max_evidence_chars: int = 6_000
    claim_cap: int = 0  # RAGMON_ANSWER_CLAIM_WEIGHT: who is weighed down is no label
    batch_size: int = 5
    audit_sample_rate: float = 0.01

    def plan(self, event: AnswerEvent, verdict: Verdict, now: float) -> PlannedRequest | None:
        """The request if the sampling rule takes the answer (before budgets and shedding)."""
        reason = sample_reason(event, verdict, self.base_rate, self.oversample_rate)
        if reason is None:
            return None
        request = prepare_request(
            event,
            verdict,
            reason,
            self.base_rate,
            self.max_evidence_chars,
            now,
            self.claim_cap,
            self.batch_size,
        )
        return PlannedRequest(
            reason=reason,
            items=len(request.items),
            est_tokens=request.est_tokens,
            estimation=request.estimation,
            in_base=hash_fraction(event.event_id) < self.base_rate,
            audited=audit_reason(verdict, self.audit_sample_rate) is not None,
            value=request_bytes(request),
        )
