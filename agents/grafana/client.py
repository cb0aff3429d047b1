"""Grafana over its HTTP API (through `grafana-client`), and the alert notifier.

`Grafana` is a thin, typed wrapper: only the calls ragmon makes, every failure turned into a
GrafanaError with a reason. `GrafanaNotifier` posts alert annotations from a background thread
with a bounded queue and retries, so a down or slow Grafana never blocks the stream.
"""

from __future__ import annotations

import html
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

import niquests
import structlog
from grafana_client.api import GrafanaApi
from grafana_client.client import (
    GrafanaClientError,
    GrafanaException,
    GrafanaServerError,
    GrafanaTimeoutError,
    GrafanaUnauthorizedError,
)

from agents.telemetry.metrics import Metrics
from monitor.alerting.alerts import ESTIMATED, Transition
from monitor.config.errors import GrafanaError

log = structlog.get_logger("ragmon.grafana")

RETRYABLE = frozenset({"timeout", "server_error", "unreachable"})
ALERT_TAG = "ragmon-alert:"


class Grafana:
    def __init__(
        self, url: str, token: str | None, *, org_id: int = 1, timeout: float = 5.0
    ) -> None:
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise GrafanaError(f"Grafana URL must be http(s)://host[:port][/path], got {url!r}")
        prefix = parsed.path.strip("/")
        # grafana-client is untyped: keep it behind Any and type this wrapper instead.
        self.api: Any = GrafanaApi(
            auth=token or None,
            host=parsed.hostname,
            port=parsed.port,
            url_path_prefix=f"{prefix}/" if prefix else "",
            protocol=parsed.scheme,
            timeout=timeout,
            organization_id=org_id,
        )
        self.url = url
        self.token_set = bool(token)

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except GrafanaTimeoutError as exc:
            raise GrafanaError(f"{what}: timed out", reason="timeout") from exc
        except GrafanaUnauthorizedError as exc:
            hint = (
                "check the token"
                if self.token_set
                else "no token set: set RAGMON_GRAFANA_TOKEN to a service-account token"
            )
            raise GrafanaError(
                f"{what}: 401 unauthorized ({hint})", status=401, reason="unauthorized"
            ) from exc
        except GrafanaServerError as exc:
            raise GrafanaError(
                f"{what}: {exc.message}", status=exc.status_code, reason="server_error"
            ) from exc
        except GrafanaClientError as exc:
            reason = "not_found" if exc.status_code == 404 else "rejected"
            raise GrafanaError(
                f"{what}: {exc.message}", status=exc.status_code, reason=reason
            ) from exc
        except (GrafanaException, niquests.exceptions.RequestException) as exc:
            raise GrafanaError(
                f"{what}: Grafana unreachable at {self.url}", reason="unreachable"
            ) from exc

    def _get_or_none(self, what: str, fn: Callable[[], Any]) -> dict[str, Any] | None:
        try:
            found = self._call(what, fn)
        except GrafanaError as exc:
            if exc.reason == "not_found":
                return None
            raise
        return found if isinstance(found, dict) else None

    # --- annotations ----------------------------------------------------------------------
    def find_annotation(self, tag: str) -> dict[str, Any] | None:
        params = {"tags": tag, "type": "annotation", "limit": 1}
        found = self._call(
            "find annotation", lambda: self.api.client.GET("/annotations", params=params)
        )
        return found[0] if isinstance(found, list) and found else None

    def post_annotation(
        self, *, time_ms: int, text: str, tags: list[str], time_end_ms: int | None = None
    ) -> int:
        body: dict[str, Any] = {"time": time_ms, "text": text, "tags": tags}
        if time_end_ms is not None:
            body["timeEnd"] = time_end_ms
        reply = self._call(
            "post annotation", lambda: self.api.client.POST("/annotations", json=body)
        )
        return int(reply["id"])

    def patch_annotation(self, annotation_id: int, **fields: Any) -> None:
        self._call(
            "patch annotation",
            lambda: self.api.client.PATCH(f"/annotations/{annotation_id}", json=fields),
        )

    # --- folders, dashboards, alert rules (for `ragmon grafana sync`) ---------------------
    def get_folder(self, uid: str) -> dict[str, Any] | None:
        return self._get_or_none("get folder", lambda: self.api.folder.get_folder(uid))

    def create_folder(self, uid: str, title: str) -> None:
        self._call("create folder", lambda: self.api.folder.create_folder(title, uid=uid))

    def update_folder(self, uid: str, title: str, version: int | None) -> None:
        self._call(
            "update folder",
            lambda: self.api.folder.update_folder(
                uid, title=title, version=version, overwrite=version is None
            ),
        )

    def get_dashboard(self, uid: str) -> dict[str, Any] | None:
        return self._get_or_none("get dashboard", lambda: self.api.dashboard.get_dashboard(uid))

    def save_dashboard(self, dashboard: dict[str, Any], folder_uid: str, message: str) -> None:
        body = {
            "dashboard": dashboard,
            "folderUid": folder_uid,
            "overwrite": True,
            "message": message,
        }
        self._call("save dashboard", lambda: self.api.dashboard.update_dashboard(body))

    def get_alert_rule(self, uid: str) -> dict[str, Any] | None:
        return self._get_or_none(
            "get alert rule", lambda: self.api.alertingprovisioning.get_alertrule(uid)
        )

    def create_alert_rule(self, rule: dict[str, Any]) -> None:
        self._call(
            "create alert rule", lambda: self.api.alertingprovisioning.create_alertrule(rule)
        )

    def update_alert_rule(self, uid: str, rule: dict[str, Any]) -> None:
        self._call(
            "update alert rule", lambda: self.api.alertingprovisioning.update_alertrule(uid, rule)
        )


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def annotation_tags(t: Transition) -> list[str]:
    return [
        "ragmon",
        t.rule.name,
        f"app:{t.app}",
        f"severity:{t.rule.severity}",
        ALERT_TAG + t.notification_id,
    ]


