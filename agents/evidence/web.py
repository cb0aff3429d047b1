"""The evidence page on the worker's web server: `/evidence` (HTML), `/evidence/api` (the same
report as JSON), `/evidence/api/record` and `/evidence/api/answer` (one raw audit or answer
record), `/evidence/runbook`.

Why on the worker and not a separate `ragmon ui`: the alert's link must work wherever ragmon
runs, with nothing else to deploy; the worker already serves /metrics on a known address
(RAGMON_METRICS_HOST, loopback by default). Every worker can answer for every app, since a
request reads the audit topic by timestamp (agents.evidence.source) rather than the worker's
own state: memory is bounded by RAGMON_EVIDENCE_MAX_RECORDS per request and
RAGMON_EVIDENCE_MAX_HOURS of range, and nothing is kept between requests.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import structlog
from faust.web import View

from agents.evidence.auth import (
    COOKIE,
    LOGIN_PATH,
    REALM,
    Access,
    login_page,
    safe_next,
    same_origin,
    startup_problem,
)
from agents.evidence.params import (
    DEFAULT_SINCE,
    BadQuery,
    NotFound,
    parse_query,
    unknown_app,
)
from agents.evidence.passages import fill_passages
from agents.evidence.review import REVIEW_PATH, review_enabled, review_forms, review_handler
from agents.evidence.source import audit_topic, decoded, read_one, read_window
from agents.kafka.topics import topic_specs
from monitor.alerting.alerts import load_rules, parse_duration
from monitor.config.errors import ConfigError, RagmonError
from monitor.config.settings import Settings
from monitor.oncall.links import (
    API_PATH,
    EVIDENCE_PATH,
    RUNBOOK_PATH,
    base_url,
)
from monitor.oncall.page import esc, render_index, render_not_found, render_page
from monitor.oncall.report import EvidenceQuery, build_report
from monitor.oncall.runbook import render_runbook
from monitor.output.audit import Redactor
from monitor.records.labels import HumanLabel

log = structlog.get_logger("ragmon.evidence")

#: how long past a range the page looks for the judge's records of its answers
JUDGE_GRACE_SECONDS = 600.0
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; "
    "form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the
    # page's own form POSTs (login, review), which same_origin() must refuse; other sites still
    # get no referrer (a real-browser test: tests/integration/test_review_browser.py)
    "Referrer-Policy": "same-origin",
}
#: one request at a time reads the topic: the page must never compete with the check path
_READS = asyncio.Semaphore(1)


async def evidence_report(
    settings: Settings, query: EvidenceQuery, now: float | None = None
) -> dict[str, Any]:
    """The report; NotFound when the app has no record in the range and is not allowed."""
    now = time.time() if now is None else now
    # the judge's records (and drops, and the alert's own record) come after what they are
    # about: read on past the range for them, up to now
    after = min(now, query.end + JUDGE_GRACE_SECONDS)
    async with _READS:
        window = await read_window(
            settings, query.start, query.end, settings.evidence_max_records, query.app, after
        )
    missing = unknown_app(query.app, window.apps, settings.app_allowlist, query.start, query.end)
    if missing is not None:
        raise missing
    report = build_report(
        window.items,
        query,
        settings.audit_sample_rate,
        records_read=window.read,
        truncated=window.truncated,
        looked_until=after,
    )
    # lean records' passages, cut from their answers (before the caller's redaction pass)
    async with _READS:
        await fill_passages(settings, report["answers"], topic_specs(settings)["answers"].name)
    return report


def install(
    app: Any,
    settings: Settings,
    port: int,
    labels: Callable[[], Mapping[str, HumanLabel]] | None = None,
) -> None:
    """Add the evidence routes to a Faust app's web server (none with RAGMON_EVIDENCE=off).
    Raises ConfigError when they would be open on a non-loopback address. `labels`: the
    worker's human labels by key (agents/labelling), shown beside the review forms."""
    problem = startup_problem(settings)
    if problem:
        raise ConfigError(problem)
    base = base_url(settings.public_url, settings.metrics_host, port)

    async def runbook_view(view: Any, request: Any) -> Any:
        return view.html(render_runbook(base) or "", headers=dict(PAGE_HEADERS))

    async def rule_runbook_view(view: Any, request: Any, rule: str) -> Any:
        """One rule's section: what the alert's runbook_url points at."""
        page = render_runbook(base, rule)
        if page is None:
            return view.html(f"<p>no runbook section for {esc(rule)}</p>", status=404,
                             headers=dict(PAGE_HEADERS))  # fmt: skip
        return view.html(page, headers=dict(PAGE_HEADERS))

    # docs, no answer text: open, also with the page off
    app.page(RUNBOOK_PATH, name="ragmon_runbook")(runbook_view)
    app.page(RUNBOOK_PATH + "/{rule}", name="ragmon_runbook_rule")(rule_runbook_view)
    if not settings.evidence:
        return
    access = Access.from_settings(settings)
    # Records written before RAGMON_REDACT was set, and raw answer records, carry the texts
    # unredacted: the page and its JSON redact again on the way out.
    redactor = Redactor.from_setting(settings.redact)
    rules = {r.name: r for r in load_rules(settings.rules_file)}
    topics = {role: spec.name for role, spec in topic_specs(settings).items()}

    async def report_for(request: Any) -> tuple[dict[str, Any] | None, str | NotFound, int]:
        """The report, or why not and the HTTP status."""
        try:
            query = parse_query(request.query, settings, rules, time.time())
            return redactor.record(await evidence_report(settings, query)), "", 200
        except BadQuery as exc:
            return None, str(exc), 400
        except NotFound as exc:
            return None, exc, 404
        except RagmonError as exc:  # the broker is unreachable
            log.warning("evidence page could not read the audit topic", error=str(exc))
            return None, f"cannot read the audit trail: {exc}", 503

    def html(view: Any, body: str, status: int = 200) -> Any:
        # Defence in depth behind the escaping: the page runs no script and loads nothing.
        return view.html(body, status=status, headers=dict(PAGE_HEADERS))

    async def index(view: Any, request: Any) -> Any:
        """Without an app: the apps with audited answers in the range, to pick from."""
        now = time.time()
        try:
            since = parse_duration(request.query.get("since") or DEFAULT_SINCE, "since")
        except ConfigError as exc:
            return html(view, f"<p>{esc(exc)}</p>", 400)
        if since > settings.evidence_max_hours * 3600:
            problem = f"since is longer than RAGMON_EVIDENCE_MAX_HOURS ({settings.evidence_max_hours:g} h)"
            return html(view, f"<p>{esc(problem)}</p>", 400)
        start = now - since
        try:
            async with _READS:
                window = await read_window(settings, start, now, settings.evidence_max_records)
        except RagmonError as exc:
            return html(view, f"<p>cannot read the audit trail: {esc(exc)}</p>", 503)
        apps = Counter(
            str(i.record.get("app"))
            for i in window.items
            if i.record.get("event_id") and not i.is_judge and i.record.get("app")
        )
        return html(view, render_index(apps, base, start, now, request.query.get("rule")))

    async def page_view(view: Any, request: Any) -> Any:
        if not request.query.get("app"):
            return await index(view, request)
        report, problem, status = await report_for(request)
        if isinstance(problem, NotFound):
            return html(view, render_not_found(problem, dict(request.query), base), 404)
        if report is None:
            body = f"<!doctype html><title>ragmon evidence</title><p>{esc(problem)}</p>"
            return html(view, body, status)
        review = None
        if review_enabled(settings):
            login = access.authenticate(request.headers, request.cookies)
            ids = (str(a.get("event_id")) for a in report.get("answers") or ())
            review = review_forms(
                access, login, str(request.rel_url), ids, labels() if labels else None
            )
        return html(view, render_page(report, base, review))

    async def api_view(view: Any, request: Any) -> Any:
        report, problem, status = await report_for(request)
        if isinstance(problem, NotFound):
            body = {"error": str(problem), "unknown": problem.what, "known": problem.known}
            return view.json(body, status=404)
        if report is None:
            return view.json({"error": problem}, status=status)
        return view.json(report)

    async def record_view(view: Any, request: Any, role: str) -> Any:
        q = request.query
        topic = topics.get(role) if role == "audit" else (q.get("topic") or topics["answers"])
        if topic not in (topics["answers"], topics["audit"], topics["dlq"]):
            return view.json({"error": "only the answers, audit and dlq topics"}, status=400)
        try:
            partition, offset = int(q.get("partition", "")), int(q.get("offset", ""))
        except ValueError:
            return view.json({"error": "give partition and offset"}, status=400)
        try:
            async with _READS:
                message = await read_one(settings, topic, partition, offset)
        except RagmonError as exc:
            return view.json({"error": f"cannot read {topic}: {exc}"}, status=503)
        if message is None:
            return view.json({"error": "no such record (past retention?)"}, status=404)
        return view.json(redactor.record({"topic": topic, **decoded(message)}))

    async def audit_record_view(view: Any, request: Any) -> Any:
        return await record_view(view, request, "audit")

    async def answer_record_view(view: Any, request: Any) -> Any:
        return await record_view(view, request, "answers")

    def guarded(handler: Any, kind: str) -> Any:
        """The handler behind a login: 401 without one (a login form for a browser, JSON for
        the API), with the bearer challenge."""

        async def view_fn(view: Any, request: Any) -> Any:
            if access.authenticate(request.headers, request.cookies) is None:
                headers = {"WWW-Authenticate": REALM, "Cache-Control": "no-store"}
                if kind == "json":
                    message = "give the evidence token: Authorization: Bearer <token>"
                    return view.json({"error": message}, status=401, headers=headers)
                target = str(request.rel_url)
                return view.html(
                    login_page(target), status=401, headers={**PAGE_HEADERS, **headers}
                )
            response = await handler(view, request)
            # answers and sources: no shared cache (a proxy, the browser's disk) keeps them
            response.headers["Cache-Control"] = "no-store"
            return response

        view_fn.__name__ = handler.__name__
        view_fn.__doc__ = handler.__doc__
        return view_fn

    class LoginView(View):
        """GET: the form; POST: the token → the login cookie, then back where the link led."""

        async def get(self, request: Any) -> Any:
            return html(self, login_page(safe_next(request.query.get("next"))))

        async def post(self, request: Any) -> Any:
            form = await request.post()
            target = safe_next(str(form.get("next") or ""))
            if not same_origin(request.headers):
                return html(self, login_page(target, "cross-site login refused"), 403)
            cookie = access.login_cookie(str(form.get("token") or ""))
            if cookie is None:
                log.warning("evidence login refused", remote=request.remote)
                return html(self, login_page(target, "wrong token"), 401)
            log.info("evidence login", remote=request.remote)
            headers = {"Location": target, "Set-Cookie": access.set_cookie(cookie)}
            return self.html("", status=303, headers={**PAGE_HEADERS, **headers})

    app.page(EVIDENCE_PATH, name="ragmon_evidence")(guarded(page_view, "html"))
    app.page(API_PATH, name="ragmon_evidence_api")(guarded(api_view, "json"))
    app.page(API_PATH + "/record", name="ragmon_evidence_record")(
        guarded(audit_record_view, "json")
    )
    app.page(API_PATH + "/answer", name="ragmon_evidence_answer")(
        guarded(answer_record_view, "json")
    )
    app.page(LOGIN_PATH, name="ragmon_evidence_login")(LoginView)
    if review_enabled(settings):

        async def send(topic: str, key: bytes, value: bytes) -> None:
            await app.send(
                topic, key=key, value=value, key_serializer="raw", value_serializer="raw"
            )

        post = review_handler(settings, access, topics, send)

        class ReviewView(View):
            """POST a reviewer's label (agents/evidence/review.py)."""

            async def post(self, request: Any) -> Any:
                return await post(self, request)

        app.page(REVIEW_PATH, name="ragmon_evidence_review")(ReviewView)
    log.debug(
        "evidence page installed",
        url=base + EVIDENCE_PATH,
        audit_topic=audit_topic(settings),
        login="none (loopback)" if access.open else COOKIE,
    )
