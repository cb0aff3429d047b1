"""Lean audit records over the wire (RAGMON_AUDIT_PASSAGES=reference, the default): the embedded
broker, a worker with RAGMON_REDACT=email; the audit record keeps the cited passage's span, not
its text, and the evidence page (its JSON and its HTML) shows the passage with its context cut
out of the answer on the answers topic, redacted; a record whose answer is no longer on the
topic says so instead of failing."""

from __future__ import annotations

import html
import json
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from agents.kafka.broker import EmbeddedBroker
from monitor.oncall.passages import gone
from tests.integration.conftest import Namespace, WorkerProcess, consume, produce, wait_until

pytestmark = pytest.mark.integration

APP = "mail"
EMAIL = "ann.lee@example.com"
DOC = (
    "The annual report, sent by " + EMAIL + " on Monday, states that revenue grew 12 percent "
    "in 2023, driven by strong demand for cloud services in Europe."
)
START = DOC.index("sent by")
END = DOC.index(" on Monday") + len(" on Monday")
QUERY = f"app={APP}&since=1h&verdict=supported,partially_supported,not_supported,unverifiable"


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:
        return bytes(response.read())


def test_a_lean_records_passage_is_cut_from_its_answer_and_redacted(
    broker: EmbeddedBroker, start_worker: Callable[..., WorkerProcess]
) -> None:
    ns = Namespace("passages")
    worker = start_worker(
        ns, RAGMON_REDACT="email", RAGMON_AUDIT_SAMPLE_RATE="1.0", RAGMON_CHECK_PROCESSES="0"
    )
    worker.wait_assigned(timeout=90)
    event = {
        "event_id": "lean-1",
        "app": APP,
        "question": "Who sent the report?",
        "answer": f"The report was sent by the finance team [report.pdf:1:{START}-{END}].",
        "documents": [{"id": "report.pdf", "text": DOC}],
    }
    [meta] = produce(
        broker.bootstrap, ns.topic("answers"), [(APP.encode(), json.dumps(event).encode())]
    )

    # the record on the audit topic: the passage's place, not its text
    [message] = consume(broker.bootstrap, ns.topic("audit"), 1, timeout=60)
    record = json.loads(message.value)
    [citation] = record["citations"]
    assert citation["span"] == [START, END] and citation["doc_id"] == "report.pdf"
    assert "cited_text" not in citation and "context_before" not in citation
    assert record["source"] == {
        "topic": ns.topic("answers"),
        "partition": meta.partition,
        "offset": meta.offset,
    }
    assert record["text_level"] == "all"

    # the page's JSON: the passage cut from the answer, as a copying record would hold it,
    # redacted on the way out like the record's own texts
    api = f"{worker.base}/evidence/api?{QUERY}"

    def answers() -> list[dict[str, Any]] | None:
        found = json.loads(fetch(api))["answers"]
        return found or None

    [shown] = wait_until(answers, 60, what="the answer on the evidence page")
    [cut] = shown["citations"]
    assert cut["cited_text"] == DOC[START:END].replace(EMAIL, "[redacted:email]")
    assert cut["context_before"] == "The annual report, "
    assert cut["context_after"].startswith(", states that revenue")
    body = fetch(api) + fetch(f"{worker.base}/evidence?{QUERY}")
    assert EMAIL.encode() not in body
    page = fetch(f"{worker.base}/evidence?{QUERY}").decode()
    mark = html.escape(DOC[START:END].replace(EMAIL, "[redacted:email]"), quote=True)
    assert f'<mark class="span">{mark}</mark>' in page

    # an answer past the topic's retention: a record whose source the topic no longer holds
    # (here: an offset it never reached) shows the record, and says the passage is not shown
    lost = dict(record, event_id="lost-1", source=dict(record["source"], offset=meta.offset + 50))
    produce(broker.bootstrap, ns.topic("audit"), [(b"lost-1", json.dumps(lost).encode())])

    def both() -> dict[str, dict[str, Any]] | None:
        found = {a["event_id"]: a for a in json.loads(fetch(api))["answers"]}
        return found if "lost-1" in found else None

    found = wait_until(both, 60, what="the second record on the page")
    [missing] = found["lost-1"]["citations"]
    said = gone(ns.topic("answers"))
    assert missing["passage_missing"] == said and "cited_text" not in missing
    assert found["lean-1"]["citations"][0]["cited_text"] == cut["cited_text"]
    page = fetch(f"{worker.base}/evidence?{QUERY}").decode()
    assert html.escape(said, quote=True) in page
