"""code_regions' fast path for answers whose backticks all stand alone equals the general
reading (fences, then inline spans paired by run length)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.citations.markdown import _regions, _single_ticks, code_regions
from tests.conftest import dev_sentences

single_tick_texts = st.text(alphabet="`~ a\n[1]", max_size=120).filter(
    lambda t: "``" not in t and "~~~" not in t
)


@settings(max_examples=500, deadline=None)
@given(single_tick_texts)
def test_single_ticks_equal_the_general_reading(text: str) -> None:
    assert _single_ticks(text) == _regions(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="`~ a\n", max_size=120))
def test_code_regions_equal_the_general_reading(text: str) -> None:
    assert code_regions(text) == _regions(text)


def test_single_ticks_on_dev_sentences() -> None:
    for text in dev_sentences():
        if "`" in text and "``" not in text and "~~~" not in text:
            assert _single_ticks(text) == _regions(text), text


def test_single_ticks_pair_in_order() -> None:
    text = "The `a` and `bc` functions, then a stray ` tick."
    assert _single_ticks(text) == [(4, 7), (12, 16)]
