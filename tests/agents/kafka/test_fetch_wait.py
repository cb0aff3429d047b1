"""RAGMON_FETCH_MAX_WAIT_MS reaches the worker consumer Faust builds, per app."""

from __future__ import annotations

from typing import Any

from agents.stream.app import create_app
from monitor.config.settings import load_settings


def _worker_consumer(**kw: Any) -> Any:
    rapp = create_app(load_settings(metrics_port=0, **kw))
    thread = rapp.faust.consumer._thread  # Faust's AIOKafkaConsumerThread (not started)
    return thread._create_worker_consumer(rapp.faust.transport)


async def test_each_app_gets_its_own_fetch_wait() -> None:
    # aiokafka builds its consumer only inside a running loop
    assert _worker_consumer(fetch_max_wait_ms=120)._fetch_max_wait_ms == 120
    assert _worker_consumer()._fetch_max_wait_ms == 500  # the default, not Faust's 1500
    assert _worker_consumer(fetch_max_wait_ms=1500)._fetch_max_wait_ms == 1500
