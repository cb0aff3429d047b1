"""CheckWork: one answer's decode, check, counts and audit bytes, as a check process runs them."""

from __future__ import annotations

import dataclasses
import json
import pickle
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agents.checking.work as check_work
from agents.checking.work import Checked, CheckWork, RequestShape, tally
from agents.output.audit_record import AuditBuilder, AuditEntry
from agents.output.jsonout import dumps
from agents.output.records import COUNT_FIELDS, verdict_vector
from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.judge.plan import plan_judge_request
from monitor.output.audit import Redactor, has_failure
from monitor.records.models import AnswerEvent, Claim, ClaimResult, Rejection, Support
from monitor.sampling.policy import Sampler, SamplingPolicy, hash_fraction, is_doubtful
from tests.conftest import standard_mix

SOURCE = ("ragmon.answers", 2, 41, 1234.5)

#: one span of `notes.txt` cited right, one line that does not exist: worked out by hand below
HAND = {
    "event_id": "hand-1",
    "app": "docs-qa",
    "documents": [
        {
            "id": "notes.txt",
            "text": "Intro line here.\nThe sky over Paris is blue today.\nClosing line.",
        }
    ],
    "answer": "The sky over Paris is blue today [notes.txt:2]. "
    "The grass in Rome is bright red [notes.txt:9].",
}


def raw(event: dict[str, Any]) -> bytes:
    return json.dumps(event).encode()


def small(event_id: str, **extra: Any) -> bytes:
    return raw({"event_id": event_id, "app": "search", "answer": "No claim here", **extra})


@pytest.fixture(scope="module")
def mix() -> list[bytes]:
    return [raw(e) for e in standard_mix(200, seed=7)]


def test_a_pickled_work_keeps_its_options_audit_and_hook_rate() -> None:
    options = CheckOptions(max_citations=7, min_claim_words=3, excerpt_min_similarity=0.65)
    audit = AuditBuilder(0.25, cited_text_chars=40, redactor=Redactor(["email"]), keep_dict=False)
    work = CheckWork(options, audit, hook_rate=0.3)
    copy = pickle.loads(pickle.dumps(work))
    assert type(copy) is CheckWork
    assert copy.options == options
    assert copy.options.max_citations == 7 and copy.options.excerpt_min_similarity == 0.65
    assert copy.hook_rate == 0.3
    assert copy.audit is not None
    assert (copy.audit.sample_rate, copy.audit.cited_text_chars, copy.audit.keep_dict) == (
        0.25,
        40,
        False,
    )
    assert copy.audit.redactor is not None
    assert copy.audit.redactor.text("mail a.b@example.com") == "mail [redacted:email]"
    bare = pickle.loads(pickle.dumps(CheckWork(CheckOptions())))
    assert bare == CheckWork(CheckOptions(), None, 1.0)


def test_a_hand_checked_answer() -> None:
    work = CheckWork(CheckOptions(), AuditBuilder(sample_rate=0.0), hook_rate=0.0)
    result = work.run(raw(HAND), SOURCE)
    assert isinstance(result, Checked)
    assert (result.event_id, result.app) == ("hand-1", "docs-qa")
    # line 2 exists, line 9 does not (the document has 3 lines)
    # (label values, how many): summed per label set in the check process
    assert result.citations == (
        (("line", "valid", None), 1),
        (("line", "invalid", "line_out_of_range"), 1),
    )
    # the first claim repeats line 2; the second rests on an invalid citation only
    assert result.claims == ((("supported", "lexical"), 1), (("not_supported", "rules"), 1))
    # events, rejected, citations, valid, claims, cited, decided, supported, unsupported
    assert result.vector[:9] == [1, 0, 2, 1, 2, 2, 2, 1, 1]
    # estimation sums: the first claim is judgeable, the second decided by rule (not supported)
    counts = dict(zip(COUNT_FIELDS, result.vector, strict=True))
    assert (counts["ruled_unsupported"], counts["all_n"], counts["all_m"]) == (1, 1, 1)
    assert result.failed is True
    assert result.event_time == 1234.5  # no timestamp in the answer: the record's
    assert result.event is None and result.verdict is None  # hook rate 0, no gold label
    assert result.audit is not None and result.audit.reason == "failure"
    record = json.loads(result.audit.data)
    assert record["event_id"] == "hand-1"
    assert record["audit_reason"] == "failure"
    assert record["source"] == {"topic": "ragmon.answers", "partition": 2, "offset": 41}
    assert result.audit.record is not None and result.audit.record["event_id"] == "hand-1"
    again = pickle.loads(pickle.dumps(result))  # what comes back from a check process
    assert again == result


