"""The evidence page's passages of lean audit records, with a fake answers topic: one read for
the shown answers, each passage cut from its own answer, and plain words when an answer is gone,
belongs to another event, sits on another topic, or the topic cannot be read."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agents.evidence.passages import fill_passages
from agents.kafka.reader import Message
from agents.output.audit import AuditTrail
from monitor.check import check_event
from monitor.config.errors import BrokerUnavailable
from monitor.config.settings import load_settings
from monitor.inputs.decode import decode_event
from monitor.oncall.passages import NO_SOURCE, UNDECODABLE, elsewhere, gone
from monitor.records.models import AnswerEvent

TOPIC = "ragmon.answers"
DOC = "Revenue grew 12 percent in 2023 while costs fell sharply over the whole year."


def answer(event_id: str) -> bytes:
    body = {
        "event_id": event_id,
        "app": "shop",
        "answer": "Revenue grew 12 percent in 2023 [r.pdf:1:0-31].",
        "documents": [{"id": "r.pdf", "text": DOC}],
    }
    return json.dumps(body).encode()


def entry(event_id: str, offset: int, topic: str = TOPIC) -> dict[str, Any]:
    """The report's entry of a lean record of `answer(event_id)` at `offset`."""
    settings = load_settings()
    event = decode_event(answer(event_id), settings.check_options())
    assert isinstance(event, AnswerEvent)
    verdict = check_event(event, settings.check_options())
    source = {"topic": topic, "partition": 0, "offset": offset}
    built = AuditTrail(load_settings(audit_sample_rate=1.0)).builder.build(verdict, source, event)
    assert built is not None
    record = json.loads(built.data)
    return {k: record[k] for k in ("event_id", "citations", "source", "text_level")}


def test_one_read_cuts_each_answers_passage_and_says_why_not_otherwise() -> None:
    topic = {
        (0, 1): Message(0, 1, None, None, answer("a")),
        (0, 2): Message(0, 2, None, None, answer("z")),
    }
    reads: list[tuple[str, list[tuple[int, int]]]] = []

    async def read(name: str, wanted: list[tuple[int, int]]) -> dict[tuple[int, int], Message]:
        reads.append((name, wanted))
        return {w: topic[w] for w in wanted if w in topic}

    here, other, away, renamed = entry("a", 1), entry("b", 2), entry("c", 3), entry("d", 4, "old")
    assert "cited_text" not in here["citations"][0] and here["citations"][0]["span"] == [0, 31]
    answers = [here, other, away, renamed]
    asyncio.run(fill_passages(load_settings(), answers, TOPIC, read))
    assert reads == [(TOPIC, [(0, 1), (0, 2), (0, 3)])]  # one read; never the other topic
    assert here["citations"][0]["cited_text"] == DOC[:31]
    assert here["citations"][0]["context_after"] == DOC[31:]
    # offset 2 holds another answer (the topic was recreated): not this one's passage
    assert other["citations"][0]["passage_missing"] == gone(TOPIC)
    assert away["citations"][0]["passage_missing"] == gone(TOPIC)
    assert renamed["citations"][0]["passage_missing"] == elsewhere("old", TOPIC)


def test_an_unreadable_topic_and_a_stricter_page_show_no_passage() -> None:
    async def down(name: str, wanted: list[tuple[int, int]]) -> dict[tuple[int, int], Message]:
        raise BrokerUnavailable("no broker at 127.0.0.1:1", servers="127.0.0.1:1")

    lost = entry("a", 1)
    asyncio.run(fill_passages(load_settings(), [lost], TOPIC, down))
    assert lost["citations"][0]["passage_missing"].startswith(f"cannot read {TOPIC}: ")
    strict = entry("a", 1)
    before = json.dumps(strict)
    asyncio.run(fill_passages(load_settings(audit_text="claims"), [strict], TOPIC, down))
    assert json.dumps(strict) == before  # the page's own RAGMON_AUDIT_TEXT=claims: not read


def test_a_read_failing_midway_and_records_without_an_answer_say_why() -> None:
    async def breaks(name: str, wanted: list[tuple[int, int]]) -> dict[tuple[int, int], Message]:
        raise TimeoutError()  # aiokafka's own errors after the consumer started

    lost = entry("a", 1)
    asyncio.run(fill_passages(load_settings(), [lost], TOPIC, breaks))
    assert lost["citations"][0]["passage_missing"] == f"cannot read {TOPIC}: TimeoutError"

    topic = {(0, 1): Message(0, 1, None, None, b'{"event_id": "a"}')}  # no answer: a rejection

    async def read(name: str, wanted: list[tuple[int, int]]) -> dict[tuple[int, int], Message]:
        return {w: topic[w] for w in wanted if w in topic}

    nameless, rejected = entry("a", 1), entry("a", 1)
    del nameless["source"]
    asyncio.run(fill_passages(load_settings(), [nameless, rejected], TOPIC, read))
    assert nameless["citations"][0]["passage_missing"] == NO_SOURCE
    assert rejected["citations"][0]["passage_missing"] == UNDECODABLE
