"""End-to-end benchmark on the embedded broker (`ragmon bench --section e2e`).

In one run, on one broker, with the same Faust settings and partitions:

Monitor workers: `monitor` checks in its own process (RAGMON_CHECK_PROCESSES=0),
`monitor_pool` hands the checks to `check_processes` check processes (left out when 0), and
`monitor_pool_judge` is the latter with the LLM judge on (a fake judge replying after 2 s, 10%
sampled, no budgets; `judge=False` or RAGMON_BENCH_E2E_JUDGE=0 leaves it out). The judge one
takes part in the throughput rounds only: its figure is `judge_on_vs_off`, its rate over
`monitor_pool`'s, round by round.

1. throughput, in `rounds` rounds, after a warm-up: each round freezes one monitor's worker
   (SIGSTOP), writes a backlog of fresh standard-mix events, lets it go (SIGCONT), then does the
   same with the other monitor and with a bare Faust pass-through worker (consume `answers`,
   forward every value). A rate is taken from the timestamps of the worker's output records
   (first to last, weighted by the answers each carries); the CPU time the worker's processes
   spent meanwhile (/proc, children included) gives µs of CPU per answer. A monitor's figure is
   the median of its rounds' ratios: the rates of a round are measured seconds apart, so a slow
   phase of the shared machine hits all of them;
2. each monitor is fed at 50% of its median rate; the event lag of an answer is the timestamp of
   the score record that carries it (when the check agent published it) minus the answer's
   record timestamp on `answers`;
3. each monitor keeps consuming until it has checked `rss_events` events in all; the RSS of its
   processes together is read from /proc;
4. the pass-through gets the in-process monitor's paced rate (its lag shows the broker's and
   Faust's floor).

Workers are separate processes (`ragmon worker`, `python -m agents.bench.e2e passthrough`).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agents.bench.e2e_procs import (
    PARTITIONS,
    _checked,
    _env,
    _spawn,
    _stop,
    _tree,
    rss_mb,
    tree_rss_mb,
)
from agents.bench.e2e_records import (
    _backlog_rate,
    _lags,
    _publish,
    _read,
    _summary,
    _tagged_answers,
    _tagged_values,
    renamed,
)
from agents.bench.e2e_workers import (
    JUDGE_DELAY,
    JUDGE_RATE,
    _passthrough,
    _start_monitor,
    _topic,
    monitors,
)
from agents.kafka.broker import EmbeddedBroker, free_port
from agents.kafka.topics import TopicSpec, ensure_topics
from monitor.config.settings import load_settings


def measure(
    events: list[bytes],
    *,
    throughput_events: int = 10_000,
    lag_seconds: float = 20.0,
    rss_events: int = 100_000,
    rounds: int = 3,
    workdir: str | None = None,
    check_processes: int = 1,
    judge: bool = True,
) -> dict[str, Any]:
    work = Path(workdir or tempfile.mkdtemp(prefix="ragmon-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    broker = EmbeddedBroker(log=work / "broker.log")
    bootstrap = broker.start()
    broker_pid = broker.process.pid if broker.process is not None else None
    procs: list[subprocess.Popen[bytes]] = []
    judge_url = None
    if judge and check_processes > 0:
        from agents.bench.judge import _start_fake_judge

        judge_proc, judge_url = _start_fake_judge()
        procs.append(judge_proc)
    try:
        return _measure(
            events,
            bootstrap,
            work,
            procs,
            throughput_events,
            lag_seconds,
            rss_events,
            rounds,
            check_processes,
            judge_url,
            broker_pid,
        )
    finally:
        for proc in procs:
            _stop(proc)
        broker.stop()


def _measure(
    events: list[bytes],
    bootstrap: str,
    work: Path,
    procs: list[subprocess.Popen[bytes]],
    n: int,
    lag_seconds: float,
    rss_events: int,
    rounds: int,
    check_processes: int = 1,
    judge_url: str | None = None,
    broker_pid: int | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"throughput_events": n, "partitions": PARTITIONS, "rounds": rounds}
    client = {"bootstrap_servers": bootstrap}
    pt = load_settings(bootstrap_servers=bootstrap, topic_prefix="pt.", partitions=PARTITIONS)
    pt_specs = {
        "answers": TopicSpec("answers", "pt.answers", PARTITIONS),
        "out": TopicSpec("out", "pt.out", PARTITIONS),
    }
    asyncio.run(ensure_topics(pt, client, pt_specs))
    mons = monitors(check_processes, judge_url)
    for m in mons:
        _start_monitor(m, bootstrap, work)
        assert m.proc is not None
        procs.append(m.proc)
    passthrough = _spawn(
        ["agents.bench.e2e", "passthrough"],
        _env(bootstrap, "pt.", "bench-pt", free_port(), work),
        work / "passthrough.log",
    )
    procs.append(passthrough)

    # --- 0. every worker started and warm (imports, group join, first fetches) --------------
    warm = min(n, 1000)
    for m in mons:
        assert m.settings is not None
        asyncio.run(_publish(m.settings, _topic(m, "answers"), renamed(events, warm, "warm"), None))
    asyncio.run(_publish(pt, "pt.answers", renamed(events, warm, "ptwarm"), None))
    for m in mons:
        weight = _tagged_answers("warm")
        asyncio.run(_read(bootstrap, _topic(m, "scores"), warm, timeout=600, weight=weight))
    asyncio.run(_read(bootstrap, "pt.out", warm, timeout=600, weight=_tagged_values("ptwarm")))

    # --- 1. backlogs, the monitors and the pass-through in turn: the rates of a round are
    # measured seconds apart, so a slow phase of the shared machine hits all of them ---------
    pt_rates: list[float] = []
    pt_cpu: list[float] = []
    pt_busy: list[tuple[float, float]] = []
    pt_costs: list[tuple[float, list[float]]] = []
    for r in range(rounds):
        for m in mons:
            assert m.settings is not None and m.proc is not None
            tag = f"{m.prefix}tp{r}-"
            rate, cpu = _backlog_rate(
                m.settings,
                bootstrap,
                _topic(m, "answers"),
                _topic(m, "scores"),
                events,
                n,
                tag,
                _tagged_answers(tag),
                m.proc,
                m.busy,
                m.costs,
                broker_pid,
            )
            m.rates.append(rate)
            m.cpu_us.append(cpu)
        rate, cpu = _backlog_rate(
            pt,
            bootstrap,
            "pt.answers",
            "pt.out",
            events,
            n,
            f"pt{r}-",
            _tagged_values(f"pt{r}-"),
            passthrough,
            pt_busy,
            pt_costs,
            broker_pid,
        )
        pt_rates.append(rate)
        pt_cpu.append(cpu)
        line = ", ".join(f"{m.name} {m.rates[-1]:,.0f}/s ({m.rates[-1] / rate:.3f})" for m in mons)
        print(f"  round {r + 1}/{rounds}: {line}, pass-through {rate:,.0f}/s", file=sys.stderr)
    out["passthrough_events_per_s"] = statistics.median(pt_rates)
    out["rounds_passthrough_events_per_s"] = pt_rates
    out["passthrough_cpu_us_per_event"] = statistics.median(pt_cpu)
    # with both cores busy a worker waits for CPU, not for its own code: what a ratio means
    out["rounds_passthrough_machine_busy"] = [b for b, _ in pt_busy]
    out["rounds_passthrough_busiest_process"] = [p for _, p in pt_busy]
    out["rounds_passthrough_broker_cpu_us_per_event"] = [b for b, _ in pt_costs]
    for m in mons:
        ratios = [a / b for a, b in zip(m.rates, pt_rates, strict=True)]
        out[f"{m.name}_events_per_s"] = statistics.median(m.rates)
        out[f"rounds_{m.name}_events_per_s"] = m.rates
        out[f"rounds_{m.name}_ratio"] = ratios
        out[f"{m.name}_vs_passthrough"] = statistics.median(ratios)
        out[f"{m.name}_cpu_us_per_event"] = statistics.median(m.cpu_us)
        out[f"rounds_{m.name}_machine_busy"] = [b for b, _ in m.busy]
        out[f"rounds_{m.name}_busiest_process"] = [p for _, p in m.busy]
        out[f"rounds_{m.name}_broker_cpu_us_per_event"] = [b for b, _ in m.costs]
        out[f"rounds_{m.name}_process_cpu_us_per_event"] = [each for _, each in m.costs]
        out[f"{m.name}_check_processes"] = int(m.env["RAGMON_CHECK_PROCESSES"])
    named = {m.name: m for m in mons}
    if "monitor_pool_judge" in named:
        on, off = named["monitor_pool_judge"].rates, named["monitor_pool"].rates
        out["judge_on_vs_off_rounds"] = [a / b for a, b in zip(on, off, strict=True)]
        out["judge_on_vs_off"] = statistics.median(out["judge_on_vs_off_rounds"])
        out["judge"] = {"delay_seconds": JUDGE_DELAY, "sample_rate": JUDGE_RATE}
    mons = [m for m in mons if m.full]
    for m in named.values():
        if not m.full and m.proc is not None:
            _stop(m.proc)
    out["rounds_ratio"] = out["rounds_monitor_ratio"]  # the in-process monitor, as before

    # --- 2. each monitor's lag at 50% of its own rate: score record published − answer record
    for m in mons:
        assert m.settings is not None
        rate = out[f"{m.name}_events_per_s"] / 2
        n_lag = max(50, int(rate * lag_seconds))
        asyncio.run(_publish(m.settings, _topic(m, "answers"), renamed(events, n_lag, "lag"), rate))
        records = asyncio.run(
            _read(bootstrap, _topic(m, "scores"), n_lag, timeout=600, weight=_tagged_answers("lag"))
        )
        lags = sorted(
            r.timestamp / 1000 - entry[1]
            for r in records
            for entry in json.loads(r.value)["events"]
            if str(entry[0]).startswith("lag")
        )
        out[f"{m.name}_lag_rate_events_per_s"] = rate
        out[f"{m.name}_lag"] = _summary(lags)
    out["lag_rate_events_per_s"] = out["monitor_lag_rate_events_per_s"]

    # --- 3. each monitor's RSS (its processes together) once it has checked `rss_events` ------
    for m in mons:
        assert m.settings is not None and m.proc is not None
        missing = rss_events - int(_checked(m.port))
        if missing > 0:
            asyncio.run(
                _publish(m.settings, _topic(m, "answers"), renamed(events, missing, "rss"), None)
            )
        deadline = time.monotonic() + 3600
        while time.monotonic() < deadline and _checked(m.port) < rss_events:
            time.sleep(2)
        out[f"{m.name}_events_checked"] = _checked(m.port)
        out[f"{m.name}_rss_mb"] = tree_rss_mb(m.proc.pid)
        out[f"{m.name}_processes"] = len(_tree(m.proc.pid))
        _stop(m.proc)

    # --- 4. the pass-through at the in-process monitor's paced rate ---------------------------
    rate = out["lag_rate_events_per_s"]
    lag_n = max(50, int(rate * lag_seconds))
    asyncio.run(_publish(pt, "pt.answers", renamed(events, lag_n, "ptlag"), rate))
    inputs = asyncio.run(_read(bootstrap, "pt.answers", warm + n * rounds + lag_n, timeout=600))
    outputs = asyncio.run(
        _read(bootstrap, "pt.out", lag_n, timeout=600, weight=_tagged_values("ptlag"))
    )
    tagged = [r for r in inputs if b'"event_id": "ptlag' in r.value]
    out["passthrough_lag_same_rate"] = _summary(_lags(tagged, outputs))
    out["passthrough_rss_mb"] = rss_mb(passthrough.pid)
    _stop(passthrough)
    return out


def _section(args: Any, events: list[bytes]) -> dict[str, Any]:
    """End to end through the embedded broker, against a bare Faust pass-through.

    With one check process and without; lag at half rate; worker RSS."""
    return measure(
        events,
        throughput_events=int(os.environ.get("RAGMON_BENCH_E2E_EVENTS", "10000")),
        rss_events=int(os.environ.get("RAGMON_BENCH_RSS_EVENTS", "100000")),
        rounds=int(os.environ.get("RAGMON_BENCH_E2E_ROUNDS", getattr(args, "e2e_rounds", 3))),
        check_processes=int(os.environ.get("RAGMON_BENCH_CHECK_PROCESSES", "1")),
        judge=os.environ.get("RAGMON_BENCH_E2E_JUDGE", "1") != "0",
    )


SECTIONS = {"e2e": _section}

if __name__ == "__main__":
    if sys.argv[1:] == ["passthrough"]:
        sys.exit(_passthrough())
    sys.exit("usage: python -m agents.bench.e2e passthrough")
