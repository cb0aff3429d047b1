"""The processes of the end-to-end bench: their environment, start, stop and pause, and
what /proc and their metrics page say of them (CPU time, RSS, answers checked)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from agents.kafka.broker import die_with_parent, embedded_env

PARTITIONS = 4


def _env(bootstrap: str, prefix: str, app_id: str, port: int, workdir: Path) -> dict[str, str]:
    return {
        **os.environ,
        **embedded_env(bootstrap),
        "RAGMON_TOPIC_PREFIX": prefix,
        "RAGMON_APP_ID": app_id,
        "RAGMON_METRICS_PORT": str(port),
        "RAGMON_DATA_DIR": str(workdir / f"data-{app_id}"),
        "RAGMON_PARTITIONS": str(PARTITIONS),
        "RAGMON_LOG_FORMAT": "json",
        "PYTHONUNBUFFERED": "1",
    }


def _spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _checked(port: int) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("ragmon_events_total{") and 'outcome="checked"' in line
    )


@contextlib.contextmanager
def _paused(proc: subprocess.Popen[bytes]) -> Iterator[None]:
    """The worker frozen (SIGSTOP) while a backlog is written: it then meets the whole backlog
    at once, as after a start, without the restart (a new consumer-group member, table
    recovery) in the measurement. A few seconds stay far inside the group session timeout."""
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(proc.pid, signal.SIGCONT)


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants (a monitor's check processes)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
    return out


def process_cpu(pid: int) -> dict[int, float]:
    """User + system CPU seconds of `pid` and of each of its descendants, from /proc."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for p in _tree(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            out[p] = (int(fields[11]) + int(fields[12])) / tick  # utime, stime (fields 14, 15)
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` and its descendants, from /proc."""
    return sum(process_cpu(pid).values())


def busiest_share(before: dict[int, float], after: dict[int, float], seconds: float) -> float:
    """The largest share of one core any one process used between two `process_cpu` readings
    `seconds` apart: near 1.0, that process (the worker or a check process) set the pace."""
    if seconds <= 0:
        return 0.0
    return max((after[p] - before.get(p, 0.0) for p in after), default=0.0) / seconds


def machine_cpu(stat: Path = Path("/proc/stat")) -> tuple[int, int]:
    """(busy, total) clock ticks of every core since boot, from /proc/stat: two readings give
    how busy the machine was between them (a worker held back by a saturated machine, not by
    its own code, shows as ~1.0)."""
    fields = [int(x) for x in stat.read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle, iowait
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal (guest is in user)
    return total - idle, total


def tree_rss_mb(pid: int) -> float:
    return sum(rss_mb(p) for p in _tree(pid))
