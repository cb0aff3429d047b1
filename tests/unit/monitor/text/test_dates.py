"""monitor.text.dates: calendar dates in every written form, and JSON-path date values."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from monitor.citations.values import value_stated
from monitor.text.dates import date_stated, dates, missing_dates

MONTHS = "January February March April May June July August September October November December"
NAMES = MONTHS.split()


def forms(d: dt.date) -> list[str]:
    month = NAMES[d.month - 1]
    return [
        d.isoformat(),
        f"{month} {d.day}, {d.year}",
        f"{month} {d.day} {d.year}",
        f"{d.day} {month} {d.year}",
        f"{d.day} {month[:3]}. {d.year}" if month != "May" else f"{d.day} May {d.year}",
        f"the {d.day}th of {month}, {d.year}"[4:] if d.day > 3 else f"{d.day} {month} {d.year}",
    ]


@given(st.dates(min_value=dt.date(1000, 1, 1), max_value=dt.date(2999, 12, 31)))
def test_every_form_reads_as_the_same_date(d: dt.date) -> None:
    for text in forms(d):
        assert dates(f"It happened on {text} in the city.") == [(d.year, d.month, d.day)], text


@given(
    st.dates(min_value=dt.date(1000, 1, 1), max_value=dt.date(2999, 12, 31)),
    st.dates(min_value=dt.date(1000, 1, 1), max_value=dt.date(2999, 12, 31)),
)
def test_two_different_dates_never_match(a: dt.date, b: dt.date) -> None:
    said = f"Signed on {a.isoformat()}."
    found = dates(f"Signed on {NAMES[b.month - 1]} {b.day}, {b.year}.")
    assert date_stated((a.year, a.month, a.day), found) == (a == b)
    assert (missing_dates(said, f"Signed on {b.isoformat()}.") == []) == (a == b)


def test_month_only_and_yearless_forms() -> None:
    assert dates("in March 2020") == [(2020, 3, 0)]
    assert dates("on March 3") == []  # no year: not read unless asked
    assert dates("on March 3", yearless=True) == [(0, 3, 3)]
    assert dates("on 3 March, 2020", yearless=True) == [(2020, 3, 3)]  # not also yearless
    # a month-only date matches any day of that month; a yearless one any year
    assert date_stated((2020, 3, 0), [(2020, 3, 17)])
    assert date_stated((2020, 3, 17), [(0, 3, 17)])
    assert not date_stated((2020, 3, 17), [(0, 4, 17)])


def test_not_dates() -> None:
    assert dates("version 2026-13-01 and 2026-02-41 and 12/03/2020") == []
    assert dates("The May 2 bill") == []  # no year
    assert dates("room 2026-02-01x") == []


def test_a_json_date_value_must_be_the_date_written() -> None:
    kw = {"rel_tol": 0.01, "min_similarity": 0.8}
    # fuzzy similarity of "2026-02-01" and "2026-01-01" is 0.9: the date check decides instead
    assert value_stated("2026-01-01", ["The policy starts on 2026-02-01"], **kw) is False
    assert value_stated("2026-01-01", ["The policy starts on 2026-01-01"], **kw) is True
    assert value_stated("2026-01-01", ["The policy starts on January 1, 2026"], **kw) is True
    # the nearest window that states a date decides
    assert value_stated("2026-01-01", ["starts then", "on 2026-01-02"], **kw) is False
    # a string that is no date keeps the fuzzy match
    assert value_stated("Acme Corp", ["insured by Acme Corp."], **kw) is True
