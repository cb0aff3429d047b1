"""Reads the whole `labels` topic into the worker's LabelJoin and keeps following it."""

from __future__ import annotations

import asyncio
import contextlib

import structlog

from agents.kafka.reader import read_topic
from agents.labelling.join import LabelJoin
from monitor.config.settings import Settings
from monitor.records.labels import decode

log = structlog.get_logger("ragmon.labels")

RETRY_SECONDS = 2.0


async def follow_labels(settings: Settings, topic: str, join: LabelJoin) -> None:
    """From the topic's start, forever (a task of the worker). Records that are not labels are
    skipped; a broker that is away is waited for."""
    while True:
        try:
            async for message in read_topic(settings, topic, follow=True):
                label = decode(message.value)
                if label is not None:
                    await join.on_label(label)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the broker away, the topic not created yet: try again
            log.warning("labels feed interrupted", error=str(exc))
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(RETRY_SECONDS)
