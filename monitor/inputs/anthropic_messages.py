"""`anthropic.messages`: a Message (Anthropic Messages API) with citations on its text blocks.

The answer is the text blocks joined as they come (the API splits a sentence around its cited
part, so no separator is added); thinking, tool and other blocks are not answer text. A text
block with citations is a claim. Citations index the *document*, never the answer:
- char_location: characters [start_char_index, end_char_index) of documents[document_index]
  (0-based, end exclusive) → a `span` citation with that range;
- page_location: pages [start_page_number, end_page_number) (1-based, end exclusive) of the
  document's `pages` (a document with only `text` is one page);
- content_block_location: blocks [start_block_index, end_block_index) (0-based) of a custom
  content document, whose blocks are the ragmon document's `pages`;
- search_result_location: the document whose id or url is the result's `source`, else
  documents[search_result_index]; its blocks as for content blocks;
- web_search_result_location: the document whose url or id is the `url` (none: the document is
  unknown), the cited text anywhere in it.
`cited_text` is checked against the resolved passage (excerpt_mismatch when it differs).
"""

from __future__ import annotations

from typing import Any

from monitor.config.options import CheckOptions
from monitor.inputs.jsonread import as_int, as_list, as_obj, as_str, opt_list, opt_str, raw_of
from monitor.inputs.located import Builder
from monitor.inputs.passages import Resolved, chars, units, whole
from monitor.records.models import CitationFormat, Document

FORMAT = "anthropic.messages"


def read(response: dict[str, Any], b: Builder) -> None:
    b.model = opt_str(response, "model")
    blocks = as_list(response.get("content"), "response.content")
    placed: list[tuple[int, int, list[Any], str]] = []
    for i, item in enumerate(blocks):
        where = f"response.content[{i}]"
        block = as_obj(item, where)
        if block.get("type") != "text":
            continue
        text = as_str(block.get("text"), f"{where}.text")
        start = b.add_text(text)
        placed.append((start, start + len(text), opt_list(block, "citations", where), where))
    for start, end, citations, where in placed:
        for k, item in enumerate(citations):
            c = as_obj(item, f"{where}.citations[{k}]")
            fmt, resolved = _resolve(c, f"{where}.citations[{k}]", b)
            b.cite("range", start, end, raw_of(c), fmt, resolved, excerpt=opt_str(c, "cited_text"))


def _resolve(c: dict[str, Any], where: str, b: Builder) -> tuple[CitationFormat, Resolved]:
    kind = c.get("type")
    quote = opt_str(c, "cited_text")
    opts: CheckOptions = b.options
    if kind == "web_search_result_location":
        url = opt_str(c, "url")
        return "segment", whole(b.by_id(url), "document_not_found", quote, opts)
    if kind == "search_result_location":
        doc = b.by_id(opt_str(c, "source"))
        if doc is None:
            doc = _indexed(
                b.documents, c.get("search_result_index"), f"{where}.search_result_index"
            )
        if doc is None:
            return "span", Resolved(None, "index_out_of_range")
        first = as_int(c.get("start_block_index"), f"{where}.start_block_index")
        stop = as_int(c.get("end_block_index"), f"{where}.end_block_index")
        return "span", units(doc, first, stop, 0, quote, opts)
    if kind not in ("char_location", "page_location", "content_block_location"):
        return "span", Resolved(None, "malformed")
    doc = _indexed(b.documents, c.get("document_index"), f"{where}.document_index")
    if doc is None:
        return "span", Resolved(None, "index_out_of_range")
    if kind == "char_location":
        first = as_int(c.get("start_char_index"), f"{where}.start_char_index")
        stop = as_int(c.get("end_char_index"), f"{where}.end_char_index")
        return "span", chars(doc, first, stop, quote, opts)
    if kind == "page_location":
        first = as_int(c.get("start_page_number"), f"{where}.start_page_number")
        stop = as_int(c.get("end_page_number"), f"{where}.end_page_number")
        return "span", units(doc, first, stop, 1, quote, opts)
    first = as_int(c.get("start_block_index"), f"{where}.start_block_index")
    stop = as_int(c.get("end_block_index"), f"{where}.end_block_index")
    return "span", units(doc, first, stop, 0, quote, opts)


def _indexed(documents: list[Document], value: Any, where: str) -> Document | None:
    index = as_int(value, where)
    return documents[index] if 0 <= index < len(documents) else None
