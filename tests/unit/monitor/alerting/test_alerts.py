"""Alert rules: YAML loading, the pending → firing → resolved state machine, idempotence."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.alerting.alerts import (
    AlertRule,
    AlertState,
    WindowFigures,
    evaluate,
    evaluate_rules,
    format_duration,
    load_rules,
    notification_id,
    parse_duration,
    parse_rules,
)
from monitor.config.errors import ConfigError
from monitor.estimation.window import answer_sums, label_sums

VALIDITY = AlertRule(
    name="validity_low",
    figure="validity",
    op="below",
    threshold=0.95,
    resolve_threshold=0.97,
    min_events=10,
    for_seconds=60,
    severity="critical",
)
HALLU = AlertRule(
    name="hallucination_high",
    figure="hallucination",
    op="above",
    threshold=0.10,
    resolve_threshold=0.07,
    min_events=10,
    for_seconds=0,
)


def fig(
    at: float, value: float | None, *, figure: str = "validity", events: int = 50, app: str = "a"
) -> WindowFigures:
    values: dict[str, float | None] = {figure: value}
    if figure in ("support", "hallucination"):  # an estimate: a point interval, enough judged
        values.update({f"{figure}_lower": value, f"{figure}_upper": value, f"{figure}_judged": 99})
    return WindowFigures(app=app, at=at, events=events, values=values)


def run(rule: AlertRule, points: list[tuple[float, float | None]], state: AlertState | None = None):
    state = state or AlertState()
    changes = []
    for at, value in points:
        state, change = evaluate(rule, state, fig(at, value, figure=rule.figure))
        if change:
            changes.append(change)
    return state, changes


def test_defaults_match_the_seed_thresholds() -> None:
    rules = {r.name: r for r in load_rules()}
    assert (rules["validity_low"].op, rules["validity_low"].threshold) == ("below", 0.95)
    assert (rules["support_low"].op, rules["support_low"].threshold) == ("below", 0.80)
    assert (rules["hallucination_high"].op, rules["hallucination_high"].threshold) == (
        "above",
        0.10,
    )
    assert (rules["coverage_low"].op, rules["coverage_low"].threshold) == ("below", 0.50)
    assert {r.figure for r in rules.values()} >= {"judge_error_rate", "dlq_rate"}
    # judge_drift counts human labels of the smaller class, not events
    assert (rules["judge_drift"].figure, rules["judge_drift"].min_events) == ("judge_agreement", 30)
    for rule in rules.values():
        # the estimated rules: a stated false-page budget, no `for`, a 30-minute quiet period
        # (chosen with `ragmon eval --alerts`, docs/alerting.md); the exact ratios: `for: 2m`
        estimated = rule.figure in ("support", "hallucination")
        events = 30 if rule.name == "judge_drift" else 20
        assert rule.window_seconds == 300 and rule.min_events == events
        assert rule.for_seconds == (0 if estimated else 120)
        assert rule.keep_firing_for == (1800 if estimated else 0)
        # hysteresis on the healthy side of every threshold
        assert rule.clears(rule.resolve_threshold) and not rule.breaches(rule.resolve_threshold)


def test_pending_then_firing_after_for_duration() -> None:
    state, changes = run(VALIDITY, [(1000, 0.90), (1030, 0.91)])
    assert state.status == "pending" and state.since == 1000 and changes == []
    state, changes = run(VALIDITY, [(1060, 0.93)], state)
    assert state.status == "firing" and state.fired_at == 1060
    [fired] = changes
    assert (fired.kind, fired.at, fired.started_at, fired.value) == ("firing", 1060, 1000, 0.93)
    assert fired.notification_id == notification_id("validity_low", "a", 1000)


def test_pending_resets_when_breach_stops_before_for() -> None:
    state, changes = run(VALIDITY, [(1000, 0.90), (1030, 0.96), (1060, 0.90), (1100, 0.90)])
    # the breach restarted at 1060, so 40 s < 60 s: still pending, not firing
    assert (state.status, state.since, changes) == ("pending", 1060, [])


def test_hysteresis_keeps_firing_between_thresholds() -> None:
    state, changes = run(VALIDITY, [(0, 0.5), (60, 0.5), (120, 0.96), (180, 0.969)])
    assert state.status == "firing" and [c.kind for c in changes] == ["firing"]
    state, changes = run(VALIDITY, [(240, 0.97)], state)
    assert state == AlertState(updated=240, value=0.97)
    [resolved] = changes
    assert (resolved.kind, resolved.at, resolved.started_at) == ("resolved", 240, 0)
    assert resolved.notification_id == notification_id("validity_low", "a", 0)


def test_above_rule_with_zero_for_fires_at_once() -> None:
    state, changes = run(HALLU, [(10, 0.10), (20, 0.11)])
    assert [c.kind for c in changes] == ["firing"] and changes[0].started_at == 20
    state, changes = run(HALLU, [(30, 0.08), (40, 0.07)], state)
    assert [c.kind for c in changes] == ["resolved"] and changes[0].at == 40


def test_too_few_events_or_no_data_holds_the_state() -> None:
    state, _ = run(HALLU, [(0, 0.5)])
    assert state.status == "firing"
    state, change = evaluate(HALLU, state, fig(10, 0.0, figure="hallucination", events=9))
    assert (state.status, change) == ("firing", None)
    state, change = evaluate(HALLU, state, fig(20, None, figure="hallucination"))
    assert (state.status, change, state.updated) == ("firing", None, 20)


def test_replayed_windows_give_no_duplicate_notifications() -> None:
    points = [(0.0, 0.5), (60.0, 0.5), (120.0, 0.99)]
    state, changes = run(VALIDITY, points)
    assert [c.kind for c in changes] == ["firing", "resolved"]
    # a restarted worker re-reading the same windows from its restored state: nothing new
    again, replayed = run(VALIDITY, points, state)
    assert replayed == [] and again == state
    # a worker without the state replaying the windows derives the very same ids
    _, fresh = run(VALIDITY, points)
    assert [c.notification_id for c in fresh] == [c.notification_id for c in changes]


def test_same_window_evaluated_twice_is_idempotent() -> None:
    state, _ = run(HALLU, [(5, 0.2)])
    state2, change = evaluate(HALLU, state, fig(5, 0.3, figure="hallucination"))
    assert change is None and state2.status == "firing"


def test_rule_limited_to_apps() -> None:
    rule = AlertRule("v", "validity", "below", 0.9, 0.9, min_events=1, for_seconds=0, apps=("b",))
    state, change = evaluate(rule, AlertState(), fig(0, 0.1, app="a"))
    assert (state, change) == (AlertState(), None)
    _, change = evaluate(rule, AlertState(), fig(0, 0.1, app="b"))
    assert change is not None and change.app == "b"


def window_counts() -> dict[str, int]:
    """50 claims: 40 answers of one judgeable claim (cheap score 0.2 or 0.8), all judged: 36
    supported, 4 not; 10 uncited claims (not supported by rule)."""
    counts = dict(
        citations=20, valid_citations=17, claims=50, cited_claims=30, decided_claims=25,
        supported_claims=20, unsupported_claims=10,
    )  # fmt: skip
    for i in range(40):
        score = 0.8 if i % 2 else 0.2
        for sums in (answer_sums([score], 0, 0), label_sums([score], int(i >= 4), int(i < 4))):
            for k, v in sums.items():
                counts[k] = counts.get(k, 0) + v
    counts["ruled_unsupported"] = 10
    return counts


def test_evaluate_rules_round_trips_through_table_dicts() -> None:
    counts = WindowFigures.from_counts("a", 100.0, events=40, **window_counts())
    values = dict(counts.values)
    assert {k: values.pop(k) for k in ("validity", "coverage", "judge_error_rate", "dlq_rate")} == {
        "validity": 0.85,
        "coverage": 0.6,
        "judge_error_rate": None,
        "dlq_rate": 0.0,
    }
    # the cheap tier's own shares, and the estimates: every answer judged, so the point is
    # exact: support 36/50, hallucination (10 + 4)/50
    assert (values["cheap_support"], values["cheap_hallucination"]) == (0.4, 0.2)
    assert values["support"] == pytest.approx(0.72)
    assert values["hallucination"] == pytest.approx(0.28)
    assert values["hallucination_judged"] == 40.0
    # ... and nothing is left to sample: the interval is the point (finite-population correction)
    assert values["hallucination_lower"] == pytest.approx(0.28)
    assert values["hallucination_upper"] == pytest.approx(0.28)
    text = counts.describe("hallucination")
    assert text == "hallucination 0.280 (95% interval 0.280-0.280, 40 judged claims)"
    states, changes = evaluate_rules((VALIDITY, HALLU), {}, counts)
    assert [c.rule.name for c in changes] == ["hallucination_high"]
    assert states["validity_low"]["status"] == "pending"
    assert AlertState.from_dict(states["hallucination_high"]).status == "firing"
    states2, changes2 = evaluate_rules((VALIDITY, HALLU), states, counts)
    assert changes2 == [] and states2 == states


def test_parse_rules_defaults_and_overrides() -> None:
    rules = parse_rules(
        """
