"""CheckPool with real spawned check processes: same results as in-process, a dead process is
started again, an answer that kills its process is dead-lettered alone, close() leaves none.

Each pool start spawns processes (~0.2-1 s), so the pools are module-scoped and a test that
must break one uses its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.checking import fastcore
from agents.checking.pool import Batch, CheckPool
from agents.checking.work import Checked, CheckWork
from agents.output.audit_record import AuditBuilder
from agents.output.dlq import CHECK_ERROR
from monitor.config.options import CheckOptions
from monitor.records.models import Rejection
from tests.agents.checking.pool_poison import EXIT_CODE, MARKER, BrokenWork, PoisonWork
from tests.conftest import standard_mix


def answer(event_id: str, text: str = "No claim here") -> bytes:
    return json.dumps({"event_id": event_id, "app": "search", "answer": text}).encode()


def batch_of(raws: list[bytes] | list[bytes | None]) -> Batch:
    return [(raw, ("ragmon.answers", 1, i, 1000.0 + i)) for i, raw in enumerate(raws)]


def comparable(result: Checked | Rejection) -> tuple[Any, ...]:
    """What must be equal wherever the answer was checked (not the clocks)."""
    if isinstance(result, Rejection):
        return ("rejected", result.reason, result.detail, result.event_id, result.app)
    audit = None
    if result.audit is not None:
        record = json.loads(result.audit.data)
        del record["audited_at"]
        audit = (result.audit.reason, record)
    return (
        result.event_id,
        result.app,
        result.event_time,
        result.vector,
        result.citations,
        result.claims,
        result.failed,
        audit,
        result.event,
        result.verdict,
    )


def alive(pid: int) -> bool:
    """Running (a zombie is dead: only its exit status is left)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def child_pids(pool: CheckPool) -> list[int]:
    executor = pool._executor
    assert executor is not None
    return list(executor._processes)


def ignores_sigint(pid: int) -> bool:
    """SIGINT and SIGTERM both ignored (the initializer sets both)."""
    status = Path(f"/proc/{pid}/status").read_text()
    ignored = int(status.split("SigIgn:\t")[1].split()[0], 16)
    return all(ignored & (1 << (sig - 1)) for sig in (signal.SIGINT, signal.SIGTERM))


def wait_dead(pid: int) -> None:
    for _ in range(200):
        if not alive(pid):
            return
        time.sleep(0.025)
    raise AssertionError(f"process {pid} still alive")


@pytest.fixture(scope="module", autouse=True)
def same_core_in_children() -> Iterator[None]:
    """A spawned process imports `monitor` afresh from its parent's sys.path. Under
    fastcore_pytest.py the compiled build was imported first, then pytest put the checkout ahead
    of it: put the directory `monitor` came from first again, so the children run this core."""
    import monitor

    root = str(Path(monitor.__file__).resolve().parents[1])
    sys.path.insert(0, root)
    yield
    sys.path.remove(root)


@pytest.fixture(scope="module")
def work() -> CheckWork:
    # hook_rate 0.5: some answers come back whole, some not; sample rate 0.5: some audited
    return CheckWork(CheckOptions(), AuditBuilder(sample_rate=0.5), hook_rate=0.5)


@pytest.fixture(scope="module")
def mix_batch() -> Batch:
    raws: list[bytes | None] = [json.dumps(e).encode() for e in standard_mix(60, seed=7)]
    raws += [b'{"event_id": "cut', b'{"event_id": 5, "answer": "x"}', b"", None]
    raws.append(answer("gold-1").replace(b"}", b', "gold": {"label": "supported"}}'))
    return batch_of(raws)


@pytest.fixture(scope="module")
def pool(work: CheckWork) -> Iterator[CheckPool]:
    """Two processes, shared by the tests that leave them working."""
    pool = CheckPool(work, 2)
    yield pool
    pool.close()


async def test_the_pool_gives_the_in_process_results(
    pool: CheckPool, work: CheckWork, mix_batch: Batch
) -> None:
    # the children run the core this process runs (spawn passes sys.path on)
    assert (await pool.start()).split()[0] == fastcore.core_kind()
    got = await pool.run(mix_batch)
    expected = work.run_batch(mix_batch)
    assert [comparable(r) for r in got] == [comparable(r) for r in expected]
    kinds = [type(r).__name__ for r in got]
    assert kinds.count("Rejection") == 4 and kinds.count("Checked") == len(mix_batch) - 4
    # both sides of the hook share and the audit sample travelled back
    back = [r for r in got if isinstance(r, Checked) and r.event is not None]
    assert 0 < len(back) < kinds.count("Checked")
    assert any(r.event_id == "gold-1" for r in back)
    audited = [r for r in got if isinstance(r, Checked) and r.audit is not None]
    assert 0 < len(audited) < kinds.count("Checked")
    # and two batches at once come back each in its own order
    halves = mix_batch[:30], mix_batch[30:]
    first, second = await asyncio.gather(pool.run(halves[0]), pool.run(halves[1]))
    assert [comparable(r) for r in first + second] == [comparable(r) for r in expected]
    assert pool.restarts == 0


