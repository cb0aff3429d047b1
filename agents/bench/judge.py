"""`ragmon bench --section judge`: the check path's throughput with the judge on vs off.

The check loop is what a Faust check agent does per message (decode, check, plan the judge
request, hand it over without awaiting, yield to the loop), run in one event loop together with
the judge runner, as in a worker. Three modes, alternated run by run so drift affects all alike:
`off` (no judge), `on` (a fake judge server replying after `--judge-delay` seconds, 10% sampled),
`down` (nothing listening: the first call is refused, and the check path sheds sampled answers
during the judge's cool-down). Budgets are off so the queue bound, not the budget, is what stops
excess work. Figures: medians of events/s, on/off and down/off ratios, the
deepest the queue got, and where the sampled work went (judged, dropped by reason).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from typing import Any

from prometheus_client import CollectorRegistry

from agents.judging.agent import JudgeRunner
from agents.judging.observer import MetricsObserver
from agents.telemetry.counting import Children
from agents.telemetry.metrics import Metrics, build_metrics
from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.estimation.evaluate import median_interval
from monitor.inputs.decode import decode_event
from monitor.judge.client import JudgeClient
from monitor.judge.config import JudgeConfig
from monitor.judge.plan import plan_judge_request
from monitor.records.models import Rejection
from monitor.sampling.policy import Sampler, SamplingPolicy


async def check_loop(
    events: list[bytes],
    options: CheckOptions,
    metrics: Metrics,
    sampler: Sampler | None,
    runner: JudgeRunner | None,
) -> tuple[float, float, int]:
    """Events per wall-clock second and per CPU second of this thread (which also runs the judge
    client), and how many events the check path finished."""
    done = 0
    dropped = Children()  # as the worker's hook: each reason's child looked up once
    shed = runner.shedding if runner is not None else None
    started, cpu = time.perf_counter(), time.thread_time()
    for raw in events:
        event = decode_event(raw, options)
        if not isinstance(event, Rejection):
            verdict = check_event(event, options)
            if sampler is not None and runner is not None:
                # as agents.stream.judge_wiring: shed at the source while the judge's queue is full
                request, decision = plan_judge_request(event, verdict, sampler, shed=shed)
                if request is not None:
                    runner.submit(request)
                elif decision.dropped:
                    dropped(metrics.judge_dropped, (decision.reason,)).inc()
        done += 1
        await asyncio.sleep(0)  # an agent yields between messages; the judge runs meanwhile
    wall, cpu = time.perf_counter() - started, time.thread_time() - cpu
    return done / wall, done / cpu, done


def _counter(metrics: Metrics, name: str, **labels: str) -> float:
    return metrics.registry.get_sample_value(name, labels) or 0.0


async def one_run(
    events: list[bytes],
    mode: str,
    target: tuple[str, str],
    rate: float,
    queue_size: int,
    concurrency: int,
) -> dict[str, Any]:
    options = CheckOptions()
    metrics = build_metrics(CollectorRegistry())
    if mode == "off":
        eps, cpu_eps, done = await check_loop(events, options, metrics, None, None)
        return {"eps": eps, "cpu_eps": cpu_eps, "done": done}
    url, model = target
    config = JudgeConfig(
        base_url=url,
        model=model,
        escalation_model=None,
        timeout=30.0,
        max_in_flight=concurrency,
        max_retries=1,
    )
    client = JudgeClient(config, observer=MetricsObserver(metrics))
    runner = JudgeRunner(client, metrics, concurrency=concurrency, queue_size=queue_size)
    sampler = Sampler(
        SamplingPolicy(base_rate=rate, oversample_rate=rate, calls_per_minute=0, tokens_per_hour=0)
    )
    eps, cpu_eps, done = await check_loop(events, options, metrics, sampler, runner)
    if mode == "on":  # untimed: let the calls in flight land so the figures show judged work
        await asyncio.sleep(float(model.partition("@")[2] or 0) + 1.0)
    await runner.stop()
    outcomes = {
        o: _counter(metrics, "ragmon_judge_requests_total", model=model, outcome=o)
        for o in ("ok", "judge_down", "unverifiable")
    }
    return {
        "eps": eps,
        "cpu_eps": cpu_eps,
        "done": done,
        "max_queue_depth": runner.max_depth,
        "queue_full_drops": _counter(metrics, "ragmon_judge_dropped_total", reason="queue_full"),
        "judge_down_drops": _counter(metrics, "ragmon_judge_dropped_total", reason="judge_down"),
        "calls": {k: v for k, v in outcomes.items() if v},
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_fake_judge() -> tuple[subprocess.Popen[bytes], str]:
    """The fake judge in its own process, as a real LLM server would be."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.judging.fake_server", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(100):
        try:
            with urllib.request.urlopen(url + "/models", timeout=1):
                return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("fake judge did not start")


