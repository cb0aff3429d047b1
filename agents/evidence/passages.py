"""The passages of lean audit records (RAGMON_AUDIT_PASSAGES=reference), read back from the
answers they came from: the report's shown answers (RAGMON_EVIDENCE_ANSWERS of them at most)
in one read of the answers topic, each answer decoded as the check decoded it and each
referenced passage cut out by its stored span (monitor.oncall.passages). An answer past the
topic's retention leaves its passages "not shown", said plainly; nothing fails.

Only records written at RAGMON_AUDIT_TEXT=all reference passages, and the page shows them only
while its own RAGMON_AUDIT_TEXT is `all` too. The texts cut here join the report before the
page's RAGMON_REDACT pass (agents.evidence.web), so they are redacted as the records' are.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

import structlog

from agents.kafka.reader import Message, read_topic
from monitor.config.options import CheckOptions
from monitor.config.settings import Settings
from monitor.inputs.decode import decode_event
from monitor.oncall.passages import NO_SOURCE, UNDECODABLE, elsewhere, fill, gone, referenced
from monitor.records.models import AnswerEvent

log = structlog.get_logger("ragmon.evidence")

Where = tuple[int, int]  # (partition, offset)
Read = Callable[[str, list[Where]], Awaitable[dict[Where, Message]]]


async def read_answers(settings: Settings, topic: str, wanted: list[Where]) -> dict[Where, Message]:
    """The messages at these offsets of `topic` that are still there, in one consumer."""
    got: dict[Where, Message] = {}
    async for message in read_topic(settings, topic, only=wanted):
        got[(message.partition, message.offset)] = message
    return got


def _source(answer: Mapping[str, Any]) -> tuple[str, Where] | None:
    source = answer.get("source")
    if not isinstance(source, dict):
        return None
    topic, partition, offset = source.get("topic"), source.get("partition"), source.get("offset")
    if not isinstance(topic, str) or not isinstance(partition, int) or not isinstance(offset, int):
        return None
    return topic, (partition, offset)


def _wants(answer: Mapping[str, Any]) -> bool:
    return answer.get("text_level") == "all" and any(
        referenced(c) for c in answer.get("citations") or ()
    )


async def fill_passages(
    settings: Settings,
    answers: Iterable[dict[str, Any]],
    answers_topic: str,
    read: Read | None = None,
) -> None:
    """The shown answers' referenced passages, in place (`cited_text` and context, or
    `passage_missing`). Reads only `answers_topic`: a record naming another topic (renamed
    since) gets `passage_missing`."""
    if settings.audit_text != "all":
        return
    todo = [(a, _source(a)) for a in answers if _wants(a)]
    if not todo:
        return
    wanted = sorted(
        {where for _, src in todo if src and src[0] == answers_topic for where in [src[1]]}
    )
    reader = read or (lambda topic, w: read_answers(settings, topic, w))
    try:
        got = await reader(answers_topic, wanted) if wanted else {}
    # The page still shows the records whatever the read did: the broker unreachable at the
    # start (RagmonError) or gone in the middle (aiokafka's own errors).
    except Exception as exc:
        said = str(exc)
        if not said.startswith(f"cannot read {answers_topic}"):
            said = f"cannot read {answers_topic}: {said or type(exc).__name__}"
        log.warning("evidence page could not read the answers topic", error=said)
        for answer, _ in todo:
            answer["citations"] = [dict(c) for c in answer.get("citations") or ()]
            fill(answer["citations"], said, 0, 0)
        return
    options = settings.check_options()
    for answer, src in todo:
        # a copy: the report's citations may be the audit item's own parsed record
        answer["citations"] = citations = [dict(c) for c in answer.get("citations") or ()]
        fill(
            citations,
            _answer(answer, src, got, answers_topic, options),
            settings.audit_cited_text_chars,
            settings.audit_context_chars,
        )


def _answer(
    answer: Mapping[str, Any],
    src: tuple[str, Where] | None,
    got: Mapping[Where, Message],
    answers_topic: str,
    options: CheckOptions,
) -> AnswerEvent | str:
    """The record's answer decoded as the check decoded it, or why there is none."""
    if src is None:
        return NO_SOURCE
    if src[0] != answers_topic:
        return elsewhere(src[0], answers_topic)
    message = got.get(src[1])
    if message is None or message.value is None:
        return gone(answers_topic)
    decoded = decode_event(message.value, options)
    if not isinstance(decoded, AnswerEvent):
        return UNDECODABLE
    # another answer at that offset: the topic was recreated since
    return decoded if decoded.event_id == answer.get("event_id") else gone(answers_topic)
