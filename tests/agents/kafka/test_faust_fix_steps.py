"""The steps of the Faust fixes that Faust's own test suite never exercises (.ci/faust-tests.sh
runs that suite with the fixes in), each on a recording stand-in for Faust's consumer, app or
recovery: the revoke order (commit, then forget the bookkeeping) through Faust's tracing
wrapper, the end of recovery (seek, then empty the queues, then resume), and the fetch from an
empty set of active partitions (nothing fetched, not every partition)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from faust.tables.recovery import Recovery
from faust.transport.consumer import Consumer
from faust.transport.drivers.aiokafka import AIOKafkaConsumerThread
from faust.types import TP

from agents.kafka.faust_fixes import fetch_fix, revoke_fix
from agents.kafka.faust_fixes.resume_fix import SeekThenResumeRecovery

A0, A1, B0 = TP("answers", 0), TP("answers", 1), TP("scores", 0)
CHANGELOG = TP("ragmon-window-changelog", 0)


class Span:
    """An opentracing-like span whose tracer records the child spans started from it."""

    def __init__(self, name: str, started: list[tuple[str, Any, dict[str, Any]]]) -> None:
        self.name, self.started, self.finished = name, started, False
        self.tracer = self

    def start_span(self, operation_name: str, child_of: Any, tags: dict[str, Any]) -> Span:
        self.started.append((operation_name, child_of, tags))
        return Span(operation_name, self.started)

    def __enter__(self) -> Span:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.finished = True

    def finish(self) -> None:
        self.finished = True


class RevokingConsumer:
    """The attributes Consumer.on_partitions_revoked reads, and what each step saw."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._active_partitions = {A0, A1, B0}
        self._paused_partitions = {A1}
        self._acked = {A0: [5, 6], A1: [9], B0: [2]}
        self._acked_index = {A0: {5, 6}, A1: {9}, B0: {2}}
        self._gap = {A0: [], A1: [], B0: []}
        self._read_offset = {A0: 7, A1: 10, B0: 3}
        self._committed_offset = {A0: 4, A1: 8, B0: 2}
        self.steps: list[tuple[str, Any, dict[TP, Any]]] = []
        # mode's diagnostic flags, which Faust's Service.transitions_to sets around a revoke
        self.flags: set[str] = set()
        self.diag = SimpleNamespace(set_flag=self.flags.add, unset_flag=self.flags.discard)

    async def _on_partitions_revoked(self, revoked: set[TP]) -> None:
        # Faust's own step: suspends the streams, waits for events in flight, commits
        assert self.flags == {"PARTITIONS_REVOKED"}
        self.steps.append(("revoke_and_commit", set(revoked), dict(self._acked)))

    async def commit(self, topics: set[TP]) -> bool:
        self.steps.append(("commit_again", set(topics), dict(self._acked)))
        return True


def revoking_app(started: list[tuple[str, Any, dict[str, Any]]]) -> Any:
    app = SimpleNamespace(should_stop=False, rebalance_span=None)

    def start_span(name: str) -> Span:
        app.rebalance_span = Span(name, started)
        return app.rebalance_span

    app._start_span_from_rebalancing = start_span
    revoke_fix.install(app)
    return app


async def test_revoke_commits_what_was_acked_then_forgets_it() -> None:
    started: list[tuple[str, Any, dict[str, Any]]] = []
    consumer = RevokingConsumer(revoking_app(started))
    await Consumer.on_partitions_revoked(consumer, {A0, A1})  # type: ignore[arg-type]
    # each commit step still saw the acked offsets of the revoked partitions
    assert [(name, tps) for name, tps, _ in consumer.steps] == [
        ("revoke_and_commit", {A0, A1}),
        ("commit_again", {A0, A1}),
    ]
    for _, _, acked in consumer.steps:
        assert acked == {A0: [5, 6], A1: [9], B0: [2]}
    # then the revoked partitions' bookkeeping is gone, the kept partition's untouched
    for table in ("_acked", "_acked_index", "_gap", "_read_offset", "_committed_offset"):
        assert set(getattr(consumer, table)) == {B0}, table
    assert consumer._active_partitions == {B0} and consumer._paused_partitions == set()
    assert consumer.flags == set()  # the diagnostic flag was set for the revoke only


async def test_revoke_calls_faust_step_through_faust_tracing_wrapper() -> None:
    started: list[tuple[str, Any, dict[str, Any]]] = []
    app = revoking_app(started)
    consumer = RevokingConsumer(app)
    await Consumer.on_partitions_revoked(consumer, {A0})  # type: ignore[arg-type]
    # one child span of the rebalance's span, named after Faust's step, tagged as Faust tags it
    [(name, parent, tags)] = started
    assert name.endswith("_on_partitions_revoked") and parent is app.rebalance_span
    assert tags == {"partitions": {A0}}
    assert app.rebalance_span.finished


async def test_an_app_without_the_fix_keeps_faust_order() -> None:
    started: list[tuple[str, Any, dict[str, Any]]] = []
    app = revoking_app(started)
    delattr(app, revoke_fix._ATTR)  # an app of the same process that did not install it
    consumer = RevokingConsumer(app)
    await Consumer.on_partitions_revoked(consumer, {A0})  # type: ignore[arg-type]
    # Faust forgets first: its commit step sees nothing acked on the revoked partition
    assert consumer.steps == [("revoke_and_commit", {A0}, {A1: [9], B0: [2]})]


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def record(self, name: str, value: Any = None) -> None:
        self.calls.append((name, value))


