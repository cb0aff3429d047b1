"""Human label records: keys, import rows (JSONL and CSV), canary gold, the topic encoding."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.config.errors import InputError
from monitor.records.labels import (
    HumanLabel,
    JudgeSide,
    canary_labels,
    decode,
    encode,
    export_csv,
    parse_import,
)


def test_jsonl_import_with_index_text_and_reviewer() -> None:
    text = (
        '{"event_id": "e1", "claim_index": 2, "label": "not_supported", "reviewer": "ana"}\n\n'
        '{"event_id": "e2", "claim_text": "Revenue grew.", "label": "can\'t tell"}\n'
    )
    a, b = parse_import(text, "f.jsonl", 100.0, reviewer="bob")
    assert (a.key(), a.label, a.reviewer, a.source, a.labelled_at) == (
        "e1:2",
        "not_supported",
        "ana",
        "import",
        100.0,
    )
    assert b.label == "abstain" and b.reviewer == "bob" and b.claim_index is None
    assert b.key().startswith("e2:text:") and len(b.key()) == len("e2:text:") + 16


def test_csv_import() -> None:
    text = "event_id,claim_index,label,reviewer\ne1,0,supported,\ne1,1,Partially Supported,cy\n"
    a, b = parse_import(text, "f.csv", 5.0)
    assert (a.key(), a.label, a.reviewer) == ("e1:0", "supported", None)
    assert (b.key(), b.label, b.reviewer) == ("e1:1", "partially_supported", "cy")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"event_id": "e1", "label": "supported"}\n', "claim_index or claim_text"),
        ('{"event_id": "e1", "claim_index": 0, "label": "yes"}\n', "unknown label"),
        ('{"event_id": "e1", "claim_index": -1, "label": "supported"}\n', ">= 0"),
        ('{"event_id": "e1", "claim_index": "x", "label": "supported"}\n', "integer"),
        ('{"claim_index": 0, "label": "supported"}\n', "no event_id"),
        ("{not json\n", "not JSON"),
        ("id,label\n1,supported\n", "header"),
    ],
)
def test_bad_rows_name_their_line(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        parse_import(text, "f", 0.0)
    assert "f" in str(err.value)


def test_topic_record_round_trip_with_the_judge_side() -> None:
    lab = HumanLabel("e1", "supported", "review", 9.5, claim_index=3, reviewer="<b>x</b>")
    lab = lab.with_judge(JudgeSide("not_supported", "m1", 10.0, "search"))
    key, value = encode(lab)
    assert key == b"e1:3"
    assert decode(value) == lab
    assert decode(b"") is None and decode(b"[1]") is None and decode(b'{"x": 1}') is None
    assert json.loads(value)["judge"]["model"] == "m1"


def test_csv_export_has_the_judge_columns() -> None:
    lab = HumanLabel("e1", "supported", "import", 1.0, claim_index=0)
    lab = lab.with_judge(JudgeSide("supported", "m", 2.0))
    lines = export_csv([lab]).splitlines()
    assert lines[0].endswith("judge_verdict,judge_model")
    assert lines[1].endswith("supported,m")


def test_canary_gold_by_index_and_by_text() -> None:
    gold = [
        {"index": 0, "label": "supported"},
        {"text": "  costs FELL in asia. ", "label": "not_supported"},
        {"text": "nowhere in the answer", "label": "supported"},
        {"label": "supported"},  # neither index nor text: skipped
        {"index": 1, "label": "bogus"},  # skipped
        {"index": 1, "label": "supported", "source": "review"},  # cannot pass as a review
    ]
    got = canary_labels("c1", gold, ["Revenue grew.", "Costs fell in Asia."], 7.0, app="a")
    assert [g.key() for g in got][:2] == ["c1:0", "c1:1"]
    assert got[2].claim_index is None and got[2].key().startswith("c1:text:")
    assert {g.source for g in got} == {"canary"}
    assert len(got) == 4 and got[3].source == "canary"


@given(
    st.text(min_size=1, max_size=20).filter(lambda s: s.strip() != ""),
    st.integers(0, 10_000),
    st.sampled_from(["supported", "partially_supported", "not_supported", "abstain"]),
    st.one_of(st.none(), st.text(max_size=30)),
)
def test_any_label_round_trips(event_id: str, index: int, label: str, reviewer: str | None) -> None:
    lab = HumanLabel(
        event_id.strip(), label, "import", 1.5, claim_index=index, reviewer=reviewer or None
    )
    got = decode(encode(lab)[1])
    assert got is not None and got.key() == lab.key() and got.label == label
