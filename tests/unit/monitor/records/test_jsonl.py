"""JSON Lines (monitor/records/jsonl.py): every value back with its line, blank lines skipped."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.config.errors import InputError
from monitor.records.jsonl import json_lines

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


@given(st.lists(st.tuples(VALUES, st.sampled_from(["", "  ", "\t"]), st.booleans()), max_size=8))
def test_values_come_back_with_their_line_numbers(rows: list[tuple[object, str, bool]]) -> None:
    lines, expected = [], []
    for value, blank, blank_before in rows:
        if blank_before:
            lines.append(blank)
        lines.append(json.dumps(value))
        expected.append((f"f:{len(lines)}", value))
    assert list(json_lines(lines, "f")) == expected


def test_a_line_that_is_not_json_is_named() -> None:
    with pytest.raises(InputError, match=r"^f:3: not JSON$"):
        list(json_lines(['{"a": 1}', "", "{oops"], "f"))
