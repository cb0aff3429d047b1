"""Claim splitting (sentences, non-claims, citation attachment) and claim kinds."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks.claims import classify_claim, is_claim, split_claims
from monitor.citations.extract import extract_citations
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Citation, Segment
from monitor.text.sentences import split_sentences

OPTIONS = CheckOptions()


def bracket_citations(answer: str) -> list[Citation]:
    """Every [..] of the answer as a numeric citation (what the extractor would give)."""
    return [
        Citation(index=i, raw=m.group(0), format="numeric", start=m.start(), end=m.end(), number=1)
        for i, m in enumerate(re.finditer(r"\[[^\]]*\]", answer))
    ]


def claims_of(answer: str) -> list[tuple[str, tuple[int, ...]]]:
    event = AnswerEvent(event_id="e", answer=answer)
    return [
        (c.text, c.citation_indexes)
        for c in split_claims(event, bracket_citations(answer), OPTIONS)
    ]


def sentences(text: str) -> list[str]:
    return [text[s.start : s.end] for s in split_sentences(text) if s.kind == "text"]


def test_abbreviations_initials_and_acronyms_do_not_end_sentences() -> None:
    text = (
        "Dr. Smith of the U.S. Dept. of Energy met Mark T. Vande Hei, e.g. in Washington, D.C. "
        "The meeting went well."
    )
    assert sentences(text) == [
        "Dr. Smith of the U.S. Dept. of Energy met Mark T. Vande Hei, e.g. in Washington, D.C.",
        "The meeting went well.",
    ]


def test_decimals_versions_and_file_names_stay_inside() -> None:
    text = "Pi is 3.14 in v2.1.0 of annual_report.pdf and src/auth.py today. Next one starts."
    assert sentences(text) == [
        "Pi is 3.14 in v2.1.0 of annual_report.pdf and src/auth.py today.",
        "Next one starts.",
    ]


def test_etc_ends_a_sentence_only_before_an_opener() -> None:
    assert sentences("They sold apples, pears, etc. The next day was quiet.") == [
        "They sold apples, pears, etc.",
        "The next day was quiet.",
    ]
    assert sentences("Allen and Co. Sun Valley hosts it in 2018.") == [
        "Allen and Co. Sun Valley hosts it in 2018."
    ]


def test_citation_after_the_final_period_belongs_to_the_sentence() -> None:
    answer = "Revenue grew by five percent. [3] Costs fell sharply last year [1][2]."
    assert claims_of(answer) == [
        ("Revenue grew by five percent. [3]", (0,)),
        ("Costs fell sharply last year [1][2].", (1, 2)),
    ]


def test_never_splits_inside_a_citation() -> None:
    answer = "The margin was stable over the year [annual_report.pdf:5:12-80]. It rose later on."
    event = AnswerEvent(event_id="e", answer=answer)
    cites, _ = extract_citations(event, OPTIONS)
    claims = split_claims(event, cites, OPTIONS)
    assert [c.text for c in claims] == [
        "The margin was stable over the year [annual_report.pdf:5:12-80].",
        "It rose later on.",
    ]
    assert claims[0].citation_indexes == (0,)


def test_lowercase_start_after_a_citation_is_a_new_sentence() -> None:
    answer = "The first claim is here [1]. protein levels rose in the cohort [2]."
    assert [t for t, _ in claims_of(answer)] == [
        "The first claim is here [1].",
        "protein levels rose in the cohort [2].",
    ]


def test_non_claims_are_dropped_and_their_citations_attach_to_nothing() -> None:
    answer = (
        "# Overview\n\n"
        "This section covers the results [1].\n"
        "See also the appendix for more [2].\n"
        "Note: figures are rounded to units [3].\n"
        "Did revenue grow in the last year [4]?\n"
        "-\n"
        "```\nx = compute(a. b) and more words here.\n```\n"
        "- Revenue grew by 5% in 2020 [5].\n"
        "1. Costs fell in every region last year [6]."
    )
    assert claims_of(answer) == [
        ("Revenue grew by 5% in 2020 [5].", (4,)),
        ("Costs fell in every region last year [6].", (5,)),
    ]


def test_a_cited_sentence_is_a_claim_whatever_its_length() -> None:
    # three words and citations: a claim (issue 16: "Aspirin increases fever [1]." was dropped)
    assert claims_of("Revenue grew strongly [1][2][3].") == [
        ("Revenue grew strongly [1][2][3].", (0, 1, 2))
    ]
    assert claims_of("Grew [1].") == [("Grew [1].", (0,))]
    # a citation alone on a line asserts nothing
    assert claims_of("[1]") == []


def test_uncited_fragments_under_min_claim_words_are_not_claims() -> None:
    assert claims_of("Revenue grew strongly. Costs fell in every region.") == [
        ("Costs fell in every region.", ())
    ]
    two = CheckOptions(min_claim_words=2)
    found = split_claims(AnswerEvent("e", "Revenue grew. Costs fell."), [], two)
    assert [c.text for c in found] == ["Revenue grew.", "Costs fell."]


def test_a_title_line_is_a_header_but_wrapped_lines_join() -> None:
    answer = "Summary of the findings\nRevenue grew by 5 percent in 2020 [1]."
    assert [t for t, _ in claims_of(answer)] == ["Revenue grew by 5 percent in 2020 [1]."]
    wrapped = "Revenue grew by five percent in the\nUnited States last year [1]."
    assert [t for t, _ in claims_of(wrapped)] == [wrapped]


def test_claim_offsets_index_the_answer() -> None:
    answer = "  Intro words are not enough here.\n\n- The AuthManager class validates input [1]."
    event = AnswerEvent(event_id="e", answer=answer)
    for claim in split_claims(event, bracket_citations(answer), OPTIONS):
        assert answer[claim.start : claim.end] == claim.text


def test_segments_give_one_claim_each() -> None:
    segments = (
        Segment("Revenue grew in 2020.", ("d1",)),
        Segment("   ", ()),
        Segment("Short.", ()),
        Segment("Costs fell.", ("d2", "d3")),
    )
    answer = " ".join(s.text for s in segments)
    event = AnswerEvent(event_id="e", answer=answer, segments=segments)
    cites = [
        Citation(0, "d1", "segment", 0, 21, segment=0, doc_ref="d1"),
        Citation(1, "d2", "segment", 0, 0, segment=3, doc_ref="d2"),
        Citation(2, "d3", "segment", 0, 0, segment=3, doc_ref="d3"),
    ]
    claims = split_claims(event, cites, OPTIONS)
    assert [(c.text, c.citation_indexes) for c in claims] == [
        ("Revenue grew in 2020.", (0,)),
        ("Short.", ()),
        ("Costs fell.", (1, 2)),
    ]
    assert all(answer[c.start : c.end] == c.text for c in claims)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The `validate_token` function checks expiry", "extractive"),
        ("The User class has a save method", "extractive"),
        ("The parser is defined in src/parse.py", "extractive"),
        ('The report says "revenue grew by five percent" overall', "extractive"),
        ("The authentication system prevents replay attacks", "abstractive"),
        ("This module handles user lifecycle", "abstractive"),
        ("The API uses OAuth 2.0 for authentication", "unknown"),
        ("The method of payment is cash", "unknown"),
    ],
)
def test_claim_kinds_follow_seed_001(text: str, kind: str) -> None:
    assert classify_claim(text) == kind


PIECES = st.sampled_from(
    [
        "Revenue grew",
        " by 3.14%",
        " in the U.S.",
        " e.g.",
        " Dr. Smith",
        " [1]",
        " [2][3]",
        "[report.pdf:2:10-50]",
        ". ",
        "? ",
        "! ",
        "\n",
        "\n\n",
        "# Head",
        "- ",
        "1. ",
        "```",
        " `code.x()`",
        ' "quoted words here"',
        " etc.",
        " and more",
        "“",
        "]",
        "[",
        ":",
        "a",
        " annual_report.pdf",
        " ... ",
        "\t",
        "é",
        "中文。",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_split_claims_properties(answer: str) -> None:
    event = AnswerEvent(event_id="e", answer=answer)
    cites, _ = extract_citations(event, OPTIONS)
    claims = split_claims(event, cites, OPTIONS)
    end = 0
    for n, claim in enumerate(claims):
        assert claim.index == n
        assert end <= claim.start < claim.end <= len(answer)
        assert answer[claim.start : claim.end] == claim.text
        end = claim.end
        for i in claim.citation_indexes:
            assert claim.start <= cites[i].start < claim.end
    attached = [i for c in claims for i in c.citation_indexes]
    assert len(attached) == len(set(attached))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_split_claims_never_raises_on_any_text(answer: str) -> None:
    event = AnswerEvent(event_id="e", answer=answer)
    claims = split_claims(event, bracket_citations(answer), OPTIONS)
    assert all(answer[c.start : c.end] == c.text for c in claims)


@pytest.mark.parametrize(
    "text",
    [
        "Here is a summary of the article in 121 words:",
        "Sure, here is a summary of the news within 85 words:",
        "Based on the given passages, here are the steps to fold a quilt:",
        "Here's how you can cook brats according to the provided passages:",
        "Below is an overview of the business.",
    ],
)
def test_the_answer_announcing_itself_is_no_claim(text: str) -> None:
    assert not is_claim(text, 3)


@pytest.mark.parametrize(
    "text",
    [
        "Here is the answer: the river is 40 km long.",
        "Here is where the treaty was signed in 1990.",
        "Hereford cattle are common in the region.",
        "Based on the provided passages, technicians are paid by the hour.",
    ],
)
def test_a_claim_after_a_preamble_is_still_a_claim(text: str) -> None:
    assert is_claim(text, 3)


@pytest.mark.parametrize(
    "text", ["Let me know if you have any further questions.", "I hope this helps you decide."]
)
def test_closing_courtesies_are_no_claims(text: str) -> None:
    assert not is_claim(text, 3)
