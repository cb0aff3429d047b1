"""`ragmon dlq list | show | replay`: dead letters, read by time from the `dlq` topic, and sent
back to the answers topic after a fix.

Replay is safe and idempotent. Without `--yes` it is a dry run that says what it would send.
With `--yes` each letter's original bytes (optionally piped through `--transform CMD`, which
reads them on stdin and writes the fixed record on stdout) go to the answers topic with their
original key and a `ragmon-replay-of` header, and a marker record is written to the `dlq` topic
itself (key `replayed:P:O`): a letter with a marker is never sent again, whoever replays it.
Nothing is deleted. A letter whose bytes were cut (RAGMON_DLQ_MAX_VALUE_BYTES) is not replayed.

Letters are listed oldest first by when they were dead-lettered (not by partition), times in
ISO-8601 UTC. A letter rejected before its event id was read (a schema violation) shows the
event id found in its bytes. The options go before or after the action.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import re
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from agents.commands.timeopts import accept_negative_durations, duration
from monitor.config.errors import InputError, NotFoundError
from monitor.config.settings import Settings, load_settings

MARKER_PREFIX = "replayed:"
REPLAY_HEADER = "ragmon-replay-of"


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


def register(sub: Any) -> None:
    p = sub.add_parser(
        "dlq",
        help="list, show and replay dead letters",
        description="Dead letters of the dlq topic, read by time (no scan from the start), "
        "oldest first. Options go before or after the action.",
    )
    add_common_options(p, defaults=True)
    dsub = p.add_subparsers(dest="action", metavar="ACTION")
    actions = [dsub.add_parser("list", help="one line per letter: where, why, replayed or not")]
    show = dsub.add_parser("show", help="a letter in full, its bytes decoded when text")
    show.add_argument("letters", nargs="+", metavar="P:O", help="partition:offset in dlq")
    replay = dsub.add_parser(
        "replay",
        help="send letters back to the answers topic (dry run unless --yes; the dry run "
        "prints each record as it would be sent)",
    )
    actions += [show, replay]
    replay.add_argument("letters", nargs="*", metavar="P:O", help="letters (default: all)")
    replay.add_argument(
        "--transform", metavar="CMD", help="fix each letter: CMD reads it on stdin, writes it"
    )
    replay.add_argument("--yes", action="store_true", help="really send (default: a dry run)")
    for action in actions:
        # after the action too (`ragmon dlq list --json`); SUPPRESS keeps a value given
        # before the action when none is given after it
        add_common_options(action, defaults=False)
    p.set_defaults(func=run)


def add_common_options(p: argparse.ArgumentParser, *, defaults: bool) -> None:
    def default(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    p.add_argument(
        "-b",
        "--bootstrap-servers",
        metavar="HOST:PORT[,..]",
        default=default(None),
        help="Kafka brokers",
    )
    p.add_argument(
        "--since", default=default("24h"), help="how far back to look (default 24h; -2h too)"
    )
    p.add_argument(
        "--reason", action="append", default=default(None), help="only letters with this reason"
    )
    p.add_argument(
        "--json", action="store_true", default=default(False), help="JSON lines for scripts"
    )
    accept_negative_durations(p)


def run(args: argparse.Namespace) -> int:
    if not getattr(args, "action", None):
        raise InputError("give an action: ragmon dlq list | show P:O | replay [P:O ...]")
    settings = load_settings(
        getattr(args, "config", None), bootstrap_servers=args.bootstrap_servers
    )
    since = duration(args.since, "--since")
    letters = asyncio.run(read_letters(settings, time.time() - since))
    if args.reason:
        letters = [x for x in letters if x.record.get("reason") in args.reason]
    if args.action == "list":
        for letter in letters:
            print(json.dumps(summary(letter)) if args.json else list_line(letter))
        return 0
    wanted = {parse_position(p) for p in getattr(args, "letters", [])}
    chosen = [x for x in letters if not wanted or (x.partition, x.offset) in wanted]
    missing = wanted - {(x.partition, x.offset) for x in chosen}
    if missing:
        found = ", ".join(f"{p}:{o}" for p, o in sorted(missing))
        raise NotFoundError(
            f"no dead letter at {found} in the last {args.since.lstrip('-')} "
            f"(letters then: {', '.join(x.position for x in letters) or 'none'})",
            what=found,
            known=tuple(x.position for x in letters),
        )
    if args.action == "show":
        for letter in chosen:
            print(json.dumps(detail(letter)) if args.json else show_text(letter))
        return 0
    return asyncio.run(replay(settings, chosen, args.transform, args.yes))


def parse_position(text: str) -> tuple[int, int]:
    try:
        partition, offset = text.split(":")
        return int(partition), int(offset)
    except ValueError:
        raise InputError(f"a letter is PARTITION:OFFSET, got {text!r}") from None


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


def transformed(command: str | None, data: bytes) -> bytes:
    if not command:
        return data
    out = subprocess.run(shlex.split(command), input=data, capture_output=True, check=False)
    if out.returncode != 0:
        err = out.stderr.decode("utf-8", "replace").strip()[-300:]
        raise InputError(f"--transform exited {out.returncode}: {err}")
    return out.stdout


async def replay(
    settings: Settings, letters: list[Letter], command: str | None, really: bool
) -> int:
    from aiokafka import AIOKafkaProducer

    from agents.kafka.connection import client_kwargs
    from agents.kafka.topics import topic_specs

    answers = topic_specs(settings)["answers"].name
    todo, failed = [], 0
    for letter in letters:
        if letter.replays:
            print(f"{letter.position}: already replayed ({letter.replays[0].get('to')}); skipped")
            continue
        if letter.record.get("truncated"):
            print(f"{letter.position}: its bytes were cut when dead-lettered; not replayable")
            failed += 1
            continue
        try:
            data = transformed(command, letter.original())
        except InputError as exc:
            print(f"{letter.position}: {exc}; skipped")
            failed += 1
            continue
        todo.append((letter, data))
    if not really:
        for letter, data in todo:
            print(f"{letter.position}: would send {len(data)} bytes to {answers} (dry run):")
            # what would be sent, after --transform: the fix is checked before it is sent
            print(printable(data))
        print(f"dry run: {len(todo)} letters would be replayed; add --yes to send them")
        return 1 if failed else 0
    if not todo:
        print("nothing to replay")
        return 1 if failed else 0
    producer = AIOKafkaProducer(**client_kwargs(settings), acks="all")
    await producer.start()
    try:
        dlq = dlq_topic(settings)
        for letter, data in todo:
            key = letter.record.get("key_b64")
            origin = f"{dlq}/{letter.partition}/{letter.offset}".encode()
            sent = await producer.send_and_wait(
                answers,
                data,
                key=base64.b64decode(key) if key else None,
                headers=[(REPLAY_HEADER, origin)],
            )
            # The marker is written only after the answer is acknowledged: a crash between
            # the two can replay a letter twice, and the worker's event-id dedup then counts
            # it once.
            marker = {
                "replayed": {"partition": letter.partition, "offset": letter.offset},
                "to": {"topic": answers, "partition": sent.partition, "offset": sent.offset},
                "sha256": hashlib.sha256(data).hexdigest(),
                "transform": command,
                "replayed_at": round(time.time(), 6),
            }
            await producer.send_and_wait(
                dlq,
                json.dumps(marker).encode(),
                key=f"{MARKER_PREFIX}{letter.partition}:{letter.offset}".encode(),
                partition=letter.partition,
            )
            print(f"{letter.position}: sent to {answers} {sent.partition}:{sent.offset}")
    finally:
        await producer.stop()
    print(f"replayed {len(todo)} letters" + (f", {failed} not replayable" if failed else ""))
    return 1 if failed else 0
