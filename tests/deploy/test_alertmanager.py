"""The compose stack's on-call path: Prometheus → Alertmanager → the webhook relay
(deploy/alertmanager/webhook_relay.py) → wherever ALERT_WEBHOOK_URL points.

The relay is tested on its own (lines, forwarding, 502 on a failed forward so Alertmanager
retries); the shipped Alertmanager config with amtool; and the whole path with the real Debian
`prometheus` and `prometheus-alertmanager` binaries, configured from the shipped files with only
addresses and waits changed."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from agents.kafka.broker import free_port
from tests.deploy.test_deploy import DEPLOY, _docs

AMTOOL = shutil.which("amtool")
ALERTMANAGER = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
PROMETHEUS = shutil.which("prometheus")
# As needs_promtool: a skip on a developer's machine, a failure under CI=true.
needs_amtool = pytest.mark.skipif(
    AMTOOL is None and not os.environ.get("CI"),
    reason="amtool not installed (Debian package `prometheus-alertmanager`)",
)


def _relay() -> ModuleType:
    path = DEPLOY / "alertmanager/webhook_relay.py"
    spec = importlib.util.spec_from_file_location("webhook_relay", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


relay = _relay()

NOTIFICATION: dict[str, Any] = {
    "version": "4",
    "groupKey": '{}:{alertname="RagmonValidityLow", app="search"}',
    "status": "firing",
    "receiver": "ragmon-webhook",
    "groupLabels": {"alertname": "RagmonValidityLow", "app": "search"},
    "commonLabels": {"alertname": "RagmonValidityLow", "app": "search", "severity": "critical"},
    "commonAnnotations": {},
    "externalURL": "http://alertmanager:9093",
    "alerts": [
        {
            "status": "firing",
            "labels": {"alertname": "RagmonValidityLow", "app": "search", "severity": "critical"},
            "annotations": {"summary": "Share of structurally valid citations fell below 95%"},
            "startsAt": "2026-11-25T10:00:00Z",
            "endsAt": "0001-01-01T00:00:00Z",
        },
        {
            "status": "resolved",
            "labels": {"alertname": "RagmonWorkerDown", "instance": "w1:6066"},
            "annotations": {"description": "w1:6066 has been down for 5 minutes."},
            "startsAt": "2026-11-25T09:00:00Z",
        },
    ],
}


class Sink:
    """An HTTP endpoint that records what is posted to it (the user's webhook)."""

    def __init__(self, status: int = 200) -> None:
        self.bodies: list[tuple[str, bytes]] = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                sink.bodies.append((self.path, body))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[..., tuple[str, list[str]]]]:
    servers: list[Any] = []

    def start(forward_url: str | None) -> tuple[str, list[str]]:
        lines: list[str] = []
        server = relay.make_server("127.0.0.1", 0, forward_url, lines.append)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}", lines

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _post(url: str, body: bytes) -> int:
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_alert_lines_by_hand() -> None:
    assert relay.alert_lines(NOTIFICATION) == [
        "FIRING RagmonValidityLow search severity=critical since=2026-11-25T10:00:00Z: "
        "Share of structurally valid citations fell below 95%",
        "RESOLVED RagmonWorkerDown w1:6066 severity=- since=2026-11-25T09:00:00Z: "
        "w1:6066 has been down for 5 minutes.",
    ]
    assert relay.alert_lines({"alerts": []}) == []


def test_relay_logs_each_alert_and_forwards_the_bytes_unchanged(serve: Any) -> None:
    sink = Sink()
    try:
        url, lines = serve(sink.url + "/hook/T0KEN")
        body = json.dumps(NOTIFICATION).encode()
        assert _post(url + "/alerts", body) == 200
        assert sink.bodies == [("/hook/T0KEN", body)]
        assert lines == relay.alert_lines(NOTIFICATION)
    finally:
        sink.close()