def test_checked_pickles_every_field_in_its_place() -> None:
    # __reduce__ lists the fields by hand: distinct values everywhere catch a misplaced one
    values = {f.name: f"value-{f.name}" for f in dataclasses.fields(Checked)}
    checked = Checked(**values)  # type: ignore[arg-type]
    again = pickle.loads(pickle.dumps(checked, pickle.HIGHEST_PROTOCOL))
    assert {f.name: getattr(again, f.name) for f in dataclasses.fields(Checked)} == values
    entry = AuditEntry("failure", b"{}", {"a": 1})
    assert pickle.loads(pickle.dumps(entry)) == entry


def test_run_agrees_with_check_event_on_the_standard_mix(mix: list[bytes]) -> None:
    options = CheckOptions()
    work = CheckWork(options, AuditBuilder(sample_rate=0.0), hook_rate=0.0)
    failed = 0
    for i, data in enumerate(mix):
        result = work.run(data, ("ragmon.answers", 0, i, None))
        event = decode_event(data, options)
        assert isinstance(event, AnswerEvent) and isinstance(result, Checked)
        verdict = check_event(event, options)
        assert result.event_id == event.event_id
        assert result.vector == verdict_vector(verdict)
        assert result.citations == tuple(
            Counter((r.citation.format, r.status, r.error) for r in verdict.citations).items()
        )
        assert result.claims == tuple(
            Counter((c.support.verdict, c.support.tier) for c in verdict.claims).items()
        )
        assert result.uncited == tuple(
            Counter(
                (c.support.verdict,) for c in verdict.claims if not c.claim.citation_indexes
            ).items()
        )
        assert result.failed == has_failure(verdict)
        assert (result.audit is not None) == result.failed  # sample rate 0: failures only
        failed += result.failed
    # the mix holds both healthy and failing answers, so both branches ran
    assert 0 < failed < len(mix)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"event_id": "x", "answer": ', "invalid_json"),
        (b'{"event_id": 7, "answer": "a"}', "schema_violation"),
        (b'{"answer": "no id"}', "schema_violation"),
        (b"[1, 2]", "not_an_object"),
        (b"\xff\xfe", "invalid_utf8"),
        (b"", "empty"),
        (None, "empty"),
    ],
)
def test_a_bad_record_is_rejected_as_decode_rejects_it(data: bytes | None, reason: str) -> None:
    options = CheckOptions()
    result = CheckWork(options).run(data, SOURCE)
    assert isinstance(result, Rejection)
    assert result.reason == reason
    assert result == decode_event(data or b"", options)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64) | st.text(max_size=64).map(str.encode))
def test_run_rejects_whatever_decode_rejects(data: bytes) -> None:
    options = CheckOptions()
    decoded = decode_event(data, options)
    result = CheckWork(options).run(data, SOURCE)
    if isinstance(decoded, Rejection):
        assert result == decoded
    else:
        assert isinstance(result, Checked) and result.event_id == decoded.event_id


