"""The data part of a context, memoised per distinct data value (data_context.py)."""

from __future__ import annotations

import copy
import json
import sys
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import pytest

from monitor.check import check_event
from monitor.checks import data_context as dc
from monitor.checks.data_context import DataContext, clear_data_cache, data_context
from monitor.checks.data_text import data_lines
from monitor.checks.grounding import context_of
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Document

RECORD: dict[str, Any] = {
    "name": "Finch & Fork",
    "attributes": {"OutdoorSeating": True, "WiFi": "no", "Music": None},
    "hours": {"Monday": "17:30-23:0"},
    "business_stars": 4.5,
    "review_info": [{"review_stars": 5.0, "review_text": "Great brunch."}],
}


@pytest.fixture(autouse=True)
def _cold() -> Iterator[None]:
    clear_data_cache()
    yield
    clear_data_cache()


def _parts(d: DataContext) -> tuple[Any, ...]:
    attrs = [(a.name, a.stems, a.fused, a.group, a.flag) for a in d.attributes.items]
    return (d.leaves, d.text, attrs, d.times)


def test_a_hit_is_what_a_fresh_build_would_be() -> None:
    first = data_context(RECORD)
    again = data_context(copy.deepcopy(RECORD))  # an equal value, other objects
    assert again is first
    assert _parts(again) == _parts(DataContext(data_lines(copy.deepcopy(RECORD))))


def test_different_data_gives_a_different_context() -> None:
    values = [{"a": 1}, {"a": 1.0}, {"a": True}, {"a": "1"}, {"b": 1}, [{"a": 1}]]
    built = [data_context(v) for v in values]
    assert len({id(b) for b in built}) == len(values)
    # "1" and 1 render alike but are different leaves (a string is no number to compare with)
    assert [type(b.leaves[0][1]) for b in built[:4]] == [int, float, bool, str]
    assert data_context({"x": 1, "y": 2}).text != data_context({"y": 2, "x": 1}).text


def test_parents_are_numbered_by_the_value_not_by_object_identity() -> None:
    shared = {"garage": True, "street": False}
    aliased = {"a": shared, "b": shared}
    assert data_lines(aliased) == data_lines(copy.deepcopy(aliased))
    assert len({parent for *_, parent in data_lines(aliased)}) == 2


def test_the_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dc, "CACHE_MAX_ENTRIES", 8)
    for i in range(50):
        data_context({"n": i})
    assert len(dc._cache) == 8
    assert data_context({"n": 49}) is data_context({"n": 49})  # the newest stay
    monkeypatch.setattr(dc, "CACHE_MAX_CHARS", 400)
    for i in range(50):
        data_context({"text": f"{i:03d}" + "x" * 60})
    assert dc._cache_chars <= 400
    assert dc._cache_chars == sum(len(k) + len(v.text) for k, v in dc._cache.items())
    huge = {"text": "y" * 200}  # past a quarter of the bound: built, not kept
    assert data_context(huge) is not data_context(huge)


def test_answers_about_one_record_share_its_data_but_not_their_documents() -> None:
    one = AnswerEvent("e1", "It has outdoor seating.", documents=(Document("d", "Lunch."),))
    two = AnswerEvent("e2", "It has live music.", documents=(Document("d", "Dinner."),))
    one = AnswerEvent(one.event_id, one.answer, documents=one.documents, data=RECORD)
    two = AnswerEvent(two.event_id, two.answer, documents=two.documents, data=dict(RECORD))
    a, b = context_of(one), context_of(two)
    assert a.leaves is b.leaves and a.texts[-1] is b.texts[-1]
    assert a.texts[0] != b.texts[0] and a.stems is not b.stems


def test_verdicts_are_the_same_cold_and_warm() -> None:
    answers = [
        "It offers outdoor seating and free WiFi.",
        "It has 4.5 stars and opens Mondays at 5:30 pm.",
        "Live music plays nightly.",
    ]
    events = [AnswerEvent(f"e{i}", a, data=copy.deepcopy(RECORD)) for i, a in enumerate(answers)]
    cold = []
    for event in events:
        clear_data_cache()
        cold.append(check_event(event, CheckOptions()))
    warm = [check_event(event, CheckOptions()) for event in events + events]
    assert warm == cold + cold


def test_equal_values_share_a_context_whatever_objects_they_are_made_of() -> None:
    # marshal's key: no back-reference to a shared object, no mark of an interned string
    shared = {"garage": True, "name": "Finch"}
    aliased = {"a": shared, "b": shared, sys.intern("name"): sys.intern("Finch & Fork")}
    fresh = json.loads(json.dumps(aliased))
    assert data_context(aliased) is data_context(fresh)
    assert dc._cache_key(aliased) == dc._cache_key(fresh) == dc._cache_key(copy.deepcopy(fresh))


def test_values_that_repr_apart_are_kept_apart() -> None:
    values: list[Any] = [{"a": 0.0}, {"a": -0.0}, {"a": 0}, {"a": False}, {"a": None}]
    values += [{"a": "0"}, {"a": [0]}, {"a": {"0": 0}}, [0.1], [0.1 + 2e-17], ["\ud800"], ["é"]]
    keys = [dc._cache_key(v) for v in values]
    assert len({repr(v) for v in values}) == len(set(keys)) == len(values)
    assert [type(data_context(v).leaves[0][1]) for v in values[:5]] == [
        float,
        float,
        int,
        bool,
        type(None),
    ]


def test_a_value_marshal_cannot_write_is_keyed_by_its_repr() -> None:
    odd = OrderedDict([("wifi", "free"), ("music", None)])
    assert dc._cache_key(odd) == repr(odd)
    assert data_context(odd) is data_context(OrderedDict(odd))
    assert data_context(odd) is not data_context(dict(odd))  # a different key, built apart
