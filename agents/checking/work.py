"""One answer's cheap-tier work, everything that depends on the answer alone: decode, check,
count vector, label values, audit record. The worker runs it in its own process or hands
batches of answers to check processes (agents/checking/pool.py); either way the result is applied
by `CheckProcessor`, which holds the state (dedup, counters, batches, hooks).

A `Checked` is small and picklable; the answer and its verdict ride along only when a verdict
hook will look at them (canaries always; `hook_rate` of the rest). For an answer the judge's
plan would consider, a check process sends back the judge's request it built (with a
`RequestShape`; the worker's sampler admits it), or, for a batch sent while the judge sheds
load, only a note of the drop; without a shape, the answer and verdict.

Building the request here rather than in the worker: the worker's judge hook planned each
sampled answer (~120 µs, 12 µs per answer on the mix at 10% sampled) from the answer and
verdict pickled back (~87 µs per sampled answer in the check process, ~60 µs in the worker).
`ragmon bench --section stages`, judge on vs off, before: worker +20.6, check process +11.2 µs
per answer; docs/guarantees.md, session 18, has the figures after.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from agents.output.audit_record import AuditBuilder, AuditEntry
from agents.output.dlq import CHECK_ERROR
from agents.output.jsonout import dumps
from agents.output.records import verdict_vector
from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.judge.plan import prepare_request, sample_reason
from monitor.output.audit import has_failure
from monitor.records.models import AnswerEvent, ClaimResult, Rejection, Verdict
from monitor.sampling.policy import SampleReason, hash_fraction

#: (topic, partition, offset, record timestamp in epoch seconds or None)
Source = tuple[str, int, int, float | None]


@dataclass(frozen=True, slots=True)
class RequestShape:
    """What a check process needs to build the judge's requests itself (RAGMON_JUDGE_*)."""

    max_evidence_chars: int
    batch_size: int


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """A judge request built in the check process for an answer the judge's sample takes:
    the worker's sampler admits it (budgets) by these figures and publishes `value` as it is,
    so neither the answer nor its verdict crosses back (~11 kB pickled on the mix)."""

    reason: SampleReason
    items: int  # claims to judge
    est_tokens: int
    estimation: bool  # an answer of the estimates' sample
    value: bytes  # the judge-requests record

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            PreparedRequest,
            (self.reason, self.items, self.est_tokens, self.estimation, self.value),
        )


@dataclass(slots=True)
class Checked:
    event_id: str
    app: str | None  # as the answer names it; the worker maps it to a label value
    event_time: float
    checked_at: float  # wall clock when checked: the answer's window bucket
    duration: float  # decode and check, seconds
    failed: bool
    vector: list[int]
    # What the counters add, summed per label set (first seen first): the worker adds each
    # set once instead of once per citation or claim, and fewer objects cross the pipe
    citations: Tally  # ((format, status, error code), n)
    claims: Tally  # ((support verdict, tier), n)
    audit: AuditEntry | None
    event: AnswerEvent | None = None  # for verdict hooks
    verdict: Verdict | None = None
    uncited: Tally = ()  # ((verdict,), n) of the uncited claims (grounded in the documents)
    #: (why the judge sheds, why its sample takes the answer) for an answer the judge's plan
    #: would consider, checked in a batch sent while the judge shed load: the worker counts the
    #: drop from this note, without the answer and verdict (~11 kB pickled on the mix)
    judge_shed: tuple[str, str] | None = None
    #: the judge's request for an answer its sample takes, built in a check process sent
    #: `RequestShape` (the worker admits it): instead of the answer and verdict
    judge_request: PreparedRequest | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # Back from a check process as the constructor's arguments: a slotted dataclass's
        # default unpickling sets each field from Python, twice as slow in the worker
        return (
            Checked,
            (
                self.event_id,
                self.app,
                self.event_time,
                self.checked_at,
                self.duration,
                self.failed,
                self.vector,
                self.citations,
                self.claims,
                self.audit,
                self.event,
                self.verdict,
                self.uncited,
                self.judge_shed,
                self.judge_request,
            ),
        )


#: label values → how many times, in the order first seen
Tally = tuple[tuple[tuple[Any, ...], int], ...]


