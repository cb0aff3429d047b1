"""Figures in claims and evidence: "1,200", "3.14", "5.6 million", "$5M", "2018–19", "five".

A claim's figure is supported when the evidence states a number that rounds to it at the
precision the claim wrote ("41%" is covered by 41.3, "5.7 million" by 5,669,000). The claim side
is strict (digits inside names and identifiers are not figures); the evidence side is lenient
(any digit run counts, and spelled-out numbers too), so a figure is only called missing when the
evidence offers nothing that could be it.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable

from monitor.records.record import record
from monitor.text.words import NUMBER_WORDS, wordset

_SCALES = {
    "hundred": 1e2,
    "thousand": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "trillion": 1e12,
    "k": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "b": 1e9,
    "bn": 1e9,
}
_SCALE_TAIL = r"(?:\s?(hundred|thousand|millions?|billions?|trillion)\b|(bn|mn|[kKmMbB])\b)?"
# The integer part: "1,200" or "1200". Written first-digit-first, with the look-behinds checking
# the character before that digit, because a pattern that opens with a digit lets the regex
# engine skip to the next digit instead of trying the look-behinds at every position (2x faster
# on documents); the same matches as (?<!...)(\d{1,3}(?:,\d{3})+|\d+).
# Neither alternative may stop before a thousands group: "29,200km" is not the figure 29.
_INTEGER = r"(\d(?<![\w.]\d)%s(?:\d{0,2}(?:,\d{3})+|\d*)(?!,\d{3}))(\.\d+)?"
# Standing alone: not part of a word (mp3, 3D, 1st, COVID-19, MS-06, H2O).
NUMBER_RE = re.compile(_INTEGER % r"(?<![A-Za-z]-\d)" + _SCALE_TAIL + r"(?![\w])(?!\.\d)")
# Evidence: "9th", "45°C" and "COVID-19" offer their digits; identifier digits (policy_9) do not.
LENIENT_NUMBER_RE = re.compile(_INTEGER % "" + _SCALE_TAIL)
_NUMBER_WORD_RE = re.compile(r"\b(?:" + "|".join(NUMBER_WORDS) + r")\b", re.I)
_YEAR_RANGE_RE = re.compile(r"\b(1[0-9]|20)(\d{2})\s?[-–/]\s?$")
_NAME_BEFORE_RE = re.compile(r"\b([A-Z][A-Za-z]*)\s$")
_DIGIT_RE = re.compile(r"\d")


def _for_ascii(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """`pattern` for ASCII-only text: the same matches there, but \\d, \\w and \\b test a byte
    table instead of calling Unicode look-ups per character (a fifth less work on a document).
    Unicode's \\s also holds \\x1c-\\x1f, so the ASCII \\s takes them too."""
    source = pattern.pattern.replace(r"\s", r"[\s\x1c-\x1f]")
    return re.compile(source, (pattern.flags & ~re.UNICODE) | re.ASCII)


_ASCII_NUMBER_RE = _for_ascii(NUMBER_RE)
_ASCII_LENIENT_RE = _for_ascii(LENIENT_NUMBER_RE)
_ASCII_DIGIT_RE = _for_ascii(_DIGIT_RE)


def has_digit(text: str) -> bool:
    """Whether `text` holds a digit \\d matches. For ASCII text, ten `in` tests: each is a
    memchr over the bytes, where a regex search pays for its match state and tests a
    character class at every position (a claim without digits cost 7x as much)."""
    if text.isascii():
        return (
            "0" in text
            or "1" in text
            or "2" in text
            or "3" in text
            or "4" in text
            or "5" in text
            or "6" in text
            or "7" in text
            or "8" in text
            or "9" in text
        )
    return _DIGIT_RE.search(text) is not None


_MONTHS = wordset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)


@record
class NumberMention:
    raw: str
    value: float
    unit: float  # the last written digit's place value, scale included: "41" → 1, "3.5k" → 100
    is_year: bool
    digits: str  # as written without scale: "1,200", "3.14"
    bare: float | None = None  # "100m": also 100 (metres?) when the scale is a glued letter

    @property
    def tolerance(self) -> float:
        """A figure stands for anything that rounds to it: "41" covers 40.5 ≤ x ≤ 41.5."""
        return self.unit / 2


