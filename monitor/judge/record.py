"""The `verdicts` record the judge agent publishes for one judged answer. Pure, JSON-only.

Per claim it carries the judge's verdict (tier `judge`) or, when the judge could not answer, only
the outcome: a timeout gives `unverifiable`, every other failure gives no verdict, so a failed call
never becomes a wrong verdict and the cheap tier's verdict stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from monitor.judge.answer import answer_record
from monitor.judge.outcome import AnswerOutcome, PairOutcome
from monitor.judge.prompt import PROMPT_VERSION, QUOTE_PROMPT_VERSION
from monitor.judge.request import JudgeRequest


def claim_entry(
    index: int, outcome: PairOutcome, cheap_verdict: str | None, cited: bool = True
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "index": index,
        "tier": "judge",
        "outcome": outcome.outcome,
        "verdict": outcome.claim_verdict,
        "model": outcome.model,
        "cached": outcome.cached,
        "escalated": outcome.escalated,
        "cheap_verdict": cheap_verdict,
    }
    if not cited:
        entry["cited"] = False  # judged on the whole context: it moves no cited-claim count
    v = outcome.verdict
    if v is not None:
        entry.update(
            judgement=v.judgement,
            supports=v.supports,
            score=v.score,
            confidence=v.confidence,
            reasons=[v.reasoning],
        )
    return entry


def summary_outcome(outcomes: Sequence[str]) -> str:
    if not outcomes:
        return "nothing_judged"
    ok = sum(1 for o in outcomes if o == "ok")
    if ok == len(outcomes):
        return "ok"
    return "partial" if ok else "failed"


def judge_record(
    request: JudgeRequest,
    outcomes: Sequence[PairOutcome],
    answer: AnswerOutcome | None,
    judged_at: float,
) -> dict[str, Any]:
    claims = [
        claim_entry(item.claim_index, o, item.cheap_verdict, item.cited)
        for item, o in zip(request.items, outcomes, strict=True)
    ]
    answer_part: dict[str, Any] | None = None
    if answer is not None:
        answer_part = {"outcome": answer.outcome, "model": answer.model}
        if answer.verdict is not None:
            decided = [o.verdict for o in outcomes if o.verdict is not None]
            answer_part.update(answer_record(decided, answer.verdict))
    quoted = any(item.quote is not None for item in request.items)
    return {
        "event_id": request.event_id,
        "app": request.app,
        "prompt_version": QUOTE_PROMPT_VERSION if quoted else PROMPT_VERSION,
        "sampled_because": request.reason,
        "outcome": summary_outcome([o.outcome for o in outcomes]),
        "claims": claims,
        "answer": answer_part,
        "gold_label": request.gold_label,
        "judged_at": judged_at,
        "delay_seconds": max(0.0, judged_at - request.created_at) if request.created_at else None,
    }
