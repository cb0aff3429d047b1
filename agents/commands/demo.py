"""`ragmon demo`: the whole monitor on this machine, with synthetic traffic that drifts."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
        help="embedded broker + worker + synthetic traffic with a live summary (Ctrl-C stops)",
        description="Start a local Kafka-compatible broker (tansu, in memory), a worker and a "
        "traffic generator: healthy answers first, then a drift towards invalid citations and "
        "unsupported claims. The rolling-window gauges are shown live and served on "
        "/metrics; alerts fire during the drift. Ctrl-C or SIGTERM stops everything.",
    )
    p.add_argument("--rate", type=float, default=25.0, help="events per second (default 25)")
    p.add_argument(
        "--healthy", type=float, default=45.0, metavar="S", help="seconds of healthy traffic (45)"
    )
    p.add_argument(
        "--ramp", type=float, default=60.0, metavar="S", help="seconds for the drift to peak (60)"
    )
    p.add_argument(
        "--duration", type=float, metavar="S", help="stop after this many seconds (default: never)"
    )
    p.add_argument(
        "--metrics-port", type=int, default=6066, help="port of /metrics (default 6066; 0 = any)"
    )
    p.add_argument(
        "--judge-rate",
        type=float,
        default=0.2,
        help="share of answers a local word-overlap judge sees, for the support and "
        "hallucination estimates (default 0.2; 0: judge off, no estimates)",
    )
    p.add_argument(
        "--workdir", metavar="DIR", help="where logs and the audit trail go (a temp dir)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agents.demo.run import Demo, DemoConfig
    from monitor.config.errors import ConfigError

    if args.rate <= 0:
        raise ConfigError("--rate must be positive")
    if not 0 <= args.judge_rate <= 1:
        raise ConfigError("--judge-rate must be between 0 and 1")
    config = DemoConfig(
        rate=args.rate,
        healthy_seconds=args.healthy,
        ramp_seconds=args.ramp,
        duration=args.duration,
        metrics_port=args.metrics_port,
        workdir=args.workdir,
        judge_rate=args.judge_rate,
    )
    return Demo(config).run()
