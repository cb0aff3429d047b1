"""Fast paths of the check that must give what the plain form gives: `word_alternation` (the unit
and month patterns grouped by first letter) and `claim_core` on single-spaced ASCII text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.text import dates, units
from monitor.text.words import word_alternation

NUMBER = r"(\d(?<![\w.,]\d)(?:\d{0,2}(?:,\d{3})+|\d*))(\.\d+)?\s?("
MONTH_YEAR = r"(?<![\w-])(%s)\.?,?\s+([12]\d{3})(?!\w)"


def flat(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def _found(
    pattern: re.Pattern[str], text: str
) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


UNIT_WORDS = list(units._UNITS)
MONTH_WORDS = list(dates._MONTHS)
PIECES = [
    *UNIT_WORDS, *(u.upper() for u in UNIT_WORDS), *(u.title() for u in UNIT_WORDS),
    *MONTH_WORDS, *(m.title() for m in MONTH_WORDS), *(m.upper() for m in MONTH_WORDS),
    "5", "12", "1,500", "3.75", "0.5", "2023", "1999", " ", "  ", "\n", "-", ",", ".", "x",
    "s1", "kgs", "μg", "per", "cent", "K", "ſ", "Sept.", "mayo",
]  # fmt: skip
TEXT = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)


@settings(max_examples=2000)
@given(TEXT)
def test_units_grouped_like_flat(text: str) -> None:
    grouped = re.compile(NUMBER + word_alternation(UNIT_WORDS) + r")(?![\w])", re.I)
    reference = re.compile(NUMBER + flat(UNIT_WORDS) + r")(?![\w])", re.I)
    assert _found(grouped, text) == _found(reference, text)
    assert _found(units._QUANTITY_RE, text) == _found(reference, text)  # what the module uses


@settings(max_examples=2000)
@given(TEXT)
def test_months_grouped_like_flat(text: str) -> None:
    grouped = re.compile(MONTH_YEAR % word_alternation(MONTH_WORDS), re.I)
    reference = re.compile(MONTH_YEAR % flat(MONTH_WORDS), re.I)
    assert _found(grouped, text) == _found(reference, text)


def test_longest_word_first_and_backtracking_kept() -> None:
    text = "5 mg, 10 millions, 3 ms, 7 mx, 2 percentage points"
    got = [m.group(0) for m in units._QUANTITY_RE.finditer(text)]
    assert got == ["5 mg", "10 millions", "3 ms", "2 percentage points"]  # "7 mx": no unit
    assert word_alternation(["m", "mg", "kg"]) == "(?:mg|m)|kg"


@settings(max_examples=3000)
@given(
    st.text(
        alphabet=st.sampled_from(list("ab .!?;:\t\n\r\x0b\x0c\x1c\x1f\xa0\u2009é")), max_size=30
    )
)
def test_claim_core_fast_path_is_the_split_and_join(text: str) -> None:
    from monitor.checks.contrast_sentences import claim_core

    assert claim_core(text) == " ".join(text.split()).rstrip(" .!?;:")
