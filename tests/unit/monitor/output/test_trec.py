"""TREC qrels and leaderboard from hand-built responses and verdicts."""

from __future__ import annotations

import pytest

from monitor.output.trec import (
    CitationAssessment,
    Response,
    format_leaderboard,
    format_qrels,
    leaderboard,
    qrels,
    response_from,
    topic_of,
)
from monitor.records.models import (
    AnswerEvent,
    Citation,
    CitationResult,
    Claim,
    ClaimResult,
    Scores,
    Support,
    Verdict,
)


def ca(doc: str, exists: bool = True, supports: bool = True) -> CitationAssessment:
    return CitationAssessment(doc, exists, supports)


def test_measures_per_response() -> None:
    r = Response(
        "run1",
        "28",
        (ca("d1"), ca("d2", supports=False), ca("d3", exists=False, supports=False), ca("d4")),
    )
    assert r.measures() == {
        "CITATION_ACCURACY": 0.75,
        "CITATION_SUPPORT": 0.5,
        "AVG_CITATIONS": 4.0,
        "PERFECT_CITATIONS": 0.0,
    }
    assert Response("r", "t", (ca("a"), ca("b"))).measures()["PERFECT_CITATIONS"] == 1.0


def test_leaderboard_means_per_topic_then_over_topics() -> None:
    responses = [
        Response("run1", "28", (ca("a"), ca("b", supports=False))),  # acc 1, sup .5, n 2, perf 0
        Response("run1", "28", (ca("a"),)),  # acc 1, sup 1, n 1, perf 1
        Response("run1", "29", (ca("c", exists=False, supports=False),) * 4),  # 0, 0, 4, 0
        Response("run2", "28", (ca("a"),)),
    ]
    board = leaderboard(responses)
    assert board["run1"]["28"] == {
        "CITATION_ACCURACY": 1.0,
        "CITATION_SUPPORT": 0.75,
        "AVG_CITATIONS": 1.5,
        "PERFECT_CITATIONS": 0.5,
    }
    assert board["run1"]["all"] == {
        "CITATION_ACCURACY": 0.5,
        "CITATION_SUPPORT": 0.375,
        "AVG_CITATIONS": 2.75,
        "PERFECT_CITATIONS": 0.25,
    }
    text = format_leaderboard(board)
    lines = text.splitlines()
    assert lines[:4] == [
        "run1 28 CITATION_ACCURACY 1.0000",
        "run1 28 CITATION_SUPPORT 0.7500",
        "run1 28 AVG_CITATIONS 1.5000",
        "run1 28 PERFECT_CITATIONS 0.5000",
    ]
    assert lines[8:12] == [
        "run1 all CITATION_ACCURACY 0.5000",
        "run1 all CITATION_SUPPORT 0.3750",
        "run1 all AVG_CITATIONS 2.7500",
        "run1 all PERFECT_CITATIONS 0.2500",
    ]
    assert lines[-1] == "run2 all PERFECT_CITATIONS 1.0000" and len(lines) == 20


def test_qrels_take_the_best_grade_per_document() -> None:
    rows = qrels(
        [
            Response("run 1", "28", (ca("a", supports=False), ca("a"), ca("b", supports=False))),
            Response(
                "run 1", "29", (ca("z", exists=False, supports=True),)
            ),  # missing never supports
        ]
    )
    assert rows == [("28", "run 1", "a", 1.0), ("28", "run 1", "b", 0.0), ("29", "run 1", "z", 0.0)]
    assert format_qrels(rows) == "28 run_1 a 1.0\n28 run_1 b 0.0\n29 run_1 z 0.0\n"


def _segment_event_and_verdict() -> tuple[AnswerEvent, Verdict]:
    ev = AnswerEvent(
        event_id="e1",
        answer="A. B.",
        app="bot",
        question="Why?",
        metadata={"run": "runA", "topic_id": 28},
    )
    cits = (
        CitationResult(
            Citation(0, "d1", "segment", 0, 0, doc_ref="d1", segment=0),
            "valid",
            doc_id="d1",
            cited_text="x",
        ),
        CitationResult(
            Citation(1, "d9", "segment", 0, 0, doc_ref="d9", segment=0),
            "invalid",
            error="document_not_found",
        ),
        CitationResult(
            Citation(2, "d2", "segment", 0, 0, doc_ref="d2", segment=1),
            "valid",
            doc_id="d2",
            cited_text="y",
        ),
        CitationResult(
            Citation(3, "[quote.x]", "json_path", 0, 0, path="quote.x"), "valid", cited_text="z"
        ),
    )
    claims = (
        ClaimResult(Claim(0, "A.", 0, 2, (0, 1)), Support("supported", 0.9, "high", "lexical")),
        ClaimResult(Claim(1, "B.", 3, 5, (2,)), Support("not_supported", 0.1, "high", "lexical")),
    )
    return ev, Verdict("e1", "bot", cits, claims, Scores(None, None, None, None))


def test_response_from_verdict_uses_judge_verdicts_when_present() -> None:
    ev, v = _segment_event_and_verdict()
    cheap = response_from(ev, v)
    assert cheap == Response(
        "runA", "28", (ca("d1"), ca("d9", exists=False, supports=False), ca("d2", supports=False))
    )
    judged = response_from(ev, v, judged={0: "not_supported", 1: "supported"})
    assert judged is not None
    assert [(c.doc_id, c.supports) for c in judged.citations] == [
        ("d1", False),
        ("d9", False),
        ("d2", True),
    ]


def test_topic_and_run_fallbacks() -> None:
    ev = AnswerEvent(event_id="e9", answer="x", app="bot", question="  What?  ")
    assert topic_of(ev).startswith("q") and len(topic_of(ev)) == 11
    assert topic_of(AnswerEvent(event_id="e9", answer="x")) == "e9"
    ev2, v = _segment_event_and_verdict()
    no_run = AnswerEvent(event_id="e1", answer="x", app="bot", metadata={})
    r = response_from(no_run, v)
    assert r is not None and r.run == "bot"
    assert response_from(ev2, Verdict("e1", "bot", (), (), Scores(None, None, None, None))) is None


def test_empty_leaderboard() -> None:
    assert leaderboard([]) == {} and format_leaderboard({}) == ""
    with pytest.raises(ZeroDivisionError):
        Response("r", "t", ()).measures()
