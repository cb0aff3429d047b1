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
import shlex
import subprocess
import time
from typing import Any

from agents.commands.dlq_letters import (
    MARKER_PREFIX,
    Letter,
    detail,
    dlq_topic,
    list_line,
    printable,
    read_letters,
    show_text,
    summary,
)
from agents.commands.timeopts import accept_negative_durations, duration
from monitor.config.errors import InputError, NotFoundError
from monitor.config.settings import Settings, load_settings

REPLAY_HEADER = "ragmon-replay-of"


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
    if not defaults:
        # the global option too (agents/cli.py adds it to `dlq` itself), after the action
        p.add_argument(
            "--config", metavar="FILE", default=argparse.SUPPRESS, help="YAML settings file"
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
