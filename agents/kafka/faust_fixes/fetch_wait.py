"""The longest a worker's fetch request may wait on the broker (`RAGMON_FETCH_MAX_WAIT_MS`).

Faust creates its worker consumer with a fixed `fetch_max_wait_ms` of 1.5 s. Kafka answers a
fetch as soon as data is there, so the wait only paces idle partitions; tansu answers when the
wait is over, so every record waited up to 1.5 s (the end-to-end lag floor, and idle time in a
backlog). The consumer keeps the value until it starts: it is replaced right after Faust
creates it, for the apps that asked (`install`), leaving every other app in the process alone.

Shown by: tests/agents/kafka/test_fetch_wait.py (each app gets its own wait); the lag figures
in docs/guarantees.md.
"""

from __future__ import annotations

from typing import Any

from faust.transport.drivers.aiokafka import AIOKafkaConsumerThread

_ATTR = "_ragmon_fetch_max_wait_ms"


def install(app: Any, fetch_max_wait_ms: int) -> None:
    setattr(app, _ATTR, fetch_max_wait_ms)
    if getattr(AIOKafkaConsumerThread, "_ragmon_fetch_wait", False):
        return
    create = AIOKafkaConsumerThread._create_worker_consumer

    def create_worker_consumer(self: Any, transport: Any) -> Any:
        consumer = create(self, transport)
        wait = getattr(self.app, _ATTR, None)
        if wait is not None:
            consumer._fetch_max_wait_ms = wait  # read by consumer.start() for its fetcher
        return consumer

    AIOKafkaConsumerThread._create_worker_consumer = create_worker_consumer  # type: ignore[method-assign]
    AIOKafkaConsumerThread._ragmon_fetch_wait = True  # type: ignore[attr-defined]
