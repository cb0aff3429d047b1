"""The check agent: every record of `answers` → decode → cheap checks → metrics, a score record
to `scores` (keyed by app), failing and sampled verdicts to `audit`, rejects to `dlq`.

The agent takes answers in batches (`check_batch_size`, `check_batch_seconds`).
`CheckProcessor.handle` is synchronous and CPU-only: it buffers its output records through
`emit` and its counter increments in a `BatchCounters`; `flush()` at the end of the batch
applies the counters, and the app factory then hands every buffered record to the producer
before the batch's offsets are acknowledged. Faust flushes the producer before it commits
offsets, so every output of an event is published before the event counts as consumed
(at-least-once). A bad record is dead-lettered and the stream goes on; nothing here raises on
input.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from agents.checking.work import (
    Checked,
    CheckWork,
    RequestShape,
    Source,
    check_failed,
    summary,
)
from agents.output.audit import AuditTrail
from agents.output.dlq import CHECK_ERROR, dlq_record
from agents.output.jsonout import dumps
from agents.output.records import COUNT_FIELDS, REJECTED_VECTOR, score_entry, score_record
from agents.stream.dedup import RecentIds
from agents.telemetry.counting import BatchCounters
from agents.telemetry.metrics import AppLabels, Metrics
from monitor.config.settings import Settings
from monitor.records.models import AnswerEvent, Rejection, Verdict
from monitor.sampling.policy import Decision

log = structlog.get_logger("ragmon.check")

# Exemplar label values are limited (128 characters for all of them together).
_EXEMPLAR_ID_CHARS = 100

#: ragmon_claim_counts_total{kind}: the window counts behind support, hallucination, coverage.
CLAIM_COUNT_KINDS: tuple[tuple[str, int], ...] = tuple(
    (kind, COUNT_FIELDS.index(field))
    for kind, field in (
        ("claims", "claims"),
        ("cited", "cited_claims"),
        ("decided", "decided_claims"),
        ("supported", "supported_claims"),
        ("hallucinated", "unsupported_claims"),
    )
)

_ABSTAINED = COUNT_FIELDS.index("abstained_answers")

#: (topic role, key, value) → None. Buffered; the caller publishes after the batch.
Emit = Callable[[str, bytes | None, bytes], None]
VerdictHook = Callable[[AnswerEvent, Verdict, "RecordMeta"], None]
#: counts the judge's drop of an answer a check process sent back as a note (`Checked.judge_shed`);
#: as a request hook, admits the judge request a check process built (`Checked.judge_request`)
ShedHook = Callable[[Checked], None]


@dataclass(frozen=True, slots=True)
class RecordMeta:
    topic: str
    partition: int
    offset: int
    timestamp: float | None  # record timestamp, epoch seconds
    key: bytes | None = None

    def source(self) -> dict[str, Any]:
        return {"topic": self.topic, "partition": self.partition, "offset": self.offset}

    def where(self) -> Source:
        return (self.topic, self.partition, self.offset, self.timestamp)


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: str  # checked | rejected | duplicate
    event_id: str | None
    app: str
    verdict: Verdict | None = None
    reason: str | None = None


class CheckProcessor:
    def __init__(
        self,
        settings: Settings,
        metrics: Metrics,
        emit: Emit,
        app_labels: AppLabels | None = None,
        audit: AuditTrail | None = None,
        hooks: list[VerdictHook] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.options = settings.check_options()
        self.work = CheckWork(self.options, audit.builder if audit is not None else None)
        #: the judge hook's (base, oversample) rates: a check process sends back whole the
        #: answers its plan would consider (agents/checking/work.py); set by install_judge
        self.judge_rates: tuple[float, float] | None = None
        #: why the judge sheds load now (its queue is full, it is down) or None; and the hook
        #: that counts the drops noted by check processes meanwhile. Both set by install_judge.
        self.judge_shedding: Callable[[], Decision | None] | None = None
        self.shed_hook: ShedHook | None = None
        #: set by install_judge: check processes build the sampled answers' requests (this
        #: shape) and the hook admits them, instead of sending back the answer and verdict
        self.judge_requests: RequestShape | None = None
        self.request_hook: ShedHook | None = None
        self.metrics = metrics
        self.emit = emit
        self.labels = app_labels or AppLabels(settings.app_allowlist, settings.max_apps)
        self.audit = audit
        self.hooks = hooks if hooks is not None else []
        self.recent = RecentIds(settings.dedup_horizon_seconds, settings.dedup_max_ids)
        self.dlq_max_value_bytes = settings.dlq_max_value_bytes
        self.clock = clock
        self.processed: Counter[str] = Counter()
        #: partition → the offset after the last answer counted there (shown in /status: where
        #: a worker is, to compare with the group's committed offsets)
        self.next_offsets: dict[int, int] = {}
        self.counters = BatchCounters()
        self._debug = settings.log_level.upper() == "DEBUG"
        # The last checked event of the batch carries the histograms' exemplars.
        self._last: tuple[str, float, float] | None = None
        #: app → its last checked event id in this batch: the exemplar of its checked counter,
        #: attached once at the batch's end instead of an exemplar dict built per answer
        self._exemplars: dict[str, str] = {}
        self.checked_at = 0.0  # when the event the hooks see was counted (its score's time)
        self._scores: dict[str, list[list[Any]]] = {}  # app → score entries of this batch

    def handle(self, raw: bytes | None, meta: RecordMeta) -> Outcome:
        """Decode, check and count one record here, in the worker's process."""
        started = time.perf_counter()
        self.next_offsets[meta.partition] = meta.offset + 1
        decoded = self.work.decode(raw)
        if isinstance(decoded, Rejection):
            return self._reject(decoded, raw, meta)
        event = decoded
        app = self.labels(event.app)
        if self.recent.check_and_add(event.event_id):
            return self._duplicate(event.event_id, app, meta)
        try:
            result = self.work.check(event, meta.where(), started, self.clock)
        except Exception as exc:  # a bug in a check must cost one event, not the stream
            log.exception("check failed", event_id=event.event_id, **meta.source())
            return self._reject(check_failed(event, exc), raw, meta)
        return self._checked(result, app, meta)

    def apply(self, result: Checked | Rejection, raw: bytes | None, meta: RecordMeta) -> Outcome:
        """Count a record a check process decoded and checked (`CheckWork.run`)."""
        self.next_offsets[meta.partition] = meta.offset + 1
        if isinstance(result, Rejection):
            if result.reason == CHECK_ERROR:
                # As in `handle`: an answer that decoded is deduplicated before its check, so a
                # redelivered answer whose check raises is a duplicate, not a second dead letter.
                if result.event_id is not None and self.recent.check_and_add(result.event_id):
                    return self._duplicate(result.event_id, self.labels(result.app), meta)
                log.error(
                    "check failed", event_id=result.event_id, error=result.detail, **meta.source()
                )
            return self._reject(result, raw, meta)
        app = self.labels(result.app)
        if self.recent.check_and_add(result.event_id):
            return self._duplicate(result.event_id, app, meta)
        return self._checked(result, app, meta)

    def _checked(self, result: Checked, app: str, meta: RecordMeta) -> Outcome:
        self.checked_at = result.checked_at
        self._count(result, app)
        entry = score_entry(
            result.event_id, result.event_time, result.checked_at, result.failed, result.vector
        )
        self._scores.setdefault(app, []).append(entry)
        if result.audit is not None and self.audit is not None:
            self.audit.keep(result.event_id, result.audit)
        if result.event is not None and result.verdict is not None:
            for hook in self.hooks:
                try:
                    hook(result.event, result.verdict, meta)
                except Exception:  # a hook's bug must not cost the answers after this one
                    log.exception("verdict hook failed", event_id=result.event_id, **meta.source())
        elif result.judge_request is not None and self.request_hook is not None:
            try:
                self.request_hook(result)
            except Exception:  # as for a verdict hook: the answers after this one still count
                log.exception(
                    "judge request hook failed", event_id=result.event_id, **meta.source()
                )
        elif result.judge_shed is not None and self.shed_hook is not None:
            try:
                self.shed_hook(result)
            except Exception:  # as for a verdict hook: the answers after this one still count
                log.exception("judge shed hook failed", event_id=result.event_id, **meta.source())
        self.processed["checked"] += 1
        if self._debug:
            log.debug(
                "event checked",
                outcome="checked",
                event_id=result.event_id,
                app=app,
                topic=meta.topic,
                partition=meta.partition,
                offset=meta.offset,
                audit=result.audit.reason if result.audit is not None else None,
                duration_ms=round(result.duration * 1000, 3),
                **summary(result),
            )
        return Outcome("checked", result.event_id, app, verdict=result.verdict)

    def shed_reason(self) -> str | None:
        """Why the judge sheds load now, for a batch about to go to a check process: its answers
        then come back as notes of the drop (`CheckWork.check`); None when it does not."""
        if self.judge_shedding is None:
            return None
        decision = self.judge_shedding()
        return None if decision is None else decision.reason

    def flush(self) -> None:
        """End of a batch: one score record per app, counters and the exemplar-carrying
        observations to Prometheus."""
        scores, self._scores = self._scores, {}
        for app, entries in scores.items():
            self.emit("scores", app.encode("utf-8"), dumps(score_record(app, entries)))
        for app, last_id in self._exemplars.items():
            self.counters.exemplar(self.metrics.events, (app, "checked"), {"event_id": last_id})
        self._exemplars = {}
        if self._last is not None:
            event_id, duration, lag = self._last
            exemplar = {"event_id": event_id}
            self.metrics.check_duration.observe(duration, exemplar=exemplar)
            self.metrics.event_lag.observe(lag, exemplar=exemplar)
            self._last = None
        self.counters.flush()

    def _count(self, result: Checked, app: str) -> None:
        m, add, vector = self.metrics, self.counters.add, result.vector
        event_id = result.event_id[:_EXEMPLAR_ID_CHARS]
        add(m.events, (app, "checked"))
        self._exemplars[app] = event_id
        for (fmt, status, error), n in result.citations:
            add(m.citations, (app, fmt, status), n)
            if error is not None:
                add(m.citation_errors, (app, error), n)
        for (verdict, tier), n in result.claims:
            add(m.claims, (app, verdict, tier), n)
        for kind, i in CLAIM_COUNT_KINDS:
            add(m.claim_counts, (app, kind), vector[i])
        # zeros too: the abstention ratio's numerator exists from an app's first answer, so
        # its rule and panel read 0, not "no data", until a refusal comes
        add(m.abstained_answers, (app,), vector[_ABSTAINED] if len(vector) > _ABSTAINED else 0)
        for (verdict,), n in result.uncited:
            add(m.uncited_claims, (app, verdict), n)
        lag = max(0.0, result.checked_at - result.event_time)
        if self._last is not None:  # the previous one goes in without an exemplar
            m.check_duration.observe(self._last[1])
            m.event_lag.observe(self._last[2])
        self._last = (event_id, result.duration, lag)

    def _reject(self, rejection: Rejection, raw: bytes | None, meta: RecordMeta) -> Outcome:
        app = self.labels(rejection.app)
        now = self.clock()
        self.emit(
            "dlq",
            meta.key,
            dumps(
                dlq_record(
                    reason=rejection.reason,
                    error=rejection.detail,
                    topic=meta.topic,
                    partition=meta.partition,
                    offset=meta.offset,
                    timestamp=meta.timestamp,
                    key=meta.key,
                    value=raw,
                    max_value_bytes=self.dlq_max_value_bytes,
                    event_id=rejection.event_id,
                    app=rejection.app,
                    now=now,
                )
            ),
        )
        # Rejects count in the window too (the dlq_rate alert), without an id to dedup on.
        received = meta.timestamp if meta.timestamp is not None else now
        entry = score_entry(None, received, now, False, REJECTED_VECTOR)
        self._scores.setdefault(app, []).append(entry)
        self.counters.add(self.metrics.events, (app, "rejected"))
        self.counters.add(self.metrics.dlq, (rejection.reason,))
        self.processed["rejected"] += 1
        log.info(
            "event rejected",
            outcome="rejected",
            reason=rejection.reason,
            error=rejection.detail[:300],
            event_id=rejection.event_id,
            app=app,
            topic=meta.topic,
            partition=meta.partition,
            offset=meta.offset,
            bytes=len(raw or b""),
        )
        return Outcome("rejected", rejection.event_id, app, reason=rejection.reason)

    def _duplicate(self, event_id: str, app: str, meta: RecordMeta) -> Outcome:
        self.counters.add(self.metrics.events, (app, "duplicate"))
        self.counters.add(self.metrics.duplicates, (app,))
        self.processed["duplicate"] += 1
        log.info(
            "event duplicate",
            outcome="duplicate",
            event_id=event_id,
            app=app,
            topic=meta.topic,
            partition=meta.partition,
            offset=meta.offset,
        )
        return Outcome("duplicate", event_id, app)
