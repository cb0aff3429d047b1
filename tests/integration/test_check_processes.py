"""Check processes (RAGMON_CHECK_PROCESSES) on a real broker: same figures, clean stops.

With check processes the worker sends raw answers to spawned children and only counts their
results, so everything test_pipeline.py asserts of the in-process checks must hold unchanged:
counters equal to the offline totals, window gauges, dead letters with their bytes, score
records for every answer, audit records for every failing one, redeliveries counted as
duplicates. Then the children's lifetime: gone after SIGTERM to the worker, gone by themselves
(PDEATHSIG) after SIGKILL, and quiet when Ctrl-C reaches the whole process group.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.output.records import event_ids
from tests.conftest import standard_mix
from tests.integration.conftest import Namespace, WorkerProcess, consume, produce, wait_until
from tests.integration.test_pipeline import (
    MALFORMED,
    Key,
    Offline,
    _key,
    exported_counters,
    total,
)

pytestmark = pytest.mark.integration

N_EVENTS = 200
BATCH = "25"  # several batches out at once: the pipelined path of agents/stream/check_batch.py
BAD_REASONS = ("invalid_json", "invalid_utf8", "schema_violation")
BAD = [(reason, value) for reason, value in MALFORMED if reason in BAD_REASONS]

# --- processes, from /proc (psutil is not a dependency) -------------------------------------

Proc = tuple[int, str]  # pid, start time (clock ticks since boot): a pid may be reused


def _stat(pid: int) -> tuple[str, str] | None:
    """(state, start time) of a process, None when it does not exist."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], fields[19]


def alive(proc: Proc) -> bool:
    stat = _stat(proc[0])
    return stat is not None and stat[0] != "Z" and stat[1] == proc[1]


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def descendants(pid: int) -> list[Proc]:
    out: list[Proc] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                stat = _stat(int(child))
                if stat is not None:
                    out.append((int(child), stat[1]))
                    out.extend(descendants(int(child)))
    return out


def check_processes(procs: list[Proc]) -> list[Proc]:
    """The pool's children (the other spawned child is multiprocessing's resource tracker)."""
    return [p for p in procs if "spawn_main" in cmdline(p[0])]


class GroupWorker(WorkerProcess):
    """A worker leading its own process group, so a test can Ctrl-C it (and its children)
    without signalling pytest."""

    popen_options = {"process_group": 0}  # noqa: RUF012

    def log_events(self) -> list[dict[str, Any]]:
        out = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict):
                    out.append(record)
        return out

    def logged(self, event: str) -> dict[str, Any] | None:
        return next((r for r in self.log_events() if r.get("event") == event), None)


class Workers:
    """Starts GroupWorkers; `close` kills by pid every worker and every process it was seen to
    have that is still there."""

    def __init__(self, bootstrap: str, workdir: Path) -> None:
        self.bootstrap, self.workdir = bootstrap, workdir
        self.started: list[GroupWorker] = []
        self.seen: list[Proc] = []

    def start(self, ns: Namespace, **env: str) -> GroupWorker:
        worker = GroupWorker(self.bootstrap, ns, self.workdir, env)
        worker.start()
        self.started.append(worker)
        return worker

    def close(self) -> None:
        for worker in self.started:
            if worker.proc is not None and worker.proc.poll() is None:
                self.seen.extend(descendants(worker.proc.pid))
                worker.proc.kill()
                worker.proc.wait(10)
        for proc in self.seen:
            if alive(proc):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc[0], signal.SIGKILL)


@pytest.fixture
def group_workers(broker: Any, tmp_path: Path) -> Iterator[Workers]:
    workers = Workers(broker.bootstrap, tmp_path)
    try:
        yield workers
    finally:
        workers.close()


def pool_started(worker: GroupWorker, timeout: float = 60.0) -> dict[str, Any]:
    line = wait_until(
        lambda: worker.logged("check processes started"), timeout, what="check processes started"
    )
    assert line is not None
    return line


# --- 1. same figures as the in-process checks -----------------------------------------------


