"""The phases of the end-to-end bench on one broker (agents/bench/e2e.py runs them): the
workers started and warm; the throughput rounds; then, paced at half of each monitor's rate,
lag, RSS and the pass-through's own lag."""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
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
    Monitor,
    _start_monitor,
    _topic,
    monitors,
    passthrough_batch_bytes,
)
from agents.kafka.broker import free_port
from agents.kafka.topics import TopicSpec, ensure_topics
from monitor.config.settings import Settings, load_settings

#: what a paced phase takes from the rounds (`rates`): each monitor's median rate
RATE_SUFFIX = "_events_per_s"


def run_phases(
    events: list[bytes],
    broker: Callable[[], tuple[str, int | None]],
    work: Path,
    procs: list[subprocess.Popen[bytes]],
    n: int,
    lag_seconds: float,
    rss_events: int,
    rounds: int,
    check_processes: int = 1,
    judge_url: str | None = None,
    *,
    phase: str = "all",
    rates: dict[str, Any] | None = None,
    name: str = "",
) -> dict[str, Any]:
    """`broker()`: a broker (bootstrap, pid) for the next worker: a new one each call, or the one
    they share. `name`: what the progress line calls the rounds (default "round r/rounds")."""
    out: dict[str, Any] = {"throughput_events": n, "partitions": PARTITIONS, "rounds": rounds}
    pt_broker = broker()
    client = {"bootstrap_servers": pt_broker[0]}
    pt = load_settings(bootstrap_servers=pt_broker[0], topic_prefix="pt.", partitions=PARTITIONS)
    pt_specs = {
        "answers": TopicSpec("answers", "pt.answers", PARTITIONS),
        "out": TopicSpec("out", "pt.out", PARTITIONS),
    }
    asyncio.run(ensure_topics(pt, client, pt_specs))
    mons = monitors(check_processes, judge_url)
    if phase in ("paced", "lag"):  # the judge-on monitor takes part in the rounds only
        mons = [m for m in mons if m.full]
    for m in mons:
        m.bootstrap, m.broker_pid = broker()
        _start_monitor(m, m.bootstrap, work)
        assert m.proc is not None
        procs.append(m.proc)
    # what each side's producer batches: the monitors' RAGMON_PRODUCER_BATCH_BYTES, the bare
    # pass-through's Faust's own (docs/guarantees.md, session 19)
    out["producer_batch_bytes"] = pt.producer_batch_bytes
    out["passthrough_producer_batch_bytes"] = passthrough_batch_bytes()
    passthrough = _spawn(
        ["agents.bench.e2e", "passthrough"],
        _env(pt_broker[0], "pt.", "bench-pt", free_port(), work),
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
        asyncio.run(_read(m.bootstrap, _topic(m, "scores"), warm, timeout=600, weight=weight))
    asyncio.run(_read(pt_broker[0], "pt.out", warm, timeout=600, weight=_tagged_values("ptwarm")))

    if phase == "lag":  # the pass-through's half rate only, on a broker of its own
        assert rates is not None
        _yardstick_lags(out, mons, rates, events, lag_seconds)
        return out
    if phase != "paced":
        _rounds(out, mons, pt, passthrough, pt_broker, events, n, rounds, name)
    if phase == "rounds":
        return out
    if phase == "paced":
        assert rates is not None
        out.update({k: v for k, v in rates.items() if k.endswith(RATE_SUFFIX)})
    # what pt.answers holds before the paced phase, to find the paced answers among
    held = warm + (0 if phase == "paced" else n * rounds)
    # one broker for everything ("all"): the yardstick's lag on it too, after the own-rate one
    yardstick = phase == "all"
    _paced(
        out, mons, pt, passthrough, pt_broker[0], events, lag_seconds, rss_events, held, yardstick
    )
    return out


def _rounds(
    out: dict[str, Any],
    mons: list[Monitor],
    pt: Settings,
    passthrough: subprocess.Popen[bytes],
    pt_broker: tuple[str, int | None],
    events: list[bytes],
    n: int,
    rounds: int,
    name: str,
) -> None:
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
                m.bootstrap,
                _topic(m, "answers"),
                _topic(m, "scores"),
                events,
                n,
                tag,
                _tagged_answers(tag),
                m.proc,
                m.busy,
                m.costs,
                m.broker_pid,
            )
            m.rates.append(rate)
            m.cpu_us.append(cpu)
        rate, cpu = _backlog_rate(
            pt,
            pt_broker[0],
            "pt.answers",
            "pt.out",
            events,
            n,
            f"pt{r}-",
            _tagged_values(f"pt{r}-"),
            passthrough,
            pt_busy,
            pt_costs,
            pt_broker[1],
        )
        pt_rates.append(rate)
        pt_cpu.append(cpu)
        line = ", ".join(f"{m.name} {m.rates[-1]:,.0f}/s ({m.rates[-1] / rate:.3f})" for m in mons)
        said = name or f"round {r + 1}/{rounds}"
        print(f"  {said}: {line}, pass-through {rate:,.0f}/s", file=sys.stderr)
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
    for m in named.values():
        if not m.full and m.proc is not None:
            _stop(m.proc)
    out["rounds_ratio"] = out["rounds_monitor_ratio"]  # the in-process monitor, as before


