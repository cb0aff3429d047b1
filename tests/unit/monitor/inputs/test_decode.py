from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.records.models import AnswerEvent, Rejection
from tests.conftest import SHARED

OPTS = CheckOptions()


def ok(obj: dict[str, Any]) -> AnswerEvent:
    out = decode_event(json.dumps(obj).encode(), OPTS)
    assert isinstance(out, AnswerEvent), out
    return out


def rejected(raw: bytes | str, opts: CheckOptions = OPTS) -> Rejection:
    out = decode_event(raw, opts)
    assert isinstance(out, Rejection), out
    return out


def test_minimal_and_full_event() -> None:
    ev = ok({"event_id": "e1", "answer": "x"})
    assert ev.event_id == "e1" and ev.documents == () and ev.segments is None
    full = ok(
        {
            "schema_version": "1",
            "event_id": "e2",
            "timestamp": "2026-11-20T10:00:00Z",
            "app": "support-bot",
            "answer": "a [1]",
            "question": None,
            "segments": [{"text": "a", "citations": ["d1", 2]}],
            "documents": [{"id": "d1", "pages": ["p1", "p2"], "title": "T"}],
            "data": {"quote": {"premium": 1200}},
            "gold": {
                "label": "supported",
                "citation_spans": [{"doc_id": "d1", "page": 2, "start": 0, "end": 2}],
            },
            "metadata": {"k": 1},
            "unknown_field": "ignored",
        }
    )
    assert full.documents[0].pages == ("p1", "p2")
    assert full.documents[0].full_text == "p1\n\np2"
    assert full.segments is not None and full.segments[0].citations == ("d1", 2)
    assert full.gold_label == "supported"
    assert full.gold_spans is not None and full.gold_spans[0].page == 2
    assert full.data == {"quote": {"premium": 1200}}


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"\xff\xfe{}", "invalid_utf8"),
        (b'{"event_id": "e", "answer": "caf\xc3"}', "invalid_utf8"),
        (b"{not json", "invalid_json"),
        (b'{"event_id": "e", "answer": NaN}', "invalid_json"),
        (b'{"event_id": "e", "answer": Infinity}', "invalid_json"),
        (b'{"event_id": "a", "event_id": "b", "answer": ""}', "invalid_json"),
        (b"[" * 100_000 + b"]" * 100_000, "invalid_json"),
        (b"[1, 2]", "not_an_object"),
        (b'"text"', "not_an_object"),
        (b"null", "not_an_object"),
        (b'{"answer": "x"}', "schema_violation"),
        (b'{"event_id": "", "answer": "x"}', "schema_violation"),
        (b'{"event_id": 7, "answer": "x"}', "schema_violation"),
        (b'{"event_id": "e", "answer": 5}', "schema_violation"),
        (b'{"event_id": "e", "answer": "x", "app": "has space"}', "schema_violation"),
        (b'{"event_id": "e", "answer": "x", "timestamp": "yesterday"}', "schema_violation"),
        (
            b'{"event_id": "e", "answer": "x", "timestamp": "2026-11-20T10:00:00"}',
            "schema_violation",
        ),
        (b'{"event_id": "e", "answer": "x", "documents": [{"text": "no id"}]}', "schema_violation"),
        (b'{"event_id": "e", "answer": "x", "documents": {"id": "d"}}', "schema_violation"),
        (
            b'{"event_id": "e", "answer": "x", "segments": [{"text": "t", "citations": [true]}]}',
            "schema_violation",
        ),
        (b'{"event_id": "e", "answer": "x", "gold": {"label": "maybe"}}', "schema_violation"),
        (
            b'{"event_id": "e", "answer": "x", "gold": {"citation_spans": [{"doc_id": "d", "start": -1, "end": 2}]}}',
            "schema_violation",
        ),
        (b'{"event_id": "e", "answer": "x", "schema_version": "2"}', "schema_violation"),
        (
            b'{"event_id": "e", "answer": "x", "gold": {"claims": [{"label": "supported"}]}}',
            "schema_violation",
        ),
        (
            b'{"event_id": "e", "answer": "x", "gold": {"claims": [{"index": 0, "label": "no"}]}}',
            "schema_violation",
        ),
        (
            b'{"event_id": "e", "answer": "x", "gold": {"claims": [{"index": -1, "label": "abstain"}]}}',
            "schema_violation",
        ),
        (b'{"event_id": "e", "answer": "x", "data": [1]}', "schema_violation"),
    ],
)
def test_rejections(raw: bytes, reason: str) -> None:
    assert rejected(raw).reason == reason


def test_rejection_keeps_event_id_and_app_when_readable() -> None:
    r = rejected(b'{"event_id": "e9", "app": "search", "answer": 1}')
    assert (r.reason, r.event_id, r.app) == ("schema_violation", "e9", "search")
    assert "answer" in r.detail


