"""The negation look before `negated` (issue 27.3): an ASCII text's look on its lower-cased
copy, case-sensitive, answers as the case-insensitive pattern on the text does, and it never
misses a cue `negated` reads."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks.contrast import contrasts
from monitor.checks.contrast_negation import (
    _ASCII_NEGATION_HINT,
    _ASCII_NEGATION_HINT_PLAIN,
    _NEGATION_HINT,
    _content_stems,
    cue_free,
    may_negate,
    negated,
)
from monitor.checks.contrast_sentences import _tokens
from tests.conftest import dev_sentences

PIECES = [
    *("No", "NOT", "not", "never", "Never", "none", "nor", "can't", "CAN'T", "don’t", "cannot"),
    *("Unable", "unlikely", "denied", "DENIES", "failed to", "fails", "lack", "without"),
    *("impossible", "hardly", "rarely", "seldom", "absent", "x_no", "snow", "Kno", "un"),
    *("revenue", "grew", "the", "2023", "n't", "n'T", "Ne", "é", "K", "ſeldom"),
]
SEPARATORS = [" ", "", "_", "-", ". ", ", ", "'", "\n", "(", "9"]
texts = st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(SEPARATORS)), max_size=8).map(
    lambda parts: "".join(p + s for p, s in parts)
)


def test_hand_picked_looks() -> None:
    assert may_negate("Revenue did NOT grow", "revenue did not grow")
    assert may_negate("It can't be", "it can't be")
    assert not may_negate("Snow fell in Kno", "snow fell in kno")  # no cue starts a word
    assert may_negate("x nothing", None)


@settings(max_examples=400)
@given(texts)
def test_the_lower_case_look_is_the_case_insensitive_pattern(text: str) -> None:
    expected = _NEGATION_HINT.search(text) is not None
    assert may_negate(text) == expected
    if text.isascii():
        assert may_negate(text, text.lower()) == expected


# --- the look with a literal first letter per alternative: the plain pattern's answers --------

PLAIN_HINT = re.compile(_ASCII_NEGATION_HINT_PLAIN)
HINT_WORDS = [
    *("no", "ne", "cannot", "without", "un", "den", "fail", "lack", "impossible", "hardly"),
    *("rarely", "seldom", "absent", "n't", "n", "k", "y", "m", "b", "sent", "le", "not"),
    *("wwithout", "xno", "lacks", "seldo", "ossible", "é", "ſ", "_", "9", "cannnot", "ly"),
]
hint_texts = st.one_of(
    st.text(),
    st.text(alphabet="nowecaxtuidflkmpsbhryé_9 '\n-"),
    st.lists(st.tuples(st.sampled_from(HINT_WORDS), st.sampled_from(SEPARATORS)), max_size=8).map(
        lambda parts: "".join(p + s for p, s in parts)
    ),
)


@settings(max_examples=1500)
@given(hint_texts)
def test_the_anchored_look_is_the_plain_pattern(text: str) -> None:
    for t in (text, text.lower()):
        assert (_ASCII_NEGATION_HINT.search(t) is None) == (PLAIN_HINT.search(t) is None), t


def test_the_anchored_look_on_hand_picked_words() -> None:
    for word in HINT_WORDS:
        for text in (word, " " + word, "x" + word, word + "x", "(" + word + ")"):
            assert (_ASCII_NEGATION_HINT.search(text) is None) == (
                PLAIN_HINT.search(text) is None
            ), text


def test_the_anchored_look_on_the_dev_sets_sentences() -> None:
    seen = 0
    for sentence in dev_sentences():
        low = sentence.lower()
        expected = PLAIN_HINT.search(low) is not None
        assert (_ASCII_NEGATION_HINT.search(low) is not None) == expected, low
        seen += expected
    assert seen > 500


@settings(max_examples=400)
@given(texts)
def test_the_look_never_misses_a_negation(text: str) -> None:
    if negated(text):
        assert may_negate(text)
        if text.isascii():
            assert may_negate(text, text.lower())


# --- "not X but Y": the cue's scope ends at the contrasting word ----------------------------


def negation_flip(claim: str, evidence: str) -> bool:
    return "negation_mismatch" in contrasts(claim, [evidence], False)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The company froze hiring", "The company did not cut jobs but froze hiring."),
        (
            "The museum is a home for local painters",
            "The museum is not a shrine to old masters but a home for local painters.",
        ),
        # the verb of both clauses: what the claim says is what the second one affirms
        ("The ferry sails at dawn", "The ferry no longer sails at noon; instead it sails at dawn."),
        # "nothing but" is "only"
        ("The cook adds salt and black pepper", "The cook adds nothing but salt and black pepper."),
    ],
)
def test_what_a_contrastive_negation_affirms_is_not_negated(claim: str, evidence: str) -> None:
    assert not negation_flip(claim, evidence)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # what it denies is still denied
        ("The company cut jobs", "The company did not cut jobs but froze hiring."),
        ("The ferry sails at noon", "The ferry no longer sails at noon; instead it sails at dawn."),
        # a negation with no contrasting word, and one after the contrasting word
        ("The company froze hiring", "The company never froze hiring."),
        ("The company cut jobs", "Sales fell, but the company did not cut jobs."),
    ],
)
def test_what_a_contrastive_negation_denies_is_negated(claim: str, evidence: str) -> None:
    assert negation_flip(claim, evidence)


CLAIM_WORDS = ["harbour", "ferries", "carry", "timber", "northern", "islands", "weekly"]
OTHER_WORDS = ["railway", "lorries", "haul", "marble", "southern", "quarries", "daily"]


@settings(max_examples=200)
@given(
    st.lists(st.sampled_from(CLAIM_WORDS), min_size=3, max_size=6, unique=True),
    st.lists(st.sampled_from(OTHER_WORDS), min_size=1, max_size=4, unique=True),
    st.sampled_from(["did not", "never", "no longer"]),
    st.sampled_from([" but ", ", but ", "; instead ", " but rather "]),
)
def test_the_denied_clause_is_negated_and_the_affirmed_one_not(
    claim_words: list[str], others: list[str], cue: str, contrast: str
) -> None:
    # the evidence denies X and affirms Y: a claim of Y's words agrees with it, one of X's not
    claim = "The " + " ".join(claim_words)
    affirmed = f"They {cue} {' '.join(others)}{contrast}{' '.join(claim_words)}."
    denied = f"They {cue} {' '.join(claim_words)}{contrast}{' '.join(others)}."
    assert not negation_flip(claim, affirmed)
    assert negation_flip(claim, denied)


# --- the claim's negation read only when compared --------------------------------------------
CUE_TOKENS = ["never", "failed", "no", "longer", "lack", "revenue", "grew", "the", "not", "deny"]


def _check_cue_free(tokens: list[str]) -> None:
    if cue_free(tokens):  # then contrasts aligns on the same stems before reading the negation
        assert _content_stems(tokens, True) == _content_stems(tokens, False)


@given(st.lists(st.sampled_from(CUE_TOKENS), max_size=8))
def test_cue_free_tokens_give_the_same_stems_negated_or_not(tokens: list[str]) -> None:
    _check_cue_free(tokens)


def test_cue_free_dev_sentences_give_the_same_stems_negated_or_not() -> None:
    for sentence in dev_sentences():
        _check_cue_free(_tokens(sentence))
