"""Fabricated quotations turn the claim's valid citations into excerpt_mismatch."""

from __future__ import annotations

from monitor.checks.quotes import check_quotes, quote_found
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Citation, CitationResult, Claim

OPTIONS = CheckOptions()
EVIDENCE = "The CEO said the company would “double down on safety” in 2024, and, dare I say, grow."


def setup(
    answer: str, evidence: str = EVIDENCE
) -> tuple[AnswerEvent, list[Claim], list[CitationResult]]:
    start = answer.index("[1]")
    first = Citation(0, "[1]", "numeric", start, start + 3, number=1)
    second = Citation(1, "[2]", "numeric", start + 3, start + 6, number=2)
    results = [
        CitationResult(first, "valid", doc_id="1", cited_text=evidence),
        CitationResult(second, "invalid", error="index_out_of_range"),
    ]
    claim = Claim(0, answer, 0, len(answer), citation_indexes=(0, 1))
    return AnswerEvent(event_id="e", answer=answer), [claim], results


def test_quote_in_the_evidence_keeps_the_citations() -> None:
    event, claims, results = setup('The CEO promised to "double down on safety" [1][2].')
    assert check_quotes(event, claims, results, OPTIONS) == results


def test_fabricated_quote_invalidates_only_the_valid_citations() -> None:
    event, claims, results = setup('The CEO promised to "cut every safety budget" [1][2].')
    got = check_quotes(event, claims, results, OPTIONS)
    assert [(r.citation.index, r.status, r.error) for r in got] == [
        (0, "invalid", "excerpt_mismatch"),
        (1, "invalid", "index_out_of_range"),
    ]
    assert got[0].cited_text == EVIDENCE


def test_short_quotes_and_unquoted_claims_are_not_checked() -> None:
    for answer in ('It was "unsafe" then [1][2].', "The CEO promised to cut costs [1][2]."):
        event, claims, results = setup(answer)
        assert check_quotes(event, claims, results, OPTIONS) == results


def test_case_punctuation_typography_and_elisions_do_not_matter() -> None:
    assert quote_found("Double down, on safety!", EVIDENCE, 0.8)
    assert quote_found("“would double down [...] in 2024”", EVIDENCE, 0.8)
    assert quote_found("said the company would … grow", EVIDENCE, 0.8)
    assert not quote_found("said the company would … shrink fast", EVIDENCE, 0.8)


def test_fuzzy_threshold_tolerates_a_small_slip() -> None:
    assert quote_found("double dawn on safety", EVIDENCE, 0.8)
    assert not quote_found("double dawn on safety", EVIDENCE, 0.99)


def test_the_extended_citation_excerpt_is_not_a_claim_quotation() -> None:
    answer = 'Margins held steady all year [r.pdf:1:0-10 | excerpt: "nowhere in the text"].'
    raw = answer[answer.index("[") : answer.rindex("]") + 1]
    cite = Citation(0, raw, "span", answer.index("["), answer.rindex("]") + 1, excerpt="x")
    results = [CitationResult(cite, "valid", doc_id="r.pdf", cited_text="Margins held steady")]
    claim = Claim(0, answer, 0, len(answer), citation_indexes=(0,))
    event = AnswerEvent(event_id="e", answer=answer)
    assert check_quotes(event, [claim], results, OPTIONS) == results