def test_too_large_is_checked_before_parsing() -> None:
    big = json.dumps({"event_id": "e", "answer": "x" * 5_000_000}).encode()
    assert rejected(big).reason == "too_large"
    small = CheckOptions(max_event_bytes=10)
    assert rejected(b'{"event_id": "e", "answer": "xx"}', small).reason == "too_large"


def _schema() -> dict[str, Any]:
    path = SHARED / "schema" / "answer-event.schema.json"
    if not path.exists():
        pytest.skip("shared schema not present")
    schema = json.loads(path.read_text())
    # `format` is annotation-only in draft 2020-12; our decoder checks timestamps itself.
    schema["properties"].pop("timestamp")
    return schema


json_scalars = st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=4)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["id", "text", "pages", "citations", "doc_id", "start", "end", "label"]
            ),
            inner,
            max_size=3,
        )
    ),
    max_leaves=8,
)
events = st.fixed_dictionaries(
    {},
    optional={
        "event_id": st.text(max_size=3) | st.integers(),
        "answer": st.text(max_size=5) | st.integers(),
        "app": st.sampled_from(["ok-app", "bad app", ""]) | st.integers(),
        "question": st.none() | st.text(max_size=3) | st.integers(),
        "documents": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "id": st.sampled_from(["", "d1", 3]),
                    "text": json_values,
                    "pages": json_values,
                },
            ),
            max_size=2,
        )
        | json_values,
        "segments": st.lists(
            st.fixed_dictionaries({}, optional={"text": json_values, "citations": json_values}),
            max_size=2,
        )
        | json_values,
        "gold": st.fixed_dictionaries(
            {},
            optional={
                "label": st.sampled_from(["supported", "nope"]),
                "citation_spans": json_values,
                "answer": json_values,
            },
        )
        | json_values,
        "data": json_values,
        "metadata": json_values,
        "schema_version": st.sampled_from(["1", "2", 1]),
        "tenant": json_values,
        "model": json_values,
    },
)


@settings(max_examples=400, deadline=None)
@given(events)
def test_decoder_agrees_with_json_schema(obj: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(_schema())
    expected_valid = validator.is_valid(obj)
    out = decode_event(json.dumps(obj).encode(), OPTS)
    assert isinstance(out, AnswerEvent) == expected_valid, (obj, out)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_decoder_never_raises_on_bytes(raw: bytes) -> None:
    out = decode_event(raw, OPTS)
    assert isinstance(out, AnswerEvent | Rejection)


@pytest.mark.parametrize(
    "app", ["<script>x</script>", "a" * 65, "", "app name", "ünïcode", 'q"uote', "a{b}"]
)
def test_an_invalid_app_name_never_reaches_a_rejection(app: str) -> None:
    # the rejection's app labels metrics and the window's reject count: only valid names pass
    obj = {"event_id": "e1", "app": app, "answer": "x", "documents": "not a list"}
    got = decode_event(json.dumps(obj).encode(), CheckOptions())
    assert isinstance(got, Rejection) and got.reason == "schema_violation"
    assert got.app is None and got.event_id == "e1"


def test_a_valid_app_name_is_kept_on_a_rejection() -> None:
    obj = {"event_id": "e1", "app": "support-bot.v2", "answer": "x", "documents": "not a list"}
    got = decode_event(json.dumps(obj).encode(), CheckOptions())
    assert isinstance(got, Rejection) and got.app == "support-bot.v2"


def test_per_claim_gold_labels() -> None:
    raw = {
        "event_id": "c",
        "answer": "x",
        "gold": {
            "claims": [{"index": 1, "label": "not_supported"}, {"text": "x", "label": "abstain"}]
        },
    }
    event = decode_event(json.dumps(raw).encode(), CheckOptions())
    assert isinstance(event, AnswerEvent) and event.gold_claims is not None
    assert [(g.index, g.text, g.label) for g in event.gold_claims] == [
        (1, None, "not_supported"),
        (None, "x", "abstain"),
    ]
    plain = decode_event(
        b'{"event_id": "c", "answer": "x", "gold": {"label": "supported"}}', CheckOptions()
    )
    assert isinstance(plain, AnswerEvent) and plain.gold_claims is None


@given(keys=st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6))
def test_a_key_given_twice_is_named_first_repeat_first(keys: list[str]) -> None:
    """The object's pairs as JSON: without a repeat it decodes as written; with one, the
    rejection names the first key that is given again, reading left to right."""
    body = ", ".join(f'"{k}": {i}' for i, k in enumerate(keys))
    raw = f'{{"event_id": "e", "answer": "x", "metadata": {{{body}}}}}'.encode()
    got = decode_event(raw, CheckOptions())
    seen: set[str] = set()
    repeat = next((k for k in keys if k in seen or seen.add(k)), None)  # type: ignore[func-returns-value]
    if repeat is None:
        assert isinstance(got, AnswerEvent)
        assert got.metadata == {k: i for i, k in enumerate(keys)}
    else:
        assert isinstance(got, Rejection)
        assert (got.reason, got.detail) == ("invalid_json", f"duplicate key {repeat!r}")
