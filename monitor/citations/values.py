"""Is a cited JSON value stated in the answer text? Numbers with tolerance, strings fuzzily.

Numbers written in the text are parsed with their precision: "1,200", "$2.5M", "3.5k", "12%",
"2.5 million", "-4", "€30". A written number `shown` matches a value `v` iff

    |shown - v| <= min(rel_tol * |v|, half a unit of the last significant digit written)

so the relative tolerance (seed 002's 0.01) is a ceiling, and a number written with more
precision than that is held to its own precision. Which digits count as written:
- decimals are significant as written ("2.50M": unit 0.01M);
- abbreviated numbers (k / M / bn / "million" ...) and hedged ones ("about", "roughly", "~" ...)
  do not count trailing integer zeros ("30k": unit 10k; "about 5,000": unit 1,000), since
  they announce a rounding;
- a plain full-digit number states an exact figure: "5,000" has unit 1. Otherwise a fabricated
  "5,000" for a true 4,993 would pass the 1% test, and the standard mix fabricates exactly that
  kind of value (true + 7..50) and expects value_mismatch.
A percentage also matches the value as a fraction ("12%" matches 12 and 0.12).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from rapidfuzz import fuzz

from monitor.records.record import record
from monitor.text.dates import date_stated, dates
from monitor.text.negation import NEGATION_RE

_NUMBER = re.compile(
    r"""
    (?<![\w.])
    (?P<neg>[-−](?=[$€£¥]?\d))?
    [$€£¥]?
    (?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)
    (?:\.(?P<frac>\d+))?
    (?:
        \s?(?P<word>thousand|million|billion|trillion|bn|mn)\b
      | (?P<suf>[kKmMbB](?![A-Za-z])|%)
    )?
    """,
    re.X,
)
_HEDGE = re.compile(
    r"(?:\b(?:about|approximately|approx\.?|around|roughly|nearly|almost|circa|some)\s*|[~≈]\s*)$",
    re.I,
)
_SCALE = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "trillion": 1e12,
}


@record
class Shown:
    """A number as written: its value and half a unit of its last significant digit."""

    value: float
    half_unit: float


def parse_numbers(text: str) -> list[Shown]:
    """Every number written in `text`; a percentage yields two readings (12 and 0.12)."""
    out: list[Shown] = []
    for m in _NUMBER.finditer(text):
        digits = m.group("int").replace(",", "")
        frac = m.group("frac") or ""
        if len(digits) > 30 or len(frac) > 30:
            continue  # an identifier-like digit string, not a stated quantity
        word = (m.group("word") or "").lower()
        suf = m.group("suf") or ""
        scale = _SCALE.get(word or suf.lower(), 1.0)
        rounded = scale != 1.0 or _HEDGE.search(text, max(0, m.start() - 16), m.start()) is not None
        if frac:
            unit = 10.0 ** -len(frac)
        elif rounded and digits.rstrip("0"):
            unit = 10.0 ** (len(digits) - len(digits.rstrip("0")))
        else:
            unit = 1.0
        value = float(f"{digits}.{frac or '0'}") * scale
        if m.group("neg"):
            value = -value
        out.append(Shown(value, unit * scale / 2))
        if suf == "%":
            out.append(Shown(value / 100, unit / 200))
    return out


# The last window parse_numbers read, with its numbers: grounding asks value_stated about every
# data value whose key the claim names, each time with the same claim as the window, and the
# parse is the same for all of them. One slot (a tuple, swapped whole, so a reader never sees
# a window with another's numbers); the list is only iterated, never changed.
_LAST_PARSE: list[tuple[str, list[Shown]]] = [("", [])]


def _parsed(window: str) -> list[Shown]:
    last = _LAST_PARSE[0]
    if last[0] == window:
        return last[1]
    shown = parse_numbers(window)
    _LAST_PARSE[0] = (window, shown)
    return shown


def number_matches(value: float, shown: Shown, rel_tol: float) -> bool:
    tol = min(rel_tol * abs(value), shown.half_unit)
    # the slack only absorbs float rounding (2.5 * 1e6, 12 / 100), never a unit of a digit
    return abs(shown.value - value) <= tol + 1e-12 * max(1.0, abs(value))


def _norm(s: str) -> str:
    return " ".join(s.casefold().split())


def string_matches(value: str, text: str, min_similarity: float) -> bool:
    """partial_ratio when the text is at least as long as the value, else plain ratio: a short
    window must not "match" by being found inside a long value."""
    v, t = _norm(value), _norm(text)
    if not v:
        return True
    if not t:
        return False
    score = fuzz.partial_ratio(v, t) if len(t) >= len(v) else fuzz.ratio(v, t)
    return bool(score / 100 >= min_similarity)


def checkable_number(value: Any) -> float | None:
    """The value as a finite float when it is a JSON number (not a boolean), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        f = float(value)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def value_stated(
    value: Any,
    windows: Sequence[str],
    *,
    rel_tol: float,
    min_similarity: float,
) -> bool | None:
    """Whether `value` is stated in the windows (nearest first); None when the value's type is
    not checked (booleans, null, objects, lists).

    Numbers: the first window that contains any number decides (any of its numbers may match),
    so a number stated in the citation's own clause is not overruled by an earlier sentence.
    Strings: any window may match; a string that is a date (monitor/text/dates.py) is a date, and
    the first window that states a date must state that one.
    """
    number = checkable_number(value)
    if number is not None:
        for window in windows:
            shown = _parsed(window)
            if shown:
                return any(number_matches(number, s, rel_tol) for s in shown)
        return False
    if isinstance(value, str):
        wanted = dates(value) if len(value) <= 64 else []
        if wanted:
            # a date differs from another in one digit: fuzzy similarity calls them equal, so
            # the first window that states a date decides, date by date
            for window in windows:
                found = dates(window, yearless=True)
                if found:
                    return all(date_stated(d, found) for d in wanted)
        return any(string_matches(value, w, min_similarity) for w in windows if w.strip())
    return None


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def flag_stated(path: str, value: bool, text: str) -> bool | None:
    """A boolean at `path` against the claim `text`: None when the text does not name the flag
    (the last key's words, `is_active` → "active"), else whether its polarity agrees ("is active"
    for true, "is not active" for false)."""
    key = path.rsplit(".", 1)[-1]
    wanted = [w for w in _CAMEL.sub(" ", key).replace("_", " ").lower().split() if w != "is"]
    said = set(re.findall(r"[a-z0-9]+", text.lower()))
    if not wanted or not all(w in said for w in wanted):
        return None
    return (NEGATION_RE.search(text) is None) == value