def human_duration(seconds: float) -> str:
    """1h 02m, 37m 10s, 45s."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def firing_line(t: Transition) -> str:
    """How long it has been firing, as the rotation reads it."""
    breach = human_duration(t.at - t.started_at)
    if t.kind == "firing":
        return f"firing now; breaching for {breach} (pending {t.rule.for_seconds:g}s)"
    return f"fired for {human_duration(t.firing_seconds)}; breach began {breach} ago"


def annotation_text(t: Transition) -> str:
    rule = t.rule
    state = "FIRING" if t.kind == "firing" else "RESOLVED"
    if t.no_data:
        state += " (no data: the app's window holds no answer)"
    watched = f"{rule.figure} = {t.value:.3f}"
    if rule.figure in ESTIMATED:  # the rule compares a bound: say which, and the estimate
        bound = "upper" if rule.op == "below" else "lower"
        watched = (
            f"{rule.figure} {bound} bound of the {rule.level * 100:.6g}% interval = {t.value:.3f}"
        )
    shown = [k for k in ("validity", "support", "hallucination", "coverage") if k != rule.figure]
    others = ", ".join(t.figures.describe(k) for k in shown if t.figures.values.get(k) is not None)
    lines = [
        f"ragmon {rule.name} {state} for app {t.app}: {watched} "
        f"({rule.op} {rule.threshold:g}, resolves at {rule.resolve_threshold:g})",
        f"{t.figures.describe(rule.figure)}; window: {t.figures.events} events"
        + (f"; {others}" if others else ""),
        firing_line(t),
    ]
    if t.examples:
        lines.append("examples (moved the rate most first): " + ", ".join(t.examples[:5]))
    if t.evidence_url:
        # Grafana renders annotation text as HTML: a link, not a bare URL
        href = html.escape(t.evidence_url, quote=True)
        lines.append(f'<a href="{href}">evidence: the answers behind it</a>')
    if t.runbook_url:
        lines.append(f'<a href="{html.escape(t.runbook_url, quote=True)}">runbook</a>')
    return "\n".join(lines)


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
