"""The Faust side of the worker: its configuration from the settings object, and the app's topic
channels (one per topic role, raw bytes or JSON)."""

from __future__ import annotations

from typing import Any

import faust

from agents.kafka.broker import free_port
from agents.kafka.connection import bootstrap_servers, faust_credentials
from agents.kafka.topics import TopicSpec
from monitor.config.settings import Settings

__all__ = ["faust_config", "topic_channels"]


def faust_config(settings: Settings) -> dict[str, Any]:
    return {
        "broker": [f"kafka://{s}" for s in bootstrap_servers(settings)],
        "broker_credentials": faust_credentials(settings),
        "autodiscover": False,
        "store": "memory://",
        "datadir": settings.data_dir,
        "topic_partitions": settings.partitions,
        "topic_replication_factor": settings.replicas,
        "broker_session_timeout": settings.broker_session_timeout,
        "broker_heartbeat_interval": settings.broker_heartbeat_interval,
        "broker_rebalance_timeout": settings.broker_rebalance_timeout,
        "web_enabled": True,
        "web_bind": settings.metrics_host,
        "web_host": settings.metrics_host,
        # Faust refuses port 0; "any free port" is resolved here instead.
        "web_port": settings.metrics_port or free_port(settings.metrics_host),
        "worker_redirect_stdouts": False,
        # A record up to max_event_bytes must be fetchable to be dead-lettered, not stall the
        # partition; 1 MiB is the floor Kafka clients use.
        "consumer_max_fetch_size": max(1 << 20, settings.max_event_bytes * 3),
        # aiokafka holds one open batch per partition: a full one makes the next record wait a
        # broker round trip (Faust's 16 KiB: every ~4th audit record; settings_stream.py)
        "producer_max_batch_size": settings.producer_batch_bytes,
    }


def topic_channels(app: faust.App, specs: dict[str, TopicSpec]) -> dict[str, Any]:
    def topic(role: str, value_serializer: str) -> Any:
        spec = specs[role]
        return app.topic(
            spec.name,
            partitions=spec.partitions,
            key_serializer="raw",
            value_serializer=value_serializer,
        )

    return {
        "answers": topic("answers", "raw"),
        "scores": topic("scores", "raw"),
        "dlq": topic("dlq", "json"),
        "audit": topic("audit", "raw"),
        "audit_json": topic("audit", "json"),
        "judge-requests": topic("judge-requests", "json"),
        "verdicts": topic("verdicts", "json"),
        "labels": topic("labels", "raw"),
    }
