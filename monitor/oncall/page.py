"""The evidence page as HTML: server-side rendered, inline CSS, no script, no network.

Every string that comes from an answer, a document, a record or the query is escaped
(`html.escape`, quotes included) before it reaches the page, so an answer containing `<script>`
shows as text. Links are built from URL-quoted parts and escaped again as attributes.

Pure: standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote, urlencode

from monitor.oncall.html_bits import CSS as _CSS
from monitor.oncall.html_bits import esc, link, when
from monitor.oncall.links import API_PATH, EVIDENCE_PATH
from monitor.oncall.page_head import render_alerts, render_figures, render_not_found
from monitor.oncall.review import ReviewForms

__all__ = ["esc", "link", "render_index", "render_not_found", "render_page", "when"]


def record_href(base: str, kind: str, params: Mapping[str, object]) -> str:
    query = urlencode({k: str(v) for k, v in params.items()}, quote_via=quote)
    return f"{base}{API_PATH}/{kind}?{query}"


def marked_answer(text: str, claims: Sequence[Mapping[str, Any]]) -> str:
    """The answer with each claim marked where its offsets say it is; claims whose offsets do
    not match the text (another answer form, e.g. segments) are left unmarked."""
    spans = []
    for c in claims:
        start, end = c.get("start"), c.get("end")
        if (
            isinstance(start, int)
            and isinstance(end, int)
            and 0 <= start < end <= len(text)
            and (c.get("text") is None or text[start:end] == c.get("text"))
        ):
            spans.append((start, end, c))
    spans.sort(key=lambda s: s[0])
    out, pos = [], 0
    for start, end, c in spans:
        if start < pos:
            continue  # overlapping claims: the first one is marked
        bad = " bad" if c.get("verdict") in ("not_supported", "unverifiable") else ""
        out.append(esc(text[pos:start]))
        title = f"claim {c.get('index')}: {c.get('verdict')}"
        out.append(f'<mark class="claim{bad}" title="{esc(title)}">{esc(text[start:end])}</mark>')
        pos = end
    out.append(esc(text[pos:]))
    return "".join(out)


def passage(citation: Mapping[str, Any], text_level: object = None) -> str:
    cited = citation.get("cited_text")
    if cited is None:
        if citation.get("status") == "invalid":
            # nothing to quote: the citation points nowhere; the record says where it pointed
            why = citation.get("why") or "the record does not say more (written before `why`)"
            return f'<div class="why">{esc(why)}</div>'
        if citation.get("passage_missing"):  # referenced, and its answer is gone
            return f'<span class="meta">({esc(citation["passage_missing"])})</span>'
        if text_level in ("claims", "none"):
            return (
                f'<span class="meta">(no passage kept: RAGMON_AUDIT_TEXT={esc(text_level)})</span>'
            )
        return '<span class="meta">(no passage in this record: a lean record)</span>'
    if citation.get("why"):
        return f'<div class="why">{esc(citation["why"])}</div>' + passage(
            {**citation, "why": None}, text_level
        )
    before = esc(citation.get("context_before") or "")
    after = esc(citation.get("context_after") or "")
    return f'<div class="passage">{before}<mark class="span">{esc(cited)}</mark>{after}</div>'


def quoted(citation: Mapping[str, Any]) -> str:
    """The text the citation itself quotes (`excerpt:`, a vendor API's cited text), if kept."""
    quote = citation.get("excerpt")
    if not quote:
        return ""
    return f'<div class="meta">quoted: “{esc(quote)}”</div>'


def _claims_table(
    claims: Sequence[Mapping[str, Any]],
    entry: Mapping[str, Any] | None = None,
    review: ReviewForms | None = None,
) -> str:
    rows = []
    for c in claims:
        judge = c.get("judge") or {}
        reasons = "; ".join(str(r) for r in c.get("reasons") or [])
        judged = ""
        if judge:
            why = "; ".join(str(r) for r in judge.get("reasons") or [])
            judged = f"{esc(judge.get('verdict') or judge.get('outcome'))}<br>{esc(why)}"
        rows.append(
            f"<tr><td>{esc(c.get('index'))}</td><td>{esc(c.get('text', '(text not kept)'))}</td>"
            f"<td>{esc(c.get('citation_indexes'))}</td><td>{esc(c.get('verdict'))} "
            f"({esc(c.get('score'))}, {esc(c.get('tier'))})<br>{esc(reasons)}</td>"
            f"<td>{judged}</td>{review.cell(entry or {}, c) if review else ''}</tr>"
        )
    head = "<tr><th>#</th><th>claim</th><th>cites</th><th>cheap verdict, reasons</th><th>judge</th>"
    head += "<th>people</th></tr>" if review else "</tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def _citations(citations: Sequence[Mapping[str, Any]], text_level: object = None) -> str:
    parts = []
    for c in citations:
        status = str(c.get("status"))
        error = f" {esc(c.get('error'))}" if c.get("error") else ""
        parts.append(
            f"<li><code>{esc(c.get('raw', '(marker not kept)'))}</code> "
            f'<span class="{esc(status)}">{esc(status)}{error}</span> '
            f"doc {esc(c.get('doc_id'))}{passage(c, text_level)}{quoted(c)}</li>"
        )
    return f"<ul>{''.join(parts)}</ul>"


def _answer(entry: Mapping[str, Any], base: str, review: ReviewForms | None = None) -> str:
    move = entry.get("move")
    moved = (
        ""
        if move is None
        else f'<span class="move">moved the rate by {move * 100:+.2f} pp</span> '
        '<span class="meta">(the cheap checks\' rate over the audited answers: with this answer '
        "against without it)</span>"
    )
    links = []
    audit = entry.get("audit_record") or {}
    if audit.get("offset", -1) >= 0:
        links.append(link(record_href(base, "record", audit), "audit record"))
    source = entry.get("source") or {}
    if source.get("offset") is not None:
        links.append(link(record_href(base, "answer", source), "answer record"))
        links[-1] += esc(
            f" ({source.get('topic')} {source.get('partition')}:{source.get('offset')})"
        )
    judge = entry.get("judge") or {}
    jrec = judge.get("audit_record") or {}
    if jrec.get("offset", -1) >= 0:
        links.append(link(record_href(base, "record", jrec), "judge record"))
    facts = [f"event <code>{esc(entry.get('event_id'))}</code>", when(entry.get("at"))]
    for key in ("model", "tenant"):
        if entry.get(key):
            facts.append(f"{key} {esc(entry.get(key))}")
    facts.append(f"audited: {esc(entry.get('audit_reason'))}")
    status = entry.get("judge_status") or {}
    if status:
        facts.append(f"judge: {esc(status.get('state'))} ({esc(status.get('why'))})")
    body = [
        f'<div class="answer" id="answer-{esc(entry.get("rank"))}">',
        f"<h2>#{esc(entry.get('rank'))} {moved}</h2>",
        f'<p class="meta">{" · ".join(facts)}<br>{" · ".join(links)}</p>',
    ]
    if entry.get("question") is not None:
        body.append(f"<p><b>Question</b>: {esc(entry.get('question'))}</p>")
    claims = entry.get("claims") or []
    if isinstance(entry.get("answer"), str):
        body.append(f'<pre class="answer-text">{marked_answer(entry["answer"], claims)}</pre>')
    elif entry.get("answer_chars"):
        body.append(
            f'<p class="meta">answer of {esc(entry["answer_chars"])} characters: claims only</p>'
        )
    body.append(_claims_table(claims, entry, review))
    body.append(_citations(entry.get("citations") or [], entry.get("text_level")))
    if judge.get("answer"):
        body.append(f"<p><b>Judge on the answer</b>: {esc(judge['answer'].get('reasoning'))}</p>")
    body.append("</div>")
    return "\n".join(body)


def render_page(
    report: Mapping[str, Any], base: str = "", review: ReviewForms | None = None
) -> str:
    """`review`: the human-review forms (monitor/oncall/review.py), for a login that may."""
    rule = report.get("rule")
    title = f"ragmon evidence: {report.get('app')}" + (f" · {rule}" if rule else "")
    head = [f"<h1>{esc(title)}</h1>", render_alerts(report), render_figures(report)]
    if report.get("summary"):
        head.append(f"<p>{esc(report['summary'])}</p>")
    if report.get("truncated"):
        head.append(
            '<p class="move">The range held more audit records than one page reads '
            "(RAGMON_EVIDENCE_MAX_RECORDS): the ranking covers the newest ones; narrow the range.</p>"
        )
    json_href = (
        base
        + API_PATH
        + "?"
        + urlencode(
            {k: str(report[k]) for k in ("app", "rule", "from", "to") if report.get(k) is not None},
            quote_via=quote,
        )
    )
    head.append(f"<p>{link(json_href, 'this page as JSON')}</p>")
    answers = report.get("answers") or []
    if not answers and not report.get("answers_in_range"):
        head.append(f"<p>No audited answer of {esc(report.get('app'))} in this range.</p>")
    elif not answers:
        head.append(
            f"<p>None of the {esc(report.get('answers_in_range'))} audited answers in this range "
            "moved the rate towards the threshold (each is at or below the range's rate); add "
            "<code>&amp;verdict=not_supported</code> to list answers by verdict.</p>"
        )
    body = "\n".join(head + [_answer(a, base, review) for a in answers])
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>{body}</body></html>"
    )


def render_index(
    apps: Mapping[str, int], base: str, start: float, end: float, rule: str | None = None
) -> str:
    """The apps with audited answers in a range, each linking to its evidence page."""
    items = []
    for app, count in sorted(apps.items()):
        query = {"app": app, "from": f"{start:.0f}", "to": f"{end:.0f}"}
        if rule:
            query["rule"] = rule
        href = f"{base}{EVIDENCE_PATH}?{urlencode(query, quote_via=quote)}"
        items.append(f"<li>{link(href, app)} ({count} audited answers)</li>")
    listing = f"<ul>{''.join(items)}</ul>" if items else "<p>No audited answer in this range.</p>"
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>ragmon evidence</title>"
        f"<style>{_CSS}</style></head><body><h1>ragmon evidence</h1>"
        f'<p class="meta">{when(start)} to {when(end)}: pick an app</p>{listing}</body></html>'
    )
