"""Audit records of a time range, read back from the `audit` topic by timestamp.

Bounded: a read keeps at most `max_records` records (the newest; older ones are dropped as
newer ones arrive) and says whether it dropped any. Nothing is cached between reads: the audit
topic (its retention) is the store, and every worker can answer for every app.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from agents.kafka.reader import Message, read_topic
from agents.kafka.topics import topic_specs
from monitor.config.settings import Settings
from monitor.oncall.query import AuditItem, slimmed


def audit_topic(settings: Settings) -> str:
    return topic_specs(settings)["audit"].name


def parse(message: Message) -> AuditItem | None:
    try:
        record = json.loads(message.value or b"")
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict):
        return None
    return AuditItem(record, message.partition, message.offset, message.timestamp, message.value)


async def audit_items(
    settings: Settings,
    start: float | None,
    end: float | None,
    follow: bool = False,
) -> AsyncIterator[AuditItem]:
    async for message in read_topic(settings, audit_topic(settings), start, end, follow):
        item = parse(message)
        if item is not None:
            yield item


@dataclass
class Window:
    items: list[AuditItem]
    read: int
    truncated: bool
    #: audit records per app in the range (every app, whichever was asked for): the known names
    apps: Counter[str] = field(default_factory=Counter)


async def read_window(
    settings: Settings,
    start: float,
    end: float,
    max_records: int,
    app: str | None = None,
    after: float | None = None,
) -> Window:
    """The range's records of `app` (of every app when None), slim: each keeps its bytes and
    the fields ranking reads (monitor.oncall.query.slimmed), ~6 kB for a record of the default
    RAGMON_AUDIT_TEXT. `after`: read on to this time for the records that come after what they
    are about (a judge's verdict, a drop, an alert stamped as it is sent), and only those."""
    kept: deque[AuditItem] = deque(maxlen=max_records)
    read = 0
    apps: Counter[str] = Counter()
    async for item in audit_items(settings, start, max(end, after or end)):
        late = item.timestamp is not None and item.timestamp > end
        if late and item.record.get("reason") not in ("judge", "alert"):
            continue
        if not late and item.record.get("app") is not None:
            apps[str(item.record.get("app"))] += 1
        if app is not None and item.record.get("app") != app:
            continue  # other apps cost a parse, never memory
        read += 1
        raw = json.dumps(item.record).encode() if item.raw is None else item.raw
        kept.append(slimmed(item.record, raw, item.partition, item.offset, item.timestamp))
    return Window(list(kept), read, read > max_records, apps)


async def read_one(settings: Settings, topic: str, partition: int, offset: int) -> Message | None:
    async for message in read_topic(settings, topic, only=[(partition, offset)]):
        return message
    return None


def decoded(message: Message) -> dict[str, Any]:
    """A raw record for the JSON API: its value as JSON when it parses, else as text."""
    value: Any = None
    if message.value is not None:
        try:
            value = json.loads(message.value)
        except ValueError:
            value = message.value.decode("utf-8", "replace")
    return {
        "partition": message.partition,
        "offset": message.offset,
        "timestamp": message.timestamp,
        "key": None if message.key is None else message.key.decode("utf-8", "replace"),
        "value": value,
    }
