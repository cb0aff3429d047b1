"""Record value → AnswerEvent, or a Rejection with a reason code. Never raises on input.

The validation is hand-written against answer-event.schema.json (v1) so the hot path needs no
schema engine; tests check it agrees with a real JSON-Schema validator.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from monitor.config.options import CheckOptions
from monitor.inputs.envelope import envelope_format, read_response
from monitor.inputs.jsonread import Unreadable
from monitor.records.models import (
    AnswerEvent,
    Document,
    GoldClaim,
    GoldSpan,
    Rejection,
    Segment,
)

_APP_RE = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_GOLD_LABELS = ("supported", "partially_supported", "not_supported")


class _Invalid(Exception):
    """Internal: carries a schema-violation message up to decode_event."""


def _reject_constant(name: str) -> Any:
    # NaN/Infinity are not JSON; Python accepts them by default.
    raise ValueError(f"non-standard JSON constant {name}")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)  # one C call; a key given twice leaves fewer entries than pairs
    if len(out) == len(pairs):
        return out
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            # Two values for one key: which one the producer meant is unknowable.
            raise ValueError(f"duplicate key {key!r}")
        seen.add(key)
    return out  # not reached: the dict is shorter only when a key repeats


_DEFAULT_OPTIONS = CheckOptions()

# One decoder for every record: json.loads with arguments builds a new one per call.
_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_reject_constant)


def _str(obj: dict[str, Any], key: str, where: str, *, max_len: int | None = None) -> str | None:
    value = obj.get(key)
    if value is None and key not in obj:
        return None
    if not isinstance(value, str):
        raise _Invalid(f"{where}{key} must be a string")
    if max_len is not None and len(value) > max_len:
        raise _Invalid(f"{where}{key} is longer than {max_len} characters")
    return value


def _int(value: Any, where: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Invalid(f"{where} must be an integer")
    if value < minimum:
        raise _Invalid(f"{where} must be >= {minimum}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _Invalid(f"{where} must be an array")
    return value


def _obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Invalid(f"{where} must be an object")
    return value


def _timestamp(value: str) -> str:
    text = value.strip()
    if "T" not in text.upper() or len(text) < 20:
        raise _Invalid("timestamp must be an RFC 3339 date-time")
    try:
        parsed = datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        raise _Invalid("timestamp must be an RFC 3339 date-time") from None
    if parsed.tzinfo is None:
        raise _Invalid("timestamp must carry a time zone offset")
    return value


def _documents(raw: Any) -> tuple[Document, ...]:
    docs = []
    for i, item in enumerate(_list(raw, "documents")):
        if not isinstance(item, dict):
            raise _Invalid(f"documents[{i}] must be an object")
        doc: dict[str, Any] = item
        doc_id = doc.get("id")
        if not isinstance(doc_id, str) or not doc_id:
            raise _Invalid(f"documents[{i}].id must be a non-empty string")
        pages = None
        if "pages" in doc:
            page_list = _list(doc["pages"], f"documents[{i}].pages")
            if not all(isinstance(p, str) for p in page_list):
                raise _Invalid(f"documents[{i}].pages must hold strings")
            pages = tuple(page_list)
        text, title, url = doc.get("text"), doc.get("title"), doc.get("url")
        if not (
            (isinstance(text, str) or "text" not in doc)
            and (isinstance(title, str) or "title" not in doc)
            and (isinstance(url, str) or "url" not in doc)
        ):  # an optional string that is null or not a string: say which, in field order
            where = f"documents[{i}]."
            text, title, url = (
                _str(doc, "text", where),
                _str(doc, "title", where),
                _str(doc, "url", where),
            )
        docs.append(Document(doc_id, text, pages, title, url))  # positional: a third cheaper
    return tuple(docs)


def _segments(raw: Any) -> tuple[Segment, ...]:
    segments = []
    for i, item in enumerate(_list(raw, "segments")):
        where = f"segments[{i}]."
        seg = _obj(item, f"segments[{i}]")
        text = seg.get("text")
        if not isinstance(text, str):
            raise _Invalid(f"{where}text must be a string")
        cites: list[str | int] = []
        if "citations" in seg:
            for c in _list(seg["citations"], f"{where}citations"):
                if isinstance(c, bool) or not isinstance(c, str | int):
                    raise _Invalid(f"{where}citations must hold strings or integers")
                cites.append(c)
        segments.append(Segment(text=text, citations=tuple(cites)))
    return tuple(segments)


def _gold(raw: Any) -> tuple[str | None, tuple[GoldSpan, ...] | None, Any]:
    gold = _obj(raw, "gold")
    answer = _str(gold, "answer", "gold.")
    spans = None
    if "citation_spans" in gold:
        spans_list = []
        for i, item in enumerate(_list(gold["citation_spans"], "gold.citation_spans")):
            where = f"gold.citation_spans[{i}]"
            span = _obj(item, where)
            doc_id = span.get("doc_id")
            if not isinstance(doc_id, str):
                raise _Invalid(f"{where}.doc_id must be a string")
            for key in ("start", "end"):
                if key not in span:
                    raise _Invalid(f"{where}.{key} is required")
            page = _int(span["page"], f"{where}.page", 1) if "page" in span else None
            spans_list.append(
                GoldSpan(
                    doc_id=doc_id,
                    start=_int(span["start"], f"{where}.start", 0),
                    end=_int(span["end"], f"{where}.end", 0),
                    page=page,
                )
            )
        spans = tuple(spans_list)
    label = gold.get("label")
    if "label" in gold and label not in _GOLD_LABELS:
        raise _Invalid("gold.label must be supported, partially_supported or not_supported")
    return answer, spans, label


_CLAIM_LABELS = (*_GOLD_LABELS, "abstain")


def _gold_claims(raw: Any) -> tuple[GoldClaim, ...] | None:
    """`gold.claims: [{index | text, label}]` (per-claim labels of a canary)."""
    if not isinstance(raw, dict) or "claims" not in raw:
        return None
    out = []
    for i, item in enumerate(_list(raw["claims"], "gold.claims")):
        where = f"gold.claims[{i}]"
        claim = _obj(item, where)
        if claim.get("label") not in _CLAIM_LABELS:
            raise _Invalid(f"{where}.label must be one of {', '.join(_CLAIM_LABELS)}")
        index = _int(claim["index"], f"{where}.index", 0) if "index" in claim else None
        text = _str(claim, "text", f"{where}.")
        if index is None and text is None:
            raise _Invalid(f"{where} needs index or text")
        out.append(GoldClaim(label=claim["label"], index=index, text=text))
    return tuple(out)


def _event_id(obj: dict[str, Any]) -> str:
    event_id = obj.get("event_id")
    if not isinstance(event_id, str) or not 1 <= len(event_id) <= 200:
        raise _Invalid("event_id must be a string of 1 to 200 characters")
    return event_id


def _context(obj: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(app, timestamp, question), checked alike for a v1 event and an envelope."""
    app = _str(obj, "app", "")
    if app is not None and not _APP_RE.fullmatch(app):
        raise _Invalid("app must match ^[A-Za-z0-9_.-]{1,64}$")
    timestamp = _str(obj, "timestamp", "")
    if timestamp is not None:
        _timestamp(timestamp)
    question = obj.get("question")
    if question is not None and not isinstance(question, str):
        raise _Invalid("question must be a string or null")
    return app, timestamp, question


