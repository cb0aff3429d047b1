"""The envelope's own fields are checked as answer-envelope.schema.json says: the hand-written
decoder accepts exactly the envelopes a JSON-Schema validator accepts (given a response its
format can read; what a response holds is the adapters' business, tested in test_vendors)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.inputs.envelope import FORMATS
from monitor.records.models import AnswerEvent, Rejection
from tests.conftest import SHARED

OPTS = CheckOptions()
SCHEMA = json.loads((SHARED / "schema" / "answer-envelope.schema.json").read_text())
#: a response each format reads (the shapes of docs/inputs.md, cut down)
READABLE: dict[str, dict[str, Any]] = {
    "anthropic.messages": {"content": [{"type": "text", "text": "The sky is blue."}]},
    "openai.responses": {"output": []},
    "openai.chat": {"choices": [{"message": {"content": "The sky is blue."}}]},
    "cohere.chat.v2": {"message": {"content": [{"type": "text", "text": "The sky is blue."}]}},
    "gemini.generate_content": {"candidates": [{"content": {"parts": [{"text": "Hi."}]}}]},
    "llamaindex.response": {"response": "The sky is blue.", "source_nodes": []},
    "langchain.retrieval": {"input": "q", "context": [], "answer": "The sky is blue."},
}
values = st.none() | st.booleans() | st.integers(-1, 3) | st.text(max_size=3) | st.just([])
envelopes = st.fixed_dictionaries(
    {},
    optional={
        "format": st.sampled_from([*FORMATS, "bard", ""]) | st.integers(),
        "event_id": st.text(max_size=3) | st.integers(),
        "envelope_version": st.sampled_from(["1", "2", 1]),
        "app": st.sampled_from(["ok-app", "bad app", ""]) | st.integers(),
        "tenant": st.text(max_size=3) | st.integers(),
        "question": st.none() | st.text(max_size=3) | st.integers(),
        "response": st.sampled_from(["readable", "readable", "list", "null", "text"]),
        "documents": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "id": st.sampled_from(["", "d1", 3]),
                    "text": values,
                    "pages": values,
                    "url": values,
                },
            ),
            max_size=2,
        )
        | values,
        "data": values | st.just({"k": 1}),
        "metadata": values | st.just({"k": 1}),
    },
)


def _concrete(obj: dict[str, Any]) -> dict[str, Any]:
    out = dict(obj)
    kind = out.get("response")
    if kind is not None:
        fmt = out.get("format")
        readable = READABLE.get(fmt, READABLE["openai.chat"]) if isinstance(fmt, str) else {}
        out["response"] = {"readable": readable, "list": [], "null": None, "text": "x"}[kind]
    return out


@settings(max_examples=500, deadline=None)
@given(envelopes)
def test_decoder_agrees_with_the_envelope_schema(obj: dict[str, Any]) -> None:
    envelope = _concrete(obj)
    if "format" not in envelope:
        return  # without the key it is read as an answer event (test_decode.py)
    expected = jsonschema.Draft202012Validator(SCHEMA).is_valid(envelope)
    out = decode_event(json.dumps(envelope).encode(), OPTS)
    assert isinstance(out, AnswerEvent) == expected, (envelope, out)
    if isinstance(out, Rejection):
        assert out.reason in ("schema_violation", "unknown_format", "invalid_response")