def test_a_check_that_raises_costs_that_answer_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(event: AnswerEvent, options: CheckOptions) -> Any:
        if event.event_id == "bad":
            raise ZeroDivisionError("division by zero")
        return check_event(event, options)

    monkeypatch.setattr(check_work, "check_event", broken)
    results = CheckWork(CheckOptions()).run_batch(
        [(small("ok-1"), SOURCE), (small("bad", app="docs-qa"), SOURCE), (small("ok-2"), SOURCE)]
    )
    assert results[1] == Rejection(
        "check_error", "ZeroDivisionError: division by zero", "bad", "docs-qa"
    )
    assert [r.event_id for r in results] == ["ok-1", "bad", "ok-2"]
    assert isinstance(results[0], Checked) and isinstance(results[2], Checked)


IDS = [f"evt-{i}" for i in range(40)]


def _returned(rate: float, gold: frozenset[str] = frozenset()) -> set[str]:
    work = CheckWork(CheckOptions(), hook_rate=rate)
    out = set()
    for event_id in IDS:
        extra = {"gold": {"label": "supported"}} if event_id in gold else {}
        result = work.run(small(event_id, **extra), SOURCE)
        assert isinstance(result, Checked)
        assert (result.event is None) == (result.verdict is None)
        if result.event is not None:
            assert result.event.event_id == event_id and result.verdict is not None
            assert result.verdict.event_id == event_id
            out.add(event_id)
    return out


def test_the_answer_and_verdict_come_back_for_canaries_and_the_hook_rate_share() -> None:
    canaries = frozenset({"evt-3", "evt-17"})
    assert _returned(0.0) == set()
    assert _returned(0.0, canaries) == canaries  # a gold label always comes back
    assert _returned(1.0) == set(IDS)
    below = {i for i in IDS if hash_fraction(i) < 0.4}
    assert 0 < len(below) < len(IDS)  # the middle rate splits these ids
    assert _returned(0.4) == below
    assert _returned(0.4, canaries) == below | canaries
    # the judge's sampler draws from the same hash: a wider rate only adds answers
    assert _returned(0.4) <= _returned(0.6)


def test_what_the_judges_plan_would_consider_comes_back(mix: list[bytes]) -> None:
    base, oversample = 0.1, 0.6
    work = CheckWork(CheckOptions(), hook_rate=0.0, judge_rates=(base, oversample))
    assert pickle.loads(pickle.dumps(work)).judge_rates == (base, oversample)
    expected, doubtful_skipped = set(), 0
    for value in mix:
        event = decode_event(value, work.options)
        assert isinstance(event, AnswerEvent)
        u = hash_fraction(event.event_id)
        doubtful = is_doubtful(check_event(event, work.options))
        if u < base or (u < oversample and doubtful):
            expected.add(event.event_id)
        elif u < oversample:
            doubtful_skipped += 1
    assert 0 < len(expected) < len(mix) and doubtful_skipped > 0  # every branch is exercised
    got = set()
    for i, value in enumerate(mix):
        result = work.run(value, ("answers", 0, i, None))
        assert isinstance(result, Checked)
        if result.verdict is not None:
            got.add(result.event_id)
    assert got == expected


