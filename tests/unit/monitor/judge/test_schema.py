"""Strict reply validation: exactly the schema, or ReplyInvalid."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.judge.schema import (
    ANSWER_REPLY_SCHEMA,
    BATCH_REPLY_SCHEMA,
    ReplyInvalid,
    is_placeholder,
    parse_answer_reply,
    parse_batch_reply,
)


def item(cid: int = 1, **over: Any) -> dict[str, Any]:
    base = {
        "claim_id": cid,
        "reasoning": "The evidence states it.",
        "judgement": "ENTAILMENT",
        "supports": True,
        "score": 0.9,
        "confidence": "high",
    }
    base.update(over)
    return base


def reply(*items: dict[str, Any]) -> str:
    return json.dumps({"verdicts": list(items)})


def test_valid_batch_in_any_order() -> None:
    text = reply(
        item(2, judgement="CONTRADICTION", supports=False, score=0.0, confidence="low"),
        item(1, judgement="NEUTRAL", supports=False, score=0.5, confidence="medium"),
    )
    out = parse_batch_reply(text, (1, 2))
    assert out[1].verdict == "partially_supported" and out[1].support_score == 0.5
    assert out[2].verdict == "not_supported" and out[2].confidence_value == 0.4
    assert parse_batch_reply(reply(item(1, score=1)), (1,))[1].score == 1.0


BAD = {
    "prose before": "Sure! " + reply(item()),
    "markdown fence": "```json\n" + reply(item()) + "\n```",
    "two objects": reply(item()) + reply(item()),
    "array top level": json.dumps([item()]),
    "empty": "",
    "null": "null",
    "extra top key": json.dumps({"verdicts": [item()], "note": "x"}),
    "extra item key": reply({**item(), "supported": True}),
    "missing key": reply({k: v for k, v in item().items() if k != "confidence"}),
    "supports as string": reply(item(supports="true")),
    "supports as int": reply(item(supports=1)),
    "score as bool": reply(item(score=True)),
    "score as string": reply(item(score="0.9")),
    "score above 1": reply(item(score=1.5)),
    "score negative": reply(item(score=-0.1)),
    "NaN score": '{"verdicts": [{"claim_id": 1, "reasoning": "r", "judgement": "ENTAILMENT", '
    '"supports": true, "score": NaN, "confidence": "high"}]}',
    "lower-case judgement": reply(item(judgement="entailment")),
    "unknown judgement": reply(item(judgement="SUPPORTED")),
    "unknown confidence": reply(item(confidence="certain")),
    "supports contradicts judgement": reply(item(judgement="CONTRADICTION", supports=True)),
    "neutral cannot support": reply(item(judgement="NEUTRAL", supports=True)),
    "claim id as string": reply(item(cid="1")),  # type: ignore[arg-type]
    "claim id bool": reply(item(cid=True)),  # type: ignore[arg-type]
    "wrong id": reply(item(3)),
    "missing id": reply(item(1)),  # asked for 1 and 2 below
    "duplicate id": reply(item(1), item(1), item(2)),
    "duplicate key": '{"verdicts": [], "verdicts": []}',
    "reasoning not text": reply(item(reasoning=["a"])),
    "reasoning too long": reply(item(reasoning="x" * 4001)),
    "verdicts empty": reply(),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_anything_but_the_schema_is_rejected(name: str) -> None:
    ids = (1, 2) if name in ("missing id", "duplicate id") else (1,)
    with pytest.raises(ReplyInvalid):
        parse_batch_reply(BAD[name], ids)


def test_answer_reply() -> None:
    good = {
        "reasoning": "Agrees on one point.",
        "alignment": "PARTIALLY_CORRECT",
        "correctness_score": 0.5,
        "interpretability_score": 0.75,
        "missing_information": ["x"],
    }
    v = parse_answer_reply(json.dumps(good))
    assert (v.alignment, v.correctness_score, v.interpretability_score) == (
        "PARTIALLY_CORRECT",
        0.5,
        0.75,
    )
    for bad in (
        {**good, "overall": 1},
        {**good, "alignment": "RIGHT"},
        {**good, "missing_information": "x"},
        {**good, "correctness_score": 2},
    ):
        with pytest.raises(ReplyInvalid):
            parse_answer_reply(json.dumps(bad))


_value = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-1, 2, allow_nan=False)
    | st.sampled_from(["ENTAILMENT", "NEUTRAL", "CONTRADICTION", "high", "low", "x"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
_item = st.fixed_dictionaries(
    {
        "claim_id": st.sampled_from([1, True, "1", 1.0]),
        "reasoning": st.sampled_from(["ok", 3]),
        "judgement": st.sampled_from(["ENTAILMENT", "NEUTRAL", "CONTRADICTION", "YES"]),
        "supports": st.sampled_from([True, False, 1, "true"]),
        "score": st.sampled_from([0, 0.5, 1, 1.01, -1, True, "0.5"]),
        "confidence": st.sampled_from(["high", "medium", "low", "HIGH"]),
    },
    optional={"extra": _value},
)


@given(_item)
def test_validator_accepts_only_what_the_json_schema_accepts(obj: dict[str, Any]) -> None:
    """Where the two overlap (one claim, no cross-field rule) they agree; beyond the JSON
    Schema the validator also demands supports == (judgement == ENTAILMENT)."""
    text = json.dumps({"verdicts": [obj]})
    schema_ok = jsonschema.Draft202012Validator(BATCH_REPLY_SCHEMA).is_valid(json.loads(text))
    schema_ok = schema_ok and obj["claim_id"] == 1 and not isinstance(obj["claim_id"], float)
    consistent = obj.get("supports") == (obj.get("judgement") == "ENTAILMENT")
    try:
        parse_batch_reply(text, (1,))
        accepted = True
    except ReplyInvalid:
        accepted = False
    assert accepted == (schema_ok and consistent)


def test_the_schemas_are_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(BATCH_REPLY_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(ANSWER_REPLY_SCHEMA)


KINDS = {
    "": "empty",
    "Sure! " + reply(item()): "not_json",
    '{"verdicts": [{"claim_id": 1, "supports": tru': "not_json",
    reply(item(score=1.5)): "score_out_of_range",
    reply(item(score=-0.01)): "score_out_of_range",
    reply(item(3)): "unknown_claim_id",
    reply(item(1), item(1)): "unknown_claim_id",
    reply(item(judgement="NEUTRAL", supports=True)): "inconsistent_judgement",
    reply(item(judgement="SUPPORTED")): "off_schema",
    reply(item(reasoning="...")): "echoed_example",
}


@pytest.mark.parametrize("text", sorted(KINDS))
def test_each_rejection_names_its_reason(text: str) -> None:
    with pytest.raises(ReplyInvalid) as caught:
        parse_batch_reply(text, (1,))
    assert caught.value.kind == KINDS[text]


def test_the_instructions_echoed_back_are_not_a_verdict() -> None:
    """SmolLM2 under a grammar copied what the prompt showed it; a sentence of the system
    message as reasoning is a copy (the system message holds no data to quote)."""
    from monitor.judge.prompt import BATCH_SYSTEM

    line = next(x for x in BATCH_SYSTEM.splitlines() if x.startswith("- reasoning: "))
    copied = reply(item(reasoning=line.removeprefix("- reasoning: ")))
    with pytest.raises(ReplyInvalid) as caught:
        parse_batch_reply(copied, (1,), BATCH_SYSTEM)
    assert caught.value.kind == "echoed_example"
    # a short generic sentence that happens to occur in the instructions is the model's own
    own = reply(item(reasoning="The evidence supports the claim."))
    assert "the evidence supports the claim" in BATCH_SYSTEM
    assert parse_batch_reply(own, (1,), BATCH_SYSTEM)[1].verdict == "supported"


@pytest.mark.parametrize(
    ("text", "placeholder"),
    [
        ("...", True),
        ("…", True),
        ("  - ", True),
        ("N/A", True),
        ("12.5", True),
        ("judge only from what the data says", True),
        ("Judge only from what the data says; do not use outside knowledge.", True),
        ("No.", False),
        ("The evidence gives 900, not 1200.", False),
        ("Die Quelle nennt 900.", False),
    ],
)
def test_placeholder_reasoning(text: str, placeholder: bool) -> None:
    from monitor.judge.prompt import BATCH_SYSTEM

    assert is_placeholder(text, BATCH_SYSTEM) is placeholder


def test_the_bounded_schema_ties_supports_to_the_judgement_and_ids_to_the_request() -> None:
    from monitor.judge.sent_schema import batch_request_schema

    check = jsonschema.Draft202012Validator(batch_request_schema((1, 2), bounded=True)).is_valid
    why = "The evidence says so."
    good = {
        "verdicts": [
            item(1, reasoning=why),
            item(2, reasoning=why, judgement="NEUTRAL", supports=False, score=0.5),
        ]
    }
    assert check(good)
    for bad in (
        {"verdicts": [item(1, reasoning=why)]},  # one verdict short
        {"verdicts": [item(1, reasoning=why), item(3, reasoning=why)]},  # id not asked
        {"verdicts": [item(1, reasoning=why), item(2, reasoning=why, supports=False)]},
        {"verdicts": [item(1, reasoning=why), item(2, reasoning="x" * 400)]},  # too long
        {"verdicts": [item(1, reasoning="..."), item(2, reasoning=why)]},  # too short
        {"verdicts": [item(1, reasoning=why, score=1.5), item(2, reasoning=why)]},
        {"verdicts": [item(1, reasoning=why, score=0.55), item(2, reasoning=why)]},  # tenths
    ):
        assert not check(bad)
    portable = json.dumps(batch_request_schema((1, 2), bounded=False))
    assert "maxLength" not in portable and "anyOf" not in portable and "minimum" not in portable