def tally(keys: Iterable[tuple[Any, ...]]) -> Tally:
    counts: dict[tuple[Any, ...], int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    return tuple(counts.items())


def claim_tallies(claims: Iterable[ClaimResult]) -> tuple[Tally, Tally]:
    """`tally` of (support verdict, tier) over the claims, and of (verdict,) over the uncited
    ones, in one pass."""
    counts: dict[tuple[Any, ...], int] = {}
    uncited: dict[tuple[Any, ...], int] = {}
    for c in claims:
        support = c.support
        key = (support.verdict, support.tier)
        counts[key] = counts.get(key, 0) + 1
        if not c.claim.citation_indexes:
            alone = (support.verdict,)
            uncited[alone] = uncited.get(alone, 0) + 1
    return tuple(counts.items()), tuple(uncited.items())


def event_time(event: AnswerEvent, record_timestamp: float | None, now: float) -> float:
    if event.timestamp:
        try:
            # the forms monitor.inputs.decode accepted: spaces around, "z" or "Z" for UTC
            text = event.timestamp.strip().replace("z", "Z").replace("Z", "+00:00")
            return datetime.fromisoformat(text).timestamp()
        except ValueError:
            pass
    return record_timestamp if record_timestamp is not None else now


def _wanted(event: AnswerEvent, rate: float) -> bool:
    """Whether a hook other than the judge's may look at this answer: canaries, and `rate` of
    the rest (by the hash the judge's sample uses). What the judge's plan would consider is
    `sample_reason`'s to say."""
    if event.gold_label is not None or event.gold_claims or rate >= 1.0:
        return True
    return rate > 0.0 and hash_fraction(event.event_id) < rate


@dataclass(frozen=True, slots=True)
class CheckWork:
    """Picklable: a check process gets a copy at start."""

    options: CheckOptions
    audit: AuditBuilder | None = None
    #: share of answers (by event-id hash) whose event and verdict come back for the hooks
    hook_rate: float = 1.0
    #: the judge's (base, oversample) rates when its hook is installed: the answers its plan
    #: would consider come back too
    judge_rates: tuple[float, float] | None = None
    #: with `judge_rates`: build the request of each answer the judge's sample takes here and
    #: send it back instead of the answer and verdict (None: those come back whole)
    judge_requests: RequestShape | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # The compiled core's frozen CheckOptions cannot be unpickled field by field (its
        # __setattr__ refuses): it travels as its constructor's arguments.
        options = {f.name: getattr(self.options, f.name) for f in fields(self.options)}
        return (
            _rebuild,
            (options, self.audit, self.hook_rate, self.judge_rates, self.judge_requests),
        )

    def decode(self, raw: bytes | None) -> AnswerEvent | Rejection:
        return decode_event(raw or b"", self.options)

    def check(
        self,
        event: AnswerEvent,
        source: Source,
        started: float,
        clock: Callable[[], float] = time.time,
        keep_objects: bool = True,
        shed: str | None = None,
    ) -> Checked:
        """Raises what a check raises (the caller dead-letters the answer). `shed`: why the
        judge shed load when the batch was sent (`Decision.reason`), or None."""
        verdict = check_event(event, self.options)
        now = clock()
        duration = time.perf_counter() - started
        vector = verdict_vector(verdict, self.options.answer_claim_weight)
        audit = None
        if self.audit is not None:
            where = {"topic": source[0], "partition": source[1], "offset": source[2]}
            audit = self.audit.build(verdict, where, event, vector)  # the same counts
        keep = keep_objects or _wanted(event, self.hook_rate)
        note = prepared = None
        if not keep and self.judge_rates is not None:
            # the judge's own rule (monitor.judge.plan); never a canary here: kept above
            why = sample_reason(event, verdict, *self.judge_rates)
            if why is not None:
                if shed is not None:
                    note = (shed, why)
                elif self.judge_requests is not None:
                    try:
                        prepared = self._prepare(event, verdict, why, now)
                    except Exception:
                        # as a judge hook's bug in the worker: it must not cost the answer,
                        # whose check is done; it goes back whole and the worker's judge hook
                        # plans it (and logs what fails there)
                        keep = True
                else:
                    keep = True
        claims, uncited = claim_tallies(verdict.claims)
        return Checked(
            event_id=event.event_id,
            app=event.app,
            event_time=event_time(event, source[3], now),
            checked_at=now,
            duration=duration,
            failed=has_failure(verdict),
            vector=vector,
            citations=tally((r.citation.format, r.status, r.error) for r in verdict.citations),
            claims=claims,
            audit=audit,
            event=event if keep else None,
            verdict=verdict if keep else None,
            uncited=uncited,
            judge_shed=note,
            judge_request=prepared,
        )

    def _prepare(
        self, event: AnswerEvent, verdict: Verdict, why: SampleReason, now: float
    ) -> PreparedRequest:
        assert self.judge_rates is not None and self.judge_requests is not None
        shape = self.judge_requests
        request = prepare_request(
            event,
            verdict,
            why,
            self.judge_rates[0],
            shape.max_evidence_chars,
            shape.batch_size,
            now,  # the worker counts the answer at this time: its request's created_at
            self.options.answer_claim_weight,
        )
        return PreparedRequest(
            why,
            len(request.items),
            request.est_tokens,
            request.estimation,
            dumps(request.to_dict()),
        )

    def run(
        self, raw: bytes | None, source: Source, shed: str | None = None
    ) -> Checked | Rejection:
        """Decode and check one record in a check process; a Rejection for a bad record or a
        check that raised."""
        started = time.perf_counter()
        decoded = self.decode(raw)
        if isinstance(decoded, Rejection):
            return decoded
        try:
            return self.check(decoded, source, started, keep_objects=False, shed=shed)
        except Exception as exc:  # a bug in a check must cost one event, not the stream
            return check_failed(decoded, exc)

    def run_batch(
        self, batch: list[tuple[bytes | None, Source]], shed: str | None = None
    ) -> list[Checked | Rejection]:
        return [self.run(raw, source, shed) for raw, source in batch]


def check_failed(event: AnswerEvent, exc: Exception) -> Rejection:
    """The dead-letter reason of an answer whose check raised."""
    return Rejection(CHECK_ERROR, f"{type(exc).__name__}: {exc}", event.event_id, event.app)


def _rebuild(
    options: dict[str, Any],
    audit: AuditBuilder | None,
    hook_rate: float,
    judge_rates: tuple[float, float] | None,
    judge_requests: RequestShape | None = None,
) -> CheckWork:
    return CheckWork(CheckOptions(**options), audit, hook_rate, judge_rates, judge_requests)


def summary(result: Checked) -> dict[str, Any]:
    """The fields of the debug log line."""
    return {
        "citations": sum(n for _, n in result.citations),
        "invalid_citations": sum(n for key, n in result.citations if key[1] != "valid"),
        "claims": sum(n for _, n in result.claims),
        "failed": result.failed,
    }
