"""Dead letters: what an undecodable or invalid record becomes on the `dlq` topic.

The record keeps everything needed to inspect or replay the original: where it came from
(topic/partition/offset/timestamp), why it was rejected (reason code + error text) and its
bytes as base64. Bytes beyond `max_value_bytes` are cut (the record says so and carries the
size and SHA-256 of the whole value), because a dead letter must itself fit in a Kafka message
(1 MB by default) and a 5 MB event would otherwise be rejected by the broker a second time.
"""

from __future__ import annotations

import base64
import hashlib
import time
from typing import Any

#: DLQ reasons besides monitor.records.models.REJECTION_REASONS: the checks themselves failed.
CHECK_ERROR = "check_error"


def dlq_record(
    *,
    reason: str,
    error: str,
    topic: str,
    partition: int,
    offset: int,
    timestamp: float | None,
    key: bytes | None,
    value: bytes | None,
    max_value_bytes: int,
    event_id: str | None = None,
    app: str | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    raw = value or b""
    kept = raw[:max_value_bytes]
    return {
        "reason": reason,
        "error": error,
        "topic": topic,
        "partition": partition,
        "offset": offset,
        "timestamp": timestamp,
        "event_id": event_id,
        "app": app,
        "key_b64": None if key is None else base64.b64encode(key).decode("ascii"),
        "value_b64": base64.b64encode(kept).decode("ascii"),
        "value_bytes": len(raw),
        "truncated": len(kept) < len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "dead_lettered_at": round(time.time() if now is None else now, 6),
    }


def original_bytes(record: dict[str, Any]) -> bytes:
    """The (possibly truncated) original value of a dead letter."""
    return base64.b64decode(record["value_b64"])