def _mention(match: re.Match[str], text: str) -> NumberMention:
    integer, fraction, scale_word, scale_letter = match.groups()
    bare = float(integer.replace(",", "") + (fraction or ""))
    unit = 10.0 ** -(len(fraction) - 1) if fraction else 1.0
    scale_name = scale_word or scale_letter
    scale = _SCALES.get(scale_name.lower(), 1.0) if scale_name else 1.0
    if fraction is None and scale == 1.0 and len(integer) == 2:
        year_range = _YEAR_RANGE_RE.search(text, max(0, match.start() - 8), match.start())
        if year_range:  # "2018–19" means 2019
            bare = float(year_range.group(1) + integer)
    is_year = fraction is None and scale == 1.0 and 1000 <= bare <= 2100 and "," not in integer
    return NumberMention(  # raw, value, unit, is_year, digits, bare
        match.group(0),
        bare * scale,
        unit * scale,
        is_year,
        integer + (fraction or ""),
        bare if scale_letter else None,
    )


def _mid_sentence(text: str, pos: int) -> bool:
    """A capital at `pos` marks a name only when it does not open the sentence."""
    before = text[:pos].rstrip(" \t\"'“(*_")
    return bool(before) and before[-1] not in ".!?:;\n"


def numbers(text: str) -> list[NumberMention]:
    """Figures a claim states with digits.

    Numbers that are part of a name ("Windows 10", "Stage 3", "Series 4") are not figures;
    day numbers after a month are ("April 9").
    """
    if not has_digit(text):
        return []
    out = []
    for match in (_ASCII_NUMBER_RE if text.isascii() else NUMBER_RE).finditer(text):
        start = match.start()
        # a name ends in a space just before the figure: test that before searching back for it
        if start and text[start - 1].isspace() and len(match.group(1)) <= 3 and not match[2]:
            name = _NAME_BEFORE_RE.search(text, max(0, start - 40), start)
            if name and name.group(1).lower() not in _MONTHS and _mid_sentence(text, name.start()):
                continue
        out.append(_mention(match, text))
    return out


def _figures_with_year_ranges(text: str) -> list[float]:
    values: list[float] = []
    for match in (_ASCII_LENIENT_RE if text.isascii() else LENIENT_NUMBER_RE).finditer(text):
        integer, fraction, scale_word, scale_letter = match.groups()
        bare = float(integer.replace(",", "") + (fraction or ""))
        values.append(bare)
        scale = scale_word or scale_letter
        if scale:
            values.append(bare * _SCALES.get(scale.lower(), 1.0))
        elif fraction is None and len(integer) == 2:
            year_range = _YEAR_RANGE_RE.search(text, max(0, match.start() - 8), match.start())
            if year_range:  # "2018–19" also offers 2019
                values.append(float(year_range.group(1) + integer))
    return values


class NumberSet:
    """The figures of an evidence text, sorted, for look-ups at a claim's precision."""

    __slots__ = ("_values",)

    def __init__(self, values: list[float]) -> None:
        self._values = sorted(values)

    @classmethod
    def of_text(cls, text: str, spelled: Iterable[int] | None = None) -> NumberSet:
        """All figures of `text`; `spelled`: the values of its number words, when known."""
        values: list[float] = []
        ascii = text.isascii()
        if (_ASCII_DIGIT_RE if ascii else _DIGIT_RE).search(text):
            if "-" in text or "–" in text or "/" in text:
                values = _figures_with_year_ranges(text)
            else:  # no year range possible: one findall, no match objects (the order is moot)
                lenient = _ASCII_LENIENT_RE if ascii else LENIENT_NUMBER_RE
                found = lenient.findall(text)  # (integer, fraction, scale, scale)
                values = [float((i + f).replace(",", "")) for i, f, _, _ in found]
                values.extend(
                    float((i + f).replace(",", "")) * _SCALES.get((w or v).lower(), 1.0)
                    for i, f, w, v in found
                    if w or v
                )
        if spelled is not None:
            values.extend(map(float, spelled))
        else:
            values.extend(float(NUMBER_WORDS[w.lower()]) for w in _NUMBER_WORD_RE.findall(text))
        return cls(values)

    def _has(self, value: float, tolerance: float) -> bool:
        slack = tolerance + 1e-9 * abs(value)
        i = bisect.bisect_left(self._values, value - slack)
        return i < len(self._values) and self._values[i] <= value + slack

    def contains(self, mention: NumberMention) -> bool:
        """True when some figure of the evidence rounds to the mention's written precision."""
        if self._has(mention.value, mention.tolerance):
            return True
        if mention.bare is None or not mention.bare:
            return False
        return self._has(mention.bare, mention.tolerance * mention.bare / mention.value)

    def __len__(self) -> int:
        return len(self._values)


