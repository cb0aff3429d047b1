"""`llamaindex.response`: a LlamaIndex query engine's Response, as
`{"response": str, "source_nodes": [NodeWithScore.model_dump(mode="json")], "metadata": {...}}`.

LlamaIndex gives no citation structure: its answer is plain text, and a CitationQueryEngine
writes `[n]` markers into it that count the source nodes from 1. So the answer is read as a v1
answer whose documents are the source nodes, in order (then the envelope's, if any): each node
becomes a document (id: the node's `id_`; text: its text; title: metadata `title` or
`file_name`; url: metadata `url`), `[n]` resolves to the n-th node, and claims and uncited
sentences are v1's.
"""

from __future__ import annotations

from typing import Any

from monitor.inputs.jsonread import as_list, as_obj, as_str, opt_str
from monitor.inputs.located import Builder
from monitor.records.models import Document

FORMAT = "llamaindex.response"


def read(response: dict[str, Any], b: Builder) -> None:
    answer = response.get("response")
    b.add_text("" if answer is None else as_str(answer, "response.response"))
    envelope = b.take_documents()
    for i, item in enumerate(as_list(response.get("source_nodes") or [], "response.source_nodes")):
        where = f"response.source_nodes[{i}]"
        node = as_obj(as_obj(item, where).get("node"), f"{where}.node")
        text = node.get("text")
        if text is None and isinstance(node.get("text_resource"), dict):
            text = node["text_resource"].get("text")
        text = as_str(text, f"{where}.node.text")
        meta: dict[str, Any] = node["metadata"] if isinstance(node.get("metadata"), dict) else {}
        node_id = opt_str(node, "id_") or opt_str(node, "id") or str(i + 1)
        title = opt_str(meta, "title") or opt_str(meta, "file_name")
        b.add_document(Document(node_id, text, title=title, url=opt_str(meta, "url")))
    for kept in envelope:
        if not b.knows(kept.id):
            b.add_document(kept)
    b.inline = True
