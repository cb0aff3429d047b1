"""`ragmon check FILE|- [-o OUT]`: the cheap checks offline, JSONL in, verdict JSONL out."""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Iterator
from typing import IO, Any

from agents.checking.gc_tuning import tune_gc
from agents.output.jsonout import dumps
from monitor.check import check_bytes
from monitor.config.errors import InputError
from monitor.config.settings import load_settings
from monitor.output.verdict_io import rejection_to_dict, verdict_to_dict
from monitor.records.models import Rejection, Verdict


def register(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="check answer events offline (JSONL in, verdict JSONL out)",
        description="Run the cheap checks on answer events from a JSONL file (or - for stdin) "
        "and write one verdict per input line, in order; rejected lines get a verdict with "
        "`error`. A summary goes to stderr.",
    )
    p.add_argument("input", metavar="FILE", help="JSONL answer events, or - for stdin")
    p.add_argument("-o", "--output", metavar="OUT", help="verdict JSONL (default: stdout)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    p.set_defaults(func=run)


def _lines(stream: IO[bytes]) -> Iterator[bytes]:
    for line in stream:
        yield line.rstrip(b"\r\n")


class Summary:
    def __init__(self) -> None:
        self.events = 0
        self.rejected: Counter[str] = Counter()
        self.citations: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.claims: Counter[str] = Counter()

    def add(self, outcome: Verdict | Rejection) -> None:
        self.events += 1
        if isinstance(outcome, Rejection):
            self.rejected[outcome.reason] += 1
            return
        for c in outcome.citations:
            self.citations[c.status] += 1
            if c.error:
                self.errors[c.error] += 1
        for cl in outcome.claims:
            self.claims[cl.support.verdict] += 1

    def render(self, seconds: float) -> str:
        def fmt(counter: Counter[str]) -> str:
            return ", ".join(f"{k}={v}" for k, v in sorted(counter.items())) or "none"

        rate = self.events / seconds if seconds > 0 else float("inf")
        return "\n".join(
            [
                f"events:    {self.events} ({sum(self.rejected.values())} rejected: {fmt(self.rejected)})",
                f"citations: {sum(self.citations.values())} ({fmt(self.citations)})",
                f"errors:    {fmt(self.errors)}",
                f"claims:    {sum(self.claims.values())} ({fmt(self.claims)})",
                f"time:      {seconds:.2f} s, {rate:,.0f} events/s",
            ]
        )


def run(args: argparse.Namespace) -> int:
    settings = load_settings(getattr(args, "config", None))
    options = settings.check_options()
    try:
        source: IO[bytes] = sys.stdin.buffer if args.input == "-" else open(args.input, "rb")  # noqa: SIM115
    except OSError as exc:
        raise InputError(f"cannot read {args.input}: {exc.strerror}") from None
    try:
        # bytes, encoded as the worker encodes the records it publishes (agents/output/jsonout.py):
        # a RAGTruth verdict (~2.5 kB) takes the standard library ~3.5x orjson's time, ~5% of
        # its answer's whole check
        sink: IO[bytes] = (
            open(args.output, "wb") if args.output else sys.stdout.buffer  # noqa: SIM115
        )
    except OSError as exc:
        source.close()
        raise InputError(f"cannot write {args.output}: {exc.strerror}") from None
    progress = not args.quiet and args.input != "-"
    tty = sys.stderr.isatty()
    tune_gc()  # a verdict's objects die young: fewer collections (agents/checking/gc_tuning.py)
    summary = Summary()
    started = last_report = time.perf_counter()
    try:
        for line in _lines(source):
            outcome = check_bytes(line, options)
            summary.add(outcome)
            record = (
                rejection_to_dict(outcome)
                if isinstance(outcome, Rejection)
                else verdict_to_dict(outcome, options.cited_text_max_chars)
            )
            sink.write(dumps(record) + b"\n")
            if progress and summary.events % 200 == 0:
                now = time.perf_counter()
                # A terminal gets a live counter; a log file a line every few seconds.
                if tty:
                    print(f"\r{summary.events} events checked", end="", file=sys.stderr, flush=True)
                elif now - last_report >= 5.0:
                    print(f"{summary.events} events checked", file=sys.stderr, flush=True)
                    last_report = now
    finally:
        if source is not sys.stdin.buffer:
            source.close()
        if sink is not sys.stdout.buffer:
            sink.close()
        else:
            sink.flush()
    if progress and tty:
        print("\r", end="", file=sys.stderr)
    if not args.quiet:
        print(summary.render(time.perf_counter() - started), file=sys.stderr)
    return 0