def test_relay_without_a_forward_url_only_logs(serve: Any) -> None:
    url, lines = serve(None)
    assert _post(url + "/alerts", json.dumps(NOTIFICATION).encode()) == 200
    assert len(lines) == 2


def test_a_failed_forward_is_a_502_so_alertmanager_retries(serve: Any) -> None:
    refusing = Sink(status=500)
    try:
        url, lines = serve(refusing.url)
        assert _post(url, json.dumps(NOTIFICATION).encode()) == 502
        assert lines[-1] == "FORWARD FAILED (HTTP 500): Alertmanager will retry"
    finally:
        refusing.close()
    closed = refusing.url  # nothing listens there any more
    url, lines = serve(closed)
    assert _post(url, json.dumps(NOTIFICATION).encode()) == 502
    assert lines[-1].startswith("FORWARD FAILED (") and "retry" in lines[-1]


def test_relay_rejects_what_is_not_a_notification(serve: Any) -> None:
    url, lines = serve(None)
    assert _post(url, b"{not json") == 400
    assert _post(url, b"[1, 2]") == 400
    assert lines == []


# --- the shipped files --------------------------------------------------------------------


@needs_amtool
def test_amtool_checks_the_config_and_routes_ragmon_alerts_to_the_webhook() -> None:
    assert AMTOOL is not None, "amtool not installed (CI=true: `make system-deps` must)"
    config = str(DEPLOY / "alertmanager/alertmanager.yml")
    out = subprocess.run(
        [AMTOOL, "check-config", config], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and "SUCCESS" in out.stdout, out.stdout + out.stderr
    rules = _docs(DEPLOY / "prometheus/rules.yml")[0]["groups"]
    alerts = [r for g in rules for r in g["rules"] if "alert" in r]
    for rule in alerts:
        labels = [f"alertname={rule['alert']}", "app=search"]
        labels += [f"{k}={v}" for k, v in rule["labels"].items()]
        out = subprocess.run(
            [AMTOOL, "config", "routes", "test", f"--config.file={config}", *labels],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.stdout.strip() == "ragmon-webhook", (rule["alert"], out.stdout, out.stderr)


def test_compose_wires_prometheus_alertmanager_and_the_relay() -> None:
    compose = _docs(DEPLOY / "docker-compose.yml")[0]["services"]
    prom = _docs(DEPLOY / "prometheus/prometheus.yml")[0]
    [am_set] = prom["alerting"]["alertmanagers"]
    [target] = [t for sc in am_set["static_configs"] for t in sc["targets"]]
    host, port = target.split(":")
    assert host in compose and "alertmanager" in compose[host]["image"]
    assert f"{port}:{port}" in compose[host]["ports"]
    mounts = dict(v.split(":")[:2] for v in compose[host]["volumes"])
    config_path = next(a.split("=", 1)[1] for a in compose[host]["command"] if "config.file" in a)
    assert mounts["./alertmanager/alertmanager.yml"] == config_path
    # the webhook URL names the relay service on the port it listens on
    am = _docs(DEPLOY / "alertmanager/alertmanager.yml")[0]
    [receiver] = am["receivers"]
    assert am["route"]["receiver"] == receiver["name"]
    [hook] = receiver["webhook_configs"]
    relay_host, relay_port = hook["url"].removeprefix("http://").split("/")[0].split(":")
    service = compose[relay_host]
    assert service["environment"]["ALERT_RELAY_PORT"] == relay_port
    assert relay_port in service["expose"]
    assert service["environment"]["ALERT_WEBHOOK_URL"] == "${ALERT_WEBHOOK_URL:-}"
    [script_mount] = service["volumes"]
    source, dest = script_mount.split(":")[:2]
    assert (DEPLOY / source).is_file() and service["command"][-1] == dest
    assert "alertmanager" in compose["prometheus"]["depends_on"]


# --- the whole path, real binaries --------------------------------------------------------


def _wait(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


@pytest.mark.integration
@pytest.mark.skipif(
    ALERTMANAGER is None or PROMETHEUS is None,
    reason="needs Debian's prometheus and prometheus-alertmanager",
)
def test_a_firing_rule_reaches_the_users_webhook(tmp_path: Path, serve: Any) -> None:
    """Prometheus (the compose prometheus.yml and rules.yml, plus one rule that fires at once)
    → Alertmanager (the shipped config) → the relay → a sink standing for the user's URL."""
    assert ALERTMANAGER is not None and PROMETHEUS is not None
    sink = Sink()
    relay_url, lines = serve(sink.url + "/oncall")
    am_port, prom_port = free_port(), free_port()

    am = _docs(DEPLOY / "alertmanager/alertmanager.yml")[0]
    am["route"]["group_wait"] = "1s"  # 30s as shipped
    [hook] = am["receivers"][0]["webhook_configs"]
    hook["url"] = relay_url + "/alerts"
    (tmp_path / "alertmanager.yml").write_text(yaml.safe_dump(am))

    prom = _docs(DEPLOY / "prometheus/prometheus.yml")[0]
    prom["global"] = {"scrape_interval": "1s", "evaluation_interval": "1s"}
    prom["alerting"]["alertmanagers"][0]["static_configs"] = [{"targets": [f"127.0.0.1:{am_port}"]}]
    # the ragmon job scrapes a port where nothing listens: up{job="ragmon"} is 0
    prom["scrape_configs"] = [
        {"job_name": "ragmon", "static_configs": [{"targets": [f"127.0.0.1:{free_port()}"]}]}
    ]
    prom["rule_files"] = ["rules.yml", "now.yml"]
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(prom))
    shutil.copy(DEPLOY / "prometheus/rules.yml", tmp_path / "rules.yml")
    now_rule = {
        "alert": "RagmonTestWorkerDownNow",
        "expr": 'up{job="ragmon"} == 0',
        "labels": {"severity": "warning"},
        "annotations": {"summary": "the path test's alert"},
    }
    (tmp_path / "now.yml").write_text(
        yaml.safe_dump({"groups": [{"name": "now", "rules": [now_rule]}]})
    )
    procs = []
    try:
        with (tmp_path / "am.log").open("wb") as am_log:
            procs.append(subprocess.Popen(
                [ALERTMANAGER, f"--config.file={tmp_path / 'alertmanager.yml'}",
                 f"--storage.path={tmp_path / 'am-data'}",
                 f"--web.listen-address=127.0.0.1:{am_port}",
                 "--cluster.listen-address=", "--log.level=warn"],
                stdout=am_log, stderr=subprocess.STDOUT,
            ))  # fmt: skip
        with (tmp_path / "prom.log").open("wb") as prom_log:
            procs.append(subprocess.Popen(
                [PROMETHEUS, f"--config.file={tmp_path / 'prometheus.yml'}",
                 f"--storage.tsdb.path={tmp_path / 'prom-data'}",
                 f"--web.listen-address=127.0.0.1:{prom_port}", "--log.level=warn"],
                stdout=prom_log, stderr=subprocess.STDOUT,
            ))  # fmt: skip

        def delivered() -> list[Any]:
            for proc in procs:
                assert proc.poll() is None, (tmp_path / "am.log").read_text() + (
                    tmp_path / "prom.log"
                ).read_text()
            return [
                json.loads(body)
                for path, body in sink.bodies
                if path == "/oncall" and b"RagmonTestWorkerDownNow" in body
            ]

        [notification, *_] = _wait(delivered, 60, "the alert at the user's webhook")
        [alert] = notification["alerts"]
        assert alert["status"] == "firing" and notification["receiver"] == "ragmon-webhook"
        assert alert["labels"]["job"] == "ragmon" and alert["labels"]["severity"] == "warning"
        assert any(line.startswith("FIRING RagmonTestWorkerDownNow ") for line in lines)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)
        sink.close()