async def test_the_check_processes_ignore_ctrl_c_and_sigterm(
    pool: CheckPool, mix_batch: Batch
) -> None:
    await pool.start()
    pids = child_pids(pool)
    assert len(pids) == 2
    for pid in pids:
        # start() returns when the pings are answered, maybe all by one process: wait for the
        # other's initializer before looking
        for _ in range(400):
            if ignores_sigint(pid):
                break
            time.sleep(0.025)
        assert ignores_sigint(pid)
        os.kill(pid, signal.SIGINT)
        os.kill(pid, signal.SIGTERM)
    got = await pool.run(mix_batch[:5])
    assert [r.event_id for r in got] == [f"synth-0000000{i}" for i in range(5)]
    assert child_pids(pool) == pids and all(alive(pid) for pid in pids)
    assert pool.restarts == 0


async def test_a_killed_process_is_started_again(work: CheckWork, mix_batch: Batch) -> None:
    pool = CheckPool(work, 1)
    try:
        await pool.start()
        (pid,) = child_pids(pool)
        os.kill(pid, signal.SIGKILL)  # idle: between two batches
        wait_dead(pid)
        got = await pool.run(mix_batch)
        assert [comparable(r) for r in got] == [comparable(r) for r in work.run_batch(mix_batch)]
        assert pool.restarts == 1
        # the batch that met the death ran again on a process of its own; the pool's new
        # process starts with the next batch
        assert [comparable(r) for r in await pool.run(mix_batch)] == [comparable(r) for r in got]
        (new_pid,) = child_pids(pool)
        assert new_pid != pid and pool.restarts == 1
    finally:
        pool.close()


@pytest.fixture(scope="module")
def poison_pool() -> Iterator[CheckPool]:
    pool = CheckPool(PoisonWork(CheckOptions(), hook_rate=0.0), 1)
    yield pool
    pool.close()


async def test_an_answer_that_kills_its_process_is_rejected_alone(
    poison_pool: CheckPool,
) -> None:
    raws = [answer("a0"), answer("a1", MARKER.decode()), answer("a2"), answer("a3")]
    assert EXIT_CODE != 0
    # the pool is the module's: another test's poison may have restarted it already
    before = poison_pool.restarts
    got = await poison_pool.run(batch_of(raws))
    assert got[1] == Rejection(CHECK_ERROR, "the check process died on this answer")
    assert [r.event_id for r in got] == ["a0", None, "a2", "a3"]
    assert all(isinstance(r, Checked) for i, r in enumerate(got) if i != 1)
    # the shared process, then alone: [a0 a1 a2 a3], [a0 a1] ([a0] and [a2 a3] pass), [a1]
    assert poison_pool.restarts - before == 4
    again = await poison_pool.run(batch_of([answer("b0")]))  # the last restart left it working
    assert [r.event_id for r in again] == ["b0"]
    assert poison_pool.restarts - before == 4


async def test_a_poison_answer_costs_no_answer_of_another_batch(poison_pool: CheckPool) -> None:
    poisoned = batch_of([answer("p0"), answer("p1", MARKER.decode()), answer("p2")])
    clean = batch_of([answer("c0"), answer("c1"), answer("c2")])
    got_poisoned, got_clean = await asyncio.gather(
        poison_pool.run(poisoned), poison_pool.run(clean)
    )
    assert [r.event_id for r in got_poisoned] == ["p0", None, "p2"]
    assert [r.event_id for r in got_clean] == ["c0", "c1", "c2"]


async def test_close_leaves_no_check_process(work: CheckWork) -> None:
    pool = CheckPool(work, 2)
    await pool.start()
    pids = child_pids(pool)
    assert len(pids) == 2 and all(alive(pid) for pid in pids)
    pool.close()
    # gone, zombies reaped too (multiprocessing.active_children() is no witness: it keeps a
    # child that the executor's own thread reaped)
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)
    assert pool._executor is None
    pool.close()  # twice is harmless


def test_a_pool_needs_a_process() -> None:
    with pytest.raises(ValueError, match="at least one process"):
        CheckPool(CheckWork(CheckOptions()), 0)


async def test_processes_that_cannot_live_are_an_error_not_dead_letters() -> None:
    """When no check process survives even without an answer, the pool raises (the check
    batches then check the batch in the worker) instead of dead-lettering every answer."""
    pool = CheckPool(BrokenWork(CheckOptions()), 1)
    try:
        with pytest.raises(RuntimeError, match="die even without an answer"):
            await pool.run(batch_of([answer("x0"), answer("x1")]))
    finally:
        pool.close()
