"""The webhook receiver of the docker compose stack (service `alert-log`).

Alertmanager posts each notification here (its webhook format, version 4). The relay prints
one line per alert, so `docker compose logs -f alert-log` shows what would page, and, when
ALERT_WEBHOOK_URL is set, posts the notification's bytes unchanged to that URL. If that post
fails, the relay answers 502 and Alertmanager retries the notification: nothing is dropped
silently. Python standard library only; it runs in the stock python image:

    python webhook_relay.py            # listens on 0.0.0.0:8080 (ALERT_RELAY_PORT)
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 4 * 1024 * 1024
FORWARD_TIMEOUT = 10.0


def alert_lines(notification: dict[str, Any]) -> list[str]:
    """One readable line per alert of an Alertmanager notification."""
    lines = []
    for alert in notification.get("alerts", []):
        labels = alert.get("labels", {})
        annotations = alert.get("annotations", {})
        where = labels.get("app") or labels.get("instance") or "-"
        text = annotations.get("summary") or annotations.get("description") or ""
        lines.append(
            f"{str(alert.get('status', '?')).upper()} {labels.get('alertname', '?')} "
            f"{where} severity={labels.get('severity', '-')} since={alert.get('startsAt', '-')}: "
            f"{text}"
        )
    return lines


def forward(url: str, body: bytes, content_type: str) -> str | None:
    """POST `body` to `url`; None on a 2xx answer, else what went wrong."""
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": content_type}
    )
    try:
        with urllib.request.urlopen(request, timeout=FORWARD_TIMEOUT) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        return str(getattr(exc, "reason", exc))
    return None if 200 <= status < 300 else f"HTTP {status}"


def make_server(
    host: str, port: int, forward_url: str | None, out: Callable[[str], None]
) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # health check
            self._answer(200, "ok")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length <= 0 or length > MAX_BODY:
                self._answer(400, "a JSON body of at most 4 MB")
                return
            body = self.rfile.read(length)
            try:
                notification = json.loads(body)
                if not isinstance(notification, dict):
                    raise ValueError("not an object")
            except ValueError:
                self._answer(400, "not an Alertmanager notification")
                return
            for line in alert_lines(notification):
                out(line)
            if forward_url:
                content_type = self.headers.get("Content-Type") or "application/json"
                problem = forward(forward_url, body, content_type)
                if problem is not None:
                    out(f"FORWARD FAILED ({problem}): Alertmanager will retry")
                    self._answer(502, f"forward failed: {problem}")
                    return
            self._answer(200, "ok")

        def _answer(self, status: int, text: str) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # one line per alert instead
            pass

    return ThreadingHTTPServer((host, port), Handler)


def main() -> None:
    port = int(os.environ.get("ALERT_RELAY_PORT", "8080"))
    url = os.environ.get("ALERT_WEBHOOK_URL", "").strip() or None

    def out(line: str) -> None:
        print(line, flush=True)

    server = make_server("0.0.0.0", port, url, out)
    # the host only: webhook URLs often carry their token in the path
    target = urllib.parse.urlsplit(url).hostname if url else None
    out(f"alert relay on :{port}; forwarding to {target or 'nowhere (log only)'}")
    # as a container's PID 1 the process gets no default SIGTERM action: stop on it explicitly
    signal.signal(signal.SIGTERM, _stop)
    with server, contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


def _stop(signum: int, frame: Any) -> None:
    raise SystemExit(0)


if __name__ == "__main__":
    main()
