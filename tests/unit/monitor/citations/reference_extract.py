"""extract.py's inline loop as first written (keyword `classify`, every test per bracket in
full, `_Out.extend` for each batch): the reference its cheaper form must equal."""

from __future__ import annotations

from monitor.citations.extract import (
    _BRACKET,
    _glued_citation,
    _is_definition,
    _is_task_box,
    _not_a_reference,
    _Out,
)
from monitor.citations.grammar import Parsed, classify
from monitor.citations.markdown import code_regions
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Citation


def reference_inline(event: AnswerEvent, options: CheckOptions) -> tuple[list[Citation], list[str]]:
    out = _Out(options.max_citations)
    text = event.answer
    if "[" not in text:
        return out.items, out.notes
    code = code_regions(text)
    ci = 0
    doc_ids = frozenset(d.id for d in event.documents)
    has_data = event.data is not None
    data_keys = frozenset(event.data) if isinstance(event.data, dict) else frozenset()
    n_docs = len(event.documents)
    last_end = -1
    group = -1
    for m in _BRACKET.finditer(text):
        start, end = m.span()
        while ci < len(code) and code[ci][1] <= start:
            ci += 1
        if ci < len(code) and code[ci][0] < end:
            continue
        before = text[start - 1] if start else ""
        if before == "\\" or (before == "]" and start != last_end):
            continue
        if _is_definition(text, start, end) or _is_task_box(text, start, m.group(1)):
            continue
        link = end < len(text) and text[end] == "("
        glued = bool(before) and (before.isalnum() or before == "_")
        parsed = classify(
            m.group(1),
            doc_ids=doc_ids,
            json_paths=has_data and not link,
            glued=glued,
            data_keys=data_keys,
            dataless_paths=not has_data and not link,
        )
        if parsed is None and glued:
            parsed = _glued_citation(text, start, end, m.group(1), doc_ids, n_docs)
        if parsed is None:
            continue
        if parsed.format == "numeric" and _not_a_reference(text, start, parsed, doc_ids, n_docs):
            continue
        gap = text[last_end:start] if last_end >= 0 and start - last_end <= 64 else None
        if gap is None or (gap and (not gap.isspace() or "\n" in gap)):
            group += 1
        last_end = end
        if not out.extend(_build(parsed, m.group(0), start, end, group, len(out.items))):
            break
    return out.items, out.notes


def _build(p: Parsed, raw: str, start: int, end: int, group: int, base: int) -> list[Citation]:
    if p.malformed is not None:
        return [
            Citation(
                index=base,
                raw=raw,
                format=p.format,
                start=start,
                end=end,
                group=group,
                doc_ref=p.doc_ref,
                malformed=p.malformed,
            )
        ]
    if p.format == "numeric":
        return [
            Citation(base + k, raw, "numeric", start, end, group, number=n)
            for k, n in enumerate(p.numbers)
        ]
    if p.format == "json_path":
        return [Citation(base, raw, "json_path", start, end, group, path=p.path)]
    return [
        Citation(
            base + k,
            raw,
            p.format,
            start,
            end,
            group,
            doc_ref=p.doc_ref,
            page=p.page,
            range_start=a,
            range_end=b,
            excerpt=p.excerpt,
        )
        for k, (a, b) in enumerate(p.ranges)
    ]
