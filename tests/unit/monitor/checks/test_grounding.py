"""Uncited claims against the retrieved context (issue 16): coverage first, hallucination only
when no document supports them."""

from __future__ import annotations

import pytest

from monitor.check import check_event
from monitor.checks.data_text import render_data
from monitor.checks.grounding import context_texts
from monitor.checks.scoring import claim_tally
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Document

DOCS = (
    Document("a", "The reservoir held 40 million cubic metres in May. Inflows fell in June."),
    Document("b", "Rainfall in the basin doubled during the spring of 2021."),
)


def run(answer: str, options: CheckOptions | None = None, **kw: object) -> tuple[list, object]:
    event = AnswerEvent("e", answer, documents=kw.get("documents", DOCS), data=kw.get("data"))  # type: ignore[arg-type]
    verdict = check_event(event, options or CheckOptions())
    return [(c.support.verdict, c.support.reasons) for c in verdict.claims], verdict.scores


def test_a_grounded_uncited_answer_is_a_coverage_gap_not_a_hallucination() -> None:
    # no inline citations at all, as many RAG systems write: both sentences are in the documents
    claims, scores = run(
        "Rainfall in the basin doubled during the spring of 2021. "
        "The reservoir held 40 million cubic metres in May."
    )
    assert claims == [("supported", ("uncited", "verbatim_in_context"))] * 2
    assert (scores.coverage, scores.hallucination_rate) == (0.0, 0.0)  # type: ignore[attr-defined]


def test_an_uncited_claim_no_document_supports_is_a_hallucination() -> None:
    claims, scores = run(
        "Rainfall in the basin doubled during the spring of 2021. "
        "The city council approved a new stadium near the harbour."
    )
    assert claims[0][0] == "supported"
    verdict, reasons = claims[1]
    assert verdict == "not_supported" and reasons[0] == "uncited"
    assert (scores.coverage, scores.hallucination_rate) == (0.0, 0.5)  # type: ignore[attr-defined]


def test_an_uncited_paraphrase_is_scored_against_its_best_document() -> None:
    (claim,), _ = run("During spring 2021 the basin saw its rainfall double.")
    verdict, reasons = claim
    assert reasons[0] == "uncited" and verdict != "not_supported"


def test_an_uncited_claim_that_flips_a_document_is_not_supported() -> None:
    (claim,), scores = run("Rainfall in the basin never doubled during the spring of 2021.")
    assert claim == (
        "not_supported",
        # "never" is a content word the document lacks: 4 of 5 terms, 3 of 5 bigrams
        ("uncited", "term_coverage=0.80", "phrase_overlap=0.60", "negation_mismatch"),
    )
    assert scores.hallucination_rate == 1.0  # type: ignore[attr-defined]


def test_without_context_an_uncited_claim_is_not_supported() -> None:
    (claim,), _ = run("Rainfall in the basin doubled during the spring of 2021.", documents=())
    assert claim == ("not_supported", ("uncited", "no_context"))


def test_data_is_context_too() -> None:
    data = {"quote": {"premium": 300, "holder_name": "Dana Reyes"}, "items": [{"price": 12}]}
    assert render_data(data) == (
        "quote premium: 300\nquote holder name: Dana Reyes\nitems price: 12"
    )
    event = AnswerEvent("e", "", data=data, documents=(Document("d", "x"),))
    assert context_texts(event) == ["x", render_data(data)]
    (claim,), _ = run("The quote premium is 300 for this holder.", documents=(), data=data)
    assert claim[0] != "not_supported" and claim[1][0] == "uncited"


def test_grounding_is_capped_and_the_rest_is_undecided() -> None:
    answer = " ".join(f"The city approved stadium number {i} near the harbour." for i in range(5))
    claims, scores = run(answer, CheckOptions(max_grounded_claims=2))
    assert [c[1][-1] for c in claims[2:]] == ["over_cap"] * 3
    assert all(v == "unverifiable" for v, _ in claims[2:])
    # the undecided claims are left out of the rates: 2 of 2 decided claims hallucinated
    assert (scores.coverage, scores.hallucination_rate) == (0.0, 1.0)  # type: ignore[attr-defined]


def test_claims_past_the_citation_cap_are_undecided_not_uncited() -> None:
    docs = (Document("1", "Rainfall in the basin doubled during the spring of 2021."),)
    answer = " ".join(["Rainfall in the basin doubled during the spring of 2021 [1]."] * 5)
    claims, scores = run(answer, CheckOptions(max_citations=2), documents=docs)
    assert [v for v, _ in claims] == ["supported"] * 2 + ["unverifiable"] * 3
    assert {r for _, r in claims[2:]} == {("uncited", "over_cap")}
    assert (scores.coverage, scores.hallucination_rate) == (1.0, 0.0)  # type: ignore[attr-defined]