def _build(obj: dict[str, Any]) -> AnswerEvent:
    if "schema_version" in obj and obj["schema_version"] != "1":
        raise _Invalid('schema_version must be "1"')
    event_id = _event_id(obj)
    answer = obj.get("answer")
    if not isinstance(answer, str):
        raise _Invalid("answer must be a string")
    app, timestamp, question = _context(obj)
    data = _obj(obj["data"], "data") if "data" in obj else None
    metadata = _obj(obj["metadata"], "metadata") if "metadata" in obj else {}
    gold_answer, gold_spans, gold_label = (
        _gold(obj["gold"]) if "gold" in obj else (None, None, None)
    )
    return AnswerEvent(
        event_id=event_id,
        answer=answer,
        app=app,
        timestamp=timestamp,
        tenant=_str(obj, "tenant", "", max_len=200),
        model=_str(obj, "model", "", max_len=200),
        question=question,
        segments=_segments(obj["segments"]) if "segments" in obj else None,
        documents=_documents(obj["documents"]) if "documents" in obj else (),
        data=data,
        gold_answer=gold_answer,
        gold_spans=gold_spans,
        gold_label=gold_label,
        gold_claims=_gold_claims(obj["gold"]) if "gold" in obj else None,
        metadata=metadata,
    )


def _envelope(obj: dict[str, Any], fmt: Any, options: CheckOptions) -> AnswerEvent:
    """An envelope (answer-envelope.schema.json): its common fields checked as v1's, then its
    response read by the format's adapter (monitor/inputs/envelope.py)."""
    if "envelope_version" in obj and obj["envelope_version"] != "1":
        raise _Invalid('envelope_version must be "1"')
    event_id = _event_id(obj)
    app, timestamp, question = _context(obj)
    base = AnswerEvent(
        event_id=event_id,
        answer="",
        app=app,
        timestamp=timestamp,
        tenant=_str(obj, "tenant", "", max_len=200),
        question=question,
        documents=_documents(obj["documents"]) if "documents" in obj else (),
        data=_obj(obj["data"], "data") if "data" in obj else None,
        metadata=_obj(obj["metadata"], "metadata") if "metadata" in obj else {},
    )
    return read_response(fmt, obj, base, options)


