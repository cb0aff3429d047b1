"""Verdict ↔ verdict.schema.json records, and JSON lines that are always valid UTF-8."""

from __future__ import annotations

import json
from typing import Any

from monitor.records.models import CitationResult, ClaimResult, Rejection, Scores, Verdict


def _truncate(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"


def citation_to_dict(result: CitationResult, cited_text_max: int | None = 500) -> dict[str, Any]:
    """`cited_text_max=None` leaves the evidence out (lean audit records)."""
    c = result.citation
    out = {
        "index": c.index,
        "raw": c.raw,
        "format": c.format,
        "doc_id": result.doc_id,
        "status": result.status,
        "error": result.error,
    }
    if cited_text_max is not None:
        out["cited_text"] = _truncate(result.cited_text, cited_text_max)
        if c.excerpt is not None:  # the quote the citation carries (`excerpt:`, a vendor's own)
            out["excerpt"] = _truncate(c.excerpt, cited_text_max)
    return out


def claim_to_dict(result: ClaimResult) -> dict[str, Any]:
    claim, support = result.claim, result.support
    return {
        "index": claim.index,
        "text": claim.text,
        "kind": claim.kind,
        "citation_indexes": list(claim.citation_indexes),
        "verdict": support.verdict,
        "score": round(support.score, 6),
        "confidence": support.confidence,
        "tier": support.tier,
        "reasons": list(support.reasons),
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def scores_to_dict(scores: Scores) -> dict[str, Any]:
    out: dict[str, Any] = {
        "validity_rate": _rounded(scores.validity_rate),
        "support_rate": _rounded(scores.support_rate),
        "coverage": _rounded(scores.coverage),
        "hallucination_rate": _rounded(scores.hallucination_rate),
        "citation_density": _rounded(scores.citation_density),
        "overall": _rounded(scores.overall),
        "overall_parts": list(scores.overall_parts),
        "span_accuracy": (
            None
            if scores.span_accuracy is None
            else {k: _rounded(v) for k, v in scores.span_accuracy.items()}
        ),
    }
    return out


def verdict_to_dict(verdict: Verdict, cited_text_max: int | None = 500) -> dict[str, Any]:
    out: dict[str, Any] = {
        "event_id": verdict.event_id,
        "error": verdict.error,
        "citations": [citation_to_dict(c, cited_text_max) for c in verdict.citations],
        "claims": [claim_to_dict(c) for c in verdict.claims],
        "scores": scores_to_dict(verdict.scores),
        "sampled_for_judge": verdict.sampled_for_judge,
        "judge": verdict.judge,
    }
    if verdict.app is not None:
        out["app"] = verdict.app
    if verdict.error_detail is not None:
        out["error_detail"] = verdict.error_detail
    if verdict.notes:
        out["notes"] = list(verdict.notes)
    return out


def rejection_to_dict(rejection: Rejection) -> dict[str, Any]:
    """The verdict record of an event that was rejected before checking."""
    out: dict[str, Any] = {
        "event_id": rejection.event_id or "",
        "error": rejection.reason,
        "error_detail": rejection.detail,
        "citations": [],
        "claims": [],
        "scores": {
            "validity_rate": None,
            "support_rate": None,
            "coverage": None,
            "hallucination_rate": None,
        },
        "sampled_for_judge": False,
        "judge": None,
    }
    if rejection.app is not None:
        out["app"] = rejection.app
    return out


def dumps_line(record: dict[str, Any]) -> str:
    """One JSON line. Lone surrogates (legal in JSON input) would not encode as UTF-8, so such
    records fall back to ASCII escapes instead of crashing the writer."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(record, ensure_ascii=True, separators=(",", ":"))
    return text
