"""The alert simulator agrees with the product: its estimates with monitor.estimation.window, its
windows with the aggregate agent's, its transitions with the state machine run every second."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.evaluation.alert_sim import (
    MARGIN,
    Stream,
    Windows,
    decided,
    draw_answers,
    rule_bound,
    simulate,
)
from agents.evaluation.alerts_eval import incident_figures, poisson_interval, quantile
from agents.evaluation.claim_pool import ClaimPool
from agents.evaluation.window_vec import rate_bounds
from agents.output.records import COUNT_FIELDS
from agents.stream.aggregate import WindowAggregator
from agents.stream.window_store import CountedRecords
from monitor.alerting.alerts import AlertState, WindowFigures, evaluate, parse_rules
from monitor.config.settings import load_settings
from monitor.estimation.window import (
    ESTIMATION_FIELDS,
    SCALE,
    answer_sums,
    label_sums,
    rate_figures,
    window_values,
)
from tests.agents.helpers import fresh_metrics
from tests.agents.stream.test_aggregate import Clock, Stored, batch

POOL = ClaimPool(
    supported=tuple(0.3 + 0.6 * i / 50 for i in range(50)),
    not_supported=tuple(0.1 + 0.6 * i / 30 for i in range(30)),
    sources={"synthetic": 80},
)


def answer_windows() -> Any:
    return st.lists(
        st.tuples(
            st.lists(st.integers(0, SCALE), min_size=1, max_size=5),  # scaled cheap scores
            st.booleans(),  # judged
            st.integers(0, 5),  # of its claims, how many are not supported
            st.integers(0, 2),  # claims decided by rule, not supported
            st.integers(0, 2),  # of its claims, how many are partially supported
        ),
        max_size=60,
    )


@settings(max_examples=150, deadline=None)
@given(windows=st.lists(answer_windows(), min_size=1, max_size=8))
def test_the_vectorised_estimates_are_the_window_estimates(windows: list[Any]) -> None:
    sums_list = []
    for answers in windows:
        sums: dict[str, int] = {}
        for scores, judged, bad, ruled, partial in answers:
            floats = [s / SCALE for s in scores]
            parts = [answer_sums(floats, 0, ruled)]
            if judged:
                h = min(bad, len(scores))
                p = min(partial, len(scores) - h)
                parts.append(label_sums(floats, len(scores) - h - p, h))
            for part in parts:
                for k, v in part.items():
                    sums[k] = sums.get(k, 0) + v
        sums_list.append(sums)
    arrays = {k: np.array([s.get(k, 0) for s in sums_list]) for k in ESTIMATION_FIELDS}
    for rate in ("support", "hallucination"):
        for level in (0.95, 0.999):
            value, lower, upper, _ = rate_bounds(arrays, rate, level)
            for i, sums in enumerate(sums_list):
                est = rate_figures(sums, rate, level).estimate
                want = (None, None, None) if est is None else (est.value, est.lower, est.upper)
                for got, ref in zip((value, lower, upper), want, strict=True):
                    assert (ref is None) == bool(np.isnan(got[i]))
                    if ref is not None:
                        assert abs(ref - got[i]) <= 1e-12
                if level == 0.95:  # and the gauges' figures are the same estimate
                    assert window_values(sums)[rate] == want[0]


def test_the_simulated_windows_are_the_aggregate_agents() -> None:
    """The same answers and judge labels, replayed second by second into WindowAggregator."""
    stream = Stream(rate=2, judge_rate=0.3, seconds=1500, schedule=lambda s: np.full(s.shape, 0.2))
    answers = draw_answers(stream, POOL, 0, stream.seconds, np.random.default_rng(3), True)
    windows = Windows(stream).block(0, stream.seconds, answers)
    settings_ = load_settings(window_seconds=300, window_step_seconds=60)
    clock = Clock(0)
    agg = WindowAggregator(
        settings_,
        fresh_metrics(),
        CountedRecords(Stored(), 60, 3600, 100_000),
        1,
        clock=clock,  # type: ignore[arg-type]
    )
    agg.sync_ownership([0])
    claims: dict[int, list[int]] = {}
    for claim, owner in zip(answers.scores.tolist(), answers.owner.tolist(), strict=True):
        claims.setdefault(owner, []).append(claim)
    by_second: dict[int, list[int]] = {}
    for i, second in enumerate(answers.second.tolist()):
        by_second.setdefault(second, []).append(i)
    index = {name: i for i, name in enumerate(COUNT_FIELDS)}

    def vector(sums: dict[str, int], events: int, m: int) -> list[int]:
        v = [0] * len(COUNT_FIELDS)
        v[index["events"]], v[index["claims"]] = events, m
        for k, n in sums.items():
            v[index[k]] = n
        return v

    checked = 0
    for s in range(stream.seconds):
        clock.now = float(s)
        entries = []
        for i in by_second.get(s, []):
            floats = [c / SCALE for c in claims[i]]
            sums = answer_sums(floats, 0, 0)
            entries.append([f"a{i}", s, s, 0, vector(sums, 1, len(floats))])
        if entries:
            agg.handle(batch("app", *entries))
        labels = []
        for i in by_second.get(s - stream.judge_delay, []):
            if answers.judged[i]:
                floats = [c / SCALE for c in claims[i]]
                sums = label_sums(floats, int(answers.s[i]), int(answers.h[i]))
                labels.append([f"a{i}", s - 2, s - 2, 0, vector(sums, 0, 0)])
        if labels:
            agg.handle(batch("app", *labels, kind="judge"))
        rolling = dict(zip(COUNT_FIELDS, agg.rolling("app", float(s)), strict=True))
        for name in ("events", "claims", *ESTIMATION_FIELDS):
            got = int(windows[name][s]) if name in windows else 0
            assert rolling[name] == got, (s, name)
        checked += 1
    assert checked == stream.seconds and int(windows["lab_n"].max()) > 10


RULES = parse_rules(
    """
