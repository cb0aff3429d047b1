"""Calendar dates written in text: "2026-02-01", "February 1, 2026", "1 Feb 2026", "Feb. 2026".

A date is (year, month, day) with day 0 when only the month is written. Two texts disagree on a
date when one states a date the other never states although it states dates: the support tier
(monitor/checks/contrast.py) and JSON-path value checks (monitor/citations/values.py) use this, because
a date differs from another in one digit or one month name, which word overlap and fuzzy string
similarity both score as nearly equal. Numeric day/month orders other than ISO ("01/02/2026")
are ambiguous and are not read.
"""

from __future__ import annotations

import re
from typing import Any

from monitor.text.words import word_alternation

Date = tuple[int, int, int]

_MONTHS: dict[str, int] = {}
for _n, _names in enumerate(
    (
        "january jan",
        "february feb",
        "march mar",
        "april apr",
        "may",
        "june jun",
        "july jul",
        "august aug",
        "september sep sept",
        "october oct",
        "november nov",
        "december dec",
    ),
    start=1,
):
    for _name in _names.split():
        _MONTHS[_name] = _n

_MONTH = r"(?P<{g}>" + word_alternation(list(_MONTHS)) + r")\.?"
_DAY = r"(?P<{g}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{g}>[12]\d{{3}})"


def _month_and_day(after: str) -> str:
    """The two orders of a month name and a day ("February 1", "1 (of) February"), each followed
    by `after`, a pattern whose {g} slot takes the year's group name ("" for none): the dated and
    the yearless regex read the same two orders."""
    return (
        _MONTH.format(g="am")
        + r"\s+"
        + _DAY.format(g="ad")
        + after.format(g="ay")
        + r"|"
        + _DAY.format(g="bd")
        + r"\s+(?:of\s+)?"
        + _MONTH.format(g="bm")
        + after.format(g="by")
    )


_DATE_RE = re.compile(
    r"(?<![\w-])(?:"
    r"(?P<iy>[12]\d{3})-(?P<im>[01]\d)-(?P<id>[0-3]\d)(?![\d])"  # ISO 2026-02-01 (also in 2026-02-01T10:00)
    r"|"
    + _month_and_day(r",?\s+" + _YEAR)  # "February 1, 2026", "1 February 2026"
    + r"|"
    + _MONTH.format(g="cm")
    + r",?\s+"
    + _YEAR.format(g="cy")  # "February 2026"
    + r")(?!\w)",
    re.I,
)
# Without a year ("April 9th", "9 April"): read only in an evidence sentence, where the claim's
# year may be implied by the page; the year is 0 there and matches any year.
_YEARLESS_RE = re.compile(
    r"(?<![\w-])(?:" + _month_and_day("") + r")(?![\w,]|,?\s+[12]\d{3})",
    re.I,
)
_HINT_RE = re.compile(r"\d{4}")  # every form writes a four-digit year


def _valid(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 0 <= day <= 31 and 1000 <= year <= 2999


def _read_month_and_day(g: dict[str, str | Any]) -> tuple[int, int]:
    """(month, day) of a match of `_month_and_day`, in whichever order it was written."""
    month, day = (g["am"], g["ad"]) if g["am"] else (g["bm"], g["bd"])
    return _MONTHS[month.lower()], int(day)


def dates(text: str, *, yearless: bool = False) -> list[Date]:
    """Every calendar date of `text`, in order (month-only dates have day 0); with `yearless`,
    also month-day dates without a year (year 0), after the others."""
    out: list[Date] = []
    if yearless and any(c.isdigit() for c in text):
        for m in _YEARLESS_RE.finditer(text):
            month, day = _read_month_and_day(m.groupdict())
            if 1 <= day <= 31:
                out.append((0, month, day))
    if not _HINT_RE.search(text):
        return out
    found: list[Date] = []
    for m in _DATE_RE.finditer(text):
        g = m.groupdict()
        if g["iy"]:
            date = (int(g["iy"]), int(g["im"]), int(g["id"]))
        elif g["am"] or g["bm"]:
            date = (int(g["ay"] or g["by"]), *_read_month_and_day(g))
        else:
            date = (int(g["cy"]), _MONTHS[g["cm"].lower()], 0)
        if _valid(*date):
            found.append(date)
    return found + out


_ISO_HINT_RE = re.compile(r"\d{4}-\d\d-\d\d")
_MONTH_STEMS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def has_date(text: str) -> bool:
    """`text` writes a calendar date with its year (a cheap test before any comparison)."""
    if _HINT_RE.search(text) is None:
        return False
    if "-" in text and _ISO_HINT_RE.search(text) is not None:
        return True
    lowered = text.lower()
    if not any(m in lowered for m in _MONTH_STEMS):
        return False  # no month name: only the ISO form could be a date
    return _DATE_RE.search(text) is not None


def date_stated(date: Date, found: list[Date]) -> bool:
    """`date` is among `found`; a month-only date, or a date without a year, on either side
    matches any day of its month or any year."""
    year, month, day = date
    return any(
        (y == year or not y or not year) and m == month and (day == d or not day or not d)
        for y, m, d in found
    )


def missing_dates(claim: str, evidence: str) -> list[Date]:
    """Dates of the claim that `evidence` (the sentence stating the same thing) does not state,
    when it states dates at all: a different date there is a changed fact, while a text without
    dates leaves the claim's day and year figures to the number check."""
    wanted = dates(claim)
    if not wanted:
        return []
    found = dates(evidence, yearless=True)
    if not found:
        return []
    return [d for d in wanted if not date_stated(d, found)]


def format_date(date: Date) -> str:
    year, month, day = date
    return f"{year:04d}-{month:02d}" + (f"-{day:02d}" if day else "")
