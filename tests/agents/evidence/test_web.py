from __future__ import annotations

import pytest

from agents.evidence.params import BadQuery, NotFound, parse_query
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


def test_a_range_past_the_longest_a_request_reads_is_refused_not_cut() -> None:
    settings = load_settings(evidence_max_hours=2)
    with pytest.raises(BadQuery, match="since=3d is longer than RAGMON_EVIDENCE_MAX_HOURS"):
        parse_query({"app": "a", "since": "3d"}, settings, RULES, NOW)
    with pytest.raises(BadQuery, match="longer than RAGMON_EVIDENCE_MAX_HOURS"):
        parse_query({"app": "a", "from": str(NOW - 3 * 3600), "to": str(NOW)}, settings, RULES, NOW)
    q = parse_query({"app": "a", "since": "2h"}, settings, RULES, NOW)
    assert q.start == NOW - 2 * 3600


def test_times_in_the_future_or_before_2001_say_how_they_were_read() -> None:
    settings = load_settings()
    # 14 digits: milliseconds, year 5138
    with pytest.raises(BadQuery, match=r"to=99999999999999 read as epoch milliseconds is 5138-"):
        parse_query({"app": "a", "to": "99999999999999"}, settings, RULES, NOW)
    with pytest.raises(BadQuery, match=r"read as epoch seconds is 2031-.*in the future"):
        parse_query({"app": "a", "to": str(int(NOW) + 86400 * 1500)}, settings, RULES, NOW)
    with pytest.raises(BadQuery, match=r"give epoch seconds .10 digits. or milliseconds"):
        parse_query({"app": "a", "from": "1700000"}, settings, RULES, NOW)
    # a little ahead of this clock (another host's) is accepted
    q = parse_query({"app": "a", "to": str(NOW + 60), "since": "1m"}, settings, RULES, NOW)
    assert q.end == NOW + 60


@pytest.mark.parametrize("limit", ["0", "501", "-3"])
def test_a_limit_out_of_range_is_refused(limit: str) -> None:
    with pytest.raises(BadQuery, match=f"limit={int(limit)}: give 1 to 500"):
        parse_query({"app": "a", "limit": limit}, load_settings(), RULES, NOW)


def test_an_unknown_rule_is_not_found_with_the_known_names() -> None:
    with pytest.raises(NotFound) as caught:
        parse_query({"app": "a", "rule": "halucination_high"}, load_settings(), RULES, NOW)
    assert caught.value.what == "rule" and caught.value.known == sorted(RULES)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"app": "a", "since": "soon"},
        {"app": "a", "from": "20", "to": "10"},
        {"app": "a", "verdict": "maybe"},
        {"app": "a", "limit": "x"},
    ],
)
def test_bad_queries_are_refused_with_a_reason(params: dict[str, str]) -> None:
    with pytest.raises(BadQuery):
        parse_query(params, load_settings(), RULES, NOW)


def test_an_app_without_records_in_the_range_is_not_found_unless_allowed() -> None:
    from agents.evidence.params import unknown_app

    missing = unknown_app("shpo", {"shop", "search"}, (), NOW - 900, NOW)
    assert missing is not None and missing.what == "app"
    assert missing.known == ["search", "shop"]
    assert str(missing).startswith("no app 'shpo': no audit record of it from ")
    assert unknown_app("shop", {"shop"}, (), NOW - 900, NOW) is None
    # named in RAGMON_APPS: a quiet app, not a typo
    assert unknown_app("quiet", set(), ("quiet",), NOW - 900, NOW) is None
    allowed = unknown_app("shpo", set(), ("quiet", "shop"), NOW - 900, NOW)
    assert allowed is not None and allowed.known == ["quiet", "shop"]
    assert "not in RAGMON_APPS" in str(allowed)