def _lag(m: Monitor, events: list[bytes], rate: float, seconds: float, tag: str) -> dict[str, Any]:
    """`m`'s event lag fed `rate` answers/s for `seconds`: each answer's score record timestamp
    minus its answer record's."""
    assert m.settings is not None
    n = max(50, int(rate * seconds))
    asyncio.run(_publish(m.settings, _topic(m, "answers"), renamed(events, n, tag), rate))
    records = asyncio.run(
        _read(m.bootstrap, _topic(m, "scores"), n, timeout=600, weight=_tagged_answers(tag))
    )
    lags = sorted(
        r.timestamp / 1000 - entry[1]
        for r in records
        for entry in json.loads(r.value)["events"]
        if str(entry[0]).startswith(tag)
    )
    return _summary(lags)


def _yardstick_lags(
    out: dict[str, Any],
    mons: list[Monitor],
    rates: dict[str, Any],
    events: list[bytes],
    lag_seconds: float,
) -> None:
    """Each monitor's lag at 50% of the pass-through's rate (the issue's yardstick), where it
    can keep up with that at all (the in-process one cannot: its lag would only grow). On a
    broker of its own (phase "lag"): the embedded broker's cost per record grows with what it
    holds, and fed at a steady pace it runs at a full core, so a second paced phase on the
    paced phase's broker measures the broker (p99 0.41 -> 0.79 -> 1.86 s, three phases of 20 s
    at one rate on one broker)."""
    half = rates["passthrough_events_per_s"] / 2
    for m in mons:
        keeps_up = rates[f"{m.name}_events_per_s"] > half
        out[f"{m.name}_lag_passthrough_half_rate_events_per_s"] = half
        out[f"{m.name}_lag_passthrough_half"] = (
            _lag(m, events, half, lag_seconds, "halfpt") if keeps_up else None
        )


def _paced(
    out: dict[str, Any],
    mons: list[Monitor],
    pt: Settings,
    passthrough: subprocess.Popen[bytes],
    pt_bootstrap: str,
    events: list[bytes],
    lag_seconds: float,
    rss_events: int,
    held: int,
    yardstick: bool = False,
) -> None:
    mons = [m for m in mons if m.full]
    # --- 2. each monitor's lag at 50% of its own rate: score record published − answer record
    for m in mons:
        rate = out[f"{m.name}_events_per_s"] / 2
        out[f"{m.name}_lag_rate_events_per_s"] = rate
        out[f"{m.name}_lag"] = _lag(m, events, rate, lag_seconds, "lag")
    out["lag_rate_events_per_s"] = out["monitor_lag_rate_events_per_s"]
    if yardstick:
        _yardstick_lags(out, mons, out, events, lag_seconds)

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
    inputs = asyncio.run(_read(pt_bootstrap, "pt.answers", held + lag_n, timeout=600))
    outputs = asyncio.run(
        _read(pt_bootstrap, "pt.out", lag_n, timeout=600, weight=_tagged_values("ptlag"))
    )
    tagged = [r for r in inputs if b'"event_id": "ptlag' in r.value]
    out["passthrough_lag_same_rate"] = _summary(_lags(tagged, outputs))
    out["passthrough_rss_mb"] = rss_mb(passthrough.pid)
    _stop(passthrough)