def written_in(mention: NumberMention, text: str) -> bool:
    """Fast path: the figure appears in `text` exactly as written (with or without thousands
    separators), not glued to other digits. Misses only mean "ask NumberSet"."""
    digits = mention.digits
    if _written_as(digits, text):
        return True
    if "," in digits:
        return _written_as(digits.replace(",", ""), text)
    if mention.unit == 1.0 and len(digits) > 3 and digits.isdecimal():
        # "1.234k" has a unit of 1 too, but no thousands separator to put back; formatted only
        # when the figure as written is not there (most are)
        return _written_as(f"{int(digits):,}", text)
    return False


def _written_as(form: str, text: str) -> bool:
    """`form` occurs in `text` not glued to other digits."""
    start = text.find(form)
    while start >= 0:
        end = start + len(form)
        before = text[start - 1] if start else " "
        after = text[end : end + 2]
        if not (before.isalnum() or before in "_.,") and not (
            after[:1].isdigit() or (after[:1] in ".," and after[1:2].isdigit())
        ):
            return True
        start = text.find(form, start + 1)
    return False


# A figure NumberSet could read from a text, written with digits, shows its leading significant
# digits together once thousands separators and decimal points are dropped ("1,650.5" →
# "16505", "0.0165" → "00165"), and a scale word or letter only multiplies by a power of ten:
# a text whose digits hold none of the two-digit starts of the numbers a mention stands for has
# no figure that is it. Looked at before NumberSet is built for a text (evidence.py): most
# figures a claim changed are in no form in the evidence, and the set costs a regex pass over
# the whole text. The look is only "no" when that is certain; anything else builds the set.
_SPELLED_UP_TO = 20  # number words other than multiples of ten: NUMBER_WORDS' 0-20
_MAX_STARTS = 12  # more two-digit starts than this: not worth looking, build the set
_WIDEN = 1e-9  # far above the float error of a figure read from at most 15 digits


def figure_digits(text: str) -> str | None:
    """`text` without thousands separators and decimal points, when NumberSet reads its figures
    from ASCII digits alone: None for non-ASCII text (other scripts' digits are figures too)
    and text with a year range ("2018-19" is also 2019). A figure's float differs from what is
    written by far less than _WIDEN, so the written digits are the ones to look for, however
    many there are."""
    if not text.isascii() or "-" in text or "/" in text:
        return None
    return text.replace(",", "").replace(".", "")


def _has_multiple(lo: float, hi: float, step: float) -> bool:
    """Whether [lo, hi] holds a multiple of `step`; True also when float rounding leaves it in
    doubt (the caller then makes no claim)."""
    return math.ceil(lo / step - 1e-6) <= math.floor(hi / step + 1e-6)


def _starts(value: float, slack: float) -> list[str] | None:
    """The leading significant digits, as written, of every number within `slack` of `value`,
    as many as all of them have (a number with fewer significant digits is a multiple of a
    power of ten: as long as the interval holds none, every number in it shows that many);
    None when that is fewer than two, when a number there may be spelled out (≤ 20), or when
    the starts are too many."""
    lo = (value - slack) * (1 - _WIDEN)
    hi = (value + slack) * (1 + _WIDEN)
    if not (lo > _SPELLED_UP_TO and math.isfinite(hi)):
        return None
    top = math.floor(math.log10(lo))  # 10**top <= lo, up to rounding (checked below)
    length = 1
    while length < 15 and not _has_multiple(lo, hi, 10.0 ** (top - length + 1)):
        length += 1  # no number of `length` significant digits or fewer in the interval
    if length < 2:
        return None
    step = 10.0 ** (top - length + 1)  # one unit of the last digit every number shows
    first, last = int(lo / step) - 1, int(hi / step) + 1
    if first < 10 ** (length - 1) or last >= 10**length or last - first > _MAX_STARTS:
        return None
    return [str(p) for p in range(first, last + 1)]


def cannot_hold(mention: NumberMention, digits: str | None) -> bool:
    """True only when no figure of the text whose `figure_digits` are `digits` (nor a number
    word) can stand for the mention: `NumberSet.of_text(text, any spelled numbers)` would not
    contain it. False when unsure."""
    if digits is None:
        return False
    slack = mention.tolerance + 1e-9 * abs(mention.value)  # as NumberSet._has
    looks = [(mention.value, slack)]
    if mention.bare:  # as NumberSet.contains
        tolerance = mention.tolerance * mention.bare / mention.value
        looks.append((mention.bare, tolerance + 1e-9 * abs(mention.bare)))
    for value, within in looks:
        starts = _starts(value, within)
        if starts is None or any(start in digits for start in starts):
            return False
    return True
