"""The review POST's security: no token → 401, a read-only login → 403, a wrong or missing
CSRF token → 403, a cross-site POST → 403, an unknown answer or claim → 404 with nothing written;
a good review writes the label and its audit record; a reviewer's `<script>` is shown as text."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from agents.evidence.auth import Access
from agents.evidence.review import review_forms, review_handler
from monitor.config.settings import load_settings
from monitor.oncall.page import render_page
from monitor.records.labels import HumanLabel, decode

READ_TOKEN = "read-token-0123456789abcdef"
REVIEW_TOKEN = "review-token-0123456789abcdef"
TOPICS = {"audit": "t.audit", "labels": "t.labels"}
RECORD = {"event_id": "e1", "app": "shop", "claims": [{"index": 0}, {"index": 1}]}


@dataclass
class Msg:
    value: bytes


@dataclass
class Request:
    form: dict[str, str]
    headers: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)
    remote: str = "127.0.0.1"

    async def post(self) -> dict[str, str]:
        return self.form


class View:
    def json(self, body: Any, status: int = 200, headers: Any = None) -> tuple[int, Any]:
        return status, body

    def html(self, body: str, status: int = 200, headers: Any = None) -> tuple[int, Any]:
        return status, headers


def setup() -> tuple[Access, Any, list[tuple[str, bytes, bytes]]]:
    settings = load_settings(evidence_token=READ_TOKEN, review_token=REVIEW_TOKEN)
    access = Access.from_settings(settings)
    sent: list[tuple[str, bytes, bytes]] = []

    async def send(topic: str, key: bytes, value: bytes) -> None:
        sent.append((topic, key, value))

    async def read(topic: str, partition: int, offset: int) -> Msg | None:
        assert topic == "t.audit"
        return Msg(json.dumps(RECORD).encode()) if (partition, offset) == (0, 7) else None

    handler = review_handler(settings, access, TOPICS, send, read, clock=lambda: 1000.0)
    return access, handler, sent


def form(**over: str) -> dict[str, str]:
    base = {"event_id": "e1", "claim_index": "1", "label": "not_supported", "partition": "0",
            "offset": "7", "reviewer": "Ana", "next": "/evidence?app=shop"}  # fmt: skip
    return {**base, **over}


def cookie_login(access: Access, token: str) -> tuple[dict[str, str], str]:
    value = access.login_cookie(token)
    assert value is not None
    login = access.from_cookie(value)
    assert login is not None
    return {"ragmon_login": value}, access.csrf_token(login)


def post(handler: Any, request: Request) -> tuple[int, Any]:
    return asyncio.run(handler(View(), request))  # type: ignore[no-any-return]


def test_no_token_is_401_and_a_read_only_login_403() -> None:
    access, handler, sent = setup()
    assert post(handler, Request(form()))[0] == 401
    cookies, csrf = cookie_login(access, READ_TOKEN)
    assert post(handler, Request(form(csrf=csrf), cookies=cookies))[0] == 403
    bearer = {"Authorization": f"Bearer {READ_TOKEN}"}
    assert post(handler, Request(form(), headers=bearer))[0] == 403
    assert sent == []


def test_a_wrong_or_foreign_csrf_token_is_403() -> None:
    access, handler, sent = setup()
    cookies, csrf = cookie_login(access, REVIEW_TOKEN)
    assert post(handler, Request(form(), cookies=cookies))[0] == 403  # none
    assert post(handler, Request(form(csrf="0" * 64), cookies=cookies))[0] == 403
    # a token of another login (a read-only one) does not pass either
    _, other = cookie_login(access, READ_TOKEN)
    assert post(handler, Request(form(csrf=other), cookies=cookies))[0] == 403
    cross = {"Origin": "https://evil.example", "Host": "127.0.0.1:6066"}
    assert post(handler, Request(form(csrf=csrf), headers=cross, cookies=cookies))[0] == 403
    assert sent == []


@pytest.mark.parametrize(
    "over",
    [
        {"event_id": "nobody"},  # the record is another answer's
        {"offset": "8"},  # no record there
        {"claim_index": "5"},  # no such claim
    ],
)
def test_an_unknown_answer_or_claim_is_404_and_nothing_is_written(over: dict[str, str]) -> None:
    access, handler, sent = setup()
    cookies, csrf = cookie_login(access, REVIEW_TOKEN)
    assert post(handler, Request(form(csrf=csrf, **over), cookies=cookies))[0] == 404
    assert sent == []


@pytest.mark.parametrize("over", [{"label": "yes"}, {"claim_index": "x"}, {"offset": "-1"}])
def test_malformed_fields_are_400(over: dict[str, str]) -> None:
    access, handler, sent = setup()
    cookies, csrf = cookie_login(access, REVIEW_TOKEN)
    assert post(handler, Request(form(csrf=csrf, **over), cookies=cookies))[0] == 400
    assert sent == []


def test_a_review_writes_the_label_and_its_audit_record() -> None:
    access, handler, sent = setup()
    cookies, csrf = cookie_login(access, REVIEW_TOKEN)
    status, headers = post(
        handler, Request(form(csrf=csrf, reviewer="<script>x</script>"), cookies=cookies)
    )
    assert status == 303 and headers["Location"] == "/evidence?app=shop"
    (t1, key, value), (t2, _, audit) = sent
    assert (t1, key, t2) == ("t.labels", b"e1:1", "t.audit")
    label = decode(value)
    assert label is not None and (label.label, label.source, label.labelled_at) == (
        "not_supported",
        "review",
        1000.0,
    )
    assert label.reviewer == "<script>x</script>" and label.app == "shop"
    record = json.loads(audit)
    assert (record["reason"], record["login"], record["claim_index"]) == ("label", "cookie", 1)
    assert "app" not in record  # the page ranks records with an app as answers
    # a bearer login needs no CSRF token (browsers never send that header on their own)
    bearer = {"Authorization": f"Bearer {REVIEW_TOKEN}"}
    assert post(handler, Request(form(), headers=bearer))[0] == 303


def test_the_page_shows_forms_to_reviewers_and_labels_as_text() -> None:
    access, _, _ = setup()
    cookies, csrf = cookie_login(access, REVIEW_TOKEN)
    login = access.authenticate({}, cookies)
    evil = HumanLabel(
        "e1", "not_supported", "review", 1.0, claim_index=1, reviewer="<script>alert(1)</script>"
    )
    report = {
        "app": "shop",
        "answers": [
            {
                "event_id": "e1",
                "rank": 1,
                "audit_record": {"partition": 0, "offset": 7},
                "claims": [{"index": 0, "text": "a"}, {"index": 1, "text": "b"}],
            }
        ],
    }
    forms = review_forms(access, login, "/evidence?app=shop", ["e1"], {evil.key(): evil})
    assert forms is not None
    page = render_page(report, "", forms)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count('action="/evidence/review"') == 2 and f'value="{csrf}"' in page
    assert "can&#x27;t tell" in page or "can't tell" in page
    # a read-only login gets no form
    reader = access.authenticate({"Authorization": f"Bearer {READ_TOKEN}"}, {})
    assert review_forms(access, reader, "/", ["e1"], {}) is None
    assert "/evidence/review" not in render_page(report, "", None)
