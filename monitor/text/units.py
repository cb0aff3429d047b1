"""Figures written with a unit, for monitor/checks/contrast.py: "500 mg", "12 km", "4.2 billion", "5%".

A claim's figure whose evidence writes the same number with another unit of the same kind
("500 g" / "500 mg") is a unit flip; the same quantity in another unit ("1.5 g" / "1,500 mg") is
no flip, and its digits are not a missing figure either. Percent and percentage points are two
kinds of one family: never the same quantity, but the one mistaken for the other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from monitor.text.words import word_alternation

# unit word → (kind, factor to the kind's base unit); percent and percentage points are two
# kinds of one family (never the same quantity, but the one mistaken for the other)
_UNITS: dict[str, tuple[str, float]] = {
    "mg": ("mass", 1e-3),
    "milligram": ("mass", 1e-3),
    "milligrams": ("mass", 1e-3),
    "g": ("mass", 1.0),
    "gram": ("mass", 1.0),
    "grams": ("mass", 1.0),
    "kg": ("mass", 1e3),
    "kilogram": ("mass", 1e3),
    "kilograms": ("mass", 1e3),
    "µg": ("mass", 1e-6),
    "mcg": ("mass", 1e-6),
    "microgram": ("mass", 1e-6),
    "micrograms": ("mass", 1e-6),
    "t": ("mass", 1e6),
    "tonnes": ("mass", 1e6),
    "tons": ("mass", 1e6),
    "mm": ("length", 1e-3),
    "millimetres": ("length", 1e-3),
    "millimeters": ("length", 1e-3),
    "cm": ("length", 1e-2),
    "centimetres": ("length", 1e-2),
    "centimeters": ("length", 1e-2),
    "m": ("length", 1.0),
    "metres": ("length", 1.0),
    "meters": ("length", 1.0),
    "km": ("length", 1e3),
    "kilometres": ("length", 1e3),
    "kilometers": ("length", 1e3),
    "ml": ("volume", 1e-3),
    "millilitres": ("volume", 1e-3),
    "milliliters": ("volume", 1e-3),
    "l": ("volume", 1.0),
    "litres": ("volume", 1.0),
    "liters": ("volume", 1.0),
    "ms": ("time", 1e-3),
    "milliseconds": ("time", 1e-3),
    "s": ("time", 1.0),
    "seconds": ("time", 1.0),
    "min": ("time", 60.0),
    "minutes": ("time", 60.0),
    "h": ("time", 3600.0),
    "hours": ("time", 3600.0),
    "mi": ("length", 1609.344),
    "mile": ("length", 1609.344),
    "miles": ("length", 1609.344),
    "ft": ("length", 0.3048),
    "feet": ("length", 0.3048),
    "lb": ("mass", 453.59237),
    "lbs": ("mass", 453.59237),
    "oz": ("mass", 28.349523125),
    "ounces": ("mass", 28.349523125),
    "thousand": ("scale", 1e3),
    "k": ("scale", 1e3),
    "million": ("scale", 1e6),
    "millions": ("scale", 1e6),
    "mn": ("scale", 1e6),
    "billion": ("scale", 1e9),
    "billions": ("scale", 1e9),
    "bn": ("scale", 1e9),
    "trillion": ("scale", 1e12),
    "%": ("percent", 1.0),
    "percent": ("percent", 1.0),
    "per cent": ("percent", 1.0),
    "percentage points": ("points", 1.0),
    "percentage point": ("points", 1.0),
    "pp": ("points", 1.0),
}
_FAMILY = {"percent": "share", "points": "share"}

_UNIT_ALT = word_alternation(list(_UNITS))
# Opening with a digit (its look-behind checks the character before it) lets the engine skip
# to the next digit instead of trying the look-behind at every position; the same matches as
# (?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)
_QUANTITY_RE = re.compile(
    r"(\d(?<![\w.,]\d)(?:\d{0,2}(?:,\d{3})+|\d*))(\.\d+)?\s?(" + _UNIT_ALT + r")(?![\w])",
    re.I,
)


def _quantities(text: str) -> list[tuple[float, str, str]]:
    """(number as written, kind, unit) of each figure written with a unit."""
    out = []
    for m in _QUANTITY_RE.finditer(text):
        unit = " ".join(m.group(3).lower().split())
        kind = _UNITS.get(unit)
        if kind is None:
            continue
        out.append((float(m.group(1).replace(",", "") + (m.group(2) or "")), kind[0], unit))
    return out


# The figures of the evidence texts a claim with a figure is compared with, by text: the same
# documents come back claim after claim (and answer after answer about one document set), and
# scanning a whole document for figures cost more than the rest of the unit look
_EVIDENCE_QUANTITIES: dict[str, tuple[tuple[float, str, str], ...]] = {}
MEMO_MIN_CHARS = 200  # shorter texts (a claim, a sentence) are scanned again: cheaper than held
# longer texts are scanned again too: the memo holds its texts, and a worker's memory must not
# grow with its largest documents (at most 128 x 50,000 characters)
MEMO_MAX_CHARS = 50_000
MEMO_MAX_ENTRIES = 128


def clear_quantity_cache() -> None:
    """Forget the memoised figures of evidence texts (benchmarks: each round starts cold)."""
    _EVIDENCE_QUANTITIES.clear()


def _evidence_quantities(text: str) -> Sequence[tuple[float, str, str]]:
    """_quantities(text), memoised for long texts (read only)."""
    if not MEMO_MIN_CHARS <= len(text) <= MEMO_MAX_CHARS:
        return _quantities(text)
    found = _EVIDENCE_QUANTITIES.get(text)
    if found is None:
        found = tuple(_quantities(text))
        if len(_EVIDENCE_QUANTITIES) >= MEMO_MAX_ENTRIES:  # the oldest goes first
            del _EVIDENCE_QUANTITIES[next(iter(_EVIDENCE_QUANTITIES))]
        _EVIDENCE_QUANTITIES[text] = found
    return found


def unit_mismatch(claim: str, texts: Sequence[str]) -> str | None:
    wanted = _quantities(claim)
    if not wanted:
        return None
    found = [q for text in texts for q in _evidence_quantities(text)]
    for number, kind, unit in wanted:
        family = _FAMILY.get(kind, kind)
        amount = number * _UNITS[unit][1]
        same = False
        other: str | None = None
        for n2, k2, u2 in found:
            if _FAMILY.get(k2, k2) != family:
                continue
            if k2 == kind and _equal(amount, n2, u2):
                same = True
                break
            if abs(n2 - number) <= 1e-9 * max(1.0, abs(number)):
                other = u2
        if not same and other is not None:
            return f"{_show(number)} {unit} vs {other}"
    return None


def _equal(amount: float, number: float, unit: str) -> bool:
    """`number unit` is `amount` in the kind's base unit (up to float rounding)."""
    return abs(number * _UNITS[unit][1] - amount) <= 1e-9 * max(1.0, abs(amount))


def same_quantities(claim: str, texts: Sequence[str]) -> set[str]:
    """The claim's figures (digits as written: "1.5", "1,500") whose quantity some text states
    in another unit of the same kind, or in the same unit."""
    wanted = [m for m in _QUANTITY_RE.finditer(claim) if m.group(3).lower() in _UNITS]
    if not wanted:
        return set()
    found = [q for text in texts for q in _evidence_quantities(text)]
    out = set()
    for m in wanted:
        number = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        kind, factor = _UNITS[" ".join(m.group(3).lower().split())]
        if any(k2 == kind and _equal(number * factor, n2, u2) for n2, k2, u2 in found):
            out.add(m.group(1) + (m.group(2) or ""))
    return out


def _show(number: float) -> str:
    return str(int(number)) if number.is_integer() else str(number)


def is_unit(word: str) -> bool:
    """`word` (lower case) is a unit this module knows ("km", "minutes", "percent")."""
    return word in _UNITS
