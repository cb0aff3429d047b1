"""`cohere.chat.v2`: a V2ChatResponse (Cohere Chat API v2).

The answer is `message.content[]`'s text items joined as they come. Each of
`message.citations[]` names a range of the answer, `start`/`end` in characters of the content
item `content_index` (default 0), and its `text` is the API's copy of that range (checked like an
excerpt: excerpt_mismatch when it differs). The range is a claim; each of its `sources` is one
`segment` citation of a whole document: the envelope's document whose id is the source's `id`,
else the document the source carries (`document` of a document source, `tool_output` of a tool
source: its `text`, `snippet` or `content`, else its string values). Citations of the tool plan
(`type` PLAN) cite no answer text and are left out, with a note.
"""

from __future__ import annotations

from typing import Any

from monitor.inputs.jsonread import as_int, as_list, as_obj, as_str, opt_list, opt_str, raw_of
from monitor.inputs.located import Builder
from monitor.inputs.passages import whole
from monitor.records.models import Document

FORMAT = "cohere.chat.v2"
_TEXT_KEYS = ("text", "snippet", "content")


def read(response: dict[str, Any], b: Builder) -> None:
    message = as_obj(response.get("message"), "response.message")
    content = message.get("content")
    items = [] if content is None else as_list(content, "response.message.content")
    parts: list[tuple[int, int]] = []
    for i, item in enumerate(items):
        entry = as_obj(item, f"response.message.content[{i}]")
        if entry.get("type") not in (None, "text"):
            parts.append((b.length, b.length))
            continue
        text = as_str(entry.get("text"), f"response.message.content[{i}].text")
        start = b.add_text(text)
        parts.append((start, start + len(text)))
    plans = 0
    for k, item in enumerate(opt_list(message, "citations", "response.message")):
        where = f"response.message.citations[{k}]"
        c = as_obj(item, where)
        if c.get("type") == "PLAN":
            plans += 1
            continue
        start = as_int(c.get("start"), f"{where}.start")
        end = as_int(c.get("end"), f"{where}.end")
        index = c.get("content_index")
        index = 0 if index is None else as_int(index, f"{where}.content_index")
        lo, hi = parts[index] if 0 <= index < len(parts) else (b.length, b.length)
        quote = opt_str(c, "text")
        sources = opt_list(c, "sources", where)
        if not sources:
            malformed = whole(None, "malformed", None, b.options)
            b.cite("range", lo + start, lo + end, raw_of(c), "segment", malformed, within=(lo, hi))
        for n, item2 in enumerate(sources):
            source = as_obj(item2, f"{where}.sources[{n}]")
            doc = _document(source, b, f"{where}.sources[{n}]")
            named = {k: source[k] for k in ("type", "id") if k in source}
            raw = raw_of({**c, "sources": [named]})
            b.cite(
                "range",
                lo + start,
                lo + end,
                raw,
                "segment",
                whole(doc, "document_not_found", None, b.options),
                answer_quote=quote,
                within=(lo, hi),
            )
    if plans:
        b.notes.append(f"tool plan citations left out: {plans}")


def _document(source: dict[str, Any], b: Builder, where: str) -> Document | None:
    source_id = opt_str(source, "id")
    doc = b.by_id(source_id)
    if doc is not None:
        return doc
    carried = source.get("document", source.get("tool_output"))
    if not isinstance(carried, dict):
        return None
    text = next((carried[k] for k in _TEXT_KEYS if isinstance(carried.get(k), str)), None)
    if text is None:
        text = "\n".join(v for k, v in carried.items() if isinstance(v, str) and k != "id")
    doc_id = source_id or opt_str(carried, "id")
    if not doc_id:
        return None
    title, url = opt_str(carried, "title"), opt_str(carried, "url")
    return b.add_document(Document(doc_id, text, title=title, url=url))