def test_while_the_judge_sheds_its_share_comes_back_as_notes(mix: list[bytes]) -> None:
    """A batch sent while the judge sheds: each answer its plan would consider comes back as a
    note (the drop's reason, why it was sampled) without its answer and verdict; canaries and
    the hook-rate share still whole; the rest as without a judge."""
    base, oversample = 0.1, 0.6
    work = CheckWork(CheckOptions(), hook_rate=0.05, judge_rates=(base, oversample))
    canary = small("gold-1", gold={"label": "supported"})
    batch = [(value, ("answers", 0, i, None)) for i, value in enumerate([*mix, canary])]
    whole = work.run_batch(batch)
    shed = pickle.loads(pickle.dumps(work.run_batch(batch, "queue_full")))
    notes: dict[str, str] = {}
    for before, after in zip(whole, shed, strict=True):
        assert isinstance(before, Checked) and isinstance(after, Checked)
        assert before.judge_shed is None  # no note unless the batch was sent while shedding
        u = hash_fraction(before.event_id)
        if before.event is None:  # no hook looks at it: no note either
            assert after.event is None and after.judge_shed is None
            continue
        assert before.verdict is not None
        if before.event_id == "gold-1" or u < 0.05:
            assert after.event == before.event and after.judge_shed is None
            continue
        why = "base" if u < base else "oversample"
        assert u < oversample and (why == "base" or is_doubtful(before.verdict))
        assert after.event is None and after.verdict is None
        assert after.judge_shed == ("queue_full", why)
        notes[after.event_id] = why
        # the rest of the result is the same
        assert (after.vector, after.claims, after.failed) == (
            before.vector,
            before.claims,
            before.failed,
        )
    assert set(notes.values()) == {"base", "oversample"}  # both reasons are exercised
    assert len(notes) > 5


def test_check_keeps_the_objects_for_the_in_process_hooks() -> None:
    work = CheckWork(CheckOptions(), hook_rate=0.0)
    event = decode_event(small("evt-1"), work.options)
    assert isinstance(event, AnswerEvent)
    result = work.check(event, SOURCE, 0.0)
    assert result.event == event and result.verdict is not None


@pytest.mark.parametrize(
    ("timestamp", "record_ts", "expected"),
    [
        ("2023-11-14T22:13:20Z", 1234.5, 1_700_000_000.0),
        ("2023-11-14T22:13:20.250Z", None, 1_700_000_000.25),
        ("2023-11-14T23:13:20+01:00", 1234.5, 1_700_000_000.0),
        (None, 1234.5, 1234.5),  # no timestamp: the record's
        (None, None, 5000.0),  # neither: when it was checked
    ],
)
def test_event_time(timestamp: str | None, record_ts: float | None, expected: float) -> None:
    extra = {"timestamp": timestamp} if timestamp is not None else {}
    work = CheckWork(CheckOptions())
    event = decode_event(small("evt-1", **extra), work.options)
    assert isinstance(event, AnswerEvent)
    result = work.check(event, ("t", 0, 0, record_ts), 0.0, clock=lambda: 5000.0)
    assert result.event_time == expected
    assert result.checked_at == 5000.0


def test_a_lower_case_zone_is_the_events_time() -> None:
    work = CheckWork(CheckOptions())
    result = work.run(small("evt-1", timestamp="2023-11-14T22:13:20z"), SOURCE)
    assert isinstance(result, Checked)
    assert result.event_time == 1_700_000_000.0


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from([None, "x"]))))
def test_tally_counts_each_label_set_in_the_order_first_seen(
    keys: list[tuple[str, str | None]],
) -> None:
    counted = tally(keys)
    assert [k for k, _ in counted] == list(dict.fromkeys(keys))
    assert dict(counted) == Counter(keys)
    assert sum(n for _, n in counted) == len(keys)


def test_claim_tallies_count_claims_and_the_uncited_ones() -> None:
    """One pass gives what `tally` gives over all claims and over the uncited ones."""

    def result(verdict: str, tier: str, cited: bool) -> ClaimResult:
        claim = Claim(0, "x", 0, 1, (1,) if cited else (), "unknown")
        return ClaimResult(claim, Support(verdict, 0.5, "low", tier, ()))  # type: ignore[arg-type]

    claims = [
        result("supported", "lexical", True),
        result("not_supported", "lexical", False),
        result("supported", "lexical", True),
        result("not_supported", "rules", False),
        result("not_supported", "lexical", False),
    ]
    counts, uncited = check_work.claim_tallies(claims)
    assert counts == (
        (("supported", "lexical"), 2),
        (("not_supported", "lexical"), 2),
        (("not_supported", "rules"), 1),
    )
    assert uncited == ((("not_supported",), 3),)
    assert counts == tally((c.support.verdict, c.support.tier) for c in claims)
    assert check_work.claim_tallies([]) == ((), ())


