from __future__ import annotations

import pytest

from agents.evidence.web import BadQuery, parse_query
from monitor.alerting.alerts import load_rules
from monitor.config.settings import load_settings

RULES = {r.name: r for r in load_rules()}
NOW = 1_800_000_000.0


def test_a_rules_link_looks_back_over_its_window_and_for() -> None:
    settings = load_settings()
    q = parse_query({"app": "shop", "rule": "hallucination_high"}, settings, RULES, NOW)
    rule = RULES["hallucination_high"]
    assert (q.app, q.rule, q.end) == ("shop", rule, NOW)
    assert q.start == NOW - rule.window_seconds - rule.for_seconds
    assert q.limit == settings.evidence_answers


def test_explicit_ranges_in_seconds_or_grafana_milliseconds() -> None:
    settings = load_settings()
    q = parse_query({"app": "a", "from": "1700000000000", "to": "1700000600"}, settings, RULES, NOW)
    assert (q.start, q.end, q.rule) == (1_700_000_000, 1_700_000_600, None)
    q = parse_query({"app": "a", "since": "10m", "verdict": "not_supported"}, settings, RULES, NOW)
    assert (q.start, q.verdicts) == (NOW - 600, ("not_supported",))


def test_the_range_is_clamped_to_the_longest_a_request_reads() -> None:
    settings = load_settings(evidence_max_hours=2)
    q = parse_query({"app": "a", "since": "3d"}, settings, RULES, NOW)
    assert q.start == NOW - 2 * 3600


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"app": "a", "rule": "nope"},
        {"app": "a", "since": "soon"},
        {"app": "a", "from": "20", "to": "10"},
        {"app": "a", "verdict": "maybe"},
        {"app": "a", "limit": "x"},
    ],
)
def test_bad_queries_are_refused_with_a_reason(params: dict[str, str]) -> None:
    with pytest.raises(BadQuery):
        parse_query(params, load_settings(), RULES, NOW)
