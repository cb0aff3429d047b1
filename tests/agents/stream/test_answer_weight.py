"""One answer cannot be an app's window: its claims weigh at most RAGMON_ANSWER_CLAIM_WEIGHT.

Issue 16: one 720 KB answer of 20,000 correctly cited sentences made 19,000 of them "uncited"
past the citation cap, read 0.95 hallucination over its app's 23 answers and fired
hallucination_high and coverage_low. Here every answer goes through the real checking core, its
window vector, the aggregator and the default alert rules.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agents.output.records import COUNT_FIELDS, verdict_vector
from monitor.alerting.alerts import AlertState, WindowFigures, evaluate, load_rules
from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.estimation.vector import weighted
from monitor.records.models import AnswerEvent, Document
from tests.agents.stream.test_aggregate import batch, make, value

DOCS = tuple(
    Document(
        str(i), f"Station {i} recorded {100 + i} millimetres of rainfall in the basin last spring."
    )
    for i in range(1, 21)
)


def sentence(i: int, cite: int) -> str:
    return (
        f"Station {i % 20 + 1} recorded {101 + i % 20} millimetres of rainfall in the basin "
        f"last spring [{cite}]."
    )


def answer(event_id: str, sentences: int, *, bad: bool = False) -> AnswerEvent:
    # bad: every citation points past the 20 documents (index_out_of_range)
    text = " ".join(sentence(i, 99 if bad else i % 20 + 1) for i in range(sentences))
    return AnswerEvent(event_id, text, app="search", documents=DOCS)


def window_after(big: AnswerEvent, options: CheckOptions) -> dict[str, Any]:
    """22 ordinary answers (5 supported claims each) and `big`, counted in one window."""
    agg, _, metrics, _, clock = make()
    clock.now = 1000.0
    entries = []
    for event in [*(answer(f"a{k}", 5) for k in range(22)), big]:
        vector = verdict_vector(check_event(event, options), options.answer_claim_weight)
        entries.append([event.event_id, 1000.0, 1000.0, 0, vector])
    agg.handle(batch("search", *entries))
    exported = agg.publish(1000.0)["search"]
    share = value(metrics, "ragmon_cheap_verdict_share", app="search", verdict="not_supported")
    assert share == exported["cheap_hallucination"]
    return exported


def fired(figures: dict[str, Any]) -> list[str]:
    """Rules of the default set that fire on these window figures (held past their `for`)."""
    out = []
    for rule in load_rules():
        snapshot = WindowFigures("search", 0.0, figures["events"], figures)
        state, _ = evaluate(rule, AlertState(), snapshot)
        later = WindowFigures("search", rule.for_seconds, figures["events"], figures)
        state, change = evaluate(rule, state, later)
        if change is not None and change.kind == "firing":
            out.append(rule.name)
    return out


def test_a_20000_sentence_answer_cited_right_moves_nothing() -> None:
    big = answer("big", 20_000)
    verdict = check_event(big, CheckOptions())
    # 1,000 citations read (the cap), their 1,000 claims supported; the 19,000 sentences after
    # the cap are undecided (unverifiable, over_cap), not uncited hallucinations
    assert len(verdict.claims) == 20_000
    over = [c for c in verdict.claims if c.support.reasons == ("uncited", "over_cap")]
    assert len(over) == 19_000 and all(c.support.verdict == "unverifiable" for c in over)
    assert verdict.scores.hallucination_rate == 0.0 and verdict.scores.coverage == 1.0
    figures = window_after(big, CheckOptions())
    assert figures["events"] == 23
    assert figures["cheap_hallucination"] == 0.0 and figures["coverage"] == 1.0
    assert fired({**figures, "validity": 1.0}) == []


def test_a_20000_sentence_answer_cited_wrong_weighs_ten_claims() -> None:
    # the worst case: every one of its read citations invalid. It weighs 10 claims against the
    # other answers' 110: hallucination 10 / 120, under the 0.10 of hallucination_high
    big = answer("big", 20_000, bad=True)
    figures = window_after(big, CheckOptions())
    assert figures["cheap_hallucination"] == 10 / 120
    assert figures["coverage"] == 1.0 and figures["cheap_support"] == 110 / 120
    # without the weight the one answer is the window (1,000 of 1,110 claims)
    unweighted = window_after(big, CheckOptions(answer_claim_weight=0))
    assert unweighted["cheap_hallucination"] == 1000 / 1110
    # the estimates weigh it the same: 10 claims, decided by rule (not supported), out of 120
    options = CheckOptions()
    vector = verdict_vector(check_event(big, options), options.answer_claim_weight)
    counts = dict(zip(COUNT_FIELDS, vector, strict=True))
    assert (counts["ruled_unsupported"], counts["ruled_supported"], counts["all_n"]) == (10, 0, 0)


def test_weighting_hand_values() -> None:
    # 40 claims, 30 cited, 20 decided, 10 supported, 5 hallucinated at cap 10: x * 10 / 40
    assert weighted([40, 30, 20, 10, 5], 10) == [10, 8, 5, 3, 1]  # 7.5→8, 2.5→3, 1.25→1
    assert weighted([7, 7, 7, 7, 0], 10) == [7, 7, 7, 7, 0]  # under the cap: unchanged
    assert weighted([40, 30, 20, 10, 5], 0) == [40, 30, 20, 10, 5]  # 0: no cap


@given(
    st.integers(1, 100_000).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.integers(0, n), min_size=4, max_size=4),
            st.integers(1, 50),
        )
    )
)
def test_weighting_keeps_counts_nested_and_capped(case: tuple[int, list[int], int]) -> None:
    total, parts, cap = case
    cited, decided, supported, hallucinated = parts
    decided = min(decided, cited)
    supported = min(supported, decided)
    got = weighted([total, cited, decided, supported, hallucinated], cap)
    assert got[0] == min(total, cap)
    assert got[0] >= got[1] >= got[2] >= got[3] >= 0 and got[0] >= got[4] >= 0
    for before, after in zip([total, cited, decided, supported, hallucinated], got, strict=True):
        assert abs(after - before * got[0] / total) <= 0.5 + 1e-9