def event_from_obj(obj: Any, options: CheckOptions | None = None) -> AnswerEvent | Rejection:
    """Validate an already-parsed JSON value: a v1 answer event or an envelope."""
    if not isinstance(obj, dict):
        return Rejection("not_an_object", f"expected a JSON object, got {type(obj).__name__}")
    ident = obj.get("event_id") if isinstance(obj.get("event_id"), str) else None
    app = obj.get("app")
    # a rejected event's app still labels its dead letter and the window's reject count, so
    # only a valid name may pass: an invalid one must never become a metric label value
    app = app if isinstance(app, str) and _APP_RE.fullmatch(app) else None
    opts = options if options is not None else _DEFAULT_OPTIONS
    try:
        fmt = envelope_format(obj, opts.input_format)
        if fmt is not None:
            return _envelope(obj, fmt, opts)
        return _build(obj)
    except _Invalid as exc:
        return Rejection("schema_violation", str(exc), event_id=ident, app=app)
    except Unreadable as unreadable:  # its own name: compiled code types `exc` per name
        return Rejection(unreadable.reason, unreadable.detail, event_id=ident, app=app)
    except RecursionError:
        return Rejection("schema_violation", "structure nested too deeply", ident, app)


def decode_event(raw: bytes | str, options: CheckOptions) -> AnswerEvent | Rejection:
    """Decode one record value (UTF-8 JSON object) into an AnswerEvent."""
    size = len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)
    if size == 0:
        return Rejection("empty", "empty record value")
    if size > options.max_event_bytes:
        return Rejection(
            "too_large", f"{size} bytes exceeds the limit of {options.max_event_bytes}"
        )
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Rejection("invalid_utf8", f"invalid UTF-8 at byte {exc.start}: {exc.reason}")
    else:
        text = raw
    if not text or text.isspace():
        return Rejection("empty", "record value is only whitespace")
    try:
        if text.startswith("\ufeff"):  # what json.loads says before it decodes
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        obj = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        return Rejection("invalid_json", f"{exc.msg} at line {exc.lineno} column {exc.colno}")
    except ValueError as exc:
        return Rejection("invalid_json", str(exc))
    except RecursionError:
        return Rejection("invalid_json", "JSON nested too deeply")
    return event_from_obj(obj, options)