@pytest.mark.parametrize("words", [1, 2, 3])
def test_short_cited_sentences_are_claims_and_are_checked(words: int) -> None:
    docs = (Document("1", "Aspirin reduces fever."),)
    text = " ".join(["Aspirin", "increases", "fever"][:words])
    claims, _ = run(f"{text} [1].", documents=docs)
    assert len(claims) == 1
    if words == 3:
        assert claims[0] == (
            "not_supported",
            ("term_coverage=0.67", "phrase_overlap=0.00", "antonym:increases/reduces"),
        )


def test_an_uncited_value_of_the_data_is_supported_by_rule() -> None:
    data = {"quote": {"premium": 1200, "holder": "Dana Reyes"}}
    (claim,), _ = run("The premium recorded for the quote is 1,200.", documents=(), data=data)
    assert claim == ("supported", ("uncited", "value_in_data"))
    # another figure, or a negation, is no match: the lexical tier decides
    (other,), _ = run("The premium recorded for the quote is 1,350.", documents=(), data=data)
    assert other[0] == "not_supported" and "number_missing:1,350" in other[1]
    (negated,), _ = run("The premium recorded is not 1,200 for the quote.", documents=(), data=data)
    assert negated[1][1] != "value_in_data"


def test_an_uncited_claim_about_code_is_checked_against_the_symbol_lines() -> None:
    code = "def alpha(value):\n    return value * 2\n\n\ndef beta(value):\n    return value * 7\n"
    docs = (Document("src/a.py", code),)
    (good,), _ = run("The `beta` function multiplies its input by 7.", documents=docs)
    assert good[0] == "supported"
    # 2 is in the document, but not in the lines of `beta`
    (bad,), _ = run("The `beta` function multiplies its input by 2.", documents=docs)
    assert bad[0] == "not_supported" and "number_missing:2" in bad[1]


def test_a_refusal_abstains_and_counts_in_no_rate() -> None:
    claims, scores = run(
        "Rainfall in the basin doubled during the spring of 2021. "
        "However, the passages do not say how much rain fell in June."
    )
    assert claims[0][0] == "supported"
    assert claims[1] == ("abstain", ("uncited", "abstention"))
    # the refusal is neither support nor hallucination, nor a claim that lacks a citation
    assert (scores.support_rate, scores.hallucination_rate, scores.coverage) == (1.0, 0.0, 0.0)  # type: ignore[attr-defined]


def test_an_answer_of_refusals_is_an_abstaining_answer() -> None:
    event = AnswerEvent(
        "e",
        "Unable to answer based on the given passages. Je ne peux pas répondre.",
        documents=DOCS,
    )
    verdict = check_event(event, CheckOptions())
    assert [c.support.verdict for c in verdict.claims] == ["abstain", "abstain"]
    assert verdict.scores.hallucination_rate is None and verdict.scores.support_rate is None
    tally = claim_tally(verdict.claims, set())
    assert tally.abstaining and (tally.abstained, tally.claims) == (2, 0)


def test_the_content_beside_a_refusal_is_checked() -> None:
    claims, _ = run(
        "The reservoir held 40 million cubic metres in May, but the passages do not mention "
        "the level in July."
    )
    assert claims[0][0] == "supported"
    claims, _ = run(
        "The reservoir held 90 million cubic metres in May, but the passages do not mention "
        "the level in July."
    )
    assert claims[0][0] == "not_supported"


def test_source_references_and_list_labels_are_no_figures() -> None:
    from monitor.checks.grounding import source_references_removed

    assert source_references_removed(
        "According to passage 1, pay is 30 dollars (Passage 2 & 3)."
    ) == ("According to passage , pay is 30 dollars (Passage ).")
    assert source_references_removed("Step 6: Serve it at 70 degrees.") == "Serve it at 70 degrees."
    (claim,), _ = run(
        "According to passage 2, rainfall in the basin doubled during the spring of 2021."
    )
    assert claim[0] == "supported"  # "2" names the passage, it is no figure the passage lacks


def test_a_source_unsure_of_a_count_supports_no_definite_count() -> None:
    docs = (
        Document(
            "a",
            "Jets struck a depot near the border on Monday. It was not immediately clear how "
            "many soldiers died in the strike. Officials praised the crews.",
        ),
    )
    (definite,), _ = run(
        "Jets struck a depot near the border, killing thousands of soldiers.", documents=docs
    )
    assert definite[0] == "not_supported" and "hedged_source" in definite[1]
    (hedged,), _ = run(
        "Jets struck a depot near the border; how many soldiers died is unclear.", documents=docs
    )
    assert "hedged_source" not in hedged[1]


def test_an_uncited_flip_needs_the_whole_claim_in_one_sentence() -> None:
    docs = (Document("a", "The council approved the new stadium near the harbour in May."),)
    (flip,), _ = run(
        "The council did not approve the new stadium near the harbour.", documents=docs
    )
    assert flip[0] == "not_supported" and "negation_mismatch" in flip[1]
    # the guessed sentence lacks part of the claim: its polarity is no evidence either way
    (partial,), _ = run(
        "The council did not approve funding for the stadium near the harbour.", documents=docs
    )
    assert "negation_mismatch" not in partial[1]
