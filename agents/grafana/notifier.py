"""The alert notifier: `GrafanaNotifier` posts alert annotations from a background thread with a
bounded queue and retries, so a down or slow Grafana never blocks the stream."""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

import structlog

from agents.grafana.annotations import ALERT_TAG, annotation_tags, annotation_text
from agents.grafana.client import Grafana
from agents.telemetry.metrics import Metrics
from monitor.alerting.alerts import Transition
from monitor.config.errors import GrafanaError

log = structlog.get_logger("ragmon.grafana")

RETRYABLE = frozenset({"timeout", "server_error", "unreachable"})


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


class GrafanaNotifier:
    """Background sender of alert annotations. `submit` never blocks and never raises."""

    def __init__(
        self,
        grafana: Grafana,
        metrics: Metrics | None = None,
        *,
        queue_size: int = 100,
        max_attempts: int = 5,
        backoff_seconds: float = 1.0,
        max_backoff_seconds: float = 60.0,
    ) -> None:
        self.grafana = grafana
        self.metrics = metrics
        self.max_attempts = max_attempts
        self.backoff = backoff_seconds
        self.max_backoff = max_backoff_seconds
        self._queue: deque[tuple[Transition, int]] = deque()
        self._size = queue_size
        self._cond = threading.Condition()
        self._busy = False
        self._stopping = False
        self._ids: dict[str, int] = {}  # notification id → annotation id, saves a lookup
        self._thread = threading.Thread(target=self._run, name="ragmon-grafana", daemon=True)
        self._thread.start()

    def _count(self, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.alert_notifications.labels(sink="grafana", outcome=outcome).inc()

    def submit(self, transition: Transition) -> None:
        with self._cond:
            if len(self._queue) >= self._size:
                dropped, _ = self._queue.popleft()
                self._count("dropped")
                log.warning(
                    "grafana queue full, dropped a notification",
                    rule=dropped.rule.name,
                    app=dropped.app,
                )
            self._queue.append((transition, 0))
            self._cond.notify_all()

    def pending(self) -> int:
        with self._cond:
            return len(self._queue) + (1 if self._busy else 0)

    def drain(self, timeout: float) -> bool:
        """Wait until every submitted notification is sent or given up (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def close(self, timeout: float = 5.0) -> None:
        self.drain(timeout)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    return
                transition, attempt = self._queue.popleft()
                self._busy = True
            delay = self._attempt(transition, attempt)
            with self._cond:
                if delay is not None and len(self._queue) < self._size:
                    # back at the head: a resolve must not overtake its firing
                    self._queue.appendleft((transition, attempt + 1))
                elif delay is not None:
                    self._count("dropped")
                self._busy = False
                self._cond.notify_all()
                if delay is not None:
                    self._cond.wait_for(lambda: self._stopping, timeout=delay)

    def _attempt(self, t: Transition, attempt: int) -> float | None:
        """One try; the backoff before the next try, or None when done (sent or given up)."""
        try:
            outcome = self._send(t)
        except GrafanaError as exc:
            if exc.reason in RETRYABLE and attempt + 1 < self.max_attempts:
                self._count("retry")
                log.warning(
                    "grafana notification failed, will retry", error=str(exc), attempt=attempt + 1
                )
                return float(min(self.backoff * 2.0**attempt, self.max_backoff))
            self._count(exc.reason if exc.reason in ("unauthorized", "rejected") else "failed")
            log.error(
                "grafana notification given up",
                error=str(exc),
                rule=t.rule.name,
                app=t.app,
                kind=t.kind,
            )
            return None
        except Exception:  # a bug must not kill the sender thread
            self._count("failed")
            log.exception("grafana notification crashed", rule=t.rule.name, app=t.app)
            return None
        self._count(outcome)
        return None

    def _lookup(self, t: Transition) -> dict[str, Any] | None:
        found = self.grafana.find_annotation(ALERT_TAG + t.notification_id)
        if found is not None and "id" in found:
            self._ids[t.notification_id] = int(found["id"])
        return found

    def _send(self, t: Transition) -> str:
        start = _ms(t.started_at)
        if t.kind == "firing":
            if t.notification_id in self._ids or self._lookup(t) is not None:
                return "duplicate"  # another worker (or an earlier life of this one) posted it
            self._ids[t.notification_id] = self.grafana.post_annotation(
                time_ms=start, text=annotation_text(t), tags=annotation_tags(t)
            )
            return "sent"
        found = self._lookup(t)
        end = _ms(t.at)
        if found is None:
            # the firing post never made it: one region annotation tells the whole story
            self.grafana.post_annotation(
                time_ms=start, time_end_ms=end, text=annotation_text(t), tags=annotation_tags(t)
            )
            return "sent"
        if int(found.get("timeEnd") or 0) > int(found.get("time") or 0):
            return "duplicate"
        text = f"{found.get('text', '')}\n{annotation_text(t)}".strip()
        self.grafana.patch_annotation(int(found["id"]), timeEnd=end, text=text)
        return "sent"
