"""grammar.py's single-number fast path of `_numeric` equals the comma/range parser."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.citations.grammar import _numeric, _numeric_list

# ASCII digits, other decimal digits (Arabic-Indic, fullwidth), digits that are not decimal
# (superscript two), and the separators of a numeric list
numeric_texts = st.text(alphabet="0123456789٣０²¹ ,-–", min_size=1, max_size=14)


@settings(max_examples=800, deadline=None)
@given(numeric_texts)
def test_numeric_fast_path_equals_the_list_parser(s: str) -> None:
    assert _numeric(s) == _numeric_list(s)


def test_numeric_fast_path_bounds() -> None:
    for s in ("7", "123456789", "1234567890", "٣", "²", "０"):
        assert _numeric(s) == _numeric_list(s), s
