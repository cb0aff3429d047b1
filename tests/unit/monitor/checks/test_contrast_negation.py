"""The negation look before `negated` (issue 27.3): an ASCII text's look on its lower-cased
copy, case-sensitive, answers as the case-insensitive pattern on the text does, and it never
misses a cue `negated` reads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks.contrast_negation import _NEGATION_HINT, may_negate, negated

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


@settings(max_examples=400)
@given(texts)
def test_the_look_never_misses_a_negation(text: str) -> None:
    if negated(text):
        assert may_negate(text)
        if text.isascii():
            assert may_negate(text, text.lower())
