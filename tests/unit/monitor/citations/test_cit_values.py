"""values.py: numbers as written (with their precision), tolerance rules, string matching."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.citations.values import (
    Shown,
    checkable_number,
    number_matches,
    parse_numbers,
    string_matches,
    value_stated,
)

REL = 0.01


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,200", [Shown(1200, 0.5)]),
        ("$2.5M", [Shown(2_500_000, 50_000)]),
        ("3.5k", [Shown(3500, 50)]),
        ("30k", [Shown(30_000, 5_000)]),
        ("2.5 million", [Shown(2_500_000, 50_000)]),
        ("€4 bn", [Shown(4e9, 5e8)]),
        ("12%", [Shown(12, 0.5), Shown(0.12, 0.005)]),
        ("-4.25", [Shown(-4.25, 0.005)]),
        ("5,000", [Shown(5000, 0.5)]),
        ("about 5,000", [Shown(5000, 500)]),
        ("~ 1200", [Shown(1200, 50)]),
        ("lines 10-25", [Shown(10, 0.5), Shown(25, 0.5)]),
        ("v2.5 and x3 and 5km", [Shown(5, 0.5)]),
        ("2.50", [Shown(2.5, 0.005)]),
        ("1,2345", [Shown(1, 0.5), Shown(2345, 0.5)]),
    ],
)
def test_parse_numbers(text: str, expected: list[Shown]) -> None:
    got = parse_numbers(text)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.value == pytest.approx(e.value) and g.half_unit == pytest.approx(e.half_unit)


def test_overlong_digit_strings_are_skipped_not_overflowing() -> None:
    assert parse_numbers("9" * 400 + " and 7") == [Shown(7, 0.5)]


@pytest.mark.parametrize(
    ("value", "text", "ok"),
    [
        (1200, "1,200", True),
        (1200, "1,201", False),
        (10_000, "10,037", False),  # the standard mix's fabrication: inside 1%, outside precision
        (10_037, "10,000", False),  # a plain number states an exact figure
        (10_037, "about 10,000", True),  # hedged: within min(1%, 5,000)
        (2_480_000, "$2.5M", True),  # |diff| 20,000 <= min(24,800, 50,000)
        (2_460_000, "$2.5M", False),  # 40,000 > 1% of the value
        (3.14159, "3.14", True),
        (3.14159, "3.15", False),
        (0.12, "12%", True),
        (12, "12%", True),
        (0, "0", True),
        (0, "0.001", False),
    ],
)
def test_number_matches(value: float, text: str, ok: bool) -> None:
    assert any(number_matches(value, s, REL) for s in parse_numbers(text)) is ok


def test_string_matches() -> None:
    assert string_matches("Springfield", "The office is in springfield today", 0.8)
    assert string_matches("Springfield", "Springfeld", 0.8)
    assert not string_matches("Springfield", "Shelbyville", 0.8)
    # a short window is not "found inside" a long value
    assert not string_matches("This is a long description of the site", "is", 0.8)
    assert string_matches("", "anything", 0.8)
    assert not string_matches("x", "   ", 0.8)


def test_checkable_number() -> None:
    assert checkable_number(True) is None
    assert checkable_number("12") is None
    assert checkable_number(float("nan")) is None
    assert checkable_number(10**400) is None
    assert checkable_number(7) == 7.0


def test_value_stated_first_window_with_numbers_decides() -> None:
    kw = {"rel_tol": REL, "min_similarity": 0.8}
    assert value_stated(5, ["no numbers", "it is 5", "6"], **kw) is True
    assert value_stated(5, ["it is 6", "it is 5"], **kw) is False
    assert value_stated(5, ["", "", ""], **kw) is False
    assert value_stated([1, 2], ["x"], **kw) is None
    assert value_stated(None, ["x"], **kw) is None
    assert value_stated("Paris", ["", "in Paris", ""], **kw) is True


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_exact_rendering_always_matches(v: int) -> None:
    assert any(number_matches(v, s, REL) for s in parse_numbers(f"is {v:,} here"))
    assert any(number_matches(v, s, REL) for s in parse_numbers(f"is {v} here"))


@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=1, max_value=10**6))
def test_any_other_plain_integer_is_a_mismatch(v: int, d: int) -> None:
    shown = parse_numbers(f"{v + d:,}")
    assert len(shown) == 1 and not number_matches(v, shown[0], REL)


@given(st.integers(min_value=1, max_value=10**12), st.sampled_from([1e3, 1e6, 1e9]))
def test_abbreviated_match_iff_within_min_of_tolerance_and_precision(v: int, scale: float) -> None:
    suffix = {1e3: "k", 1e6: "M", 1e9: "bn"}[scale]
    rounded = round(v / scale, 1)
    (s,) = parse_numbers(f"${rounded:.1f}{suffix}")
    expected = abs(rounded * scale - v) <= min(REL * v, 0.05 * scale) + 1e-12 * max(1.0, v)
    assert number_matches(v, s, REL) is expected


@given(
    st.floats(min_value=-1e9, max_value=1e9, allow_nan=False),
    st.integers(min_value=0, max_value=6),
)
def test_decimal_rendering_matches_when_within_relative_tolerance(v: float, places: int) -> None:
    # rounding to `places` decimals moves the value by at most half a unit of the last digit
    (s, *_) = parse_numbers(f"{v:.{places}f}")
    assert s.half_unit == pytest.approx(0.5 * 10.0**-places)
    ok = number_matches(v, s, REL)
    assert ok is (abs(s.value - v) <= min(REL * abs(v), s.half_unit) + 1e-12 * max(1.0, abs(v)))
    if abs(v) * REL >= s.half_unit:
        assert ok