def test_with_a_request_shape_the_judges_requests_are_built_here(mix: list[bytes]) -> None:
    """Each answer the judge's plan takes comes back as its request (the bytes the worker's
    judge hook would publish for it) instead of its answer and verdict; canaries and the
    hook-rate share still whole; a batch sent while the judge sheds still brings notes."""
    base, oversample = 0.1, 0.6
    shape = RequestShape(max_evidence_chars=900, batch_size=3)
    options = CheckOptions(answer_claim_weight=4)  # some answers weigh down: not estimation
    objects = CheckWork(options, hook_rate=0.05, judge_rates=(base, oversample))
    prepared = pickle.loads(pickle.dumps(dataclasses.replace(objects, judge_requests=shape)))
    assert prepared.judge_requests == shape
    canary = small("gold-1", gold={"label": "supported"})
    batch = [(value, ("answers", 0, i, None)) for i, value in enumerate([*mix, canary])]
    whole = objects.run_batch(batch)
    built = pickle.loads(pickle.dumps(prepared.run_batch(batch)))
    reasons: Counter[str] = Counter()
    estimation = Counter[bool]()
    for before, after in zip(whole, built, strict=True):
        assert isinstance(before, Checked) and isinstance(after, Checked)
        assert (after.vector, after.claims, after.failed) == (
            before.vector,
            before.claims,
            before.failed,
        )
        if before.event is None:  # the plan does not take it: nothing to build
            assert after.event is None and after.judge_request is None
            continue
        assert before.verdict is not None
        u = hash_fraction(before.event_id)
        if before.event_id == "gold-1" or u < 0.05:  # whole, for the worker's hooks
            assert after.event == before.event and after.judge_request is None
            continue
        assert after.event is None and after.verdict is None and after.judge_shed is None
        request = after.judge_request
        assert request is not None
        sampler = Sampler(SamplingPolicy(base, oversample, 0, 0, batch_size=3))
        planned, decision = plan_judge_request(
            before.event, before.verdict, sampler, 900, after.checked_at, claim_cap=4
        )
        assert planned is not None and decision.sampled
        assert request.value == dumps(planned.to_dict())  # what the worker's hook publishes
        assert (request.reason, request.items, request.est_tokens, request.estimation) == (
            planned.reason,
            len(planned.items),
            planned.est_tokens,
            planned.estimation,
        )
        reasons[request.reason] += 1
        estimation[request.estimation] += 1
    assert set(reasons) == {"base", "oversample"} and sum(reasons.values()) > 5
    assert estimation[True] > 0 and estimation[False] > 0  # the oversampled ones are not
    shed = prepared.run_batch(batch, "queue_full")
    assert all(r.judge_request is None for r in shed if isinstance(r, Checked))
    assert sum(isinstance(r, Checked) and r.judge_shed is not None for r in shed) == sum(
        reasons.values()
    )


def test_a_request_that_cannot_be_built_costs_no_answer(
    mix: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in building a judge request in the check process sends the answer back whole, for
    the worker's judge hook, instead of dead-lettering an answer whose check is done."""
    work = CheckWork(
        CheckOptions(), hook_rate=0.0, judge_rates=(0.3, 0.3), judge_requests=RequestShape(900, 3)
    )

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug in the request")

    monkeypatch.setattr(check_work, "prepare_request", broken)
    results = work.run_batch([(value, ("answers", 0, i, None)) for i, value in enumerate(mix)])
    assert all(isinstance(r, Checked) for r in results)
    whole = [r for r in results if isinstance(r, Checked) and r.event is not None]
    assert whole and all(r.judge_request is None and r.verdict is not None for r in whole)
    assert {r.event_id for r in whole} == {
        r.event_id for r in results if isinstance(r, Checked) and hash_fraction(r.event_id) < 0.3
    }
