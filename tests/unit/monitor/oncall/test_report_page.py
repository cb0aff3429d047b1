from __future__ import annotations

import random
import re
from html.parser import HTMLParser
from typing import Any

import pytest

from monitor.alerting.alerts import AlertRule
from monitor.checks.scoring import claim_tally
from monitor.oncall.links import dashboard_url, evidence_url, parse_time, template_url
from monitor.oncall.page import marked_answer, render_page
from monitor.oncall.query import AuditFilter, AuditItem, group, ranked_answers, record_counts
from monitor.oncall.report import EvidenceQuery, build_report
from tests.unit.monitor.conftest import audit_record, checked, event_dict

RULE = AlertRule("hallucination_high", "hallucination", "above", 0.1, 0.08, summary="too many")
CLEAN = "Revenue grew 12% in 2023 [r.pdf:1:12-40]."


def item(record: dict[str, Any], offset: int = 0) -> AuditItem:
    return AuditItem(record, partition=0, offset=offset, timestamp=record.get("audited_at"))


def test_record_counts_match_the_window_vector(record: dict[str, Any]) -> None:
    # Two claims, each citing one span: [0] valid (the claim says 2023's figure is 12%, the
    # passage too, but the claim's "2023" is cut off the span: not_supported) and [1] out of
    # bounds (no valid citation: hallucinated). The recount equals monitor.checks.scoring's tally.
    assert record_counts(record) == {
        "citations": 2, "valid_citations": 1, "claims": 2, "cited_claims": 2,
        "decided_claims": 2, "supported_claims": 0, "unsupported_claims": 2,
    }  # fmt: skip
    _, verdict = checked(event_dict())
    tally = claim_tally(verdict.claims, {c.citation.index for c in verdict.citations if c.valid})
    counts = record_counts(record)
    assert (counts["claims"], counts["cited_claims"], counts["decided_claims"]) == (
        tally.claims,
        tally.cited,
        tally.decided,
    )
    assert (counts["supported_claims"], counts["unsupported_claims"]) == (
        tally.supported,
        tally.hallucinated,
    )
    # a record carrying the worker's own counts is taken at its word
    assert record_counts({**record, "counts": {"claims": 7, "unsupported_claims": 3}}) == {
        "citations": 0, "valid_citations": 0, "claims": 7, "cited_claims": 0,
        "decided_claims": 0, "supported_claims": 0, "unsupported_claims": 3,
    }  # fmt: skip


def test_filter() -> None:
    rec = audit_record(event_dict(), audit_reason="failure", audited_at=100.0)
    it = item(rec)
    assert AuditFilter(app="search", start=50, end=150).matches(it)
    assert not AuditFilter(app="other").matches(it)
    assert not AuditFilter(start=101).matches(it)
    assert AuditFilter(verdicts=("not_supported",)).matches(it)
    assert not AuditFilter(verdicts=("supported",)).matches(it)
    assert AuditFilter(reasons=("span_out_of_bounds",)).matches(it)
    assert AuditFilter(reasons=("failure",)).matches(it)
    assert AuditFilter(reasons=("number_missing",)).matches(it)
    assert not AuditFilter(reasons=("sample",)).matches(it)
    assert AuditFilter(event_id="e1").matches(it) and not AuditFilter(event_id="e2").matches(it)
    # a rule: its own ratio on the breaching side (1 of 1 claims unsupported; 1 of 2 valid)
    assert AuditFilter(breaching=("hallucination", "above", 0.1)).matches(it)
    assert not AuditFilter(breaching=("hallucination", "above", 1.0)).matches(it)
    assert AuditFilter(breaching=("validity", "below", 0.95)).matches(it)
    assert not AuditFilter(breaching=("validity", "below", 0.5)).matches(it)
    assert AuditFilter(breaching=("dlq_rate", "above", 0.05)).matches(it)


def test_duplicates_keep_the_first_record_and_the_latest_judge() -> None:
    rec = audit_record(event_dict(), audit_reason="failure", audited_at=100.0)
    judge1 = {"reason": "judge", "event_id": "e1", "judged_at": 110.0, "claims": []}
    judge2 = {"reason": "judge", "event_id": "e1", "judged_at": 120.0, "claims": []}
    answers = group([item(rec, 1), item(rec, 2), item(judge2, 3), item(judge1, 4)])
    a = answers["e1"]
    assert (a.check.offset, a.duplicates, a.judge.offset) == (1, 1, 3)  # type: ignore[union-attr]


