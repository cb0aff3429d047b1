"""agents.output.jsonout: orjson where it can, the standard library where it cannot, one JSON value."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agents.output import jsonout

# Everything the worker's records hold: strings (lone surrogates included, as escaped JSON input
# can carry them), ints of any size, finite floats, bools, None, lists and str-keyed dicts.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(codec=None, categories=None)),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(), inner, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=500)
@given(values)
def test_dumps_gives_the_value_the_standard_library_gives(inner: Any) -> None:
    value = {"record": inner}
    data = jsonout.dumps(value)
    assert isinstance(data, bytes)
    data.decode("utf-8")  # always valid UTF-8, lone surrogates included
    assert json.loads(data) == json.loads(json.dumps(value))


def test_values_orjson_cannot_take_fall_back_to_the_standard_library() -> None:
    big = 10**30
    assert jsonout.dumps({"end": big}) == b'{"end":1000000000000000000000000000000}'
    assert jsonout.dumps({"id": "\ud800x"}) == b'{"id":"\\ud800x"}'


def test_compact_and_non_ascii_kept_in_key_order() -> None:
    assert jsonout.dumps({"b": 1, "a": [1.5, "é", None, True]}) == (
        '{"b":1,"a":[1.5,"é",null,true]}'.encode()
    )


def test_a_score_record_round_trips() -> None:
    record = {"app": "docs-qa", "events": [["id-1", 1700000000.123456, 1700000001.5, 0, [1, 0, 2]]]}
    assert json.loads(jsonout.dumps(record)) == record
