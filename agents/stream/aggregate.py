"""The aggregate agent: rolling-window rates per app from the `scores` topic.

`scores` is keyed by app, so each app lives on one partition and exactly one worker owns its
window however many workers run. The window is made of `step`-second buckets; the rolling
figure at time t is the sum of the last ceil(size/step) buckets, i.e. between size − step and
size seconds of history, like the oldest hopping window containing t. A score record carries
one app's answers of a whole check batch: their counts are summed per bucket and the record
costs one changelog write (agents/stream/window_store.py: counts and counted ids in one entry, so a
crash cannot leave one without the other). Answers are placed by the time the check agent
counted them, so a late replay lands where it was first counted, and a judge record (labels of
the support and hallucination estimates, monitor/estimation) lands in the bucket of the answer
it labels (dropped once that bucket has left the window, where it no longer changes anything).
The figures, exact ratios and estimates alike, come from the window's summed vector through
monitor.alerting.alerts.WindowFigures.from_counts.

Gauges are recomputed every second from wall-clock time (so an idle app's window empties), only
for the apps whose partition this worker actively owns; after a rebalance the series of apps
it lost are removed, and alert states move with the table's changelog.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, overload

import structlog
from aiokafka.partitioner import murmur2

from agents.output.records import COUNT_FIELDS, add_vectors, parse_score_record, vector_to_counts
from agents.stream.alerting import Alerting
from agents.stream.human_scale import HumanScale
from agents.stream.window_store import CountedRecords
from agents.telemetry.metrics import Metrics
from monitor.alerting.alerts import WindowFigures
from monitor.config.settings import Settings

log = structlog.get_logger("ragmon.aggregate")

ALERT_EVAL_INTERVAL = 1.0  # seconds between rule evaluations per app
EXAMPLES_KEPT = 5
#: failing answers kept per app with their counts, to rank an alert's examples by how much
#: each moved the rate (the newest; ~100 bytes each)
CANDIDATES_KEPT = 2_000


def partition_for_app(app: str, partitions: int) -> int:
    """The `scores` partition of an app: the Kafka default partitioner on the raw key bytes,
    which is what the producer used when the check agent sent the record."""
    return int(murmur2(app.encode("utf-8")) & 0x7FFFFFFF) % partitions


def ratios(counts: dict[str, int], at: float = 0.0) -> dict[str, float | None]:
    """Every figure of a window (monitor.alerting.alerts.WindowFigures.from_counts): exact ratios, the
    support and hallucination estimates with their bounds, the cheap tier's own shares."""
    return dict(WindowFigures.from_counts("", at, **counts).values)


class Candidates(Sequence[tuple[str, Mapping[str, int]]]):
    """The window's failing answers as `Alerting.observe` takes them, (event id, counts by
    name), each answer's counts named only when read: the rules are evaluated every second
    per app and read the candidates only on a transition, and naming up to CANDIDATES_KEPT
    vectors at every evaluation was a sixth of a busy worker's samples (py-spy)."""

    def __init__(self, kept: list[tuple[str, Sequence[int]]]) -> None:
        self._kept = kept

    def __len__(self) -> int:
        return len(self._kept)

    @overload
    def __getitem__(self, i: int) -> tuple[str, Mapping[str, int]]: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[tuple[str, Mapping[str, int]]]: ...

    def __getitem__(
        self, i: int | slice
    ) -> tuple[str, Mapping[str, int]] | Sequence[tuple[str, Mapping[str, int]]]:
        if isinstance(i, slice):
            return Candidates(self._kept[i])
        event_id, vector = self._kept[i]
        return event_id, vector_to_counts(vector)


@dataclass
class Handled:
    counted: int = 0
    duplicates: int = 0
    corrected: int = 0
    stale: int = 0  # judge records whose bucket has left the window
    ignored: bool = False