def measure(
    events: list[bytes],
    runs: int = 5,
    delay: float = 2.0,
    rate: float = 0.1,
    queue_size: int = 100,
    concurrency: int = 4,
) -> dict[str, Any]:
    proc, url = _start_fake_judge()
    targets = {
        "off": ("", ""),
        "on": (url, f"ok@{delay}"),  # the fake judge sleeps `delay` s per call
        "down": (f"http://127.0.0.1:{_free_port()}/v1", "ok"),  # nothing listens there
    }
    per_mode: dict[str, list[dict[str, Any]]] = {"off": [], "on": [], "down": []}
    try:
        modes = list(per_mode)
        for k in range(runs):
            for mode in modes[k % 3 :] + modes[: k % 3]:  # rotate: no mode always runs first
                gc.collect()  # the previous run's garbage is not this run's cost
                result = asyncio.run(
                    one_run(events, mode, targets[mode], rate, queue_size, concurrency)
                )
                per_mode[mode].append(result)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    wall = {m: statistics.median(r["eps"] for r in rs) for m, rs in per_mode.items()}
    cpu = {m: statistics.median(r["cpu_eps"] for r in rs) for m, rs in per_mode.items()}
    # A round runs the three modes back to back, so its ratios share the machine's state; on a
    # shared machine one run can be 20% off the next, and the median of paired ratios is the
    # steadier figure (the ratio of the medians pairs runs from different rounds).
    paired = {
        (m, k): [a[k] / b[k] for a, b in zip(per_mode[m], per_mode["off"], strict=True)]
        for m in ("on", "down")
        for k in ("eps", "cpu_eps")
    }
    return {
        "events": len(events),
        "runs": runs,
        "judge_delay_seconds": delay,
        "sample_rate": rate,
        "queue_bound": queue_size,
        "events_per_second_median": wall,
        "events_per_cpu_second_median": cpu,
        "on_vs_off": wall["on"] / wall["off"],
        "down_vs_off": wall["down"] / wall["off"],
        "on_vs_off_cpu": cpu["on"] / cpu["off"],
        "down_vs_off_cpu": cpu["down"] / cpu["off"],
        "on_vs_off_paired_median": statistics.median(paired["on", "eps"]),
        "down_vs_off_paired_median": statistics.median(paired["down", "eps"]),
        "on_vs_off_cpu_paired_median": statistics.median(paired["on", "cpu_eps"]),
        # how precisely the runs pin the paired median down (None below 6 runs: --runs 11 or more)
        "on_vs_off_paired_interval95": median_interval(paired["on", "eps"]),
        "down_vs_off_paired_interval95": median_interval(paired["down", "eps"]),
        "on_vs_off_rounds": paired["on", "eps"],
        "events_finished": {m: [r["done"] for r in rs] for m, rs in per_mode.items()},
        "max_queue_depth": max(r["max_queue_depth"] for r in per_mode["on"] + per_mode["down"]),
        "on_last_run": {k: v for k, v in per_mode["on"][-1].items() if "eps" not in k},
        "down_last_run": {k: v for k, v in per_mode["down"][-1].items() if "eps" not in k},
    }


def judge_section(args: argparse.Namespace, events: list[bytes]) -> dict[str, Any]:
    """The check path with the judge on (a 2 s fake judge, 10% sampled) and down, against off."""
    return measure(events, runs=args.runs)


SECTIONS = {"judge": judge_section}
