"""The audit trail: verdict records of sampled and failing answers, to the `audit` topic and as
structlog JSON lines to a rotating file (or stdout), with optional redaction of texts.

Every failing answer is audited (most of a typical stream), so the record is lean by default:
the verdict record without the resolved evidence (`cited_text` is optional in
verdict.schema.json; RAGMON_AUDIT_CITED_TEXT_CHARS keeps up to that many characters of it).
The record's `source` (topic, partition, offset) leads back to the answer and its documents.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from logging.handlers import RotatingFileHandler
from typing import Any

import structlog

from agents.counting import Children
from agents.jsonout import dumps
from agents.metrics import Metrics
from monitor.audit import Redactor, audit_reason
from monitor.models import Verdict
from monitor.settings import Settings
from monitor.verdict_io import verdict_to_dict

#: A record must fit in one Kafka message (1 MB by default) with room for headers.
MAX_RECORD_BYTES = 900_000
LOG_FILE_MAX_BYTES = 50 * 1024 * 1024
LOG_FILE_BACKUPS = 5

Send = Callable[[str, bytes], None]


def _audit_logger(target: str) -> Any:
    """A structlog logger writing JSON lines to `target` ("-" = stdout), or None when off."""
    if not target:
        return None
    std = logging.getLogger(f"ragmon.audit.{target}")
    std.propagate = False
    std.setLevel(logging.INFO)
    if not std.handlers:
        handler: logging.Handler
        if target == "-":
            handler = logging.StreamHandler(sys.stdout)
        else:
            handler = RotatingFileHandler(
                target, maxBytes=LOG_FILE_MAX_BYTES, backupCount=LOG_FILE_BACKUPS, encoding="utf-8"
            )
        handler.setFormatter(logging.Formatter("%(message)s"))
        std.addHandler(handler)
    return structlog.wrap_logger(
        std,
        processors=[
            structlog.processors.TimeStamper(fmt="iso", utc=True, key="logged_at"),
            structlog.processors.JSONRenderer(serializer=_dumps),
        ],
        wrapper_class=structlog.BoundLogger,
    )


def _dumps(obj: Any, **kwargs: Any) -> str:
    """structlog's serializer: non-ASCII kept, lone surrogates (legal in JSON input) escaped."""
    kwargs.pop("ensure_ascii", None)
    text = json.dumps(obj, ensure_ascii=False, **kwargs)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, ensure_ascii=True, **kwargs)
    return text


def lean_verdict_dict(verdict: Verdict) -> dict[str, Any]:
    """`verdict_to_dict` without `cited_text`: it runs for most answers."""
    return verdict_to_dict(verdict, cited_text_max=None)


def encode_record(record: dict[str, Any]) -> bytes:
    return dumps(record)


def _fit(record: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """The record and its bytes, shrunk when it would not fit in one Kafka message."""
    data = encode_record(record)
    if len(data) <= MAX_RECORD_BYTES:
        return record, data
    slim = dict(record, truncated=True)
    slim["claims"] = [{k: v for k, v in c.items() if k != "text"} for c in record["claims"]]
    slim["citations"] = [
        {k: v for k, v in c.items() if k not in ("cited_text", "raw")} for c in record["citations"]
    ]
    data = encode_record(slim)
    if len(data) <= MAX_RECORD_BYTES:
        return slim, data
    slim["claims"], slim["citations"] = [], []
    return slim, encode_record(slim)


class AuditTrail:
    def __init__(
        self,
        settings: Settings,
        metrics: Metrics | None = None,
        send: Send | None = None,
        logger: Any = None,
    ) -> None:
        self.sample_rate = settings.audit_sample_rate
        self.cited_text_chars = settings.audit_cited_text_chars
        try:
            self.redactor = Redactor.from_setting(settings.redact)
        except ValueError as exc:
            from monitor.errors import ConfigError

            raise ConfigError(f"RAGMON_REDACT: {exc}") from None
        self.metrics = metrics
        self._child = Children()
        self.send = send
        self.logger = logger if logger is not None else _audit_logger(settings.audit_log)

    def offer(self, verdict: Verdict, source: dict[str, Any]) -> str | None:
        """Record the verdict if it is failing or sampled; returns why, or None."""
        reason = audit_reason(verdict, self.sample_rate)
        if reason is None:
            return None
        if self.cited_text_chars:
            record = verdict_to_dict(verdict, self.cited_text_chars)
        else:
            record = lean_verdict_dict(verdict)
        record["audit_reason"] = reason
        record["source"] = source
        record["audited_at"] = round(time.time(), 6)
        if self.redactor:
            record = self.redactor.record(record)
        record, data = _fit(record)
        if self.send is not None:
            self.send(verdict.event_id, data)
        if self.logger is not None:
            self.logger.info("audit", **record)
        if self.metrics is not None:
            self._child(self.metrics.audit_records, (reason,)).inc()
        return reason
