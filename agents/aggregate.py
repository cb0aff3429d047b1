"""The aggregate agent: rolling-window rates per app from the `scores` topic.

`scores` is keyed by app, so each app lives on one partition and exactly one worker owns its
window however many workers run. The window is a Faust tumbling table of `step`-second buckets
(one changelog write per event, where a hopping table would write size/step of them); the
rolling figure at time t is the sum of the last ceil(size/step) buckets, i.e. between
size − step and size seconds of history, like the oldest hopping window containing t.
Buckets are placed by the score record's timestamp (the time the check agent processed the
answer), so a late replay lands where it was first processed, not in the current bucket.

Gauges are recomputed every second from wall-clock time (so an idle app's window empties), only
for the apps whose partition this worker actively owns; after a rebalance the series of apps
it lost are removed, and alert states move with the table's changelog.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import structlog
from aiokafka.partitioner import murmur2

from agents.alerting import Alerting
from agents.dedup import WindowedSeen
from agents.metrics import Metrics
from agents.records import COUNT_FIELDS, add_vectors, parse_score_record, vector_to_counts
from monitor.alerts import WindowFigures
from monitor.settings import Settings

log = structlog.get_logger("ragmon.aggregate")

ALERT_EVAL_INTERVAL = 1.0  # seconds between rule evaluations per app
EXAMPLES_KEPT = 5


def partition_for_app(app: str, partitions: int) -> int:
    """The `scores` partition of an app: the Kafka default partitioner on the raw key bytes,
    which is what the producer used when the check agent sent the record."""
    return int(murmur2(app.encode("utf-8")) & 0x7FFFFFFF) % partitions


def ratios(counts: dict[str, int]) -> dict[str, float | None]:
    def ratio(num: str, den: str) -> float | None:
        return counts[num] / counts[den] if counts[den] else None

    return {
        "validity": ratio("valid_citations", "citations"),
        "support": ratio("supported_claims", "decided_claims"),
        "hallucination": ratio("unsupported_claims", "claims"),
        "coverage": ratio("cited_claims", "claims"),
    }


class WindowAggregator:
    def __init__(
        self,
        settings: Settings,
        metrics: Metrics,
        buckets: Any,
        partitions: int,
        seen: WindowedSeen | None = None,
        alerting: Alerting | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.metrics = metrics
        self.buckets = buckets  # WindowWrapper of a tumbling table, values = count vectors
        self.partitions = partitions
        self.step = settings.window_step_seconds
        self.n_buckets = max(1, math.ceil(settings.window_seconds / self.step - 1e-9))
        self.seen = seen
        self.alerting = alerting
        self.clock = clock
        self.owned: set[int] = set()
        self.published: set[str] = set()
        self.examples: dict[str, deque[str]] = {}
        self._last_eval: dict[str, float] = {}
        self.counted = 0
        self.duplicates = 0

    # --- in the stream ----------------------------------------------------------------------
    def handle(self, value: Any, key: Any = None) -> str:
        """One score record (inside stream iteration): counted, duplicate or ignored."""
        if isinstance(key, bytes):
            key = key.decode("utf-8", "replace")
        record = parse_score_record(value, key)
        if record is None:
            log.warning("ignored a record that is not a score record", key=key)
            return "ignored"
        if record.event_id and self.seen is not None and self.seen.check_and_mark(record.event_id):
            self.metrics.duplicates.labels(app=record.app).inc()
            self.duplicates += 1
            return "duplicate"
        self.buckets[record.app].apply(add_vectors, list(record.vector))
        self.counted += 1
        if record.failed and record.event_id:
            self.examples.setdefault(record.app, deque(maxlen=EXAMPLES_KEPT)).append(
                record.event_id
            )
        self._maybe_alert(record.app)
        return "counted"

    def _maybe_alert(self, app: str) -> None:
        if self.alerting is None:
            return
        now = self.clock()
        if now - self._last_eval.get(app, 0.0) < ALERT_EVAL_INTERVAL:
            return
        self._last_eval[app] = now
        counts = vector_to_counts(self.rolling(app, now))
        figures = WindowFigures.from_counts(app, now, **counts)
        self.alerting.observe(figures, examples=list(self.examples.get(app, ())))

    # --- window arithmetic ------------------------------------------------------------------
    def rolling(self, app: str, now: float) -> list[int]:
        total = [0] * len(COUNT_FIELDS)
        window = self.buckets.table.window
        table = self.buckets.table
        for i in range(self.n_buckets):
            bucket = table.get((app, window.current(now - i * self.step)))
            if bucket:
                total = add_vectors(total, bucket)
        return total

    def known_apps(self) -> set[str]:
        """Apps with buckets in the local store (active and standby partitions alike)."""
        return {k[0] for k in list(self.buckets.table.data.keys()) if isinstance(k, tuple)}

    # --- gauges -----------------------------------------------------------------------------
    def owns(self, app: str) -> bool:
        return partition_for_app(app, self.partitions) in self.owned

    def sync_ownership(self, partitions: Iterable[int]) -> None:
        """After a rebalance: drop the series of apps now owned by another worker."""
        self.owned = set(partitions)
        for app in sorted(self.published):
            if not self.owns(app):
                self._remove(app)
                log.info("app moved to another worker", app=app)

    def publish(self, now: float | None = None) -> dict[str, dict[str, Any]]:
        """Recompute every owned app's gauges; returns what was exported (for /status)."""
        now = self.clock() if now is None else now
        exported: dict[str, dict[str, Any]] = {}
        for app in sorted(self.known_apps() | self.published):
            if not self.owns(app):
                if app in self.published:
                    self._remove(app)
                continue
            counts = vector_to_counts(self.rolling(app, now))
            values = ratios(counts)
            m = self.metrics
            m.window_events.labels(app=app).set(counts["events"])
            for name, gauge in (
                ("validity", m.validity_ratio),
                ("support", m.support_ratio),
                ("hallucination", m.hallucination_ratio),
                ("coverage", m.coverage_ratio),
            ):
                value = values[name]
                if value is None:
                    with contextlib.suppress(KeyError):
                        gauge.remove(app)
                else:
                    gauge.labels(app=app).set(value)
            if self.alerting is not None:
                self.alerting.restore(app)
            self.published.add(app)
            exported[app] = {"events": counts["events"], **values}
        return exported

    def _remove(self, app: str) -> None:
        for gauge in self.metrics.ratio_gauges():
            with contextlib.suppress(KeyError):
                gauge.remove(app)
        if self.alerting is not None:
            self.alerting.forget(app)
        self.published.discard(app)
