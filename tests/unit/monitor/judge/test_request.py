"""Judge requests: which claims, what evidence, the plan on the check path, the record."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.judge.answer import AgreementWindow, overall_score, says_supported
from monitor.judge.client import AnswerOutcome, PairOutcome
from monitor.judge.passages import Splits, select_evidence
from monitor.judge.plan import plan_judge_request
from monitor.judge.record import judge_record
from monitor.judge.request import (
    RequestInvalid,
    build_request,
    judge_items,
    parse_request,
)
from monitor.judge.schema import AnswerVerdict, PairVerdict
from monitor.records.models import ClaimResult, Support
from monitor.sampling.policy import JUDGE_DOWN, QUEUE_FULL, Decision, Sampler, SamplingPolicy
from tests.unit.monitor.judge.helpers import DOC, event, verdict


def test_items_are_claims_with_valid_evidence_and_no_markers() -> None:
    items = judge_items(verdict())
    assert [i.claim_index for i in items] == [0, 1]
    assert items[0].claim == "Revenue grew 5% in 2023 ."
    assert items[0].evidence == "(source: 1)\n" + DOC.text
    assert items[1].evidence == "(source: 1)\nThe premium is 900 dollars."
    assert (items[1].cheap_verdict, items[1].cheap_score) == ("not_supported", 0.2)
    # an invalid citation is no evidence: the claim is not sent
    assert [i.claim_index for i in judge_items(verdict(second_valid=False))] == [0]


def test_uncited_claims_are_judged_on_the_whole_context() -> None:
    # without the event there is no context: only cited claims
    assert [i.claim_index for i in judge_items(verdict())] == [0, 1]
    items = judge_items(verdict(), event=event(data={"quote": {"premium": 900}}))
    assert [(i.claim_index, i.cited) for i in items] == [(0, True), (1, True), (2, False)]
    uncited = items[2]
    assert uncited.claim == "Nobody knows why."
    assert uncited.evidence == DOC.text + "\n\nquote premium: 900"
    assert (uncited.cheap_verdict, uncited.cheap_score) == ("not_supported", 0.0)
    # the flag survives the topic and reaches the judge record
    req = build_request(event(), verdict(), items, "base", now=1.0)
    assert parse_request(json.loads(json.dumps(req.to_dict()))).items[2].cited is False


def test_claims_over_a_cap_are_not_judged() -> None:
    base = verdict()
    over = ClaimResult(
        base.claims[2].claim, Support("unverifiable", 0.5, "low", "rules", ("uncited", "over_cap"))
    )
    capped = replace(base, claims=(*base.claims[:2], over))
    assert [i.claim_index for i in judge_items(capped, event=event())] == [0, 1]


def test_long_evidence_keeps_the_passages_about_the_claim_in_order() -> None:
    filler = " ".join(f"Filler sentence number {n} talks about weather." for n in range(40))
    text = filler + " The premium is 900 dollars per year. " + filler + " Premium changes yearly."
    got = select_evidence(text, "The premium is 1200 dollars per year", max_chars=120)
    assert got == "The premium is 900 dollars per year. … Premium changes yearly."
    assert select_evidence("short", "x", 100) == "short"
    assert select_evidence("x" * 500, "y", 200) == "x" * 200  # one huge passage: its head


_SENTENCE = st.lists(
    st.sampled_from(["premium", "rate", "year", "dollars", "the", "900", "tax", "a"]),
    min_size=1,
    max_size=8,
).map(" ".join)


@given(
    st.lists(_SENTENCE, min_size=1, max_size=30).map(lambda s: ". ".join(s) + "."),
    st.lists(_SENTENCE, min_size=1, max_size=4),
    st.integers(min_value=20, max_value=300),
)
def test_splitting_a_text_once_per_answer_selects_what_splitting_per_claim_did(
    text: str, claims: list[str], max_chars: int
) -> None:
    splits = Splits()
    for claim in claims:  # the second claim on the same text reuses the first one's split
        assert splits.select(text, claim, max_chars) == select_evidence(text, claim, max_chars)


def test_request_round_trip_through_json() -> None:
    ev = event(gold_answer="Revenue grew 5%.", gold_label="partially_supported")
    req = build_request(ev, verdict(), judge_items(verdict()), "canary", now=123.0)
    back = parse_request(json.loads(json.dumps(req.to_dict())))
    assert back == req
    assert parse_request(json.dumps(req.to_dict()).encode()) == req  # raw record values too
    assert req.answer == ev.answer and req.gold_answer == "Revenue grew 5%."
    assert req.est_tokens > 0
    plain = build_request(event(), verdict(), (), "base", now=1.0)
    assert plain.answer is None and plain.gold_answer is None  # no reference: no answer text


@pytest.mark.parametrize(
    "bad",
    [
        b"not json",
        b"\xff",
        None,
        [],
        "x",
        {"v": 2, "items": []},
        {"v": 1},
        {"v": 1, "items": [{"claim_index": "0"}]},
        {"v": 1, "items": [], "event_id": 5},
    ],
)
def test_malformed_requests_are_refused(bad: object) -> None:
    with pytest.raises(RequestInvalid):
        parse_request(bad)


def test_plan_hashes_first_then_budgets() -> None:
    sampler = Sampler(
        SamplingPolicy(
            base_rate=0.0,
            oversample_rate=0.0,
            calls_per_minute=1,
            tokens_per_hour=0,
            fairness=False,
        )
    )
    req, d = plan_judge_request(event(), verdict(), sampler)
    assert req is None and d.reason == "not_sampled"
    canary = event(gold_label="supported")
    req, d = plan_judge_request(canary, verdict(), sampler, now=5.0)
    assert req is not None and d.reason == "canary" and req.reason == "canary"
    # the uncited claim 2 is judged too, on the event's documents
    assert [(i.claim_index, i.cited) for i in req.items] == [(0, True), (1, True), (2, False)]
    req, d = plan_judge_request(event("ev-2", gold_label="supported"), verdict("ev-2"), sampler)
    assert req is None and d.reason == "budget_calls" and d.dropped


def pv(cid: int, judgement: str, conf: str = "high") -> PairVerdict:
    return PairVerdict(
        cid,
        judgement,
        judgement == "ENTAILMENT",  # type: ignore[arg-type]
        {"ENTAILMENT": 0.9, "NEUTRAL": 0.5, "CONTRADICTION": 0.1}[judgement],
        conf,
        "because",
    )  # type: ignore[arg-type]


def test_overall_score_follows_seed_004() -> None:
    ans = AnswerVerdict("PARTIALLY_CORRECT", 0.6, 0.8, (), "r")
    # supports 1.0 and 0.5 → mean 0.75; 0.75*0.5 + 0.8*0.25 + 0.6*0.25 = 0.725
    assert overall_score([1.0, 0.5], ans) == pytest.approx(0.725)
    assert overall_score([], ans) is None


def test_record_never_turns_a_failure_into_a_verdict() -> None:
    ev = event(gold_answer="Revenue grew 5%.", gold_label="supported")
    req = build_request(ev, verdict(), judge_items(verdict()), "canary", now=100.0)
    outcomes = [PairOutcome("ok", pv(1, "ENTAILMENT"), "m"), PairOutcome("judge_error", model="m")]
    ans = AnswerOutcome("ok", AnswerVerdict("CORRECT", 1.0, 0.5, (), "r"), "m")
    rec = judge_record(req, outcomes, ans, judged_at=102.5)
    assert rec["outcome"] == "partial" and rec["delay_seconds"] == 2.5
    assert rec["claims"][0]["verdict"] == "supported" and rec["claims"][0]["tier"] == "judge"
    assert rec["claims"][1]["verdict"] is None and "score" not in rec["claims"][1]
    assert rec["answer"]["overall"] == pytest.approx(1.0 * 0.5 + 0.5 * 0.25 + 1.0 * 0.25)
    timeouts = judge_record(req, [PairOutcome("unverifiable", model="m")] * 2, None, 101.0)
    assert [c["verdict"] for c in timeouts["claims"]] == ["unverifiable"] * 2
    assert timeouts["outcome"] == "failed" and timeouts["answer"] is None
    json.dumps(rec)  # JSON-only


def test_canary_agreement_window() -> None:
    assert says_supported(["supported", "supported", None]) is True
    assert says_supported(["supported", "partially_supported"]) is False
    assert says_supported([None, "unverifiable"]) is None
    w = AgreementWindow(size=3)
    assert w.observe("a", True, "supported") == 1.0
    assert w.observe("a", True, "not_supported") == 0.5
    assert w.observe("a", None, "supported") == 0.5  # undecided: not counted
    assert w.observe("a", True, "partially_supported") == pytest.approx(2 / 3)  # seed: partial ≥ 2
    assert w.observe("a", False, "supported") == pytest.approx(1 / 3)  # window of 3 slides
    assert w.ratio("b") is None


def test_cheap_canary_hook_sets_the_gauge() -> None:
    from prometheus_client import CollectorRegistry

    from agents.judging.canary import cheap_canary_hook
    from agents.telemetry.metrics import build_metrics

    metrics = build_metrics(CollectorRegistry())
    hook = cheap_canary_hook(metrics, lambda app: app or "other")
    hook(event(), verdict(), None)  # not a canary: nothing
    assert (
        metrics.registry.get_sample_value("ragmon_cheap_agreement_ratio", {"app": "shop"}) is None
    )
    # cheap verdicts supported, not_supported, not_supported → "not supported"; human: not → agree
    hook(event(gold_label="not_supported"), verdict(), None)
    hook(event(gold_label="supported"), verdict(), None)  # disagree
    assert metrics.registry.get_sample_value("ragmon_cheap_agreement_ratio", {"app": "shop"}) == 0.5


def sample_all(calls_per_minute: int) -> Sampler:
    """Every answer sampled, no token budget, no fair share: only the calls budget may drop."""
    policy = SamplingPolicy(
        base_rate=1.0,
        oversample_rate=1.0,
        calls_per_minute=calls_per_minute,
        tokens_per_hour=0,
        fairness=False,
    )
    return Sampler(policy)


def full() -> Decision:
    return QUEUE_FULL


def down() -> Decision:
    return JUDGE_DOWN


def test_a_full_judge_queue_sheds_sampled_answers_but_not_canaries() -> None:
    sampler = sample_all(calls_per_minute=2)
    req, d = plan_judge_request(event(), verdict(), sampler, shed=full)
    assert req is None and d.reason == "queue_full" and d.dropped
    # shedding takes no budget: both calls are still there for the next two
    req, d = plan_judge_request(event("ev-2"), verdict("ev-2"), sampler, shed=full)
    assert req is None and d.reason == "queue_full"
    canary = event("ev-3", gold_label="supported")
    req, d = plan_judge_request(canary, verdict("ev-3"), sampler, shed=full)
    assert req is not None and d.reason == "canary"
    req, d = plan_judge_request(event("ev-4"), verdict("ev-4"), sampler)
    assert req is not None and d.reason == "base"
    # the budget (2 calls a minute) is spent now: the shed answers did not take from it
    req, d = plan_judge_request(event("ev-5"), verdict("ev-5"), sampler)
    assert req is None and d.reason == "budget_calls"
    # not sampled stays not sampled, full queue or not
    off = Sampler(SamplingPolicy(base_rate=0.0, oversample_rate=0.0, fairness=False))
    assert plan_judge_request(event(), verdict(), off, shed=full)[1].reason == "not_sampled"


def test_a_judge_in_its_down_cool_down_sheds_sampled_answers_but_not_canaries() -> None:
    sampler = sample_all(calls_per_minute=1)
    req, d = plan_judge_request(event(), verdict(), sampler, shed=down)
    assert req is None and d.reason == "judge_down" and d.dropped
    canary = event("ev-3", gold_label="supported")
    req, d = plan_judge_request(canary, verdict("ev-3"), sampler, shed=down)
    assert req is not None and d.reason == "canary"


def test_shed_is_asked_only_for_sampled_answers_and_never_for_canaries() -> None:
    asked: list[str] = []

    def shed() -> Decision | None:
        asked.append("asked")
        return JUDGE_DOWN

    off = Sampler(SamplingPolicy(base_rate=0.0, oversample_rate=0.0, fairness=False))
    assert plan_judge_request(event(), verdict(), off, shed=shed)[1].reason == "not_sampled"
    assert asked == []  # an answer the hash leaves out costs no question about the judge
    on = sample_all(calls_per_minute=0)
    req, d = plan_judge_request(event(), verdict(), on, shed=shed)
    assert req is None and d.reason == "judge_down" and asked == ["asked"]
    canary = event("ev-3", gold_label="supported")
    req, d = plan_judge_request(canary, verdict("ev-3"), on, shed=shed)
    assert req is not None and d.reason == "canary" and asked == ["asked"]
    req, d = plan_judge_request(event("ev-4"), verdict("ev-4"), on, shed=lambda: None)
    assert req is not None and d.reason == "base"


def test_a_passage_that_failed_a_content_check_is_still_evidence() -> None:
    from dataclasses import replace

    v = verdict(second_valid=False)
    # the quotation check failed on a resolved passage: the judge weighs it (the estimate's
    # reference is the judge, not the cheap tier's quotation match)
    passage = "The premium is 900 dollars."
    cited = replace(v.citations[1], error="excerpt_mismatch", cited_text=passage)
    v = replace(v, citations=(v.citations[0], cited, *v.citations[2:]))
    assert [i.claim_index for i in judge_items(v)] == [0, 1]


def test_the_estimation_sample_is_the_base_rate_hash_sample_only() -> None:
    from monitor.sampling.policy import hash_fraction

    sampler = Sampler(
        SamplingPolicy(base_rate=0.3, oversample_rate=0.9, calls_per_minute=0, tokens_per_hour=0)
    )
    ids = [f"ev-{i}" for i in range(200)]
    base = {i for i in ids if hash_fraction(i) < 0.3}
    over = {i for i in ids if 0.3 <= hash_fraction(i) < 0.9}
    assert base and over
    for event_id in ids:
        # doubtful (a not_supported claim): oversampled up to 0.9; a canary: always judged
        for gold in (None, "supported"):
            req, _ = plan_judge_request(
                event(event_id, gold_label=gold), verdict(event_id), sampler, now=1.0
            )
            if event_id in base:
                assert req is not None and req.estimation  # canaries of the hash sample too
            elif req is not None:
                assert not req.estimation  # oversampled or canary only: no label
    back = parse_request(json.loads(json.dumps(req.to_dict())))  # type: ignore[union-attr]
    assert back.estimation == req.estimation  # type: ignore[union-attr]
