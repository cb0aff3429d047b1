"""Dead letters as `ragmon dlq` reads and shows them: each letter of the `dlq` topic with the
replay markers written for it, its event id (from its bytes when the record has none), its times
in ISO-8601 UTC, oldest first. agents/commands/dlq.py is the command and the replay.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from monitor.config.settings import Settings

#: the key prefix of a replay marker on the dlq topic (`replayed:P:O`)
MARKER_PREFIX = "replayed:"


@dataclass
class Letter:
    partition: int
    offset: int
    record: dict[str, Any]
    replays: list[dict[str, Any]] = field(default_factory=list)

    @property
    def position(self) -> str:
        return f"{self.partition}:{self.offset}"

    def original(self) -> bytes:
        return base64.b64decode(self.record.get("value_b64") or "")

    @property
    def at(self) -> float:
        """When it was dead-lettered (else the original's Kafka timestamp, else 0)."""
        for key in ("dead_lettered_at", "timestamp"):
            value = self.record.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                return float(value)
        return 0.0

    def event_id(self) -> str | None:
        """The record's event id, else the one in the original bytes (a letter rejected before
        its event was decoded, e.g. a schema violation, was written without it)."""
        known = self.record.get("event_id")
        if isinstance(known, str) and known:
            return known
        return event_id_in(self.original())


#: `"event_id": "..."` in bytes that are not (or no longer, when cut) a JSON object
_EVENT_ID = re.compile(rb'"event_id"\s*:\s*"((?:[^"\\]|\\.){1,512})"')


def event_id_in(data: bytes) -> str | None:
    try:
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        parsed = None
    if isinstance(parsed, dict):
        value = parsed.get("event_id")
        if isinstance(value, bool) or not isinstance(value, str | int):
            return None
        return str(value) or None
    match = _EVENT_ID.search(data)
    if match is None:
        return None
    try:
        found = json.loads(b'"' + match.group(1) + b'"')
    except (ValueError, UnicodeDecodeError):
        return None
    return found if isinstance(found, str) else None


def iso(epoch: object) -> str | None:
    """ISO-8601 UTC (`2026-11-27T11:17:24.123456Z`) of epoch seconds; None stays None."""
    if not isinstance(epoch, int | float) or isinstance(epoch, bool):
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def dlq_topic(settings: Settings) -> str:
    from agents.kafka.topics import topic_specs

    return topic_specs(settings)["dlq"].name


async def read_letters(settings: Settings, start: float) -> list[Letter]:
    from agents.kafka.reader import read_topic

    letters: dict[tuple[int, int], Letter] = {}
    markers: list[dict[str, Any]] = []
    async for m in read_topic(settings, dlq_topic(settings), start=start):
        try:
            record = json.loads(m.value or b"")
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if (m.key or b"").decode("utf-8", "replace").startswith(MARKER_PREFIX):
            markers.append(record)
        else:
            letters[(m.partition, m.offset)] = Letter(m.partition, m.offset, record)
    for marker in markers:
        of = marker.get("replayed") or {}
        letter = letters.get((of.get("partition", -1), of.get("offset", -1)))
        if letter is not None:
            letter.replays.append(marker)
    return sorted(letters.values(), key=lambda x: (x.at, x.partition, x.offset))


def as_text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def summary(letter: Letter) -> dict[str, Any]:
    r = letter.record
    keep = ("reason", "error", "topic", "partition", "offset", "event_id", "app", "value_bytes")
    return {
        "letter": letter.position,
        **{k: r.get(k) for k in keep},
        "event_id": letter.event_id(),
        "timestamp": iso(r.get("timestamp")),
        "dead_lettered_at": iso(r.get("dead_lettered_at")),
        "truncated": r.get("truncated", False),
        "replayed": [m.get("to") for m in letter.replays],
    }


def detail(letter: Letter) -> dict[str, Any]:
    out = summary(letter)
    raw = letter.original()
    out["text"] = as_text(raw)
    if out["text"] is None:
        out["value_b64"] = letter.record.get("value_b64")
    out["sha256"] = letter.record.get("sha256")
    return out


def list_line(letter: Letter) -> str:
    r = letter.record
    replayed = f" replayed×{len(letter.replays)}" if letter.replays else ""
    error = str(r.get("error") or "")[:100]
    return (
        f"{letter.position} {iso(r.get('dead_lettered_at')) or '?'} {r.get('reason')} "
        f"{r.get('topic')} {r.get('partition')}:{r.get('offset')} "
        f"event {letter.event_id() or '-'}{replayed}: {error}"
    )


def show_text(letter: Letter) -> str:
    d = detail(letter)
    lines = [f"{k}: {v}" for k, v in d.items() if k not in ("text", "value_b64")]
    if d["text"] is not None:
        lines.append("original (text):")
        lines.append(d["text"])
    else:
        lines.append(f"original (not UTF-8, base64): {d['value_b64']}")
    return "\n".join(lines)


def printable(data: bytes) -> str:
    text = as_text(data)
    if text is not None:
        return text
    return "(not UTF-8, base64) " + base64.b64encode(data).decode("ascii")
