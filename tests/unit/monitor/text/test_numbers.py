"""written_in, which formats a figure's thousands separators only when the figure as written
is not in the text, agrees with the look-up of every form at once that it replaced."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.text.numbers import NumberMention, numbers, written_in

FIGURES = ["1,200", "1200", "3.14", "2445", "12,345", "12345", "2.345k", "5.6 million", "41%", "7"]
PIECES = [*FIGURES, "x", "_", ".", ",", " ", "a1200", "1,2000", "9", "0", "-"]
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


def _every_form(mention: NumberMention, text: str) -> bool:
    digits = mention.digits
    forms: tuple[str, ...]
    if "," in digits:
        forms = (digits, digits.replace(",", ""))
    elif mention.unit == 1.0 and len(digits) > 3 and digits.isdecimal():
        forms = (digits, f"{int(digits):,}")
    else:
        forms = (digits,)
    for form in forms:
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


@settings(max_examples=500)
@given(st.sampled_from(FIGURES), texts)
def test_written_in_agrees_with_every_form_at_once(figure: str, text: str) -> None:
    for mention in numbers(f"It was {figure} then"):
        assert written_in(mention, text) == _every_form(mention, text)


def test_written_in_finds_the_other_separator_form() -> None:
    (plain,) = numbers("It was 12345 then")
    assert written_in(plain, "about 12,345 units")
    (grouped,) = numbers("It was 12,345 then")
    assert written_in(grouped, "about 12345 units")
    assert not written_in(grouped, "about 123456 units")