@pytest.mark.parametrize("processes", [2, 1, 0])
def test_check_processes_count_what_the_offline_checks_count(
    broker: Any, group_workers: Workers, processes: int
) -> None:
    """With two check processes (the default on 2+ CPUs), one (where, on two CPUs, the worker
    helps it when it falls behind), and (the same figures) with the checks in the worker
    process."""
    from monitor.check import check_bytes
    from monitor.config.settings import load_settings
    from monitor.output.audit import audit_reason
    from monitor.records.models import Rejection

    settings = load_settings()
    options = settings.check_options()
    events = standard_mix(N_EVENTS, seed=41)
    valid = [(e["event_id"].encode(), json.dumps(e).encode()) for e in events]
    offline = Offline()
    audited: dict[str, str] = {}
    for _, value in valid:
        verdict = check_bytes(value, options)
        assert not isinstance(verdict, Rejection)
        offline.add(verdict)
        why = audit_reason(verdict, settings.audit_sample_rate)
        if why is not None:
            audited[verdict.event_id] = why
    for reason, value in BAD:
        rejection = check_bytes(value, options)
        assert getattr(rejection, "reason", None) == reason
        offline.add(rejection)
    assert Counter(audited.values())["failure"] > 10  # the mix has failing answers to audit

    ns = Namespace(f"procs{processes}")
    worker = group_workers.start(
        ns, RAGMON_CHECK_PROCESSES=str(processes), RAGMON_CHECK_BATCH_SIZE=BATCH
    )
    worker.wait_assigned()
    assert worker.proc is not None
    if processes:
        started = pool_started(worker)
        assert started["processes"] == processes
        worker_core = worker.logged("worker starting")
        assert worker_core is not None
        # the children run the worker's core (the worker also says why when it is pure)
        assert started["core"] == worker_core["core"].split()[0]
    assert len(check_processes(descendants(worker.proc.pid))) == processes

    records: list[tuple[bytes | None, bytes]] = list(valid)
    for i, (_, value) in enumerate(BAD):  # between valid answers, which must flow on
        records.insert(40 + 60 * i, (None, value))
    metas = produce(broker.bootstrap, ns.topic("answers"), records)
    reason_of = {value: reason for reason, value in BAD}
    bad_meta = {
        (m.partition, m.offset): value
        for (key, value), m in zip(records, metas, strict=True)
        if key is None
    }

    def done() -> dict[Key, float] | None:
        m = worker.metrics()
        return m if total(m, "ragmon_events_total") >= len(records) else None

    metrics = wait_until(done, timeout=60, interval=0.5, what="all events processed")
    assert metrics is not None
    assert exported_counters(metrics) == offline.counters
    audit_counts = {
        reason: total(metrics, "ragmon_audit_records_total", reason=reason)
        for reason in ("failure", "sample")
    }
    assert audit_counts == {r: Counter(audited.values())[r] for r in ("failure", "sample")}

    # Window gauges: the ratios of the same totals (the aggregate agent is unchanged).
    def published() -> dict[Key, float] | None:
        m = worker.metrics()
        ok = all(
            m.get(_key("ragmon_window_events", app=app)) == w["events"]
            for app, w in offline.window.items()
        )
        return m if ok else None

    gauges = wait_until(published, timeout=20, what="window gauges")
    assert gauges is not None
    for app in (a for a, w in offline.window.items() if w["claims"]):
        for key, expected in offline.ratios(app).items():
            assert gauges[key] == pytest.approx(expected, rel=1e-12), (key, app)

    letters = consume(broker.bootstrap, ns.topic("dlq"), len(BAD))
    assert len(letters) == len(BAD)
    got = {}
    for letter in letters:
        record = json.loads(letter.value)
        got[(record["partition"], record["offset"])] = record
    assert got.keys() == bad_meta.keys()
    for where, value in bad_meta.items():
        record = got[where]
        assert record["reason"] == reason_of[value]
        assert record["topic"] == ns.topic("answers")
        assert base64.b64decode(record["value_b64"]) == value
        assert record["truncated"] is False

    produced_ids = {e["event_id"] for e in events}

    def scored() -> Counter[str] | None:
        out = consume(broker.bootstrap, ns.topic("scores"), 10**9, timeout=2)
        ids = Counter(i for r in out for i in event_ids(json.loads(r.value)))
        return ids if set(ids) >= produced_ids else None

    ids = wait_until(scored, timeout=20, what="score records for every event")
    assert ids is not None
    assert set(ids) == produced_ids and max(ids.values()) == 1

    audit = consume(broker.bootstrap, ns.topic("audit"), len(audited))
    audit_records = {json.loads(r.value)["event_id"]: json.loads(r.value) for r in audit}
    assert {i: r["audit_reason"] for i, r in audit_records.items()} == audited
    assert all(r["source"]["topic"] == ns.topic("answers") for r in audit_records.values())

    # Redelivery: the worker's dedup sees the ids the children checked; nothing checked again.
    checked = total(metrics, "ragmon_events_total", outcome="checked")
    produce(broker.bootstrap, ns.topic("answers"), list(valid))

    def duplicates() -> dict[Key, float] | None:
        m = worker.metrics()
        n = total(m, "ragmon_events_total", outcome="duplicate")
        return m if n >= len(valid) else None

    after = wait_until(duplicates, timeout=60, interval=0.5, what="duplicates counted")
    assert after is not None
    assert total(after, "ragmon_events_total", outcome="duplicate") == len(valid)
    assert total(after, "ragmon_events_total", outcome="checked") == checked == N_EVENTS
    counters = exported_counters(after)
    dups = Counter({k: v for k, v in counters.items() if ("outcome", "duplicate") in k[1]})
    assert counters - dups == offline.counters
    assert total(after, "ragmon_audit_records_total") == len(audited)
    assert worker.stop() == 0
    assert "Traceback" not in worker.log_path.read_text(errors="replace")