defaults: {min_events: 20, for: 20s}
rules:
  - {name: hallucination_high, figure: hallucination, above: 0.12, resolve_at: 0.08, min_judged: 10}
  - {name: support_low, figure: support, below: 0.85, resolve_at: 0.88, min_judged: 10}
  - {name: quiet_high, figure: hallucination, above: 0.12, resolve_at: 0.08, min_judged: 10,
     keep_firing_for: 2m, level: 0.99}
  - {name: quiet_low, figure: support, below: 0.85, resolve_at: 0.88, min_judged: 10,
     keep_firing_for: 1m, false_pages_per_week: 2}
"""
)


def test_the_fast_path_gives_the_state_machines_transitions_every_second() -> None:
    """Real evaluate at every second of a stream with incidents vs the simulator's skipping."""
    every = 3600

    def schedule(s: Any) -> Any:
        return np.where((s % every) >= every - 1800, 0.25, 0.06)

    stream = Stream(rate=1, judge_rate=0.3, seconds=4 * every, schedule=schedule, seed=5)
    fast = simulate(stream, POOL, RULES)
    rng = np.random.default_rng(stream.seed)
    windows = Windows(stream)
    states = {r.name: AlertState() for r in RULES}
    slow: dict[str, list[tuple[str, float]]] = {r.name: [] for r in RULES}
    start, end = 0, stream.seconds
    drawn = draw_answers(stream, POOL, start, end, rng)
    w = windows.block(start, end, drawn)
    bounds = {r.name: rule_bound(r, w) for r in RULES}
    for i in range(end - start):
        counts = {k: int(v[i]) for k, v in w.items() if v[i]}
        figures = WindowFigures.from_counts("sim", float(i), **counts)
        for rule in RULES:
            value = decided(rule, figures)
            b = bounds[rule.name][i]
            assert (value is None) == bool(np.isnan(b))
            assert value is None or abs(value - b) <= MARGIN
            states[rule.name], change = evaluate(rule, states[rule.name], figures)
            if change is not None:
                slow[rule.name].append((change.kind, change.at))
    for run in fast.runs:
        got = sorted([("firing", t) for t in run.fired] + [("resolved", t) for t in run.resolved])
        assert got == sorted(slow[run.rule.name])
        assert len(run.fired) >= 2  # it fires and resolves: the lists compared are not empty
        assert run.real_evaluations < stream.seconds  # and the fast path skipped seconds


def test_garwood_interval_by_hand() -> None:
    # exact values: 0 events → [0, 3.689]; 10 events → [4.795, 18.390]
    lo, hi = poisson_interval(0)
    assert lo == 0 and math.isclose(hi, 3.6889, abs_tol=1e-3)
    lo, hi = poisson_interval(10)
    assert math.isclose(lo, 4.7954, abs_tol=1e-3) and math.isclose(hi, 18.390, abs_tol=1e-3)
    # past exp(-745)'s underflow: 1802 events → [1719.75, 1887.17] (Wilson-Hilferty, by hand)
    lo, hi = poisson_interval(1802)
    assert math.isclose(lo, 1719.75, abs_tol=0.1) and math.isclose(hi, 1887.17, abs_tol=0.1)


def test_incident_figures_count_pages_and_delays() -> None:
    # onsets at 1800 and 5400 (every 3600 over 9000 s): one incident paged twice, one missed
    per, delays, n = incident_figures([1900.0, 2500.0], 9000, 3600)
    assert n == 2 and per == 1.0 and delays == [100.0, math.inf]
    assert quantile(delays, 0.5) == 100.0 and quantile(delays, 0.9) is None
