"""`ragmon audit` on a topic of 100,000 audit records (a benchmark, not a test).

usage: .venv/bin/python -m tests.bench.audit_seek [--n 100000] [--recent 1000]

Starts the embedded broker, publishes `n − recent` audit records (real worker records: an
answer checked and audited), waits a few seconds, publishes `recent` more, then times
`ragmon audit --app shop --from T --verdict not_supported` (T between the two groups: what
`--since 10m` does on a topic whose older records are older than 10 minutes) and, for
comparison, the same query over the whole topic (`--from 0`), each a fresh process, as a user
runs them. Target: under 2 s for the recent range.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def records(n: int, prefix: str) -> list[tuple[bytes, bytes]]:
    from tests.integration.test_audit_cli import audit_records
    from tests.integration.test_evidence_browser import GOOD, SMALL, WORST

    kinds = [GOOD, GOOD, GOOD, SMALL, WORST]
    templates = audit_records([(f"{prefix}-{i}", kinds[i]) for i in range(len(kinds))])
    out = []
    for i in range(n):
        _, value = templates[i % len(templates)]
        record = json.loads(value)
        record["event_id"] = f"{prefix}-{i:06d}"
        out.append((record["event_id"].encode(), json.dumps(record).encode()))
    return out


async def publish(bootstrap: str, topic: str, items: list[tuple[bytes, bytes]]) -> None:
    from aiokafka import AIOKafkaProducer

    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=20, max_batch_size=512_000)
    await producer.start()
    try:
        for start in range(0, len(items), 5_000):
            futures = [
                await producer.send(topic, value, key=key)
                for key, value in items[start : start + 5_000]
            ]
            await asyncio.gather(*futures)
    finally:
        await producer.stop()


def timed(bootstrap: str, prefix: str, *args: str) -> tuple[float, int]:
    env = {**os.environ, "RAGMON_BOOTSTRAP_SERVERS": bootstrap, "RAGMON_TOPIC_PREFIX": prefix}
    started = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "agents.cli", "audit", "--app", "shop", "--json", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - started, len(out.stdout.splitlines())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--recent", type=int, default=1_000)
    args = parser.parse_args()
    from agents.kafka.broker import EmbeddedBroker

    broker = EmbeddedBroker()
    broker.start()
    try:
        prefix = "bench."
        topic = prefix + "audit"
        started = time.perf_counter()
        asyncio.run(publish(broker.bootstrap, topic, records(args.n - args.recent, "old")))
        time.sleep(3)
        middle = time.time()
        time.sleep(1)
        asyncio.run(publish(broker.bootstrap, topic, records(args.recent, "new")))
        print(f"published {args.n} audit records in {time.perf_counter() - started:.1f} s")
        for label, since in (("recent range", f"{middle:.3f}"), ("whole topic", "0")):
            query = ("--from", since, "--verdict", "not_supported", "--limit", "500")
            runs = [timed(broker.bootstrap, prefix, *query) for _ in range(3)]
            seconds = sorted(s for s, _ in runs)
            print(
                f"{label}: {runs[0][1]} answers listed; wall time per run (process start "
                f"included) {', '.join(f'{s:.2f}' for s in seconds)} s, median {seconds[1]:.2f} s"
            )
    finally:
        broker.stop()


if __name__ == "__main__":
    main()
