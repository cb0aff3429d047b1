"""`ragmon label import FILE | list | export`: human labels of claims on the `labels` topic.

Labels calibrate the LLM judge (its sensitivity and specificity) and put the support and
hallucination rates on the human scale (docs/estimation.md). The topic is compacted and keyed
`event_id:claim_index`: the latest label of a claim wins.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from monitor.config.errors import InputError
from monitor.config.settings import Settings, load_settings
from monitor.records.labels import HumanLabel, decode, encode, export_csv, parse_import


def register(sub: Any) -> None:
    p = sub.add_parser(
        "label",
        help="import, list and export human labels of claims (the judge's calibration)",
        description="Human labels of claims on the labels topic: they measure the LLM judge "
        "and put the support and hallucination rates on the human scale.",
    )
    p.add_argument("-b", "--bootstrap-servers", metavar="HOST:PORT[,..]", help="Kafka brokers")
    p.add_argument(
        "--max-wait",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long to wait for an unreachable broker (default 30)",
    )
    lsub = p.add_subparsers(dest="action", metavar="ACTION")
    imp = lsub.add_parser(
        "import",
        help="publish labels from a JSONL or CSV file",
        description="Rows: event_id, claim_index or claim_text, label (supported, "
        "partially_supported, not_supported, abstain / can't tell), optional reviewer. "
        "CSV needs a header row. The first bad row stops the import before anything is sent.",
    )
    imp.add_argument("file", metavar="FILE", help="JSONL or CSV (- for stdin)")
    imp.add_argument("--reviewer", help="who gave the labels, for rows without a reviewer")
    lst = lsub.add_parser("list", help="the latest label of every claim, one line each")
    lst.add_argument("--event", metavar="ID", help="only this event's claims")
    lst.add_argument("--json", action="store_true", help="JSON lines")
    exp = lsub.add_parser("export", help="every latest label as JSONL or CSV")
    exp.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    exp.add_argument("-o", "--output", metavar="FILE", help="write here (default stdout)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "action", None)
    if not action:
        raise InputError("ragmon label: say import FILE, list or export")
    settings = load_settings(
        getattr(args, "config", None), bootstrap_servers=args.bootstrap_servers
    )
    if action == "import":
        return _import(args, settings)
    labels = asyncio.run(read_labels(settings, args.max_wait))
    if action == "list":
        for lab in labels:
            if args.event and lab.event_id != args.event:
                continue
            print(json.dumps(lab.to_dict(), ensure_ascii=False) if args.json else _line(lab))
        return 0
    text = (
        export_csv(labels)
        if args.format == "csv"
        else "".join(json.dumps(lab.to_dict(), ensure_ascii=False) + "\n" for lab in labels)
    )
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise InputError(f"cannot write {args.output}: {exc.strerror}") from None
    else:
        sys.stdout.write(text)
    return 0


def _import(args: argparse.Namespace, settings: Settings) -> int:
    try:
        text = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()  # noqa: SIM115
    except OSError as exc:
        raise InputError(f"cannot read {args.file}: {exc.strerror}") from None
    labels = parse_import(text, args.file, time.time(), reviewer=args.reviewer)
    sent, failed = asyncio.run(publish_labels(settings, labels, args.max_wait))
    print(f"label: {sent} labels sent, {failed} failed", file=sys.stderr)
    return 0 if failed == 0 else 1


def labels_topic(settings: Settings) -> Any:
    from agents.kafka.topics import topic_specs

    return topic_specs(settings)["labels"]


async def publish_labels(
    settings: Settings, labels: list[HumanLabel], max_wait: float = 30.0
) -> tuple[int, int]:
    """Send labels keyed by claim; (acknowledged, failed)."""
    from agents.kafka.connection import client_kwargs, wait_for_broker
    from agents.kafka.produce import Publisher
    from agents.kafka.topics import ensure_topics

    spec = labels_topic(settings)
    await wait_for_broker(settings, max_wait=max_wait)
    await ensure_topics(settings, client_kwargs(settings), {"labels": spec})
    publisher = Publisher(settings, spec.name)
    await publisher.start()
    try:
        for lab in labels:
            key, value = encode(lab)
            await publisher.send(value, key=key)
    finally:
        await publisher.stop()
    return publisher.stats.sent, publisher.stats.failed


async def read_labels(settings: Settings, max_wait: float = 30.0) -> list[HumanLabel]:
    """The latest label per key, in key order."""
    from agents.kafka.connection import wait_for_broker
    from agents.kafka.reader import read_topic

    await wait_for_broker(settings, max_wait=max_wait)
    latest: dict[str, HumanLabel] = {}
    async for m in read_topic(settings, labels_topic(settings).name):
        lab = decode(m.value)
        if lab is None:
            continue
        old = latest.get(lab.key())
        if lab.judge is None and old is not None and old.judge is not None:
            lab = lab.with_judge(old.judge)
        latest[lab.key()] = lab
    return [latest[k] for k in sorted(latest)]


def _line(lab: HumanLabel) -> str:
    claim = lab.claim_index if lab.claim_index is not None else repr(lab.claim_text)
    judge = f" judge={lab.judge.verdict} ({lab.judge.model})" if lab.judge else ""
    who = f" by {lab.reviewer}" if lab.reviewer else ""
    return f"{lab.event_id} claim {claim}: {lab.label} [{lab.source}{who}]{judge}"
