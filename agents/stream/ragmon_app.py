"""What `create_app` returns: `RagmonApp`, the Faust app with the parts a caller reaches (settings,
metrics, topics, the check and aggregate agents' state, the judge, the label join), and the
worker's `/status` body."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import faust

from agents.checking.pool import CheckPool
from agents.kafka.topics import TopicSpec
from agents.labelling.join import LabelJoin
from agents.output.outbox import Outbox, Publish
from agents.stream.aggregate import WindowAggregator
from agents.stream.check_agent import CheckProcessor
from agents.telemetry.metrics import Metrics
from monitor.config.settings import Settings

if TYPE_CHECKING:
    from agents.judging.agent import JudgeRunner

__all__ = ["RagmonApp"]


@dataclass
class RagmonApp:
    faust: faust.App
    settings: Settings
    metrics: Metrics
    topics: dict[str, TopicSpec]
    channels: dict[str, Any]
    processor: CheckProcessor
    aggregator: WindowAggregator
    outbox: Outbox
    publish: Publish  # replaceable (tests): where the check agent's records go
    started_at: float = field(default_factory=time.time)
    broker_up: bool | None = None
    last_gauges: dict[str, dict[str, Any]] = field(default_factory=dict)
    check_pool: CheckPool | None = None
    judge: JudgeRunner | None = None  # set when the judge is enabled
    label_join: LabelJoin | None = None  # human labels and calibration pairs

    def close(self) -> None:
        """What outlives Faust's own shutdown: the check processes."""
        if self.check_pool is not None:
            self.check_pool.close()

    def assigned(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        try:
            actives = self.faust.assignor.assigned_actives()
        except Exception:  # before the first assignment the assignor has no state yet
            return out
        for tp in actives:
            out.setdefault(tp.topic, []).append(tp.partition)
        return {k: sorted(v) for k, v in sorted(out.items())}

    def status(self) -> dict[str, Any]:
        return {
            "app_id": self.settings.app_id,
            "uptime_s": round(time.time() - self.started_at, 1),
            "broker_up": self.broker_up,
            "assigned": self.assigned(),
            "processed": dict(self.processor.processed),
            "next_offsets": _by_partition(self.processor.next_offsets),
            "aggregate": {
                "counted": self.aggregator.counted,
                "duplicates": self.aggregator.duplicates,
                "owned_partitions": sorted(self.aggregator.owned),
                "next_offsets": _by_partition(self.aggregator.next_offsets),
            },
            "gauges": self.last_gauges,
            "firing": self.aggregator.alerting.firing_links()
            if self.aggregator.alerting is not None
            else [],
        }


def _by_partition(offsets: dict[int, int]) -> dict[str, int]:
    """partition → offset as JSON keys, in partition order."""
    return {str(p): o for p, o in sorted(offsets.items())}
