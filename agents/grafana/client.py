"""Grafana over its HTTP API (through `grafana-client`).

`Grafana` is a thin, typed wrapper: only the calls ragmon makes, every failure turned into a
GrafanaError with a reason. The alert notifier that posts through it is agents.grafana.notifier;
the annotations' text and tags are agents.grafana.annotations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

import niquests
from grafana_client.api import GrafanaApi
from grafana_client.client import (
    GrafanaClientError,
    GrafanaException,
    GrafanaServerError,
    GrafanaTimeoutError,
    GrafanaUnauthorizedError,
)

from monitor.config.errors import GrafanaError


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
