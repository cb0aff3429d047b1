"""`ragmon produce FILE|- [--rate N]`: publish answer events (JSON lines) to the answers topic."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import IO, Any

from monitor.config.errors import InputError
from monitor.config.settings import load_settings


def register(sub: Any) -> None:
    p = sub.add_parser(
        "produce",
        help="publish answer events from a JSONL file (or - for stdin) to Kafka",
        description="Publish one record per non-blank line to the answers topic, keyed by the "
        "event's event_id, and report progress on stderr. Lines are sent as they are (invalid "
        "ones too: the worker dead-letters them).",
    )
    p.add_argument("input", metavar="FILE", help="JSONL answer events, or - for stdin")
    p.add_argument(
        "--rate", type=float, metavar="N", help="events per second (default: as fast as possible)"
    )
    p.add_argument("-b", "--bootstrap-servers", metavar="HOST:PORT[,..]", help="Kafka brokers")
    p.add_argument("--topic", help="topic name (default: the answers topic of the settings)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.add_argument(
        "--max-wait",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long to wait for an unreachable broker before giving up (default 30)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agents.kafka.connection import client_kwargs, wait_for_broker
    from agents.kafka.produce import produce_lines, read_lines
    from agents.kafka.topics import TopicSpec, ensure_topics, topic_specs
    from agents.telemetry.logs import configure_logging

    # produce reports the broker's state itself (one line per try while it waits, then the
    # failed sends in its summary): aiokafka's own connection lines would only repeat that, in
    # another format, between ours; what else logs goes through our renderer
    configure_logging()
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)

    if args.rate is not None and args.rate <= 0:
        raise InputError("--rate must be positive")
    settings = load_settings(
        getattr(args, "config", None), bootstrap_servers=args.bootstrap_servers
    )
    answers = topic_specs(settings)["answers"]
    topic = args.topic or answers.name
    try:
        source: IO[bytes] = sys.stdin.buffer if args.input == "-" else open(args.input, "rb")  # noqa: SIM115
    except OSError as exc:
        raise InputError(f"cannot read {args.input}: {exc.strerror}") from None

    def progress(stats: Any, queued: int) -> None:
        print(
            f"produce: {stats.sent} acknowledged, {queued} queued, {stats.failed} failed, "
            f"{stats.rate:,.0f} events/s",
            file=sys.stderr,
        )

    async def main() -> Any:
        await wait_for_broker(settings, max_wait=args.max_wait)
        spec = TopicSpec("answers", topic, answers.partitions)
        await ensure_topics(settings, client_kwargs(settings), {"answers": spec})
        return await produce_lines(
            settings,
            read_lines(source),
            topic=topic,
            rate=args.rate,
            progress=None if args.quiet else progress,
        )

    try:
        stats = asyncio.run(main())
    finally:
        if source is not sys.stdin.buffer:
            source.close()
    print(
        f"produce: {stats.sent} events to {topic} in {stats.seconds:.1f} s "
        f"({stats.rate:,.0f} events/s), {stats.failed} failed",
        file=sys.stderr,
    )
    for error in stats.errors:
        print(f"produce: error: {error}", file=sys.stderr)
    return 0 if stats.failed == 0 else 1
