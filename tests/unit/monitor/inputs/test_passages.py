"""The adapters' arithmetic and their robustness: UTF-8 byte offsets ↔ code points, and any
response shape, however wrong, is an event or a dead letter with a known reason."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.check import check_bytes
from monitor.config.options import CheckOptions
from monitor.inputs.envelope import FORMATS
from monitor.inputs.jsonread import Unreadable
from monitor.inputs.passages import utf8_to_chars
from monitor.records.models import REJECTION_REASONS, Rejection, Verdict
from tests.unit.monitor.inputs.vendor_cases import all_cases, require_sdks

require_sdks()
OPTS = CheckOptions()
# text without lone surrogates (not UTF-8 encodable), with 1- to 4-byte characters
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)


def test_utf8_offsets_by_hand() -> None:
    text = "Café né 🐧!"  # C a f é(2) space n é(2) space 🐧(4) !
    assert (len(text), len(text.encode())) == (10, 15)
    assert utf8_to_chars(text, [0, 3, 5, 6, 9, 10, 14, 15], "t") == [0, 3, 4, 5, 7, 8, 9, 10]
    for inside in (4, 8, 11, 12, 13):
        with pytest.raises(Unreadable) as err:
            utf8_to_chars(text, [inside], "seg")
        assert err.value.reason == "offset_splits_character"
        assert f"byte offset {inside} falls inside" in err.value.detail
    # past the end: past the text by as much (the citation is then span_out_of_bounds)
    assert utf8_to_chars(text, [20], "t") == [15]  # 10 characters + 5 bytes past


@given(TEXT, st.data())
def test_utf8_offsets_round_trip(text: str, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, len(text)))
    offset = len(text[:k].encode("utf-8"))
    assert utf8_to_chars(text, [offset], "t") == [k]


@given(TEXT, st.data())
def test_an_offset_inside_a_character_is_always_refused(text: str, data: st.DataObject) -> None:
    encoded = text.encode("utf-8")
    boundaries = {len(text[:k].encode()) for k in range(len(text) + 1)}
    inside = [b for b in range(len(encoded)) if b not in boundaries]
    if not inside:
        assert all(c < "\x80" for c in text)  # only ASCII has no byte inside a character
        return
    offset = data.draw(st.sampled_from(inside))
    with pytest.raises(Unreadable):
        utf8_to_chars(text, [offset], "t")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 100) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)
VALID = [c.envelope for c in all_cases() if not c.rejected]


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


def _outcome_ok(raw: bytes) -> None:
    out = check_bytes(raw, OPTS)
    assert isinstance(out, Verdict | Rejection)
    if isinstance(out, Rejection):
        assert out.reason in REJECTION_REASONS


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VALID), st.data(), JSON)
def test_any_part_of_a_response_replaced_by_anything(
    env: dict[str, Any], data: st.DataObject, value: Any
) -> None:
    mutated = copy.deepcopy(env)
    paths = [p for p in _paths(mutated["response"]) if p]
    path = data.draw(st.sampled_from(paths))
    node = mutated["response"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    _outcome_ok(json.dumps(mutated).encode())


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(FORMATS), st.dictionaries(st.text(max_size=12), JSON, max_size=5))
def test_any_response_object_under_any_format(fmt: str, response: dict[str, Any]) -> None:
    _outcome_ok(json.dumps({"format": fmt, "event_id": "f", "response": response}).encode())
