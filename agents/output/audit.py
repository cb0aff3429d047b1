"""The audit trail: verdict records of sampled and failing answers, to the `audit` topic and as
structlog JSON lines to a rotating file (or stdout), with optional redaction of texts.

Every failing answer is audited (most of a typical stream), so the record references the cited
passages by default (RAGMON_AUDIT_PASSAGES=reference: each passage's `span` in its document,
no `cited_text`, which is optional in verdict.schema.json); the record's `source` (topic,
partition, offset) leads back to the answer and its documents, where the evidence page cuts
the passages out again (agents/evidence/passages.py). RAGMON_AUDIT_PASSAGES=copy copies them.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from logging.handlers import RotatingFileHandler
from typing import Any

import structlog

from agents.output.audit_record import AuditBuilder, AuditEntry
from agents.telemetry.counting import Children
from agents.telemetry.metrics import Metrics
from monitor.config.settings import Settings
from monitor.output.audit import Redactor
from monitor.output.audit_text import AuditText, strip_judge_text
from monitor.records.models import AnswerEvent, Verdict

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


def audit_text(settings: Settings) -> AuditText:
    return AuditText(
        level=settings.audit_text,
        passage_chars=settings.audit_cited_text_chars,
        context_chars=settings.audit_context_chars,
        answer_chars=settings.audit_answer_chars,
        passages=settings.audit_passages,
    )


def judge_audit_record(settings: Settings, record: dict[str, Any]) -> dict[str, Any]:
    """A judge agent's audit record under the same text policy and redaction as the check's."""
    out = strip_judge_text(record, settings.audit_text)
    redactor = Redactor.from_setting(settings.redact)
    return redactor.record(out) if redactor else out


class AuditTrail:
    def __init__(
        self,
        settings: Settings,
        metrics: Metrics | None = None,
        send: Send | None = None,
        logger: Any = None,
    ) -> None:
        try:
            redactor = Redactor.from_setting(settings.redact)
        except ValueError as exc:
            from monitor.config.errors import ConfigError

            raise ConfigError(f"RAGMON_REDACT: {exc}") from None
        self.metrics = metrics
        self._child = Children()
        self.send = send
        self.logger = logger if logger is not None else _audit_logger(settings.audit_log)
        self.builder = AuditBuilder(
            sample_rate=settings.audit_sample_rate,
            cited_text_chars=settings.audit_cited_text_chars,
            redactor=redactor if redactor else None,
            keep_dict=self.logger is not None,
            text=audit_text(settings),
            judge_rates=(settings.judge_sample_rate, settings.judge_oversample_rate)
            if settings.judge_enabled
            else None,
            claim_cap=settings.answer_claim_weight,
        )

    def offer(
        self, verdict: Verdict, source: dict[str, Any], event: AnswerEvent | None = None
    ) -> str | None:
        """Record the verdict if it is failing or sampled; returns why, or None."""
        entry = self.builder.build(verdict, source, event)
        if entry is None:
            return None
        self.keep(verdict.event_id, entry)
        return entry.reason

    def keep(self, event_id: str, entry: AuditEntry) -> None:
        """Publish, log and count a record built here or in a check process."""
        if self.send is not None:
            self.send(event_id, entry.data)
        if self.logger is not None and entry.record is not None:
            self.logger.info("audit", **entry.record)
        if self.metrics is not None:
            self._child(self.metrics.audit_records, (entry.reason,)).inc()
