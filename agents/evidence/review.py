"""POST /evidence/review: a reviewer's label of one claim, onto the `labels` topic, audited.

Off unless RAGMON_REVIEW_TOKEN is set (the route answers 404). The POST needs a login that may
review (the review token as bearer, or the login cookie derived from it: else 401 without a
login, 403 with a read-only one), a CSRF token bound to that login (403), a same-origin request
(403), and an answer and claim that exist: the form names the audit record the page read the
answer from, and the server reads that record back (404 when it is not that answer's or lacks
the claim; nothing is written). Then the label goes to the `labels` topic (source `review`,
the reviewer's name as typed, when) and an audit record of reason `label` to the audit topic:
who (the name, the login kind and the remote address), what, when.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

import structlog

from agents.evidence.auth import REVIEW, Access, Login, safe_next, same_origin
from agents.evidence.source import read_one
from monitor.config.errors import RagmonError
from monitor.config.settings import Settings
from monitor.oncall.review import REVIEW_PATH, BadReview, ReviewForms, claim_of, parse_review
from monitor.records.labels import HumanLabel, encode

log = structlog.get_logger("ragmon.review")

Send = Callable[[str, bytes, bytes], Awaitable[None]]  # (topic, key, value)


def review_enabled(settings: Settings) -> bool:
    return settings.evidence and settings.review_token is not None


def review_forms(
    access: Access,
    login: Login | None,
    target: str,
    event_ids: Iterable[str],
    labels: Mapping[str, HumanLabel] | None,
) -> ReviewForms | None:
    """The page's review forms for this login, with the labels already given to its answers'
    claims; None when the login may not review."""
    if login is None or not login.may(REVIEW):
        return None
    wanted = set(event_ids)
    given = {
        key: lab.to_dict()
        for key, lab in (labels or {}).items()
        if lab.event_id in wanted and lab.claim_index is not None
    }
    return ReviewForms(csrf=access.csrf_token(login), next=target, labels=given)


def review_handler(
    settings: Settings,
    access: Access,
    topics: Mapping[str, str],
    send: Send,
    read: Callable[[str, int, int], Awaitable[Any]] | None = None,
    clock: Callable[[], float] = time.time,
) -> Callable[[Any, Any], Awaitable[Any]]:
    """The POST handler (a Faust web view function)."""
    reader = read or (lambda topic, p, o: read_one(settings, topic, p, o))

    async def post(view: Any, request: Any) -> Any:
        def refuse(status: int, message: str, **extra: Any) -> Any:
            log.warning("review refused", status=status, why=message, remote=request.remote)
            return view.json({"error": message}, status=status, headers=extra)

        login = access.authenticate(request.headers, request.cookies)
        if login is None:
            return refuse(401, "give the review token", **{"WWW-Authenticate": "Bearer"})
        if not login.may(REVIEW):
            return refuse(403, "this login may read, not review (RAGMON_REVIEW_TOKEN)")
        if not same_origin(request.headers):
            return refuse(403, "cross-site review refused")
        form = await request.post()
        if not access.verify_csrf(login, str(form.get("csrf") or "")):
            return refuse(403, "missing or wrong CSRF token: reload the page")
        try:
            review = parse_review(form)
        except BadReview as exc:
            return refuse(exc.status, str(exc))
        try:
            message = await reader(topics["audit"], review.partition, review.offset)
        except RagmonError as exc:
            return refuse(503, f"cannot read the audit trail: {exc}")
        record = _json(getattr(message, "value", None))
        if record is None or not claim_of(record, review):
            return refuse(404, f"no claim {review.claim_index} of answer {review.event_id!r} there")
        now = clock()
        label = HumanLabel(
            event_id=review.event_id,
            label=review.label,
            source="review",
            labelled_at=now,
            claim_index=review.claim_index,
            reviewer=review.reviewer,
            app=str(record.get("app")) if record.get("app") else None,
        )
        key, value = encode(label)
        await send(topics["labels"], key, value)
        audit = {
            "reason": "label",
            "event_id": review.event_id,
            "claim_index": review.claim_index,
            "label": review.label,
            "source": "review",
            "reviewer": review.reviewer,
            "login": login.via,
            "remote": request.remote,
            "labelled_at": now,
            # not `app`: the evidence page ranks records with an app as answers
            "label_app": label.app,
        }
        await send(topics["audit"], review.event_id.encode(), json.dumps(audit).encode())
        log.info(
            "review label",
            event_id=review.event_id,
            claim_index=review.claim_index,
            label=review.label,
            reviewer=review.reviewer,
            login=login.via,
        )
        target = safe_next(review.next)
        return view.html("", status=303, headers={"Location": target, "Cache-Control": "no-store"})

    return post


def _json(value: Any) -> dict[str, Any] | None:
    try:
        got = json.loads(value) if isinstance(value, bytes | str) else value
    except ValueError:
        return None
    return got if isinstance(got, dict) else None


__all__ = ["REVIEW_PATH", "review_enabled", "review_forms", "review_handler"]