def test_report_ranks_by_move_and_escapes_everything() -> None:
    bad = audit_record(event_dict("bad"), audit_reason="failure", audited_at=100.0)
    good = audit_record(event_dict("good", CLEAN), audit_reason="sample", audited_at=101.0)
    outside = audit_record(event_dict("late"), audit_reason="failure", audited_at=500.0)
    judge = {
        "reason": "judge", "event_id": "bad", "app": "search", "judged_at": 105.0,
        "claims": [{"index": 0, "verdict": "not_supported", "reasons": ["<img src=x onerror=1>"]}],
    }  # fmt: skip
    items = [item(r, i) for i, r in enumerate([good, bad, outside, judge])]
    report = build_report(
        items,
        EvidenceQuery("search", 0.0, 200.0, RULE),
        sample_rate=0.5,
        records_read=4,
        truncated=False,
    )
    assert [a["event_id"] for a in report["answers"]] == ["bad"]
    assert report["answers_in_range"] == 2
    # totals: bad 2 of 2 claims, good 0 of 1 weighted 2 → 2/4; bad's move 2/4 − 0/2
    assert report["estimate"]["rate"] == pytest.approx(2 / 4)
    assert report["answers"][0]["move"] == pytest.approx(2 / 4, abs=1e-6)
    assert report["answers"][0]["claims"][0]["judge"]["reasons"] == ["<img src=x onerror=1>"]
    page = render_page(report, "http://h:1")
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "<img" not in page and "&lt;img src=x onerror=1&gt;" in page
    assert "What &lt;b&gt;grew&lt;/b&gt;?" in page
    # the cited passage is highlighted in its context
    assert '<mark class="span">revenue grew 12% in 202</mark>' in page
    # the only tags are the page's own
    tags = set(re.findall(r"<([a-zA-Z0-9]+)", page))
    assert tags <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "div",
                    "span", "a", "b", "br", "pre", "mark", "table", "tr", "th", "td", "ul",
                    "li", "code"}  # fmt: skip
    assert "http://h:1/evidence/api/record?partition=0&amp;offset=1" in page


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@pytest.mark.parametrize("seed", range(30))
def test_marked_answer_shows_exactly_the_text(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "ab <>&\"'/script=x\n"
    text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
    claims = []
    for i in range(rng.randint(0, 4)):
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        claims.append({"index": i, "start": start, "end": end, "text": text[start:end],
                       "verdict": rng.choice(["supported", "not_supported"])})  # fmt: skip
    out = marked_answer(text, claims)
    parser = _Text()
    parser.feed(out)
    parser.close()
    assert "".join(parser.text) == text
    assert "<" not in re.sub(r"</?mark[^>]*>", "", out)


def test_links() -> None:
    assert (
        evidence_url("http://h:6066", "a b&c", "hallucination_high", 100, 200.5)
        == "http://h:6066/evidence?app=a%20b%26c&rule=hallucination_high&from=100&to=200.500"
    )
    assert (
        evidence_url("http://h", "x", since="15m", api=True)
        == "http://h/evidence/api?app=x&since=15m"
    )
    assert template_url("http://h", "r", "15m") == (
        "http://h/evidence?app={{ $labels.app | urlquery }}&rule=r&since=15m"
    )
    assert (
        dashboard_url("http://h")
        == "http://h/evidence?app=${__field.labels.app}&from=${__from}&to=${__to}"
    )
    assert parse_time("1700000000") == 1_700_000_000
    assert parse_time("1700000000000") == 1_700_000_000
    with pytest.raises(ValueError):
        parse_time("nan")


def test_horvitz_thompson_totals_recover_the_window_rate() -> None:
    # 1,000 answers, 100 failing (3 of 4 claims unsupported), 900 healthy (0 of 4); healthy
    # ones audited at 10%. Over 300 seeded audits the estimated rate's mean is the truth
    # within 3 standard errors (a ratio estimator's O(1/n) bias is far below that here).
    truth = 300 / 4000
    rates = []
    for seed in range(300):
        rng = random.Random(seed)
        counts: list[AuditItem] = []
        for i in range(1000):
            failing = i < 100
            if not failing and rng.random() >= 0.1:
                continue
            claims = [
                {
                    "index": k,
                    "citation_indexes": [0],
                    "verdict": "not_supported" if failing and k < 3 else "supported",
                }
                for k in range(4)
            ]
            rec = {"event_id": f"e{i}", "app": "a", "audit_reason": "failure" if failing else "sample",
                   "citations": [{"index": 0, "status": "valid"}], "claims": claims}  # fmt: skip
            counts.append(AuditItem(rec))
        _, totals = ranked_answers(group(counts), "hallucination", "above", 0.1)
        assert totals is not None
        rates.append(totals["unsupported_claims"] / totals["claims"])
    mean = sum(rates) / len(rates)
    se = (sum((r - mean) ** 2 for r in rates) / (len(rates) - 1)) ** 0.5 / len(rates) ** 0.5
    assert abs(mean - truth) < 3 * se + 1e-3


def test_index_links_each_app_escaped() -> None:
    from monitor.oncall.page import render_index

    page = render_index({"<b>x</b>": 2, "shop": 5}, "http://h", 100, 200, "hallucination_high")
    assert "&lt;b&gt;x&lt;/b&gt;</a> (2 audited answers)" in page and "<b>x" not in page
    assert (
        'href="http://h/evidence?app=shop&amp;from=100&amp;to=200&amp;rule=hallucination_high"'
        in page
    )


def test_slim_items_rank_alike_and_show_the_whole_record() -> None:
    """The page keeps records as bytes plus the fields ranking reads; the report is the same."""
    import json as _json

    from monitor.oncall.query import slimmed

    bad = audit_record(event_dict("bad"), audit_reason="failure", audited_at=100.0)
    good = audit_record(event_dict("good", CLEAN), audit_reason="sample", audited_at=101.0)
    items = [item(r, i) for i, r in enumerate([good, bad])]
    slim = [
        slimmed(i.record, _json.dumps(i.record).encode(), i.partition, i.offset, i.timestamp)
        for i in items
    ]
    assert "question" not in slim[1].record and "citations" not in slim[1].record
    query = EvidenceQuery("search", 0.0, 200.0, RULE)
    whole = build_report(items, query, 0.5, records_read=2, truncated=False)
    lean = build_report(slim, query, 0.5, records_read=2, truncated=False)
    assert lean == whole and lean["answers"][0]["question"] == "What <b>grew</b>?"
