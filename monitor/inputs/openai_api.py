"""`openai.responses` (a Response) and `openai.chat` (a ChatCompletion): annotations index the
*answer* text in characters.

- Responses: the answer is the `output_text` parts of the `message` items joined as they come
  (what the SDK's `output_text` gives); annotations index their own part. Documents beyond the
  envelope's: the `file_search_call` results when the request included them (their `text`,
  chunks of one file joined), one document per file id.
- Chat Completions: the first choice's `message.content`; `message.annotations[]` as
  `{"type": "url_citation", "url_citation": {...}}`.
Annotations:
- `file_citation` {file_id, filename, index}: the document whose id is the file id or the file
  name; `index` is a position, not a span: the claim is the sentence that ends there (an index
  past the text, which happens, is read as the end of the text, with a note);
- `url_citation` {url, title, start_index, end_index}: the document whose url or id is the URL
  (none: a citation to an unknown document);
- `container_file_citation` {container_id, file_id, filename, start_index, end_index}: as a file.
A range that holds a rendered link (`([site](url))`, as the web search tool writes them) is a
marker, like `[n]`: its claim is the sentence around it. Any other range is the claim itself.
`file_path` annotations point at a generated file, not a source: they are not citations.
"""

from __future__ import annotations

import re
from typing import Any

from monitor.inputs.jsonread import (
    as_int,
    as_list,
    as_obj,
    as_str,
    bad,
    opt_list,
    opt_str,
    pick,
    raw_of,
)
from monitor.inputs.located import Builder
from monitor.inputs.passages import whole
from monitor.records.models import Document

RESPONSES = "openai.responses"
CHAT = "openai.chat"
_LINK = re.compile(r"\s*\(?\s*\[[^\]\n]*\]\([^)\s]*\)\s*\)?\s*")


def read_responses(response: dict[str, Any], b: Builder) -> None:
    b.model = opt_str(response, "model")
    output = as_list(response.get("output"), "response.output")
    texts: list[tuple[int, str, list[Any], str]] = []
    chunks: dict[str, list[str]] = {}
    names: dict[str, str | None] = {}
    for i, item in enumerate(output):
        where = f"response.output[{i}]"
        entry = as_obj(item, where)
        if entry.get("type") == "file_search_call":
            for k, hit in enumerate(opt_list(entry, "results", where)):
                result = as_obj(hit, f"{where}.results[{k}]")
                file_id, text = opt_str(result, "file_id"), opt_str(result, "text")
                if file_id and text is not None:
                    chunks.setdefault(file_id, []).append(text)
                    names[file_id] = opt_str(result, "filename")
            continue
        if entry.get("type") != "message":
            continue
        for j, part in enumerate(as_list(entry.get("content"), f"{where}.content")):
            pwhere = f"{where}.content[{j}]"
            content = as_obj(part, pwhere)
            if content.get("type") != "output_text":
                continue  # a refusal is no answer text
            text = as_str(content.get("text"), f"{pwhere}.text")
            texts.append((b.add_text(text), text, opt_list(content, "annotations", pwhere), pwhere))
    for file_id, parts in chunks.items():
        if b.by_id(file_id, names[file_id]) is None:
            b.add_document(Document(file_id, "\n\n".join(parts), title=names[file_id]))
    for offset, text, notes, where in texts:
        for k, item in enumerate(notes):
            _annotation(as_obj(item, f"{where}.annotations[{k}]"), offset, text, b, where, k)


def read_chat(response: dict[str, Any], b: Builder) -> None:
    b.model = opt_str(response, "model")
    choices = as_list(response.get("choices"), "response.choices")
    if not choices:
        raise bad("response.choices", "a non-empty array")
    if len(choices) > 1:
        b.notes.append(f"choices: {len(choices)}, the first read")
    message = as_obj(
        as_obj(choices[0], "response.choices[0]").get("message"), "response.choices[0].message"
    )
    content = message.get("content")
    text = "" if content is None else as_str(content, "response.choices[0].message.content")
    offset = b.add_text(text)
    where = "response.choices[0].message"
    for k, item in enumerate(opt_list(message, "annotations", where)):
        entry = as_obj(item, f"{where}.annotations[{k}]")
        kind = entry.get("type")
        inner = entry.get(kind) if isinstance(kind, str) else None
        flat = {"type": kind, **as_obj(inner, f"{where}.annotations[{k}].{kind}")}
        _annotation(flat, offset, text, b, where, k)


def _annotation(a: dict[str, Any], offset: int, text: str, b: Builder, where: str, k: int) -> None:
    kind = a.get("type")
    here = f"{where}.annotations[{k}]"
    if kind == "file_path":
        return
    if kind == "file_citation":
        file_id, filename = opt_str(a, "file_id"), opt_str(a, "filename")
        resolved = whole(b.by_id(file_id, filename), "document_not_found", None, b.options)
        index = as_int(a.get("index"), f"{here}.index")
        if index > len(text):
            b.notes.append(f"file_citation index {index} past the text ({len(text)}): its end")
            index = len(text)
        b.cite("point", offset + index, offset + index, raw_of(a), "segment", resolved)
        return
    if kind not in ("url_citation", "container_file_citation"):
        malformed = whole(None, "malformed", None, b.options)
        b.cite("point", offset, offset, raw_of(a), "segment", malformed)
        return
    start = as_int(pick(a, "startIndex", "start_index"), f"{here}.start_index")
    end = as_int(pick(a, "endIndex", "end_index"), f"{here}.end_index")
    url = opt_str(a, "url")
    if kind == "url_citation":
        doc = b.by_id(url)
    else:
        doc = b.by_id(opt_str(a, "file_id"), opt_str(a, "filename"))
    resolved = whole(doc, "document_not_found", None, b.options)
    part = (offset, offset + len(text))
    shown = text[start:end] if 0 <= start < end <= len(text) else ""
    if shown and (_LINK.fullmatch(shown) or (url and url in shown)):
        b.cite("marker", offset + start, offset + end, shown, "numeric", resolved, within=part)
    else:
        b.cite("range", offset + start, offset + end, raw_of(a), "segment", resolved, within=part)
