"""A real Prometheus (Debian package) on a free loopback port, with a generated config."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import yaml

from agents.kafka.broker import free_port

PROMETHEUS = shutil.which("prometheus")


class Prometheus:
    def __init__(self, workdir: Path, targets: list[str], rule_files: list[Path]) -> None:
        assert PROMETHEUS is not None
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": [str(p) for p in rule_files],
            "scrape_configs": [{"job_name": "ragmon", "static_configs": [{"targets": targets}]}],
        }
        workdir.mkdir(parents=True, exist_ok=True)
        self.config = workdir / "prometheus.yml"
        self.config.write_text(yaml.safe_dump(config), encoding="utf-8")
        self.log = (workdir / "prometheus.log").open("wb")
        self.proc = subprocess.Popen(
            [PROMETHEUS, f"--config.file={self.config}", f"--storage.tsdb.path={workdir / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.http = httpx.Client(base_url=self.url, timeout=10)

    def wait_ready(self, attempts: int = 300) -> None:
        for _ in range(attempts):
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited with {self.proc.returncode}")
            try:
                if self.http.get("/-/ready").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("prometheus did not become ready")

    def query(self, expr: str) -> dict[str, Any]:
        """The API's whole answer: status, and data or error."""
        return dict(self.http.get("/api/v1/query", params={"query": expr}).json())

    def series(self, expr: str) -> list[dict[str, Any]]:
        answer = self.query(expr)
        assert answer["status"] == "success", f"{expr}: {answer.get('error')}"
        return list(answer["data"]["result"])

    def wait_for(self, expr: str, timeout: float = 60.0) -> list[dict[str, Any]]:
        """Polls until `expr` returns series (bounded by time: CI machines are shared and
        a loaded one can delay Prometheus's first rule evaluation well past a second)."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.series(expr)
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"no series for {expr} within {timeout:.0f} s")
            time.sleep(0.1)

    def close(self) -> None:
        self.http.close()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()
