"""The citing API's own quote (a citation's `excerpt`) in judge requests and prompts: carried,
fenced as data, keyed apart; requests without one unchanged, byte for byte."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.judge.cache import cache_key
from monitor.judge.client import PairOutcome
from monitor.judge.prompt import (
    BATCH_SYSTEM,
    MAX_BATCH,
    PROMPT_VERSION,
    QUOTE_PROMPT_VERSION,
    Pair,
    build_batch_prompt,
    estimate_tokens,
)
from monitor.judge.record import judge_record
from monitor.judge.request import build_request, judge_items, parse_request
from monitor.records.models import AnswerEvent, Verdict
from tests.unit.monitor.judge.helpers import event, verdict
from tests.unit.monitor.judge.test_prompt_injection import INJECTIONS, blocks, outside

OPTS = CheckOptions()
GRASS = "The grass is green. The sky is blue."


def _sha(value: object) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False).encode("utf-8")).hexdigest()


def test_a_request_without_quotes_is_what_it_was_before_quotes() -> None:
    """Hashes taken with the code of 2fa55fe (prompt v3, the ABSTAIN judgement; before quotes
    existed) on the same hand-built answer: the record's bytes, the prompt (fixed tag), the
    cache keys and the token estimate. (Against fd1c8e1, prompt v2, the quote branch matched
    that code's hashes the same way.)"""
    ev = event(gold_answer="Revenue grew 5%.")
    v = verdict()
    req = build_request(ev, v, judge_items(v, event=ev), "base", now=1.0)
    assert all(i.quote is None for i in req.items)
    assert _sha(req.to_dict()) == "d3f95a90e6672b82c192d7510b58acd1d3414ee70bf8b183cfbc8b2b191c4c57"
    prompt = build_batch_prompt([i.pair for i in req.items], tag="DATA-" + "a" * 32)
    assert _sha(prompt.as_list()) == (
        "ec5af591769fd4c787060a84260d6ff6a8e3a780fe501e167ae027c0caae426f"
    )
    keys = "".join(cache_key(i.pair.version, "m", *i.pair.texts) for i in req.items)
    assert hashlib.sha256(keys.encode()).hexdigest() == (
        "3c70d1656994df97c3fcc5d5f0fad4e6200372fdc64a2193226ddc0581706dfb"
    )
    assert req.est_tokens == 1593
    assert judge_record(req, [PairOutcome("ok")] * len(req.items), None, 2.0)["prompt_version"] == (
        PROMPT_VERSION
    )


def _v1(answer: str) -> tuple[AnswerEvent, Verdict]:
    raw = {
        "event_id": "v1-quote",
        "answer": answer,
        "format": "markdown",
        "documents": [{"id": "g.txt", "text": GRASS}],
    }
    event = decode_event(json.dumps(raw).encode(), OPTS)
    assert isinstance(event, AnswerEvent), event
    return event, check_event(event, OPTS)


def test_a_v1_excerpt_is_the_quote_of_its_claim() -> None:
    event, v = _v1('The sky is blue [g.txt:0:20-36 | excerpt: "the sky is blue"].')
    (item,) = judge_items(v, event=event)
    assert item.evidence == "(source: g.txt)\nThe sky is blue."
    assert item.quote == "(source: g.txt)\nthe sky is blue"
    req = build_request(event, v, (item,), "base", now=1.0)
    wire = json.dumps(req.to_dict(), ensure_ascii=False).encode("utf-8")
    assert parse_request(wire) == req
    assert json.loads(wire)["items"][0]["quote"] == item.quote
    # without the excerpt the same answer's item has no quote and no key for one
    event2, v2 = _v1("The sky is blue [g.txt:0:20-36].")
    req2 = build_request(event2, v2, judge_items(v2, event=event2), "base", now=1.0)
    assert req2.items[0].quote is None and "quote" not in req2.to_dict()["items"][0]
    assert req2.items[0].evidence == item.evidence
    # the quote's tokens and its block's overhead (30) are budgeted: ceil(31 / 4) = 8
    assert req.est_tokens - req2.est_tokens == 8 + 30
    assert estimate_tokens(item.quote) == 8


def test_the_quote_changes_the_cache_key_and_the_recorded_version() -> None:
    plain = Pair("The sky is blue.", "The sky is blue.")
    quoted = Pair("The sky is blue.", "The sky is blue.", "the sky")
    other = Pair("The sky is blue.", "The sky is blue.", "the sky is")
    keys = {cache_key(p.version, "m", *p.texts) for p in (plain, quoted, other)}
    assert len(keys) == 3
    assert cache_key(plain.version, "m", *plain.texts) == cache_key(
        PROMPT_VERSION, "m", "The sky is blue.", "The sky is blue."
    )
    assert quoted.version == QUOTE_PROMPT_VERSION != PROMPT_VERSION
    event, v = _v1('The sky is blue [g.txt:0:20-36 | excerpt: "the sky is blue"].')
    req = build_request(event, v, judge_items(v, event=event), "base", now=1.0)
    record = judge_record(req, [PairOutcome("ok")], None, 2.0)
    assert record["prompt_version"] == QUOTE_PROMPT_VERSION


@pytest.mark.parametrize("attack", INJECTIONS)
def test_an_injection_in_the_quote_stays_inside_its_fence(attack: str) -> None:
    pairs = [
        Pair("Revenue grew 5% in 2023.", "Revenue grew 5% in 2023 according to the report."),
        Pair("The premium is 1200 dollars.", "Premium: 900 dollars.", "Premium: 1200. " + attack),
    ]
    prompt = build_batch_prompt(pairs)
    system, user = (m["content"] for m in prompt.messages)
    tag = prompt.tag
    assert tag not in attack and system == BATCH_SYSTEM
    assert blocks(user, tag) == [
        ("claim 1", pairs[0].claim),
        ("evidence 1", pairs[0].evidence),
        ("claim 2", pairs[1].claim),
        ("evidence 2", pairs[1].evidence),
        ("quote 2", pairs[1].quote),
    ]
    rest = outside(user, tag)
    for fragment in re.split(r"\s*\n\s*", attack):
        if len(fragment) > 12:
            assert fragment not in rest
    assert user.splitlines()[0] == f"Data tag: {tag}" and rest.count(tag) == 1
    assert user.count(f"<<{tag}:begin") == 5 and user.count(f"<<{tag}:end") == 5
    assert "The citing API's own quote for this citation" in rest


@given(
    st.lists(
        st.tuples(st.text(max_size=60), st.text(max_size=60), st.none() | st.text(max_size=60)),
        min_size=1,
        max_size=MAX_BATCH,
    )
)
def test_any_quote_round_trips_through_the_fences(texts: list[tuple[str, str, str | None]]) -> None:
    pairs = [Pair(c, e, q) for c, e, q in texts]
    prompt = build_batch_prompt(pairs)
    got = blocks(prompt.messages[1]["content"], prompt.tag)
    assert [t for _, t in got] == [t for p in pairs for t in p.texts]
