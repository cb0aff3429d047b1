"""`gemini.generate_content`: a GenerateContentResponse (Gemini API, google-genai), as the HTTP
body (camelCase) or the SDK's dump (snake_case); proto3 leaves zeros out, so a missing index is 0.

The answer is the first candidate's text parts joined as they come (thought parts are not
answer text). Each of `groundingMetadata.groundingSupports[]` names a segment of the answer in
**UTF-8 bytes** of part `segment.partIndex`: [startIndex, endIndex), converted to code points
(an offset inside a character is a dead letter: the producer's offsets are not this answer's).
`segment.text` is the API's copy of that range (excerpt_mismatch when it differs). The segment
is a claim; each of its `groundingChunkIndices` j is one `segment` citation of a whole document:
documents[j] of the envelope (request order), else the chunk's own `retrievedContext.text`
(becoming a document), else a `web` chunk's page: the document whose url or id is its `uri`
(none: an unknown document). An index past the chunks and the documents is index_out_of_range.
"""

from __future__ import annotations

from typing import Any

from monitor.inputs.jsonread import (
    Unreadable,
    as_int,
    as_list,
    as_obj,
    as_str,
    opt_str,
    pick,
    raw_of,
)
from monitor.inputs.located import Builder
from monitor.inputs.passages import Resolved, utf8_to_chars, whole
from monitor.records.models import Document

FORMAT = "gemini.generate_content"
_INDEX_KEYS = ("groundingChunkIndices", "grounding_chunk_indices")


def read(response: dict[str, Any], b: Builder) -> None:
    b.model = opt_str(response, "modelVersion") or opt_str(response, "model_version")
    candidates = as_list(response.get("candidates"), "response.candidates")
    if not candidates:
        raise Unreadable("invalid_response", "response.candidates must not be empty")
    if len(candidates) > 1:
        b.notes.append(f"candidates: {len(candidates)}, the first read")
    cand = as_obj(candidates[0], "response.candidates[0]")
    content = cand.get("content")
    raw_parts = (
        []
        if content is None
        else as_list(
            as_obj(content, "response.candidates[0].content").get("parts") or [],
            "response.candidates[0].content.parts",
        )
    )
    parts: list[tuple[int, str] | None] = []
    for i, item in enumerate(raw_parts):
        part = as_obj(item, f"response.candidates[0].content.parts[{i}]")
        text = part.get("text")
        if text is None or part.get("thought"):
            parts.append(None)
            continue
        text = as_str(text, f"response.candidates[0].content.parts[{i}].text")
        parts.append((b.add_text(text), text))
    meta = pick(cand, "groundingMetadata", "grounding_metadata")
    if meta is None:
        return
    meta = as_obj(meta, "response.candidates[0].groundingMetadata")
    chunks = pick(meta, "groundingChunks", "grounding_chunks") or []
    chunks = as_list(chunks, "groundingMetadata.groundingChunks")
    envelope_docs = len(b.documents)
    chunk_docs: dict[int, Document | None] = {}
    supports = pick(meta, "groundingSupports", "grounding_supports") or []
    for k, item in enumerate(as_list(supports, "groundingMetadata.groundingSupports")):
        where = f"groundingMetadata.groundingSupports[{k}]"
        support = as_obj(item, where)
        segment = as_obj(support.get("segment"), f"{where}.segment")
        index = as_int(pick(segment, "partIndex", "part_index") or 0, f"{where}.segment.partIndex")
        first = as_int(
            pick(segment, "startIndex", "start_index") or 0, f"{where}.segment.startIndex"
        )
        stop = as_int(pick(segment, "endIndex", "end_index") or 0, f"{where}.segment.endIndex")
        quote = opt_str(segment, "text")
        placed = parts[index] if 0 <= index < len(parts) else None
        indices = pick(support, "groundingChunkIndices", "grounding_chunk_indices") or []
        indices = as_list(indices, f"{where}.groundingChunkIndices")
        shown = {key: v for key, v in segment.items() if key != "text"}
        base = {key: v for key, v in support.items() if key not in _INDEX_KEYS}
        if placed is None:  # the segment names no text part of the answer
            for j in indices or [None]:
                raw = raw_of({**base, "segment": shown, "groundingChunkIndices": [j]})
                missing = Resolved(None, "index_out_of_range")
                b.cite("point", b.length, b.length, raw, "segment", missing)
            continue
        offset, text = placed
        start, end = utf8_to_chars(text, [first, stop], f"{where}.segment")
        for j in indices or [None]:
            if j is None:
                resolved = Resolved(None, "malformed")
            else:
                j = as_int(j, f"{where}.groundingChunkIndices[]")
                resolved = _chunk(j, chunks, envelope_docs, chunk_docs, b)
            b.cite(
                "range",
                offset + start,
                offset + end,
                raw_of({**base, "segment": shown, "groundingChunkIndices": [j]}),
                "segment",
                resolved,
                answer_quote=quote,
                within=(offset, offset + len(text)),
            )


def _chunk(
    j: int,
    chunks: list[Any],
    envelope_docs: int,
    chunk_docs: dict[int, Document | None],
    b: Builder,
) -> Resolved:
    if 0 <= j < envelope_docs:
        return whole(b.documents[j], "document_not_found", None, b.options)
    if not 0 <= j < len(chunks):
        return Resolved(None, "index_out_of_range")
    if j not in chunk_docs:
        chunk_docs[j] = _chunk_document(j, as_obj(chunks[j], f"groundingChunks[{j}]"), b)
    return whole(chunk_docs[j], "document_not_found", None, b.options)


def _chunk_document(j: int, chunk: dict[str, Any], b: Builder) -> Document | None:
    context = pick(chunk, "retrievedContext", "retrieved_context")
    if isinstance(context, dict) and isinstance(context.get("text"), str):
        uri, title = opt_str(context, "uri"), opt_str(context, "title")
        found = b.by_id(uri)
        if found is not None:
            return found
        doc_id = uri or title or f"chunk-{j}"
        return b.add_document(Document(doc_id, context["text"], title=title, url=uri))
    web = chunk.get("web")
    if isinstance(web, dict):
        return b.by_id(opt_str(web, "uri"))
    return None
