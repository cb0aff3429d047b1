"""Tokens, stemmer, figures and small text helpers of the cheap support tier."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.text.numbers import NumberSet, numbers, written_in
from monitor.text.words import (
    content_stems,
    identifiers,
    quotations,
    remove_spans,
    split_words,
    stem,
    words,
)


@pytest.mark.parametrize(
    ("forms", "key"),
    [
        (["validate", "validates", "validated", "validating", "validation"], "validat"),
        (["manage", "manages", "managed", "management"], "manag"),
        (["study", "studies", "studied"], "studi"),
        (["run", "running"], "run"),
        (["organize", "organizes", "organization"], "organiz"),
    ],
)
def test_stem_conflates_word_forms(forms: list[str], key: str) -> None:
    assert {stem(f) for f in forms} == {key}


def test_stem_leaves_short_words_non_plurals_and_numbers() -> None:
    assert stem("gas") == "gas"
    assert stem("status") == "status"
    assert stem("analysis") == "analysis"
    assert stem("2020") == "2020"


def test_words_split_punctuation_underscores_and_map_number_words() -> None:
    assert words("Five users' validate_token (v2.0)—done") == [
        "5",
        "users",
        "validate",
        "token",
        "v2",
        "0",
        "done",
    ]
    assert split_words("Hello, World!") == ["Hello", "World"]


def test_content_stems_drop_stopwords() -> None:
    assert content_stems(words("The revenue of the company grew")) == ["revenu", "compani", "grew"]


def test_numbers_read_separators_decimals_scales_and_year_ranges() -> None:
    got = [(m.raw, m.value, m.tolerance) for m in numbers("1,200 users, 3.14 and 5.6 million")]
    assert got == [("1,200", 1200.0, 0.5), ("3.14", 3.14, 0.005), ("5.6 million", 5.6e6, 5e4)]
    (academic,) = numbers("during the 2018–19 academic year")[1:]
    assert academic.value == 2019.0 and academic.is_year


def test_numbers_skip_digits_inside_words_and_names() -> None:
    text = "COVID-19 hit mp3 sales; the 1st run on Windows 10 used H2O in MS-06"
    assert numbers(text) == []
    # a capital that opens the sentence is not a name; a month keeps its day
    assert [m.value for m in numbers("Revenue 57 grew")] == [57.0]
    assert [m.value for m in numbers("It ended on April 9, 2011")] == [9.0, 2011.0]


def test_number_set_matches_at_the_claims_precision() -> None:
    evidence = NumberSet.of_text("Share rose to 41.3% of 5,669,000 people on the 9th; five sites")
    (pct,) = numbers("41%")
    (people,) = numbers("5.7 million")
    (exact,) = numbers("41.4%")
    assert evidence.contains(pct)  # 41.3 rounds to 41
    assert evidence.contains(people)  # 5,669,000 rounds to 5.7 million
    assert not evidence.contains(exact)  # 41.3 is not 41.4 at one decimal
    assert evidence.contains(numbers("9")[0])  # "9th" offers 9
    assert evidence.contains(numbers("5")[0])  # "five"


def test_identifier_digits_are_not_evidence_figures() -> None:
    text = "def lambda_policy_9(value):\n    return value * 31"
    (nine,) = numbers("multiplies by 9")
    assert not written_in(nine, text)
    assert not NumberSet.of_text(text).contains(nine)
    assert written_in(numbers("by 31")[0], text)


@given(st.integers(min_value=0, max_value=10**9))
def test_written_in_finds_integers_with_or_without_separators(n: int) -> None:
    (plain,) = numbers(f"value {n} here")
    assert written_in(plain, f"it was {n:,} in total")
    assert written_in(plain, f"it was {n} in total")
    assert not written_in(plain, f"it was 1{n}7 in total")


@given(st.integers(min_value=1_000, max_value=10**9), st.sampled_from(["km", "kg", "mph", "x"]))
def test_a_grouped_figure_glued_to_letters_is_never_its_first_group(n: int, unit: str) -> None:
    # "29,200km": no figure at all (as "3D"), never 29; spaced, the whole figure
    assert numbers(f"travelled {n:,}{unit}, then") == []
    assert [m.value for m in numbers(f"travelled {n:,} {unit}, then")] == [float(n)]


def test_a_figure_before_a_comma_and_a_spaced_number_stays_itself() -> None:
    assert [m.value for m in numbers("In 2019, 300 people came")] == [2019.0, 300.0]


def test_identifiers_come_from_code_spans_and_code_shaped_words() -> None:
    text = "The `validate_token` function in AuthManager calls getUser and obj.method_name"
    assert identifiers(text) == ["validate_token", "AuthManager", "getUser", "method_name"]


def test_quotations_need_three_words() -> None:
    text = 'He said "not now" and “we will win this” and "a b c"'
    assert quotations(text) == ["we will win this", "a b c"]


def test_remove_spans_uses_absolute_offsets() -> None:
    answer = "Intro. Revenue grew 5% [1][2] in 2020 [3]."
    start = answer.index("Revenue")
    claim = answer[start:]
    spans = [
        (answer.index("[1]"), answer.index("[1]") + 3),
        (answer.index("[2]"), answer.index("[2]") + 3),
    ]
    spans.append((answer.index("[3]"), answer.index("[3]") + 3))
    assert remove_spans(claim, start, spans) == "Revenue grew 5% in 2020 ."


@given(
    text=st.text(alphabet=" \tab[1]\n.", max_size=30),
    offset=st.integers(0, 20),
    start=st.integers(-5, 60),
    length=st.integers(-3, 40),
)
def test_remove_spans_one_span_as_the_loop(text: str, offset: int, start: int, length: int) -> None:
    # the same span twice takes the general loop, where the second copy is empty
    span = (start, start + length)
    assert remove_spans(text, offset, [span]) == remove_spans(text, offset, [span, span])
