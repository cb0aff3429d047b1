"""Pages a rotation can trust: the rule's level (or false-page budget), the quiet period before a
firing alert resolves, and how long an alert fired."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.alerting.alert_rules import level_for
from monitor.alerting.alerts import AlertRule, AlertState, WindowFigures, evaluate, parse_rules
from monitor.config.errors import ConfigError
from monitor.estimation.window import answer_sums, label_sums, rate_figures

HALLU = AlertRule(
    name="hallucination_high",
    figure="hallucination",
    op="above",
    threshold=0.10,
    resolve_threshold=0.07,
    min_events=10,
    for_seconds=0,
    keep_firing_for=600,
)


def est(at: float, lo: float, hi: float = 0.5) -> WindowFigures:
    values = {"hallucination": (lo + hi) / 2, "hallucination_lower": lo}
    values.update(hallucination_upper=hi, hallucination_judged=99)
    return WindowFigures(app="a", at=at, events=500, values=values)


def run(rule: AlertRule, points: list[tuple[float, float]]) -> tuple[AlertState, list[str]]:
    state, kinds = AlertState(), []
    for at, lo in points:
        state, change = evaluate(rule, state, est(at, lo))
        if change is not None:
            kinds.append(f"{change.kind}@{at:g}")
    return state, kinds


def test_a_dip_shorter_than_keep_firing_for_does_not_resolve() -> None:
    # fires at 0; the bound dips to 0.05 from 100 to 400 (300 s < 600), comes back: one page
    points = [(0, 0.2), (100, 0.05), (400, 0.05), (401, 0.09), (500, 0.2)]
    state, kinds = run(HALLU, points)
    assert kinds == ["firing@0"] and state.status == "firing" and state.quiet_since is None


def test_resolves_once_quiet_for_keep_firing_for() -> None:
    # back at or below resolve_at 0.07 from 100: resolves at 700, not at 699
    points = [(0, 0.2), (100, 0.07), (699, 0.0)]
    state, kinds = run(HALLU, points)
    assert kinds == ["firing@0"] and state.quiet_since == 100
    state, change = evaluate(HALLU, state, est(700, 0.0))
    assert change is not None and change.kind == "resolved"
    assert change.firing_seconds == 700 and change.fired_at == 0


def test_between_the_thresholds_the_quiet_clock_does_not_run() -> None:
    # 0.08: not past resolve_at 0.07, so still evidence of the incident (hysteresis)
    state, kinds = run(HALLU, [(0, 0.2), (100, 0.08), (5000, 0.08)])
    assert kinds == ["firing@0"] and state.quiet_since is None


def test_zero_keep_firing_for_resolves_at_once_as_before() -> None:
    _, kinds = run(replace(HALLU, keep_firing_for=0), [(0, 0.2), (1, 0.07), (2, 0.2)])
    assert kinds == ["firing@0", "resolved@1", "firing@2"]


def test_quiet_since_round_trips_through_the_table() -> None:
    state, _ = run(HALLU, [(0, 0.2), (100, 0.05)])
    assert AlertState.from_dict(state.to_dict()) == state and state.quiet_since == 100


@given(
    st.lists(st.floats(0, 0.3, allow_nan=False), min_size=1, max_size=200),
    st.integers(0, 50),
)
def test_pages_are_at_least_keep_firing_for_apart(bounds: list[float], keep: int) -> None:
    """The flapping guard: after a page, the next comes no sooner than keep_firing_for (+for)."""
    rule = replace(HALLU, keep_firing_for=float(keep))
    state, fired, resolved = AlertState(), [], []
    for at, lo in enumerate(bounds):
        state, change = evaluate(rule, state, est(float(at), lo))
        if change is not None:
            (fired if change.kind == "firing" else resolved).append(at)
    for start, end in zip(fired, resolved, strict=False):
        assert end - start >= keep
    for end, again in zip(resolved, fired[1:], strict=False):
        assert again > end


def test_level_for_a_false_page_budget_by_hand() -> None:
    # 0.5 pages a week, 5-minute windows: 2016 windows a week, 4 looks each: one-sided
    # 0.5/8064 = 6.2e-5
    assert level_for(0.5, 300) == pytest.approx(1 - 2 * 0.5 / 8064, rel=1e-12)
    assert level_for(0.5, 300) == pytest.approx(0.999876, abs=1e-6)


def test_rules_file_level_and_budget() -> None:
    text = """
defaults: {false_pages_per_week: 0.5, keep_firing_for: 10m}
rules:
  - {name: a, figure: hallucination, above: 0.1}
  - {name: b, figure: hallucination, above: 0.1, level: 0.99}
  - {name: c, figure: hallucination, above: 0.1, window: 10m, false_pages_per_week: 1}
  - {name: d, figure: hallucination, above: 0.1, keep_firing_for: 0}
"""
    a, b, c, d = parse_rules(text)
    assert a.level == pytest.approx(level_for(0.5, 300)) and a.keep_firing_for == 600
    assert b.level == 0.99  # the rule's own level replaces the default budget
    assert c.level == pytest.approx(1 - 2 * 1 / (4 * 1008))
    assert d.keep_firing_for == 0
    assert parse_rules("rules:\n  - {name: e, figure: support, below: 0.8}\n")[0].level == 0.95


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("level: 0.99, false_pages_per_week: 1", "not both"),
        ("level: 1", "level must be"),
        ("level: 0.4", "level must be"),
        ("false_pages_per_week: 0", "positive"),
        ("false_pages_per_week: 8000", "too large"),
        ("keep_firing_for: -5", "keep_firing_for"),
    ],
)
def test_bad_levels_are_config_errors(extra: str, message: str) -> None:
    text = "rules:\n  - {name: a, figure: hallucination, above: 0.1, " + extra + "}\n"
    with pytest.raises(ConfigError, match=message):
        parse_rules(text)


def test_a_rule_at_another_level_compares_its_own_bound() -> None:
    sums: dict[str, int] = {}
    for i in range(400):
        scores = [0.2 + 0.6 * ((i * 7) % 10) / 10, 0.5]
        for k, v in answer_sums(scores, 0, 0).items():
            sums[k] = sums.get(k, 0) + v
        if i % 4 == 0:
            for k, v in label_sums(scores, 1, 1 if i % 8 == 0 else 0).items():
                sums[k] = sums.get(k, 0) + v
    figures = WindowFigures.from_counts("a", 0.0, events=400, claims=800, **sums)
    strict = replace(HALLU, level=0.999)
    want = rate_figures(sums, "hallucination", 0.999).estimate
    at95 = rate_figures(sums, "hallucination").estimate
    assert want is not None and at95 is not None
    assert strict.observed(figures) == want.lower < at95.lower == HALLU.observed(figures)
    support = AlertRule("s", "support", "below", 0.8, 0.85, level=0.999)
    got = rate_figures(sums, "support", 0.999).estimate
    assert got is not None and support.observed(figures) == got.upper
