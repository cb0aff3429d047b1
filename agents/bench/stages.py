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
  with the judge's queue open (every sampled answer builds its request: the worst case);
- serialise: JSON encoding of the audit records and the score records;
- window: the aggregate agent on the score records (parse, dedup, sums, the table entry
  encoded as Faust's JSON changelog value);
- produce: every output record appended to an aiokafka record batch (the producer's client
  side: partitioner, batch append, a delivery future; full batches built as the sender does),
  the table's changelog entry included.

What needs the broker, consuming, acknowledging, the producer's I/O and the offset commits,
is what a bare pass-through does too: with the embedded broker the section also runs a bare
Faust pass-through and the monitor with its checks in the worker process (RAGMON_CHECK_PROCESSES
=0), alternately, on backlogs of the same events, and reads their CPU per answer from /proc.
`faust` is then the monitor's CPU per answer less the in-process stages: Faust's and
aiokafka's per-record work (consume, ack, commit, producer I/O), to compare with the
pass-through's whole. Every stage is also given as a ratio to the pass-through's CPU per
answer; docs/guarantees.md holds the budget of each ratio (its "Stage budget" table), and
tests/bench/test_stages_bench.py compares them.

`grounding` (the uncited claims' grounding inside the check) and, with `detail`, its parts are
timed on the pure core only: a compiled module calls its functions directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import pickle
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from aiokafka.partitioner import murmur2
from aiokafka.producer.message_accumulator import BatchBuilder

#: the judge of the profile, as the e2e bench's judge-on monitor (10% sampled, no budgets)
JUDGE_RATE = 0.1
BATCH_BYTES = 16_384  # aiokafka's default max_batch_size
PARTITIONS = 4


class Stopwatch:
    """Exclusive thread CPU time per stage: a stage entered inside another stops the other's
    clock until it returns."""

    def __init__(self, clock: Callable[[], int] = time.thread_time_ns) -> None:
        self.clock = clock
        self.ns: dict[str, int] = {}
        self.stack: list[str] = []
        self.current = "other"
        self.last = clock()
        self.switches = 0
        #: put before every stage entered by name: "child." while a check process's part runs
        self.prefix = ""

    def enter(self, stage: str) -> None:
        now = self.clock()
        self.ns[self.current] = self.ns.get(self.current, 0) + now - self.last
        self.stack.append(self.current)
        self.current, self.last = self.prefix + stage, now
        self.switches += 1

    def leave(self) -> None:
        now = self.clock()
        self.ns[self.current] = self.ns.get(self.current, 0) + now - self.last
        self.current, self.last = self.stack.pop(), now
        self.switches += 1

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self.enter(name)
        try:
            yield
        finally:
            self.leave()

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        enter, leave = self.enter, self.leave

        def timed(*args: Any, **kwargs: Any) -> Any:
            enter(name)
            try:
                return fn(*args, **kwargs)
            finally:
                leave()

        return timed


def switch_cost_ns(samples: int = 20_000) -> float:
    """What one stage switch itself costs in thread CPU time (subtracted per switch)."""
    watch = Stopwatch()
    start = time.thread_time_ns()
    for _ in range(samples):
        watch.enter("x")
        watch.leave()
    return (time.thread_time_ns() - start) / (2 * samples)


@contextlib.contextmanager
def _patched(watch: Stopwatch, detail: bool = False) -> Iterator[None]:
    """The worker's functions, timed where the worker's modules look them up; `detail`: also
    the parts of the uncited claims' grounding."""
    from agents.checking import work
    from agents.output import audit_record
    from agents.stream import check_agent
    from monitor import check as check_module
    from monitor.checks import contrast, grounding, support

    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, stage: str) -> None:
        original = getattr(owner, name)
        saved.append((owner, name, original))
        setattr(owner, name, watch.wrap(stage, original))

    def maybe(owner: Any, name: str, stage: str) -> None:
        if hasattr(owner, name):  # names of a module another branch is rewriting
            patch(owner, name, stage)

    # The grounding of uncited claims, inside the check (pure core only: a compiled module
    # calls its own functions directly, whatever its attributes say)
    maybe(check_module, "ground_uncited", "grounding")
    maybe(check_module, "context_of", "grounding")
    if detail:
        for name in ("verbatim", "claim_core", "claim_terms", "index_evidence", "lexical_support"):
            maybe(grounding, name, f"grounding.{name}")
        for name in ("signals", "restated", "contrasts"):  # what lexical_support calls
            maybe(support, name, f"grounding.lexical_support.{name}")
        for name in ("_split", "_align", "unit_mismatch", "_initial_missing", "_entity_swap"):
            maybe(contrast, name, f"grounding.lexical_support.contrasts.{name}")
    patch(work, "decode_event", "decode")
    patch(work, "check_event", "check")
    patch(audit_record.AuditBuilder, "build", "audit")
    patch(audit_record, "encode_record", "serialise")
    patch(check_agent, "dumps", "serialise")
    try:
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


class Producer:
    """The client side of producing: partition by key, append to the partition's record batch,
    a delivery future per record; a full batch is built (what aiokafka's sender sends)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.batches: dict[tuple[str, int], BatchBuilder] = {}
        self.records = 0
        self.bytes = 0

    def send(self, topic: str, key: bytes | None, value: bytes) -> None:
        partition = (murmur2(key) & 0x7FFFFFFF) % PARTITIONS if key is not None else 0
        tp = (topic, partition)
        builder = self.batches.get(tp)
        if builder is None:
            builder = self.batches[tp] = BatchBuilder(BATCH_BYTES, 0)
        if builder.append(timestamp=None, key=key, value=value) is None:
            builder._build()  # what the sender sends (aiokafka's own name)
            builder = self.batches[tp] = BatchBuilder(BATCH_BYTES, 0)
            builder.append(timestamp=None, key=key, value=value)
        self.loop.create_future()
        self.records += 1
        self.bytes += len(value)


class ChangelogTable(dict[str, Any]):
    """The window table as a dict whose writes are encoded as Faust's JSON changelog values
    and produced."""

    def __init__(self, producer: Producer) -> None:
        super().__init__()
        self.producer = producer

    def __setitem__(self, key: str, value: Any) -> None:
        self.producer.send("window-changelog", key.encode(), json.dumps(value).encode())
        super().__setitem__(key, value)


def _pooled_batch(watch: Stopwatch, processor: Any, batch: list[Any]) -> None:
    """One batch as with a check process: the raw batch pickled to the process, decoded,
    checked and its records built there (stages named `child.*`), the results pickled back
    and applied here."""
    with watch.stage("ipc"):
        sent = pickle.dumps([(raw, meta.where()) for raw, meta in batch], pickle.HIGHEST_PROTOCOL)
    watch.prefix = "child."
    with watch.stage("ipc"):
        work = pickle.loads(sent)
    with watch.stage("score"):
        results = processor.work.run_batch(work)
    with watch.stage("ipc"):
        back = pickle.dumps(results, pickle.HIGHEST_PROTOCOL)
    watch.prefix = ""
    with watch.stage("ipc"):
        results = pickle.loads(back)
    with watch.stage("score"):
        for (raw, meta), result in zip(batch, results, strict=True):
            processor.apply(result, raw, meta)
        processor.flush()


async def _profile(
    events: list[bytes],
    judge: bool,
    settings_overrides: dict[str, Any],
    pooled: bool = False,
    detail: bool = False,
    rate: float = 3_000.0,
) -> Any:
    from prometheus_client import CollectorRegistry

    from agents.checking.work import CheckWork
    from agents.output.audit import AuditTrail
    from agents.output.outbox import Outbox
    from agents.stream.aggregate import WindowAggregator
    from agents.stream.alerting import build_alerting
    from agents.stream.app import GAUGE_INTERVAL
    from agents.stream.check_agent import CheckProcessor, RecordMeta
    from agents.stream.window_store import CountedRecords
    from agents.telemetry.metrics import AppLabels, build_metrics
    from monitor.config.settings import load_settings
    from monitor.sampling.policy import Sampler, SamplingPolicy

    settings = load_settings(**settings_overrides)
    metrics = build_metrics(CollectorRegistry())
    outbox = Outbox()
    audit = AuditTrail(
        settings, metrics, send=lambda key, value: outbox.add("audit", key.encode(), value)
    )
    labels = AppLabels(settings.app_allowlist, settings.max_apps)
    # Time as the worker would see it at `rate` answers a second: what runs per second (the
    # gauges and alert rules, GAUGE_INTERVAL) costs each answer its share at that rate
    now = [time.time()]

    def clock() -> float:
        return now[0]

    processor = CheckProcessor(
        settings, metrics, outbox.add, app_labels=labels, audit=audit, clock=clock
    )
    watch = Stopwatch()
    if pooled:  # as the app factory sets the work up for check processes
        judge_rates = (JUDGE_RATE, JUDGE_RATE) if judge else None
        processor.work = replace(processor.work, hook_rate=0.0, judge_rates=judge_rates)
    if judge:
        from agents.stream.judge_wiring import judge_hook

        sampler = Sampler(
            SamplingPolicy(
                base_rate=JUDGE_RATE,
                oversample_rate=JUDGE_RATE,
                calls_per_minute=0,
                tokens_per_hour=0,
            )
        )
        hook = judge_hook(settings, metrics, processor, labels, sampler, lambda: None)
        processor.hooks.append(watch.wrap("judge", hook))
    producer = Producer(asyncio.get_running_loop())
    store = CountedRecords(
        ChangelogTable(producer),
        settings.window_step_seconds,
        settings.dedup_horizon_seconds,
        settings.dedup_max_ids,
    )
    alerting = build_alerting(settings, metrics, store={})
    aggregator = WindowAggregator(
        settings, metrics, store, partitions=PARTITIONS, alerting=alerting, clock=clock
    )
    aggregator.sync_ownership(range(PARTITIONS))
    size = settings.check_batch_size
    next_gauges = now[0] + GAUGE_INTERVAL
    # a check process's clock is `CheckWork.check`'s default (time.time)
    defaults = CheckWork.check.__defaults__ or ()
    CheckWork.check.__defaults__ = (clock, *defaults[1:])
    names = {role: settings.topic(role) for role in ("scores", "audit", "dlq", "judge-requests")}
    out_bytes: dict[str, int] = {}
    scores_offset = 0
    with _patched(watch, detail):
        watch.last = watch.clock()
        for start in range(0, len(events), size):
            batch = [
                (raw, RecordMeta("answers", i % PARTITIONS, i, now[0] - 0.5))
                for i, raw in enumerate(events[start : start + size], start)
            ]
            if pooled:
                _pooled_batch(watch, processor, batch)
            else:
                with watch.stage("score"):
                    for raw, meta in batch:
                        processor.handle(raw, meta)
                    processor.flush()
            records = outbox.take()
            with watch.stage("produce"):
                for role, key, value in records:
                    producer.send(names[role], key, value)
            for role, _, value in records:
                out_bytes[role] = out_bytes.get(role, 0) + len(value)
            with watch.stage("window"):
                for role, key, value in records:
                    if role == "scores":
                        scores_offset += 1
                        aggregator.handle(json.loads(value), key, f"0:{scores_offset}")
                now[0] += len(batch) / rate
                while now[0] >= next_gauges:  # the gauge timer (agents/stream/app.py)
                    aggregator.publish(next_gauges)
                    next_gauges += GAUGE_INTERVAL
        watch.enter("other")  # closes the last stage's clock
    CheckWork.check.__defaults__ = defaults
    alerting.close(1.0)
    return watch, processor, out_bytes, producer


def _worker_gen0_threshold() -> int | None:
    try:
        from agents.checking.gc_tuning import GEN0_THRESHOLD
    except ImportError:  # a tree from before the tuning (the section runs on both)
        return None
    return GEN0_THRESHOLD


def profile(
    events: list[bytes],
    judge: bool = True,
    pooled: bool = False,
    settings: dict[str, Any] | None = None,
    detail: bool = False,
    answers: int = 0,
) -> dict[str, Any]:
    """One pass over `events` (cycled, with fresh ids, up to `answers`): CPU µs per answer per
    stage. `other` is the driver's own loop
    (what the check agent's loop does per answer: the record's metadata); `stopwatch` is what
    the stage switches themselves cost, taken off the total."""
    switch = switch_cost_ns()
    if len(events) < answers:  # long enough for the per-second work to reach its steady state
        from agents.bench.e2e_records import renamed

        events = list(renamed(events, answers, "st"))
    threshold = gc.get_threshold()
    gen0 = _worker_gen0_threshold()
    if gen0 is not None:  # the collector as the worker and its check processes set it
        gc.set_threshold(gen0, *threshold[1:])
    try:
        watch, processor, out_bytes, producer = asyncio.run(
            _profile(events, judge, settings or {}, pooled, detail)
        )
    finally:
        gc.set_threshold(*threshold)
    n = len(events)
    per_stage = {s: ns / n / 1000 for s, ns in sorted(watch.ns.items())}
    overhead = watch.switches * switch / n / 1000
    child = sum(v for s, v in per_stage.items() if s.startswith("child."))
    total = sum(per_stage.values())
    return {
        "events": n,
        "judge": judge,
        "pooled": pooled,
        "cpu_us_per_event": per_stage,
        "in_process_cpu_us_per_event": max(0.0, total - overhead),
        "worker_cpu_us_per_event": total - child,  # with check processes: the worker's part
        "stopwatch_us_per_event": overhead,
        "checked": processor.processed.get("checked", 0),
        "rejected": processor.processed.get("rejected", 0),
        "output_records_per_event": producer.records / n,
        "output_bytes_per_event": {k: v / n for k, v in sorted(out_bytes.items())},
    }


def _median_profile(
    events: list[bytes], runs: int, judge: bool, pooled: bool = False, detail: bool = False
) -> dict[str, Any]:
    """The median over `runs` passes, stage by stage."""
    answers = int(os.environ.get("RAGMON_BENCH_STAGES_ANSWERS", "9000"))
    passes = [profile(events, judge, pooled, detail=detail, answers=answers) for _ in range(runs)]
    out = dict(passes[-1])
    out["runs"] = runs
    stages = sorted({s for p in passes for s in p["cpu_us_per_event"]})
    out["cpu_us_per_event"] = {
        s: statistics.median(p["cpu_us_per_event"].get(s, 0.0) for p in passes) for s in stages
    }
    for key in ("in_process_cpu_us_per_event", "worker_cpu_us_per_event"):
        out[key] = statistics.median(p[key] for p in passes)
    return out


def broker_reference(events: list[bytes], n: int, rounds: int) -> dict[str, Any]:
    """CPU per answer of a bare Faust pass-through and of the monitor with its checks in the
    worker process, backlogs of the same `n` events in turn, `rounds` times (medians)."""
    import subprocess
    import tempfile

    from agents.bench import e2e
    from agents.bench.e2e_procs import _env, _spawn, _stop
    from agents.bench.e2e_records import _publish, _read, _tagged_answers, _tagged_values, renamed
    from agents.bench.e2e_workers import Monitor, _start_monitor
    from agents.kafka.broker import EmbeddedBroker, free_port
    from agents.kafka.topics import TopicSpec, ensure_topics
    from monitor.config.settings import load_settings

    work = Path(tempfile.mkdtemp(prefix="ragmon-stages-"))
    broker = EmbeddedBroker(log=work / "broker.log")
    bootstrap = broker.start()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        pt = load_settings(bootstrap_servers=bootstrap, topic_prefix="pt.", partitions=PARTITIONS)
        specs = {r: TopicSpec(r, f"pt.{r}", PARTITIONS) for r in ("answers", "out")}
        asyncio.run(ensure_topics(pt, {"bootstrap_servers": bootstrap}, specs))
        mon = Monitor("monitor", "mon.", {"RAGMON_CHECK_PROCESSES": "0"})
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
        for r in range(rounds):
            loads.append(os.getloadavg()[0])
            tag = f"mon{r}-"
            weight = _tagged_answers(tag)
            _, cpu = e2e._backlog_rate(
                mon.settings, bootstrap, answers, scores, events, n, tag, weight, mon.proc
            )
            mon_cpu.append(cpu)
            tag = f"pt{r}-"
            weight = _tagged_values(tag)
            _, cpu = e2e._backlog_rate(
                pt, bootstrap, "pt.answers", "pt.out", events, n, tag, weight, passthrough
            )
            pt_cpu.append(cpu)
        return {
            "events": n,
            "rounds": rounds,
            "passthrough_cpu_us_per_event": statistics.median(pt_cpu),
            "monitor_cpu_us_per_event": statistics.median(mon_cpu),
            "rounds_passthrough_cpu_us": pt_cpu,
            "rounds_monitor_cpu_us": mon_cpu,
            "load_average_1min": loads,
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
    the rows `| `stage` | ... | budget |` after BUDGET_HEADING, up to the next heading."""
    text = doc.read_text(encoding="utf-8")
    start = text.index(BUDGET_HEADING)
    out: dict[str, float] = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
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
    the worker, `judged` against `pooled`)."""
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
        pt = ref["passthrough_cpu_us_per_event"]
        faust = ref["monitor_cpu_us_per_event"] - out["in_process"]["in_process_cpu_us_per_event"]
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
