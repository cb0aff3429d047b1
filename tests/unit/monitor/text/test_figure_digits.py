"""`cannot_hold`: the look at a text's digits that spares building its NumberSet. It may only
say "no figure of the text is this one" when NumberSet, with every number word there, agrees."""

from __future__ import annotations

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from monitor.text.numbers import NumberSet, _starts, cannot_hold, figure_digits, numbers
from monitor.text.words import NUMBER_WORDS

SCALES = ["", "", "", " thousand", " million", " billion", "k", "M", "bn", "m", "b", "%"]


@st.composite
def figures(draw: st.DrawFn, near: int | None = None) -> str:
    """A figure as answers and documents write it: plain or with thousands separators,
    decimals, a scale word or letter; `near`: an integer part close to that."""
    if near is None:
        whole = draw(st.integers(0, 10**10))
    else:
        whole = max(0, near + draw(st.integers(-12, 12)) * draw(st.sampled_from([1, 10, 100])))
    text = f"{whole:,}" if draw(st.booleans()) else str(whole)
    if draw(st.booleans()):
        text += "." + draw(st.text("0123456789", min_size=1, max_size=14))
    if draw(st.booleans()):
        text = "0." + text.replace(",", "").replace(".", "")  # the same digits, scaled down
    return text + draw(st.sampled_from(SCALES))


WORDS = st.sampled_from(["the", "value", "is", "x", "_", "(", "$", "seventeen", "twenty", "at"])


@st.composite
def texts(draw: st.DrawFn, near: int | None = None) -> str:
    parts = draw(st.lists(st.one_of(WORDS, figures(near)), max_size=12))
    return draw(st.sampled_from([" ", "", ", ", "."])).join(parts)


ALL_SPELLED = sorted(set(NUMBER_WORDS.values()))


@settings(max_examples=3000)
@given(data=st.data())
@example(data=None)  # a hand case below, through the same assertions
def test_no_means_no(data: st.DataObject | None) -> None:
    if data is None:
        claim, text = "Its input is multiplied by 8009 .", "return value * 7999 and 93"
    else:
        claim = "The figure is " + data.draw(figures()) + " now."
        found = numbers(claim)
        assume(found)
        near = int(found[0].value) if found[0].value < 1e12 else None
        text = data.draw(texts(near))
    mentions = numbers(claim)
    assume(mentions)
    digits = figure_digits(text)
    for mention in mentions:
        if cannot_hold(mention, digits):
            assert not NumberSet.of_text(text).contains(mention), (claim, text)
            assert not NumberSet.of_text(text, ALL_SPELLED).contains(mention), (claim, text)


def test_a_changed_figure_is_told_apart_by_its_digits() -> None:
    """Worked by hand: 8009 stands for 8008.5-8009.5, whose numbers all start 8008 or 8009;
    the text's digits (7999, 93) hold no start from 8007 to 8010 (one either side, for
    rounding)."""
    (mention,) = numbers("multiplied by 8009")
    assert _starts(mention.value, mention.tolerance + 1e-9 * mention.value) == [
        "8007",
        "8008",
        "8009",
        "8010",
    ]
    assert cannot_hold(mention, figure_digits("return value * 7999 and 93"))
    # 8,008.7 is within half a unit of 8009: its digits, separators dropped, hold 8008
    assert not cannot_hold(mention, figure_digits("about 8,008.7 of them"))
    assert NumberSet.of_text("about 8,008.7 of them").contains(mention)
    # 8.009 thousand, written with a scale: the same digits
    assert not cannot_hold(mention, figure_digits("8.009 thousand"))
    # more places than a float holds: read as 1701.0, and the written 1700.99… is looked for
    (long,) = numbers("by 1701")
    text = "value * 1700.99999999999999999999"
    assert NumberSet.of_text(text).contains(long)
    assert not cannot_hold(long, figure_digits(text))


def test_unsure_cases_build_the_set() -> None:
    """Small numbers may be spelled out; a figure of one significant digit (300, 0.5) has no
    second one to look for; year ranges and other scripts' digits read otherwise: no claim is
    made."""
    for claim in ("by 17 .", "about 300 .", "at 20 .", "x 90 ."):
        (mention,) = numbers(claim)
        assert not cannot_hold(mention, "1 2 3")
    assert figure_digits("in 2018-19") is None
    assert figure_digits("in 2018/19") is None
    assert figure_digits("١٧ units") is None
    assert figure_digits("id 1234567890123456789") == "id 1234567890123456789"
    assert figure_digits("1,234.5 and 6") == "12345 and 6"