# --- 2. the children's lifetime ---------------------------------------------------------------


def test_check_processes_end_with_the_worker(broker: Any, group_workers: Workers) -> None:
    seen = group_workers.seen
    names = ("term", "kill", "ctrlc")
    workers = {
        name: group_workers.start(Namespace(f"procs-{name}"), RAGMON_CHECK_PROCESSES="1")
        for name in names
    }
    children: dict[str, list[Proc]] = {}
    for name, worker in workers.items():
        pool_started(worker)
        worker.wait_assigned()
        assert worker.proc is not None
        children[name] = descendants(worker.proc.pid)
        seen.extend(children[name])
        assert len(check_processes(children[name])) == 1, (name, children[name])
    # Some answers through each pool first: the children have worked when the signal comes.
    events = standard_mix(30, seed=43)
    records: list[tuple[bytes | None, bytes]] = [
        (e["event_id"].encode(), json.dumps(e).encode()) for e in events
    ]
    for worker in workers.values():
        produce(broker.bootstrap, worker.ns.topic("answers"), records)

    def all_checked() -> bool:
        return all(
            total(w.metrics(), "ragmon_events_total") >= len(events) for w in workers.values()
        )

    wait_until(all_checked, timeout=60, what="events checked by every worker")

    # SIGTERM: the worker stops its pool before it exits.
    term = workers["term"]
    assert term.stop() == 0
    assert [p for p in check_processes(children["term"]) if alive(p)] == []
    wait_until(
        lambda: not any(alive(p) for p in children["term"]), timeout=10, what="term: none left"
    )

    # SIGKILL: nobody stops the pool; the kernel's PDEATHSIG does.
    kill = workers["kill"]
    assert kill.proc is not None
    os.kill(kill.proc.pid, signal.SIGKILL)
    assert kill.proc.wait(10) == -signal.SIGKILL
    killed_at = time.monotonic()
    wait_until(
        lambda: not any(alive(p) for p in children["kill"]), timeout=10, what="kill: none left"
    )
    kill_s = time.monotonic() - killed_at

    # Ctrl-C: SIGINT to the whole group, children included; they leave the stop to the worker.
    ctrlc = workers["ctrlc"]
    assert ctrlc.proc is not None
    os.killpg(ctrlc.proc.pid, signal.SIGINT)
    try:
        code = ctrlc.proc.wait(30)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"no stop on SIGINT:\n{ctrlc.log_tail()}") from None
    assert code == 0, ctrlc.log_tail()
    wait_until(
        lambda: not any(alive(p) for p in children["ctrlc"]), timeout=10, what="ctrlc: none left"
    )
    for name in ("term", "ctrlc"):
        text = workers[name].log_path.read_text(errors="replace")
        assert "Traceback" not in text and "KeyboardInterrupt" not in text, (name, text[-3000:])
    print(f"\nCHECK PROCESSES: children gone {kill_s:.1f} s after SIGKILL of the worker")