def recovering_app(calls: Recorder, committed: dict[TP, int]) -> Any:
    async def perform_seek() -> None:
        calls.record("seek_committed")

    async def earliest_offsets(*tps: TP) -> dict[TP, int]:
        return dict.fromkeys(tps, 0)

    async def seek_wait(offsets: dict[TP, int]) -> None:
        calls.record("seek_start", offsets)

    async def nothing() -> None:
        return None

    consumer = SimpleNamespace(
        assignment=lambda: {A0, A1, CHANGELOG},
        perform_seek=perform_seek,
        earliest_offsets=earliest_offsets,
        seek_wait=seek_wait,
        _committed_offset=committed,
        resume_partitions=lambda tps: calls.record("resume_partitions", tps),
        resume_flow=lambda: calls.record("resume_flow"),
    )
    return SimpleNamespace(
        consumer=consumer,
        consumer_generation_id=1,
        conf=SimpleNamespace(broker_request_timeout=5.0, consumer_auto_offset_reset="earliest"),
        on_rebalance_complete=SimpleNamespace(send=nothing),
        flow_control=SimpleNamespace(resume=lambda: calls.record("clear_queues")),
        _fetcher=SimpleNamespace(maybe_start=nothing),
        assignor=SimpleNamespace(assigned_standbys=lambda: set()),
        on_rebalance_end=lambda: calls.record("rebalance_end"),
    )


class Log:
    def __getattr__(self, name: str) -> Any:
        return lambda *a, **kw: None


def recovery(cls: type[Recovery], app: Any) -> Any:
    """A recovery of `cls` with its end-of-recovery attributes only (no Faust service)."""
    rec = object.__new__(cls)
    tables = SimpleNamespace(
        values=lambda: [], on_actives_ready=lambda: None, on_standbys_ready=lambda: None
    )
    rec.__dict__.update(
        app=app,
        tables=tables,
        actives_for_table={},
        standbys_for_table={},
        completed=asyncio.Event(),
        log=Log(),
        _set_recovery_ended=lambda: None,
        _is_changelog_tp=lambda tp: tp.topic.endswith("-changelog"),
    )

    async def wait(coro: Any, timeout: float | None = None) -> None:
        await coro

    rec.__dict__["_wait"] = wait
    return rec


@pytest.mark.parametrize("committed", [{A0: 10, A1: 20}, {A0: 10}])
async def test_recovery_seeks_then_clears_the_queues_then_resumes(committed: dict[TP, int]) -> None:
    calls = Recorder()
    rec = recovery(SeekThenResumeRecovery, recovering_app(calls, committed))
    await rec.on_recovery_completed(generation_id=1)
    rewind = [] if A1 in committed else [("seek_start", {A1: 0})]  # never committed: its start
    assert calls.calls == [
        ("seek_committed", None),
        *rewind,
        ("clear_queues", None),
        ("resume_partitions", {A0, A1}),  # the stream partitions, not the changelog
        ("resume_flow", None),
        ("rebalance_end", None),
    ]
    assert rec.completed.is_set()


async def test_faust_own_recovery_resumes_before_the_seek() -> None:
    """What the fix reorders: Faust resumes the stream partitions first, so records fetched
    during the seek are queued, then thrown away by the queue clearing."""
    calls = Recorder()
    await recovery(Recovery, recovering_app(calls, {A0: 10, A1: 20})).on_recovery_completed(1)
    assert [name for name, _ in calls.calls][:3] == [
        "resume_partitions",
        "seek_committed",
        "clear_queues",
    ]


async def test_a_new_rebalance_during_the_seek_resumes_nothing() -> None:
    calls = Recorder()
    app = recovering_app(calls, {A0: 10, A1: 20})

    async def seek_then_rebalance() -> None:
        calls.record("seek_committed")
        app.consumer_generation_id = 2

    app.consumer.perform_seek = seek_then_rebalance
    rec = recovery(SeekThenResumeRecovery, app)
    await rec.on_recovery_completed(generation_id=1)
    assert calls.calls == [("seek_committed", None)] and not rec.completed.is_set()


async def test_a_fetch_from_no_active_partition_fetches_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = SimpleNamespace()
    fetch_fix.install(app)
    waited: list[float] = []

    async def sleep(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr(fetch_fix.asyncio, "sleep", sleep)
    # a stand-in with nothing to fetch from: reaching aiokafka would raise AttributeError
    thread = SimpleNamespace(app=app)
    got = await AIOKafkaConsumerThread.getmany(thread, set(), 1.0)  # type: ignore[arg-type]
    assert got == {} and waited == [fetch_fix.IDLE_S]  # an idle pause, not a spin
    got = await AIOKafkaConsumerThread.getmany(thread, set(), 0.02)  # type: ignore[arg-type]
    assert got == {} and waited[-1] == 0.02  # never longer than the fetch's own timeout


def test_the_recovery_is_built_when_faust_asks_for_it() -> None:
    """Installing touches neither the app's tables nor a loop (Faust's suite caught both when
    the recovery was built at install); Faust's first `tables.recovery` gets ours."""
    import faust

    from agents.kafka.faust_fixes import recovery_fix
    from agents.kafka.faust_fixes.recovery_fix import ExactEndRecovery

    fixed = faust.App("ragmon-test-recovery-fixed", broker="kafka://127.0.0.1:9")
    plain = faust.App("ragmon-test-recovery-plain", broker="kafka://127.0.0.1:9")
    recovery_fix.install(fixed, {"bootstrap_servers": "127.0.0.1:9"})
    assert "tables" not in fixed.__dict__  # the cached property was not computed
    built = fixed.tables.recovery
    assert isinstance(built, ExactEndRecovery) and fixed.tables.recovery is built
    assert built.client_kwargs == {"bootstrap_servers": "127.0.0.1:9"}
    assert type(plain.tables.recovery) is Recovery  # an app without the fix keeps Faust's
