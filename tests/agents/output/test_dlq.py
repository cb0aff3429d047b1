from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from agents.output.dlq import dlq_record, original_bytes


def _record(value: bytes | None, limit: int = 1024, key: bytes | None = b"k1") -> dict:
    return dlq_record(
        reason="invalid_json",
        error="Expecting value: line 1 column 1",
        topic="ragmon.answers",
        partition=2,
        offset=41,
        timestamp=1700000000.5,
        key=key,
        value=value,
        max_value_bytes=limit,
        event_id=None,
        app=None,
        now=1700000001.0,
    )


def test_dead_letter_keeps_origin_reason_and_bytes() -> None:
    raw = b'{"event_id": "x", "answer": \xff'
    record = _record(raw)
    assert record["reason"] == "invalid_json"
    assert record["error"].startswith("Expecting value")
    assert (record["topic"], record["partition"], record["offset"]) == ("ragmon.answers", 2, 41)
    assert record["timestamp"] == 1700000000.5
    assert record["key_b64"] == "azE="  # base64 of b"k1"
    assert original_bytes(record) == raw
    assert record["value_bytes"] == len(raw)
    assert record["truncated"] is False
    assert record["sha256"] == hashlib.sha256(raw).hexdigest()
    assert record["dead_lettered_at"] == 1700000001.0


def test_large_values_are_cut_but_identified() -> None:
    raw = b"x" * 5000
    record = _record(raw, limit=1000)
    assert original_bytes(record) == b"x" * 1000
    assert record["truncated"] is True
    assert record["value_bytes"] == 5000
    assert record["sha256"] == hashlib.sha256(raw).hexdigest()


def test_tombstone_and_missing_key() -> None:
    record = _record(None, key=None)
    assert record["key_b64"] is None
    assert original_bytes(record) == b""
    assert record["value_bytes"] == 0 and record["truncated"] is False


@given(st.binary(max_size=300), st.integers(min_value=0, max_value=400))
def test_kept_bytes_are_a_prefix(raw: bytes, limit: int) -> None:
    record = _record(raw, limit=limit)
    kept = original_bytes(record)
    assert raw.startswith(kept)
    assert len(kept) == min(len(raw), limit)
    assert record["truncated"] is (len(raw) > limit)