defaults: {window: 10m, min_events: 5, for: 30s}
rules:
  - {name: v, figure: validity, below: 0.9}
  - {name: d, figure: dlq_rate, above: 0.2, resolve_at: 0.1, for: 0, severity: info, apps: [x]}
"""
    )
    assert rules[0] == AlertRule("v", "validity", "below", 0.9, 0.9, 600.0, 5, 30.0)
    assert rules[1] == AlertRule("d", "dlq_rate", "above", 0.2, 0.1, 600.0, 5, 0.0, "info", ("x",))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rules: [{name: v, figure: nope, below: 0.9}]", "figure must be one of"),
        ("rules: [{name: v, figure: validity}]", "exactly one of"),
        ("rules: [{name: v, figure: validity, below: 0.9, above: 0.1}]", "exactly one of"),
        ("rules: [{name: v, figure: validity, below: 0.9, resolve_at: 0.8}]", "at or above"),
        ("rules: [{name: v, figure: dlq_rate, above: 0.1, resolve_at: 0.2}]", "at or below"),
        ("rules: [{name: v, figure: validity, below: 1.5}]", "between 0 and 1"),
        ("rules: [{name: v, figure: validity, below: 0.9, for: 5 min}]", "duration"),
        ("rules: [{name: v, figure: validity, below: 0.9, min_events: 0}]", "min_events"),
        ("rules: [{name: v, figure: validity, below: 0.9, severity: page}]", "severity"),
        ("rules: [{name: v, figure: validity, below: 0.9, color: red}]", "unknown keys"),
        ("rules: [{name: V-1, figure: validity, below: 0.9}]", "name must match"),
        (
            "rules: [{name: v, figure: validity, below: 0.9}, {name: v, figure: support, below: 0.5}]",
            "duplicate",
        ),
        ("rules: {}", "rules` list"),
        ("rules: [", "not valid YAML"),
    ],
)
def test_bad_rules_are_config_errors(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_rules(text)


def test_missing_rules_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read rules file"):
        load_rules(tmp_path / "absent.yaml")


def test_durations() -> None:
    assert parse_duration("250ms", "x") == 0.25
    assert [parse_duration(v, "x") for v in ("90", "90s", "5m", "1h", 7)] == [90, 90, 300, 3600, 7]
    assert [format_duration(s) for s in (0, 90, 300, 3600, 86400, 5400)] == [
        "0s",
        "90s",
        "5m",
        "1h",
        "1d",
        "90m",
    ]


@given(st.integers(min_value=0, max_value=10**7))
def test_duration_format_round_trips(seconds: int) -> None:
    assert parse_duration(format_duration(seconds), "x") == seconds


@given(
    st.lists(st.tuples(st.integers(0, 10), st.one_of(st.none(), st.floats(0, 1))), max_size=40),
    st.integers(0, 40),
)
def test_transitions_alternate_and_replay_is_silent(
    steps: list[tuple[int, float | None]], cut: int
) -> None:
    points, at = [], 0.0
    for gap, value in steps:
        at += gap
        points.append((at, value))
    state, changes = run(VALIDITY, points)
    kinds = [c.kind for c in changes]
    assert all(k == ("firing" if i % 2 == 0 else "resolved") for i, k in enumerate(kinds))
    assert (state.status == "firing") == (len(kinds) % 2 == 1)
    # the new owner after a rebalance replays a suffix of windows from the stored state
    _, replayed = run(VALIDITY, points[cut:], state)
    assert replayed == []


JUDGE = AlertRule(
    name="judge_errors_high",
    figure="judge_error_rate",
    op="above",
    threshold=0.20,
    resolve_threshold=0.10,
    min_events=20,
    for_seconds=0,
)


def test_judge_errors_need_enough_judge_calls_not_enough_events() -> None:
    """One failed call among 500 events is 1 of 1 calls: a rate of 1.0 on one call, no alert."""
    one_call = WindowFigures.from_counts("a", 0.0, events=500, judge_calls=1, judge_errors=1)
    assert (
        one_call.values["judge_error_rate"] == 1.0 and one_call.sample_size("judge_error_rate") == 1
    )
    assert one_call.sample_size("validity") == 500
    assert evaluate(JUDGE, AlertState(), one_call) == (AlertState(updated=0.0), None)
    many = WindowFigures.from_counts("a", 1.0, events=5, judge_calls=20, judge_errors=5)
    state, change = evaluate(JUDGE, AlertState(), many)  # 5 / 20 = 0.25 > 0.20 on 20 calls
    assert change is not None and change.kind == "firing" and state.value == 0.25


def test_estimated_rules_fire_on_the_far_bound_once_enough_claims_are_judged() -> None:
    def est(at: float, lo: float, hi: float, judged: int) -> WindowFigures:
        values = {"hallucination": (lo + hi) / 2, "hallucination_lower": lo}
        values.update(hallucination_upper=hi, hallucination_judged=judged)
        return WindowFigures(app="a", at=at, events=500, values=values)

    # point 0.15 above 0.10, but the interval reaches down to 0.05: no evidence, no alert
    state, change = evaluate(HALLU, AlertState(), est(0, 0.05, 0.25, 80))
    assert change is None and state.status == "inactive"
    # the lower bound above the threshold, but 20 judged claims < min_judged 30: held
    state, change = evaluate(HALLU, AlertState(), est(1, 0.12, 0.30, 20))
    assert change is None and state.status == "inactive"
    state, change = evaluate(HALLU, AlertState(), est(2, 0.12, 0.30, 30))
    assert change is not None and change.value == 0.12
    # resolves once the lower bound is back at 0.07 or below
    state, change = evaluate(HALLU, state, est(3, 0.08, 0.2, 40))
    assert change is None and state.status == "firing"
    state, change = evaluate(HALLU, state, est(4, 0.07, 0.2, 40))
    assert change is not None and change.kind == "resolved"


def test_min_judged_is_checked() -> None:
    from monitor.alerting.alerts import parse_rules
    from monitor.config.errors import ConfigError

    text = "rules:\n  - {name: h, figure: hallucination, above: 0.1, min_judged: %s}\n"
    assert parse_rules(text % 50)[0].min_judged == 50
    with pytest.raises(ConfigError, match="min_judged"):
        parse_rules(text % 1)


def test_an_app_whose_traffic_stops_resolves_as_the_rule_says() -> None:
    rule = replace(VALIDITY, for_seconds=0)
    state, _ = run(rule, [(0, 0.5)])
    assert state.status == "firing"
    # fewer events than the minimum: too little to decide, the state holds
    held, change = evaluate(rule, state, fig(10, 0.99, events=3))
    assert (held.status, change) == ("firing", None)
    # an empty window: no data resolves by default, like Prometheus and the Grafana rules
    quiet, change = evaluate(rule, held, fig(20, None, events=0))
    assert quiet.status == "inactive" and change is not None
    assert (change.kind, change.no_data, change.at, change.started_at) == ("resolved", True, 20, 0)
    assert change.notification_id == state.notification_id
    # a rule that says hold keeps firing until answers come back
    kept, change = evaluate(replace(rule, no_data="hold"), held, fig(20, None, events=0))
    assert (kept.status, change) == ("firing", None)
    # a pending breach is dropped without a notification
    pending, _ = evaluate(replace(rule, for_seconds=60), AlertState(), fig(0, 0.5))
    assert pending.status == "pending"
    gone, change = evaluate(rule, pending, fig(5, None, events=0))
    assert (gone.status, change) == ("inactive", None)


def test_no_data_is_parsed_and_checked() -> None:
    [rule] = parse_rules("rules: [{name: r, figure: validity, below: 0.9, no_data: hold}]")
    assert rule.no_data == "hold"
    with pytest.raises(ConfigError, match="no_data"):
        parse_rules("rules: [{name: r, figure: validity, below: 0.9, no_data: alert}]")


def test_abstention_is_refusing_answers_over_checked_answers() -> None:
    # 50 events, 10 of them rejected (no answer to refuse), 12 of the 40 checked refuse
    f = WindowFigures.from_counts("a", 0.0, events=50, rejected=10, abstained_answers=12)
    assert f.values["abstention"] == 12 / 40
    assert WindowFigures.from_counts("a", 0.0, events=3, rejected=3).values["abstention"] is None
    [rule] = [r for r in load_rules() if r.figure == "abstention"]
    assert rule.op == "above" and rule.breaches(0.3) and not rule.breaches(0.05)