class WindowAggregator:
    def __init__(
        self,
        settings: Settings,
        metrics: Metrics,
        store: CountedRecords,
        partitions: int,
        alerting: Alerting | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.metrics = metrics
        self.store = store
        self.partitions = partitions
        self.step = settings.window_step_seconds
        self.window_seconds = settings.window_seconds
        self.n_buckets = max(1, math.ceil(settings.window_seconds / self.step - 1e-9))
        self.alerting = alerting
        self.clock = clock
        self.owned: set[int] = set()
        #: scores partition → the offset after the last record read there (for /status)
        self.next_offsets: dict[int, int] = {}
        self.published: set[str] = set()
        self.examples: dict[str, deque[str]] = {}
        self.candidates: dict[str, deque[tuple[str, float, Sequence[int]]]] = {}
        self._last_eval: dict[str, float] = {}
        self.counted = 0
        self.duplicates = 0
        self.corrected = 0
        self._records = 0
        #: the human-scale figures (set by the app factory; None: judge scale only)
        self.human: HumanScale | None = None

    # --- in the stream ----------------------------------------------------------------------
    def handle(self, value: Any, key: Any = None, source: str | None = None) -> Handled:
        """One score record (inside stream iteration). `source` names it uniquely
        (`partition:offset`): the key of its entry in the window table."""
        if isinstance(key, bytes):
            key = key.decode("utf-8", "replace")
        batch = parse_score_record(value, key)
        if batch is None:
            log.warning("ignored a record that is not a score record", key=key)
            return Handled(ignored=True)
        now = self.clock()
        store = self.store
        if source is None:  # outside a stream (tests): a key of its own
            self._records += 1
            source = f"local:{self._records}"
        if store.counted(source):  # read again after a crash: its entry was written
            done = Handled(duplicates=len(batch.entries))
            self.metrics.duplicates.labels(app=batch.app).inc(done.duplicates)
            self.duplicates += done.duplicates
            return done
        judge = batch.kind == "judge"
        done, first = Handled(), []
        # each bucket's vectors, summed column by column once the record is read
        columns: dict[float, list[tuple[int, ...]]] = {}
        examples = self.examples.setdefault(batch.app, deque(maxlen=EXAMPLES_KEPT))
        candidates = self.candidates.setdefault(batch.app, deque(maxlen=CANDIDATES_KEPT))
        for entry in batch.entries:
            at = entry.counted_at if entry.counted_at is not None else now
            if judge and (entry.event_id is None or at < now - self.window_seconds - self.step):
                done.stale += 1
                continue
            if entry.event_id is not None:
                if store.seen(entry.event_id, at, batch.kind):
                    done.duplicates += 1
                    continue
                store.add_id(entry.event_id, at, batch.kind)
                first.append(entry.event_id)
            start = store.bucket(at)
            vectors = columns.get(start)
            if vectors is None:
                columns[start] = [entry.vector]
            else:
                vectors.append(entry.vector)
            if judge:
                done.corrected += 1
            else:
                done.counted += 1
                if entry.failed and entry.event_id:
                    examples.append(entry.event_id)
                    candidates.append((entry.event_id, at, entry.vector))  # a tuple: shared
        buckets = {start: [sum(c) for c in zip(*vs, strict=True)] for start, vs in columns.items()}
        if buckets or first:
            store.commit(source, batch.app, batch.kind, first, buckets, now)
        if done.duplicates:
            self.metrics.duplicates.labels(app=batch.app).inc(done.duplicates)
        self.counted += done.counted
        self.duplicates += done.duplicates
        self.corrected += done.corrected
        if done.counted or done.corrected:
            self._maybe_alert(batch.app)
        return done

    def _maybe_alert(self, app: str, now: float | None = None) -> None:
        """Evaluate the app's rules, at most once a second: when its answers arrive, and from
        the gauge timer (`publish`), so a rule's `for` runs out on time and a quiet app's
        window empties, whether or not another answer comes."""
        if self.alerting is None:
            return
        now = self.clock() if now is None else now
        if now - self._last_eval.get(app, 0.0) < ALERT_EVAL_INTERVAL:
            return
        self._last_eval[app] = now
        counts = vector_to_counts(self.rolling(app, now))
        figures = WindowFigures.from_counts(app, now, **counts)
        if self.human is not None:  # rules read the human-scale bounds once calibrated
            agreement = self.human.agreement(app, now)
            figures = replace(
                figures,
                values={**figures.values, **self.human.values(app, counts, now)},
                counts={**figures.counts, "judge_agreement": agreement[1] if agreement else 0},
                calibration=self.human.calibration(app, counts, now),
            )
        since = now - self.window_seconds
        candidates = Candidates(
            [(eid, vector) for eid, at, vector in self.candidates.get(app, ()) if at >= since]
        )
        self.alerting.observe(
            figures,
            examples=list(self.examples.get(app, ())),
            candidates=candidates,
            totals=counts,
        )

    # --- window arithmetic ------------------------------------------------------------------
    def rolling(self, app: str, now: float) -> list[int]:
        total = [0] * len(COUNT_FIELDS)
        for i in range(self.n_buckets):
            bucket = self.store.get(app, now - i * self.step)
            if bucket:
                total = add_vectors(total, bucket)
        return total

    def known_apps(self) -> set[str]:
        """Apps with buckets in memory (active and standby partitions alike)."""
        return self.store.apps()

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
        self.store.prune(now, self.window_seconds + 2 * self.step)
        exported: dict[str, dict[str, Any]] = {}
        for app in sorted(self.known_apps() | self.published):
            if not self.owns(app):
                if app in self.published:
                    self._remove(app)
                continue
            counts = vector_to_counts(self.rolling(app, now))
            values = ratios(counts, now)
            m = self.metrics
            m.window_events.labels(app=app).set(counts["events"])
            for name, gauge in (
                ("validity", m.validity_ratio),
                ("coverage", m.coverage_ratio),
                ("abstention", m.abstention_ratio),
            ):
                _set(gauge, app, values[name])
            for rate in ("support", "hallucination"):
                point, lower, upper = m.estimate_gauges(rate)
                _set(point, app, values[rate])
                _set(lower, app, values[f"{rate}_lower"])
                _set(upper, app, values[f"{rate}_upper"])
            m.window_judged_claims.labels(app=app).set(values["support_judged"] or 0)
            for verdict, key in (
                ("supported", "cheap_support"),
                ("not_supported", "cheap_hallucination"),
            ):
                share = values[key]
                if share is None:
                    with contextlib.suppress(KeyError):
                        m.cheap_verdict_share.remove(app, verdict)
                else:
                    m.cheap_verdict_share.labels(app=app, verdict=verdict).set(share)
            if self.alerting is not None:
                self.alerting.restore(app)
                self._maybe_alert(app, now)
            self.published.add(app)
            exported[app] = {"events": counts["events"], **values}
            if self.human is not None:
                exported[app].update(self.human.publish(app, counts, now))
        if self.human is not None:
            self.human.publish_judge(
                (a for a in self.known_apps() | self.published if self.owns(a)), now
            )
        return exported

    def _remove(self, app: str) -> None:
        for gauge in self.metrics.ratio_gauges():
            with contextlib.suppress(KeyError):
                gauge.remove(app)
        for verdict in ("supported", "not_supported"):
            with contextlib.suppress(KeyError):
                self.metrics.cheap_verdict_share.remove(app, verdict)
        if self.alerting is not None:
            self.alerting.forget(app)
        if self.human is not None:
            self.human.forget(app)
        self.published.discard(app)


def _set(gauge: Any, app: str, value: float | None) -> None:
    """A figure without data (no denominator, no estimate yet) has no series, not a 0."""
    if value is None:
        with contextlib.suppress(KeyError):
            gauge.remove(app)
    else:
        gauge.labels(app=app).set(value)
