"""`ragmon bench --section stages`: where an answer's CPU goes, stage by stage, against a bare
Faust pass-through measured in the same run.

In this process the section drives the worker's own objects as a worker with the checks in its
process does (`CheckProcessor.handle`, `flush`, the audit trail, the judge hook, the aggregate
agent's `WindowAggregator.handle`) over the events, batch by batch, and charges the thread's CPU
time (CLOCK_THREAD_CPUTIME_ID) to the stage that runs, exclusively (a stage's time leaves out
the stages it calls):

- decode: bytes → AnswerEvent (monitor.inputs.decode);
- check: monitor.check.check_event;
- score: what turns a verdict into its score entry and counts (count vector, dedup, labels,
  counters, the entry, the batch's counter flush);
- audit: the audit record of an audited answer, without its encoding;
- judge: the judge hook (sampling plan; for a sampled answer the request, built and encoded),
  with the judge's queue open (every sampled answer builds its request: the worst case); with a
  check process the worker builds it, from the answer and verdict the check process sends back;
- serialise: JSON encoding of the audit records and the score records;
- window: the aggregate agent on the score records (parse, dedup, sums, the table entry
  encoded as Faust's JSON changelog value);
- produce: every output record appended to an aiokafka record batch (the producer's client
  side: partitioner, batch append, a delivery future; full batches built as the sender does),
  the table's changelog entry included.

What needs the broker, consuming, acknowledging, the producer's I/O and the offset commits,
is what a bare pass-through does too: with the embedded broker the section also runs a bare
Faust pass-through and the monitor as it runs in production, with one check process
(RAGMON_CHECK_PROCESSES=1), alternately, on backlogs of the same events, and reads each
process's CPU per answer from /proc. `faust` is then the monitor's worker process's CPU per
answer less the worker's in-process stages (`worker`): Faust's and aiokafka's per-record work
(consume, ack, commit, producer I/O), to compare with the pass-through's whole. The worker does
not help with the checks there (RAGMON_CHECK_HELP=false): on a backlog it would, and its CPU
would hold checks. Nor does it read a monitor that checks in its worker process: checks run
between Faust's callbacks cost more than alone, by an amount that depends on the machine, and
its residual would count that as Faust's (docs/guarantees.md, session 24). Every stage is
also given as a ratio to the pass-through's CPU per answer; docs/guarantees.md holds the budget
of each ratio (its "Stage budget" table), and tests/bench/test_stages_bench.py compares them.

`grounding` (the uncited claims' grounding inside the check) and, with `detail`, its parts are
timed on the pure core only: a compiled module calls its functions directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import statistics
import sys
from pathlib import Path
from typing import Any

from agents.bench.stages_profile import PARTITIONS, _median_profile


def broker_reference(events: list[bytes], n: int, rounds: int) -> dict[str, Any]:
    """CPU per answer of a bare Faust pass-through and of the monitor with one check process
    (its worker's own, its check process's, both), backlogs of the same `n` events in turn,
    `rounds` times (medians)."""
    import subprocess
    import tempfile

    from agents.bench.e2e_procs import _env, _spawn, _stop
    from agents.bench.e2e_records import (
        _backlog_rate,
        _publish,
        _read,
        _tagged_answers,
        _tagged_values,
        renamed,
    )
    from agents.bench.e2e_workers import Monitor, _start_monitor, passthrough_batch_bytes
    from agents.kafka.broker import EmbeddedBroker, free_port
    from agents.kafka.topics import TopicSpec, ensure_topics
    from monitor.config.settings import load_settings

    work = Path(tempfile.mkdtemp(prefix="ragmon-stages-"))
    broker = EmbeddedBroker(log=work / "broker.log")
    bootstrap = broker.start()
    broker_pid = broker.process.pid if broker.process is not None else None
    procs: list[subprocess.Popen[bytes]] = []
    try:
        pt = load_settings(bootstrap_servers=bootstrap, topic_prefix="pt.", partitions=PARTITIONS)
        specs = {r: TopicSpec(r, f"pt.{r}", PARTITIONS) for r in ("answers", "out")}
        asyncio.run(ensure_topics(pt, {"bootstrap_servers": bootstrap}, specs))
        # as in production, but the worker never checks a batch itself (on a backlog it would
        # help the check process, and its CPU would hold checks: not Faust's work)
        mon = Monitor(
            "monitor", "mon.", {"RAGMON_CHECK_PROCESSES": "1", "RAGMON_CHECK_HELP": "false"}
        )
        _start_monitor(mon, bootstrap, work)
        assert mon.proc is not None and mon.settings is not None
        procs.append(mon.proc)
        passthrough = _spawn(
            ["agents.bench.e2e", "passthrough"],
            _env(bootstrap, "pt.", "stages-pt", free_port(), work),
            work / "passthrough.log",
        )
        procs.append(passthrough)
        warm = min(n, 1000)
        answers, scores = mon.settings.topic("answers"), mon.settings.topic("scores")
        asyncio.run(_publish(mon.settings, answers, renamed(events, warm, "warm"), None))
        asyncio.run(_publish(pt, "pt.answers", renamed(events, warm, "ptwarm"), None))
        asyncio.run(_read(bootstrap, scores, warm, 600, _tagged_answers("warm")))
        asyncio.run(_read(bootstrap, "pt.out", warm, 600, _tagged_values("ptwarm")))
        pt_cpu, mon_cpu, loads = [], [], []
        # the broker's CPU per answer while each worked (its share grows with what the
        # monitor writes: the audit records' bytes, the judge requests)
        mon_costs: list[tuple[float, list[float]]] = []
        pt_costs: list[tuple[float, list[float]]] = []
        for r in range(rounds):
            loads.append(os.getloadavg()[0])
            tag = f"mon{r}-"
            weight = _tagged_answers(tag)
            _, cpu = _backlog_rate(
                mon.settings,
                bootstrap,
                answers,
                scores,
                events,
                n,
                tag,
                weight,
                mon.proc,
                costs=mon_costs,
                broker_pid=broker_pid,
            )
            mon_cpu.append(cpu)
            tag = f"pt{r}-"
            weight = _tagged_values(tag)
            _, cpu = _backlog_rate(
                pt,
                bootstrap,
                "pt.answers",
                "pt.out",
                events,
                n,
                tag,
                weight,
                passthrough,
                costs=pt_costs,
                broker_pid=broker_pid,
            )
            pt_cpu.append(cpu)
        return {
            "events": n,
            "rounds": rounds,
            "passthrough_cpu_us_per_event": statistics.median(pt_cpu),
            "monitor_cpu_us_per_event": statistics.median(mon_cpu),
            "rounds_passthrough_cpu_us": pt_cpu,
            "rounds_monitor_cpu_us": mon_cpu,
            # the worker process alone, and its check process (the first of its children)
            "monitor_worker_cpu_us_per_event": statistics.median(c[1][0] for c in mon_costs),
            "rounds_monitor_worker_cpu_us": [c[1][0] for c in mon_costs],
            "monitor_check_process_cpu_us_per_event": statistics.median(
                (c[1][1] if len(c[1]) > 1 else 0.0) for c in mon_costs
            ),
            "monitor_broker_cpu_us_per_event": statistics.median(c[0] for c in mon_costs),
            "passthrough_broker_cpu_us_per_event": statistics.median(c[0] for c in pt_costs),
            "rounds_monitor_broker_cpu_us": [c[0] for c in mon_costs],
            "rounds_passthrough_broker_cpu_us": [c[0] for c in pt_costs],
            "load_average_1min": loads,
            # the monitor's producer batch and the bare pass-through's (Faust's own)
            "producer_batch_bytes": mon.settings.producer_batch_bytes,
            "passthrough_producer_batch_bytes": passthrough_batch_bytes(),
        }
    finally:
        for proc in procs:
            _stop(proc)
        broker.stop()


#: The budget table's heading in docs/guarantees.md.
BUDGET_HEADING = "### Stage budget"
_ROW = re.compile(r"^\|\s*`(?P<stage>[a-z_.]+)`\s*\|.*\|\s*(?P<budget>[0-9.]+)\s*\|\s*$")


def read_budget(doc: Path) -> dict[str, float]:
    """Stage → budget (CPU per answer as a ratio to the pass-through's) from the docs' table:
    the rows `| `stage` | ... | budget |` of the first table after BUDGET_HEADING (later
    tables under the heading hold measurements, not budgets: their last column must not be
    read as one)."""
    text = doc.read_text(encoding="utf-8")
    start = text.index(BUDGET_HEADING)
    out: dict[str, float] = {}
    in_table = False
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        if not line.startswith("|"):
            if in_table:
                break  # the table ended
            continue
        in_table = True
        match = _ROW.match(line)
        if match:
            out[match["stage"]] = float(match["budget"])
    return out


def ratios(
    pooled: dict[str, Any], judged: dict[str, Any], passthrough_us: float
) -> dict[str, float]:
    """Each stage's CPU per answer with a check process (`pooled`, judge off) over the
    pass-through's, and the sums the budget names: `worker` (the worker's stages: what it
    adds to its Faust work), `child` (the check process), `judge` (what the judge on adds to
    the worker, where the requests are built, `judged` against `pooled`; the check process's
    share, sending the sampled answers back whole, is in `child.ipc`: a difference of the two
    whole check processes would carry the check's own run-to-run spread, larger than that)."""
    cpu = pooled["cpu_us_per_event"]
    out = {s: v / passthrough_us for s, v in cpu.items()}
    out["worker"] = pooled["worker_cpu_us_per_event"] / passthrough_us
    child = pooled["in_process_cpu_us_per_event"] - pooled["worker_cpu_us_per_event"]
    out["child"] = child / passthrough_us
    judge = judged["worker_cpu_us_per_event"] - pooled["worker_cpu_us_per_event"]
    out["judge"] = judge / passthrough_us
    return out


def stages_section(args: Any, events: list[bytes]) -> dict[str, Any]:
    """CPU per answer per stage (decode, check, grounding, score, audit, judge, serialise,
    window, produce; in the worker and in a check process) against a bare Faust pass-through
    on the embedded broker (RAGMON_BENCH_STAGES_BROKER=0: the stages alone)."""
    runs = max(1, int(getattr(args, "runs", 3)))
    out: dict[str, Any] = {
        "in_process": _median_profile(events, runs, judge=False),
        "check_process": _median_profile(events, runs, judge=False, pooled=True),
        "check_process_judge": _median_profile(events, runs, judge=True, pooled=True),
    }
    for name in ("in_process", "check_process", "check_process_judge"):
        stages = ", ".join(f"{s} {v:.1f}" for s, v in out[name]["cpu_us_per_event"].items())
        print(f"  {name}: {stages} (µs of CPU per answer)", file=sys.stderr)
    if os.environ.get("RAGMON_BENCH_STAGES_BROKER", "1") != "0":
        n = int(os.environ.get("RAGMON_BENCH_STAGES_EVENTS", str(min(len(events) * 2, 5000))))
        rounds = int(os.environ.get("RAGMON_BENCH_STAGES_ROUNDS", "3"))
        ref = broker_reference(events, n, rounds)
        out["broker"] = ref
        print(
            f"  through the broker: monitor {ref['monitor_cpu_us_per_event']:.1f} (worker "
            f"{ref['monitor_worker_cpu_us_per_event']:.1f}, check process "
            f"{ref['monitor_check_process_cpu_us_per_event']:.1f}) + its broker "
            f"{ref['monitor_broker_cpu_us_per_event']:.1f}; pass-through "
            f"{ref['passthrough_cpu_us_per_event']:.1f} + its broker "
            f"{ref['passthrough_broker_cpu_us_per_event']:.1f} (µs of CPU per answer)",
            file=sys.stderr,
        )
        pt = ref["passthrough_cpu_us_per_event"]
        # the worker's own CPU less its stages with a check process: what Faust and aiokafka
        # cost it (the check process's CPU is `child`'s, measured in-process)
        worker_stages = out["check_process"]["worker_cpu_us_per_event"]
        faust = ref["monitor_worker_cpu_us_per_event"] - worker_stages
        out["faust_cpu_us_per_event"] = faust
        out["ratios_to_passthrough"] = {
            **ratios(out["check_process"], out["check_process_judge"], pt),
            "faust": faust / pt,
        }
        budget_file = Path(__file__).resolve().parents[2] / "docs" / "guarantees.md"
        with contextlib.suppress(OSError, ValueError):
            budget = read_budget(budget_file)
            out["budget"] = budget
            out["over_budget"] = {
                s: r
                for s, r in out["ratios_to_passthrough"].items()
                if s in budget and r > budget[s]
            }
    out["load_average"] = os.getloadavg()
    return out


SECTIONS = {"stages": stages_section}
