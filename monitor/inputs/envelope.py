"""Envelopes (answer-envelope.schema.json): a vendor API's response as an answer.

An object with a `format` key is an envelope (unless it is a v1 event that merely carries an
unknown `format` field: it has an `answer` and no `response`); with RAGMON_INPUT_FORMAT set to a
format name, an object without `format` and without `answer` is an envelope of that format.
`read_response` turns the envelope's `response` into the event's answer, documents and adapted
citations and claims (monitor/inputs/located.py); it raises `Unreadable` (a dead letter) when
the response is missing, not an object or not shaped as its format says, never anything else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from monitor.config.options import CheckOptions
from monitor.inputs import (
    anthropic_messages,
    cohere_v2,
    gemini_content,
    langchain_retrieval,
    llamaindex_response,
    openai_api,
)
from monitor.inputs.jsonread import Unreadable
from monitor.inputs.located import Builder
from monitor.records.models import AnswerEvent

_READERS: dict[str, Callable[[dict[str, Any], Builder], None]] = {
    anthropic_messages.FORMAT: anthropic_messages.read,
    openai_api.RESPONSES: openai_api.read_responses,
    openai_api.CHAT: openai_api.read_chat,
    cohere_v2.FORMAT: cohere_v2.read,
    gemini_content.FORMAT: gemini_content.read,
    llamaindex_response.FORMAT: llamaindex_response.read,
    langchain_retrieval.FORMAT: langchain_retrieval.read,
}
#: the envelope's format names, as answer-envelope.schema.json lists them
FORMATS: tuple[str, ...] = tuple(_READERS)
AUTO = "auto"


def envelope_format(obj: dict[str, Any], input_format: str) -> Any:
    """The format `obj` declares (any JSON value: checked by `read_response`), or None for a v1
    answer event."""
    if "format" in obj and ("response" in obj or "answer" not in obj):
        return obj["format"]
    if input_format != AUTO and "answer" not in obj:
        return input_format
    return None


def read_response(
    fmt: Any, obj: dict[str, Any], base: AnswerEvent, options: CheckOptions
) -> AnswerEvent:
    """`base` (the envelope's common fields, validated as v1's) completed from `response`."""
    reader = _READERS.get(fmt) if isinstance(fmt, str) else None
    if reader is None:
        shown = repr(fmt)[:80]
        raise Unreadable("unknown_format", f"format {shown} is not one of {', '.join(FORMATS)}")
    if "response" not in obj:
        raise Unreadable("invalid_response", "response is required")
    response = obj["response"]
    if not isinstance(response, dict):
        kind = "null" if response is None else type(response).__name__
        raise Unreadable("invalid_response", f"response must be an object, got {kind}")
    builder = Builder(fmt, list(base.documents), options)
    try:
        reader(response, builder)
    except RecursionError:
        raise Unreadable("invalid_response", "response nested too deeply") from None
    return builder.finish(base)
