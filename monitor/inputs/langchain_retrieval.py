"""`langchain.retrieval`: the output of LangChain's `create_retrieval_chain`,
`{"input": str, "context": [Document.model_dump(mode="json")], "answer": str | AIMessage dump}`.

The documents are the context's, in order (then the envelope's, if any): id the Document's
`id`, else metadata `id` or `source`, else its 1-based position; title metadata `title`; url
metadata `url`, or `source` when it is a URL. A plain answer string is read as a v1 answer
(`[n]` counts the context from 1). An answer message whose text blocks carry v1 content-block
citations (`{"type": "citation", "url", "title", "start_index", "end_index", "cited_text"}`,
offsets into the block's text) gives claims from those ranges: each is a `segment` citation of
the document whose url or id is its `url` (else whose title is its `title`), `cited_text`
found in that document (excerpt_mismatch when it is not).
"""

from __future__ import annotations

from typing import Any

from monitor.inputs.jsonread import as_int, as_list, as_obj, as_str, opt_list, opt_str, raw_of
from monitor.inputs.located import Builder
from monitor.inputs.passages import whole
from monitor.records.models import Document

FORMAT = "langchain.retrieval"


def read(response: dict[str, Any], b: Builder) -> None:
    envelope = b.take_documents()
    for i, item in enumerate(as_list(response.get("context") or [], "response.context")):
        where = f"response.context[{i}]"
        doc = as_obj(item, where)
        text = as_str(doc.get("page_content"), f"{where}.page_content")
        meta: dict[str, Any] = doc["metadata"] if isinstance(doc.get("metadata"), dict) else {}
        source = opt_str(meta, "source")
        doc_id = opt_str(doc, "id") or opt_str(meta, "id") or source or str(i + 1)
        is_url = source is not None and source.startswith(("http://", "https://"))
        url = opt_str(meta, "url") or (source if is_url else None)
        b.add_document(Document(doc_id, text, title=opt_str(meta, "title"), url=url))
    for kept in envelope:
        if not b.knows(kept.id):
            b.add_document(kept)
    question = response.get("input")
    if isinstance(question, str):
        b.question = question  # the envelope's own `question` wins
    answer = response.get("answer")
    if isinstance(answer, dict):
        _message(answer, b)
    else:
        b.add_text(as_str(answer, "response.answer"))
    b.inline = True


def _message(message: dict[str, Any], b: Builder) -> None:
    content = message.get("content")
    if isinstance(content, str):
        b.add_text(content)
        return
    placed = []
    for i, item in enumerate(as_list(content, "response.answer.content")):
        where = f"response.answer.content[{i}]"
        if isinstance(item, str):
            b.add_text(item)
            continue
        block = as_obj(item, where)
        if block.get("type") != "text":
            continue
        text = as_str(block.get("text"), f"{where}.text")
        placed.append((b.add_text(text), text, opt_list(block, "annotations", where), where))
    for offset, text, notes, where in placed:
        for k, item in enumerate(notes):
            a = as_obj(item, f"{where}.annotations[{k}]")
            if a.get("type") != "citation":
                continue
            # offsets are optional: a citation without them supports the whole block
            first, stop = a.get("start_index"), a.get("end_index")
            start = 0 if first is None else as_int(first, f"{where}.annotations[{k}].start_index")
            end = len(text) if stop is None else as_int(stop, f"{where}.annotations[{k}].end_index")
            doc = b.by_id(opt_str(a, "url"))
            title = opt_str(a, "title")
            if doc is None and title:
                doc = next((d for d in b.documents if d.title == title), None)
            quote = opt_str(a, "cited_text")
            resolved = whole(doc, "document_not_found", quote, b.options)
            part = (offset, offset + len(text))
            b.cite(
                "range",
                offset + start,
                offset + end,
                raw_of({k2: v for k2, v in a.items() if k2 != "id"}),
                "segment",
                resolved,
                excerpt=quote,
                within=part,
            )
