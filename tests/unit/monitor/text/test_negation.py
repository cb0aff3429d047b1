"""The negation cue: what denies a predicate, and what only looks like it."""

from __future__ import annotations

import pytest

from monitor.checks.contrast import contrasts
from monitor.text.negation import NEGATION_RE


@pytest.mark.parametrize(
    "text",
    [
        "The army had tried -- and failed -- to retake the city.",
        "It failed, to nobody's surprise, to win.",
        "He was convicted of failure to report abuse.",
        "The shop does not open on Sundays.",
        "They haven't paid.",
    ],
)
def test_negations(text: str) -> None:
    assert NEGATION_RE.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "Pay depends on whether or not they are paid on commission.",
        "How they are paid (commission or not) matters.",
        "It is not clear if they plan to testify.",
        "It wasn't immediately clear how many people died.",
        "Not only the price but also the size changed.",
    ],
)
def test_alternatives_and_hedges_are_no_negation(text: str) -> None:
    assert NEGATION_RE.search(text) is None


def test_failed_between_dashes_is_the_same_failure() -> None:
    source = "The army, which had tried -- and failed -- to retake the city, regrouped in May."
    assert "negation_mismatch" not in contrasts(
        "The army, which had previously failed to retake the city, regrouped in May.",
        [source],
        False,
    )


def test_a_cue_in_another_clause_does_not_negate() -> None:
    source = "That part was never disputed: the university is under investigation for its handling."
    assert "negation_mismatch" not in contrasts(
        "The university is under investigation for its handling.", [source], False
    )
    flipped = "The university is not under investigation for its handling."
    assert "negation_mismatch" in contrasts(flipped, [source], False)


def test_a_missing_space_after_a_sentence_still_ends_it() -> None:
    from monitor.checks.contrast_sentences import sentences_of

    got = [
        s.text
        for s in sentences_of(
            "Not essential to obtain from your diet.These include X. The U.S.A grew 4.2 pct."
        )
    ]
    assert got == [
        "Not essential to obtain from your diet.",
        "These include X.",
        "The U.S.A grew 4.2 pct.",
    ]
