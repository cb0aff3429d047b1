from __future__ import annotations

import pytest

from monitor.checks.scoring import OVERALL_WEIGHTS, answer_scores
from monitor.config.options import CheckOptions
from monitor.records.models import (
    AnswerEvent,
    Citation,
    CitationResult,
    Claim,
    ClaimResult,
    Document,
    GoldSpan,
    Support,
)

OPTS = CheckOptions()


def cit(i: int, ok: bool, start: int, end: int, **kw: object) -> CitationResult:
    c = Citation(
        index=i,
        raw="x" * (end - start),
        format=kw.pop("fmt", "numeric"),
        start=start,
        end=end,
        **kw,
    )  # type: ignore[arg-type]
    return CitationResult(
        citation=c,
        status="valid" if ok else "invalid",
        error=None if ok else "index_out_of_range",
        doc_id=kw.get("doc_ref") if ok else None,
    )  # type: ignore[arg-type]


def claim(i: int, cites: tuple[int, ...], verdict: str, score: float) -> ClaimResult:
    return ClaimResult(
        Claim(index=i, text="t", start=0, end=1, citation_indexes=cites),
        Support(verdict=verdict, score=score, confidence="high", tier="lexical"),  # type: ignore[arg-type]
    )


def test_hand_computed_scores() -> None:
    # 4 citations, 3 valid; 5 claims: supported, not_supported, unverifiable, invalid-only, uncited.
    event = AnswerEvent(event_id="e", answer="a" * 100)
    results = [
        cit(0, True, 10, 13),
        cit(1, True, 20, 23),
        cit(2, True, 30, 33),
        cit(3, False, 40, 43),
    ]
    claims = [
        claim(0, (0,), "supported", 0.9),
        claim(1, (1,), "not_supported", 0.1),
        claim(2, (2,), "unverifiable", 0.5),
        claim(3, (3,), "not_supported", 0.0),
        claim(4, (), "not_supported", 0.0),
    ]
    s = answer_scores(event, results, claims, OPTS)
    assert s.validity_rate == 3 / 4
    assert s.coverage == 4 / 5
    # decided claims, cited by their citations and uncited by the context: 0, 1, 3, 4 → 1
    assert s.support_rate == 1 / 4
    # claims 1 (not_supported), 3 (invalid only), 4 (uncited)
    assert s.hallucination_rate == 3 / 5
    assert s.citation_density == 12 / 100
    consistency = (0.9 + 0.1 + 0.5 + 0.0) / 4
    parts = {"citation_validity": 0.75, "answer_consistency": consistency, "hallucination": 0.4}
    w = sum(OVERALL_WEIGHTS[k] for k in parts)
    assert s.overall == pytest.approx(sum(OVERALL_WEIGHTS[k] * v for k, v in parts.items()) / w)
    assert s.overall_parts == ("citation_validity", "answer_consistency", "hallucination")
    assert s.span_accuracy is None


def test_empty_answer_has_no_rates() -> None:
    s = answer_scores(AnswerEvent(event_id="e", answer=""), [], [], OPTS)
    assert (s.validity_rate, s.support_rate, s.coverage, s.hallucination_rate, s.overall) == (
        None,
    ) * 5


def test_span_accuracy_and_full_overall_weights() -> None:
    doc = Document(id="r.pdf", pages=("x" * 300,))
    event = AnswerEvent(
        event_id="e",
        answer="b" * 50,
        documents=(doc,),
        gold_spans=(GoldSpan(doc_id="r.pdf", page=1, start=100, end=200),),
    )
    c = Citation(
        index=0,
        raw="[r.pdf:1:150-250]",
        format="span",
        start=0,
        end=17,
        doc_ref="r.pdf",
        page=1,
        range_start=150,
        range_end=250,
    )
    results = [CitationResult(citation=c, status="valid", doc_id="r.pdf")]
    s = answer_scores(event, results, [claim(0, (0,), "supported", 1.0)], OPTS)
    assert s.span_accuracy is not None
    assert s.span_accuracy["jaccard"] == pytest.approx(1 / 3)
    tol = 60 / 140
    expected = 0.3 * tol + 0.3 * 1.0 + 0.25 * 1.0 + 0.15 * 1.0
    assert s.overall == pytest.approx(expected)
    assert len(s.overall_parts) == 4
