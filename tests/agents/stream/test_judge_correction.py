"""Judge records on `scores`: call counts for every judged answer, and the labels of the support
and hallucination estimates for the answers of the uniform (base-rate) sample."""

from __future__ import annotations

from typing import Any

from agents.judging.agent import JudgeRunner
from agents.output.records import COUNT_FIELDS, judge_delta, parse_score_record, vector_to_counts
from monitor.judge.outcome import PairOutcome
from monitor.judge.request import Item, JudgeRequest
from monitor.judge.schema import PairVerdict
from tests.agents.helpers import fresh_metrics, value


def delta(**counts: int) -> list[int]:
    return [counts.get(name, 0) for name in COUNT_FIELDS]


def claim(cheap: str | None, judged: str | None, outcome: str = "ok") -> dict[str, Any]:
    return {"index": 0, "cheap_verdict": cheap, "verdict": judged, "outcome": outcome}


def test_judge_verdicts_no_longer_change_the_cheap_counts() -> None:
    # the cheap counts stay the cheap tier's; the judge enters the rates through the estimates
    for cheap, judged in (("unverifiable", "supported"), ("supported", "not_supported")):
        assert judge_delta([claim(cheap, judged)]) == delta(judge_calls=1)


def test_an_uncited_claim_judged_on_the_context_is_a_label_like_any_other() -> None:
    # its verdict does not move the cheap counts either; in the estimation sample it is a label
    entry = {**claim("not_supported", "supported"), "cited": False}
    assert judge_delta([entry]) == delta(judge_calls=1)
    got = _nonzero(judge_delta([entry], [0.0]))
    assert (got["lab_n"], got["lab_m"], got["lab_s"]) == (1, 1, 1) and "lab_h" not in got


def _nonzero(vector: list[int]) -> dict[str, int]:
    return {k: v for k, v in vector_to_counts(vector).items() if v}


def test_failed_judge_calls_count_as_errors() -> None:
    claims = [
        claim("unverifiable", None, "judge_error"),
        claim("supported", "unverifiable", "unverifiable"),  # a timeout
        claim("unverifiable", "supported"),
    ]
    assert judge_delta(claims) == delta(judge_calls=3, judge_errors=2)
    assert judge_delta([]) == delta()


def test_labels_of_an_estimation_answer_judged_whole() -> None:
    claims = [claim("unverifiable", "supported"), claim("supported", "not_supported")]
    claims.append(claim("supported", "partially_supported"))
    got = _nonzero(judge_delta(claims, [0.5, 0.25, 1.0]))
    # one answer, m = 3 claims, f = 1.75 (17500 in 1e-4 units); the judge: 1 supported (s),
    # 1 not supported (h); partially supported is neither
    assert got == {
        "judge_calls": 3,
        "lab_n": 1,
        "lab_m": 3,
        "lab_mm": 9,
        "lab_f": 17500,
        "lab_ff": 17500**2,
        "lab_mf": 52500,
        "lab_s": 1,
        "lab_ss": 1,
        "lab_sf": 17500,
        "lab_sm": 3,
        "lab_h": 1,
        "lab_hh": 1,
        "lab_hf": 17500,
        "lab_hm": 3,
    }
    # a claim without a verdict (a timeout, a failed call): the answer is left out
    claims[1] = claim("supported", "unverifiable", "unverifiable")
    assert _nonzero(judge_delta(claims, [0.5, 0.25, 1.0])) == {"judge_calls": 3, "judge_errors": 1}
    claims[1] = claim("supported", None, "judge_error")
    assert "lab_n" not in _nonzero(judge_delta(claims, [0.5, 0.25, 1.0]))


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


async def test_the_judge_agent_sends_labels_of_the_estimation_sample_only() -> None:
    sent: list[dict[str, Any]] = []

    async def correct(record: dict[str, Any]) -> None:
        sent.append(record)

    metrics = fresh_metrics()
    client = ScriptedClient({"A.": "ENTAILMENT", "B.": "CONTRADICTION", "C.": None})
    runner = JudgeRunner(
        client,  # type: ignore[arg-type]
        metrics,
        correct=correct,
        app_label=lambda app: "other" if app == "unknown" else str(app),
    )
    items = (
        Item(0, "A.", "ev", cheap_verdict="unverifiable", cheap_score=0.5),
        Item(2, "B.", "ev", cheap_verdict="supported", cheap_score=0.8),
    )
    # in the base-rate sample: labels
    await runner.process(JudgeRequest("e7", "search", items, created_at=1234.5, estimation=True))
    # sampled by oversampling only: judge calls, no labels
    await runner.process(JudgeRequest("e8", "search", items, created_at=1234.5))
    # in the sample but a claim failed: left out, counted incomplete
    failing = (*items, Item(3, "C.", "ev", cheap_verdict="not_supported", cheap_score=0.1))
    await runner.process(JudgeRequest("e9", "search", failing, created_at=1, estimation=True))
    entries = []
    for record in sent:
        batch = parse_score_record(record)
        assert batch is not None and batch.kind == "judge" and batch.app == "search"
        entries.extend(batch.entries)
    assert [e.event_id for e in entries] == ["e7", "e8", "e9"]
    assert entries[0].counted_at == 1234.5
    first = _nonzero(list(entries[0].vector))
    assert (first["lab_n"], first["lab_m"], first["lab_f"], first["lab_s"], first["lab_h"]) == (
        1,
        2,
        13000,
        1,
        1,
    )
    assert _nonzero(list(entries[1].vector)) == {"judge_calls": 2}
    assert _nonzero(list(entries[2].vector)) == {"judge_calls": 3, "judge_errors": 1}
    assert value(metrics, "ragmon_estimation_answers_total", app="search", outcome="labelled") == 1
    assert (
        value(metrics, "ragmon_estimation_answers_total", app="search", outcome="incomplete") == 1
    )
    # Nothing without a counting time (a request from an older writer).
    await runner.process(JudgeRequest("e10", "unknown", items))
    assert len(sent) == 3
