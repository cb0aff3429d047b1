"""Judge verdicts reach the windowed rates as corrections that replace the cheap verdicts."""

from __future__ import annotations

from typing import Any

import pytest

from agents.judging.agent import JudgeRunner
from agents.output.records import COUNT_FIELDS, judge_delta, parse_score_record, vector_to_counts
from monitor.judge.outcome import PairOutcome
from monitor.judge.request import Item, JudgeRequest
from monitor.judge.schema import PairVerdict
from tests.agents.helpers import fresh_metrics


def delta(**counts: int) -> list[int]:
    return [counts.get(name, 0) for name in COUNT_FIELDS]


def claim(cheap: str | None, judged: str | None, outcome: str = "ok") -> dict[str, Any]:
    return {"index": 0, "cheap_verdict": cheap, "verdict": judged, "outcome": outcome}


@pytest.mark.parametrize(
    ("cheap", "judged", "expected"),
    [
        ("unverifiable", "supported", delta(decided_claims=1, supported_claims=1)),
        ("supported", "not_supported", delta(supported_claims=-1, unsupported_claims=1)),
        ("not_supported", "partially_supported", delta(unsupported_claims=-1)),
        ("partially_supported", "unverifiable", delta(decided_claims=-1)),
        ("not_supported", "unverifiable", delta(decided_claims=-1, unsupported_claims=-1)),
        ("supported", "supported", delta()),
    ],
)
def test_a_judge_verdict_replaces_the_cheap_one(
    cheap: str, judged: str, expected: list[int]
) -> None:
    assert judge_delta([claim(cheap, judged)]) == delta(judge_calls=1, **_nonzero(expected))


@pytest.mark.parametrize(
    ("cheap", "judged", "expected"),
    [
        # an uncited claim judged on the whole context is neither cited nor decided: only
        # whether it is a hallucination can change
        ("not_supported", "supported", delta(unsupported_claims=-1)),
        ("partially_supported", "not_supported", delta(unsupported_claims=1)),
        ("unverifiable", "supported", delta()),
        ("not_supported", "not_supported", delta()),
    ],
)
def test_a_judge_verdict_on_an_uncited_claim_moves_hallucination_only(
    cheap: str, judged: str, expected: list[int]
) -> None:
    entry = {**claim(cheap, judged), "cited": False}
    assert judge_delta([entry]) == delta(judge_calls=1, **_nonzero(expected))


def _nonzero(vector: list[int]) -> dict[str, int]:
    return {k: v for k, v in vector_to_counts(vector).items() if v}


def test_failed_judge_calls_leave_the_cheap_verdict_and_count_as_errors() -> None:
    claims = [
        claim("unverifiable", None, "judge_error"),
        claim("supported", "unverifiable", "unverifiable"),  # a timeout
        claim("unverifiable", "supported"),
    ]
    assert judge_delta(claims) == delta(
        judge_calls=3, judge_errors=2, decided_claims=-1 + 1, supported_claims=-1 + 1
    )
    assert judge_delta([]) == delta()


class ScriptedClient:
    """The judge client's interface with fixed verdicts per claim text."""

    def __init__(self, verdicts: dict[str, str | None]) -> None:
        self.verdicts = verdicts

    async def judge(self, pairs: list[Any]) -> list[PairOutcome]:
        out = []
        for i, pair in enumerate(pairs, 1):
            judgement = self.verdicts[pair.claim]
            if judgement is None:
                out.append(PairOutcome("judge_error"))
                continue
            verdict = PairVerdict(i, judgement, judgement == "ENTAILMENT", 0.9, "high", "r")  # type: ignore[arg-type]
            out.append(PairOutcome("ok", verdict, model="m"))
        return out

    async def judge_answer(self, *args: Any) -> None:
        return None

    async def aclose(self) -> None:
        pass


async def test_the_judge_agent_sends_a_correction_for_the_answers_bucket() -> None:
    sent: list[dict[str, Any]] = []

    async def correct(record: dict[str, Any]) -> None:
        sent.append(record)

    client = ScriptedClient({"A.": "ENTAILMENT", "B.": "CONTRADICTION", "C.": None})
    runner = JudgeRunner(
        client,  # type: ignore[arg-type]
        fresh_metrics(),
        correct=correct,
        app_label=lambda app: "other" if app == "unknown" else str(app),
    )
    request = JudgeRequest(
        "e7",
        "search",
        (
            Item(0, "A.", "ev", cheap_verdict="unverifiable"),
            Item(2, "B.", "ev", cheap_verdict="supported"),
            Item(3, "C.", "ev", cheap_verdict="not_supported"),
        ),
        created_at=1234.5,
    )
    await runner.process(request)
    ((record,),) = [sent]
    batch = parse_score_record(record)
    assert batch is not None and batch.kind == "judge" and batch.app == "search"
    ((entry,),) = [batch.entries]
    assert entry.event_id == "e7" and entry.counted_at == 1234.5
    # A: unverifiable → supported (decided +1, supported +1); B: supported → not_supported
    # (supported −1, unsupported +1); C: the call failed, the cheap verdict stands.
    assert _nonzero(list(entry.vector)) == {
        "decided_claims": 1,
        "unsupported_claims": 1,
        "judge_calls": 3,
        "judge_errors": 1,
    }
    # No correction without a counting time (a request from an older writer).
    await runner.process(JudgeRequest("e8", "unknown", request.items))
    assert len(sent) == 1
