"""Structured data rendered as words (data_text.py) and read as attributes (data_claims.py)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from monitor.check import check_event
from monitor.checks.data_claims import (
    _WORD_RE,
    _lower_words,
    _words,
    attribute_conflicts,
    attributes,
    data_times,
    time_conflicts,
)
from monitor.checks.data_text import MAX_DATA_LINES, data_lines, key_words, render_data
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent

RECORD = {
    "name": "Finch & Fork",
    "attributes": {
        "BusinessParking": {"garage": True, "street": False, "lot": None},
        "RestaurantsReservations": False,
        "RestaurantsTakeOut": True,
        "RestaurantsGoodForGroups": True,
        "OutdoorSeating": True,
        "WiFi": "no",
        "Music": None,
    },
    "hours": {"Monday": "17:30-23:0", "Sunday": "9:0-14:0"},
    "business_stars": 4.5,
    "review_info": [{"review_stars": 5.0, "review_text": "Great brunch."}],
    "categories": ["Bars", "Nightlife"],
}


def test_keys_split_into_words() -> None:
    assert key_words("RestaurantsReservations") == ["restaurants", "reservations"]
    assert key_words("business_stars") == ["business", "stars"]
    assert key_words("review.info-date") == ["review", "info", "date"]
    assert key_words("HTTPServer2") == ["http", "server", "2"]
    assert key_words("WiFi") == ["wi", "fi", "wifi"]  # short humps keep the fused word too


def test_render_reads_booleans_null_units_lists_and_parents() -> None:
    text = render_data(RECORD)
    assert text.splitlines() == [
        "name: Finch & Fork",
        "attributes business parking garage: yes",
        "attributes business parking street: no",
        "attributes business parking lot: unknown",
        "attributes restaurants reservations: no",
        "attributes restaurants take out: yes",
        "attributes restaurants good for groups: yes",
        "attributes outdoor seating: yes",
        "attributes wi fi wifi: no",
        "attributes music: unknown",
        "hours monday: 17:30-23:0",
        "hours sunday: 9:0-14:0",
        "business stars: 4.5 stars",
        "review info review stars: 5.0 stars",
        "review info review text: Great brunch.",
        "categories: Bars, Nightlife",
    ]


_KEYS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=40,
)


@given(_JSON)
def test_every_leaf_becomes_one_line(data: Any) -> None:
    lines = data_lines(data)
    text = render_data(data)
    assert len(lines) <= MAX_DATA_LINES
    # one line per leaf, unless a value holds a line break of its own
    assert text.count("\n") >= len(lines) - 1 if lines else text == ""
    for words, value, shown, _ in lines:
        assert words == words.lower() or not words.isascii()
        if value is True or value is False or value is None:
            assert shown == {True: "yes", False: "no", None: "unknown"}[value]
    json.dumps(data)  # the strategy only makes JSON values


@given(st.dictionaries(st.from_regex(r"[a-z][a-zA-Z_]{0,10}", fullmatch=True), st.booleans()))
def test_boolean_records_render_as_yes_or_no_per_key(data: dict[str, bool]) -> None:
    rendered = render_data(data).splitlines() if data else []
    assert len(rendered) == len(data)
    for line, (key, value) in zip(rendered, data.items(), strict=True):
        assert line == f"{' '.join(key_words(key))}: {'yes' if value else 'no'}"


def test_attribute_flips_and_unknowns_are_named() -> None:
    attrs = attributes(data_lines(RECORD))
    assert attribute_conflicts("It offers outdoor seating and takeout.", attrs) == []
    assert attribute_conflicts("It does not take reservations or offer WiFi.", attrs) == []
    assert attribute_conflicts("It takes reservations.", attrs) == [
        "attribute_mismatch:reservations"
    ]
    assert attribute_conflicts("It has no outdoor seating, but garage parking.", attrs) == [
        "attribute_mismatch:outdoor seating"
    ]
    assert attribute_conflicts("Street parking is available.", attrs) == [
        "attribute_mismatch:street"
    ]
    assert attribute_conflicts("It is located on State Street.", attrs) == []  # a name
    assert attribute_conflicts("A lot of people come for brunch.", attrs) == []  # no parking
    assert attribute_conflicts("The vibe is casual and classy.", attrs) == []  # no ambience key
    assert attribute_conflicts("Live music plays nightly.", attrs) == ["attribute_unknown:music"]
    assert attribute_conflicts("Lot parking is offered.", attrs) == ["attribute_unknown:lot"]


def test_clock_times_must_be_the_data_s() -> None:
    times = data_times(data_lines(RECORD))
    assert time_conflicts("Open Mondays from 5:30 pm to 11 pm.", times) == []
    assert time_conflicts("On Sundays it opens at 09:00 and closes at 14:00.", times) == []
    assert time_conflicts("Open daily from 11am to 10pm.", times) == [
        "time_missing:11am",
        "time_missing:10pm",
    ]
    assert time_conflicts("Open daily from 11am.", frozenset()) == []


def run(answer: str, data: dict[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    verdict = check_event(AnswerEvent("e", answer, data=data), CheckOptions())
    return [(c.support.verdict, c.support.reasons) for c in verdict.claims]


def test_a_claim_the_record_contradicts_is_not_supported() -> None:
    [(verdict, reasons)] = run(
        "Finch & Fork takes reservations and offers outdoor seating.", RECORD
    )
    assert verdict == "not_supported" and "attribute_mismatch:reservations" in reasons
    [(verdict, reasons)] = run("Finch & Fork has outdoor seating and offers take-out.", RECORD)
    assert verdict != "not_supported"


def test_one_matching_value_does_not_support_a_sentence() -> None:
    data = {"name": "Cafe Roma", "business_stars": 3.5, "review_count": 12}
    # 3.5 is the data's, but "3 reviews" is not: no rule accepts the sentence
    [(_, reasons)] = run("Cafe Roma has a rating of 3.5 stars out of 5 based on 3 reviews.", data)
    assert "value_in_data" not in reasons
    [(verdict, reasons)] = run("Cafe Roma has a business rating of 3.5 stars.", data)
    assert (verdict, reasons) == ("supported", ("uncited", "value_in_data"))
    # the value with other content than its record holds
    far = {"shop": {"name": "Cafe Roma", "stars": 3.5}, "owner": {"city": "Boston", "age": 40}}
    [(_, reasons)] = run("The owner moved from Boston to Chicago with 3.5 stars of fame.", far)
    assert "value_in_data" not in reasons


@given(
    st.text(st.sampled_from("aZ9_- .,;'\u00e9\u0130\u00df\u2160x"), max_size=30)
    | st.text(max_size=30)
)
def test_claim_words_are_the_regex_s(text: str) -> None:
    # the byte-table tokenising of ASCII text is the regex's, "-" removed
    assert _words(text) == _WORD_RE.findall(text.replace("-", ""))
    assert _lower_words(text) == _WORD_RE.findall(text.replace("-", "").lower())
