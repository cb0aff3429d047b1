"""Brackets that are not citations (years, intervals, task boxes) and citations that were missed
(footnotes, top-level JSON paths, JSON paths in an event without data). Issue 16."""

from __future__ import annotations

import pytest

from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Document
from monitor.text.sentences import split_sentences
from tests.unit.monitor.citations.helpers import check, cites, raws

THREE = tuple(Document(str(i), f"Document {i} text about rainfall.") for i in (1, 2, 3))


@pytest.mark.parametrize(
    "answer",
    [
        "It was founded in [2019] by two engineers.",
        "Both seasons [2019, 2020] were wet.",
        "The weight lies in [0, 1] for every input.",
        "Let x ∈ [1, 2] be the step.",
        "Values in the range [2, 3] are clipped.",
        "Scores [10, 20] fall outside.",
    ],
)
def test_years_and_intervals_are_not_citations(answer: str) -> None:
    assert raws(answer, documents=THREE) == []


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Rain fell [1, 2].", ["[1, 2]", "[1, 2]"]),  # both resolve: a citation list
        ("Rain fell [2].", ["[2]"]),
        ("Rain fell [7].", ["[7]"]),  # a wrong index stays a citation (index_out_of_range)
        ("Rain fell [1, 7].", ["[1, 7]", "[1, 7]"]),  # one resolves: still citations
        ("Rain fell [1-3].", ["[1-3]"] * 3),  # a range of citations, never an interval
    ],
)
def test_numeric_citations_stay_citations(answer: str, expected: list[str]) -> None:
    assert raws(answer, documents=THREE) == expected


def test_a_year_is_a_citation_when_a_document_has_that_id() -> None:
    docs = (*THREE, Document("2019", "The 2019 report."))
    assert raws("As reported [2019].", documents=docs) == ["[2019]"]


def test_a_wrong_index_still_fails_as_index_out_of_range() -> None:
    (result,) = check("Rain fell [7].", documents=THREE)
    assert (result.status, result.error) == ("invalid", "index_out_of_range")


def test_footnotes_resolve_like_numbers() -> None:
    found = cites("Rain fell[^2]. Snow fell [^1].", documents=THREE)
    assert [(c.raw, c.format, c.number) for c in found] == [
        ("[^2]", "numeric", 2),
        ("[^1]", "numeric", 1),
    ]
    results = check("Rain fell[^2].", documents=THREE)
    assert [(r.status, r.doc_id) for r in results] == [("valid", "2")]
    # the footnote's definition line is not a citation
    assert raws("Rain fell[^2].\n\n[^2]: Document 2.", documents=THREE) == ["[^2]"]


def test_top_level_json_paths_resolve_when_the_event_has_data() -> None:
    results = check("The account is active [active].", data={"active": True})
    assert [(r.citation.format, r.citation.path, r.status) for r in results] == [
        ("json_path", "active", "valid")
    ]
    # not a key of data: prose
    assert raws("It is [sic] wrong.", data={"active": True}) == []


def test_json_path_without_data_is_an_invalid_citation_not_uncited() -> None:
    results = check("The premium is 300 [quote.premium].")
    assert [(r.citation.format, r.status, r.error) for r in results] == [
        ("json_path", "invalid", "path_not_found")
    ]
    verdict = check_event(AnswerEvent("e", "The premium is 300 [quote.premium]."), CheckOptions())
    (claim,) = verdict.claims
    assert claim.claim.citation_indexes == (0,)
    assert claim.support.reasons == ("invalid_citations", "citation_error:path_not_found")


@pytest.mark.parametrize(
    "answer",
    [
        "See [example.com] for more.",
        "Edit [config.yaml] first.",
        "As in [Fig.1] above.",
        "Released in [v1.2] last year.",
        "That is [e.g] a case.",
        "Use [node.js] here.",
    ],
)
def test_dotted_words_are_not_json_paths_without_data(answer: str) -> None:
    assert raws(answer, documents=()) == []


def test_task_list_boxes_are_not_citations_and_do_not_glue_lines() -> None:
    answer = "- [ ] check the logs\n- [x] restart the worker\nRainfall doubled in the basin [1]."
    assert raws(answer, documents=THREE, data={"x": 1}) == ["[1]"]
    texts = [answer[s.start : s.end] for s in split_sentences(answer) if s.kind == "text"]
    assert texts == [
        "check the logs",
        "restart the worker",
        "Rainfall doubled in the basin [1].",
    ]
    verdict = check_event(AnswerEvent("e", answer, documents=THREE), CheckOptions())
    assert [c.claim.text for c in verdict.claims] == ["Rainfall doubled in the basin [1]."]
    # an empty task box is an empty item
    kinds = [s.kind for s in split_sentences("- [ ]\nText follows here now.")]
    assert kinds == ["empty_item", "text"]
