"""Envelopes of vendor API responses built with the vendors' own SDK types, with what ragmon must
make of them, worked out by hand (shared by the unit tests and the stream test).

Each response is validated by its SDK's model (`Model.model_validate(json)` or constructors)
and serialised as the SDK does (`model_dump(mode="json")`), so a field the SDK renames, adds or
refuses shows up here. The SDKs are test-only (the `sdks` extra); the adapters read plain JSON.

The documents (offsets worked out by hand, code points):
  grass.txt     "The grass is green. The sky is blue."                     (36)
                 [0,19) "The grass is green."  [20,36) "The sky is blue."
  penguins.txt  "Emperor penguins are the tallest penguins. They breed in Antarctica during
                 winter."                                                   (82)
                 [0,42) first sentence  [43,82) second
  report.pdf    pages "Revenue grew 12% in 2023." / "Costs fell 3% in 2023." / "The outlook
                 is stable."
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from typing import Any

SDKS = ("anthropic", "openai", "cohere", "google.genai", "llama_index.core", "langchain_core")


def require_sdks() -> None:
    """Skip the calling test module without the `sdks` extra; under CI=true, fail instead (CI
    installs it: `make`)."""
    import pytest

    missing = [m for m in SDKS if importlib.util.find_spec(m.split(".")[0]) is None]
    if not missing:
        missing = [m for m in SDKS if importlib.util.find_spec(m) is None]
    if missing:
        message = f"vendor SDKs missing (pip install -e '.[sdks]'): {', '.join(missing)}"
        if os.environ.get("CI") == "true":
            raise ImportError(message)
        pytest.skip(message, allow_module_level=True)


GRASS = "The grass is green. The sky is blue."
PENGUINS = "Emperor penguins are the tallest penguins. They breed in Antarctica during winter."
PAGES = ["Revenue grew 12% in 2023.", "Costs fell 3% in 2023.", "The outlook is stable."]
MOON = "The moon is made of green cheese and orbits Saturn every week."


@dataclass(frozen=True)
class Cite:
    format: str
    doc_id: str | None
    error: str | None = None  # None: valid
    cited_text: str | None = None
    range: tuple[int, int] | None = None  # range_start, range_end (span citations)
    page: int | None = None


@dataclass(frozen=True)
class Case:
    name: str
    fmt: str
    envelope: dict[str, Any]
    # (claim text, citation indexes, cheap verdict)
    claims: list[tuple[str, tuple[int, ...], str]] = field(default_factory=list)
    citations: list[Cite] = field(default_factory=list)
    rejected: tuple[str, str] | None = None  # (reason, part of the detail)
    notes: tuple[str, ...] = ()
    app: str = "vendors"


def envelope(
    fmt: str, name: str, response: dict[str, Any], docs: list[dict[str, Any]] | None
) -> dict[str, Any]:
    out: dict[str, Any] = {"format": fmt, "event_id": f"{fmt}:{name}", "app": "vendors"}
    out["question"] = "What do the sources say?"
    out["response"] = response
    if docs is not None:
        out["documents"] = docs
    return out


def grass_doc() -> dict[str, Any]:
    return {"id": "grass.txt", "text": GRASS}


def penguin_doc() -> dict[str, Any]:
    return {"id": "penguins.txt", "text": PENGUINS}


# --- Anthropic Messages -------------------------------------------------------------------------


def _anthropic(content: list[dict[str, Any]]) -> dict[str, Any]:
    from anthropic.types import Message

    message = Message.model_validate(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 120, "output_tokens": 40},
            "content": content,
        }
    )
    return message.model_dump(mode="json")


def _char(doc: int, start: int, end: int, cited: str) -> dict[str, Any]:
    return {
        "type": "char_location",
        "cited_text": cited,
        "document_index": doc,
        "document_title": None,
        "start_char_index": start,
        "end_char_index": end,
    }


def anthropic_cases() -> list[Case]:
    fmt = "anthropic.messages"
    multi = _anthropic(
        [
            {"type": "text", "text": "According to the sources, "},
            {
                "type": "text",
                "text": "the grass is green",
                "citations": [_char(0, 0, 19, "The grass is green.")],
            },
            {"type": "text", "text": " and "},
            {
                "type": "text",
                "text": "emperor penguins are the tallest penguins",
                "citations": [_char(1, 0, 42, "Emperor penguins are the tallest penguins.")],
            },
            {"type": "text", "text": "."},
        ]
    )
    pages = _anthropic(
        [
            {
                "type": "text",
                "text": "Revenue grew 12% in 2023",
                "citations": [
                    {
                        "type": "page_location",
                        "cited_text": "Revenue grew 12% in 2023.",
                        "document_index": 0,
                        "document_title": "report.pdf",
                        "start_page_number": 1,
                        "end_page_number": 2,
                    }
                ],
            },
            {"type": "text", "text": ", while "},
            {
                "type": "text",
                "text": "costs fell 3% and the outlook is stable",
                "citations": [
                    {
                        "type": "page_location",
                        "cited_text": "Costs fell 3% in 2023. The outlook is stable.",
                        "document_index": 0,
                        "document_title": "report.pdf",
                        "start_page_number": 2,
                        "end_page_number": 4,
                    }
                ],
            },
            {"type": "text", "text": "."},
        ]
    )
    remainder = _anthropic(
        [
            {
                "type": "text",
                "text": "The sky is blue.",
                "citations": [
                    {
                        "type": "content_block_location",
                        "cited_text": "The sky is blue.",
                        "document_index": 0,
                        "document_title": None,
                        "start_block_index": 1,
                        "end_block_index": 2,
                    }
                ],
            },
            {"type": "text", "text": " " + MOON},
        ]
    )
    broken = _anthropic(
        [
            {"type": "text", "text": "Grass is green", "citations": [_char(3, 0, 5, "x")]},
            {"type": "text", "text": ", "},
            {"type": "text", "text": "skies are blue", "citations": [_char(0, 20, 99, "The sky")]},
            {"type": "text", "text": " and "},
            {
                "type": "text",
                "text": "the grass is green",
                "citations": [_char(0, 0, 19, "Penguins are tall.")],
            },
            {"type": "text", "text": "."},
        ]
    )
    web = _anthropic(
        [
            {
                "type": "text",
                "text": "Emperor penguins breed in Antarctica during winter",
                "citations": [
                    {
                        "type": "web_search_result_location",
                        "cited_text": "They breed in Antarctica during winter.",
                        "url": "https://example.org/penguins",
                        "title": "Penguins",
                        "encrypted_index": "Eo8BCioIAhgBIiQ",
                    },
                    {
                        "type": "web_search_result_location",
                        "cited_text": "Penguins breed in winter.",
                        "url": "https://example.org/missing",
                        "title": "Missing",
                        "encrypted_index": "Eo8BCioIAhgBIiR",
                    },
                ],
            },
            {"type": "text", "text": "."},
        ]
    )
    return [
        Case(
            "multi_document",
            fmt,
            envelope(fmt, "multi", multi, [grass_doc(), penguin_doc()]),
            claims=[
                ("the grass is green", (0,), "supported"),
                ("emperor penguins are the tallest penguins", (1,), "supported"),
            ],
            citations=[
                Cite("span", "grass.txt", None, "The grass is green.", (0, 19)),
                Cite(
                    "span",
                    "penguins.txt",
                    None,
                    "Emperor penguins are the tallest penguins.",
                    (0, 42),
                ),
            ],
        ),
        Case(
            "page_citation",
            fmt,
            envelope(fmt, "pages", pages, [{"id": "report.pdf", "pages": PAGES}]),
            claims=[
                ("Revenue grew 12% in 2023", (0,), "supported"),
                ("costs fell 3% and the outlook is stable", (1,), "supported"),
            ],
            citations=[
                Cite("span", "report.pdf", None, "Revenue grew 12% in 2023.", page=1),
                Cite(
                    "span",
                    "report.pdf",
                    None,
                    "Costs fell 3% in 2023.\n\nThe outlook is stable.",
                    page=2,
                ),
            ],
        ),
        Case(
            "uncited_remainder",
            fmt,
            envelope(
                fmt,
                "remainder",
                remainder,
                [{"id": "blocks", "pages": ["The grass is green.", "The sky is blue."]}],
            ),
            claims=[
                ("The sky is blue.", (0,), "supported"),
                (MOON, (), "not_supported"),
            ],
            citations=[Cite("span", "blocks", None, "The sky is blue.")],
        ),
        Case(
            "invalid_citations",
            fmt,
            envelope(fmt, "broken", broken, [grass_doc()]),
            claims=[
                ("Grass is green", (0,), "not_supported"),
                ("skies are blue", (1,), "not_supported"),
                ("the grass is green", (2,), "not_supported"),
            ],
            citations=[
                Cite("span", None, "index_out_of_range"),
                Cite("span", "grass.txt", "span_out_of_bounds", None, (20, 99)),
                Cite("span", "grass.txt", "excerpt_mismatch", "The grass is green.", (0, 19)),
            ],
        ),
        Case(
            "web_search",
            fmt,
            envelope(
                fmt,
                "web",
                web,
                [{"id": "penguins", "url": "https://example.org/penguins", "text": PENGUINS}],
            ),
            claims=[("Emperor penguins breed in Antarctica during winter", (0, 1), "supported")],
            citations=[
                Cite("segment", "penguins", None, PENGUINS),
                Cite("segment", None, "document_not_found"),
            ],
        ),
        Case(
            "malformed_content",
            fmt,
            envelope(fmt, "bad", {**multi, "content": {"type": "text"}}, [grass_doc()]),
            rejected=("invalid_response", "response.content must be an array"),
        ),
        Case(
            "malformed_offset",
            fmt,
            envelope(
                fmt,
                "bad-offset",
                _with(multi, ["content", 1, "citations", 0, "start_char_index"], "0"),
                [grass_doc(), penguin_doc()],
            ),
            rejected=("invalid_response", "citations[0].start_char_index must be an integer"),
        ),
    ]


def _with(obj: Any, path: list[Any], value: Any) -> Any:
    """A deep copy of `obj` with the value at `path` replaced (a malformed variant)."""
    import copy

    out = copy.deepcopy(obj)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


# --- OpenAI Responses and Chat Completions ------------------------------------------------------


def _responses(output: list[dict[str, Any]]) -> dict[str, Any]:
    from openai.types.responses import Response

    response = Response.model_validate(
        {
            "id": "resp_01",
            "object": "response",
            "created_at": 1764236400,
            "model": "gpt-4.1",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": output,
        }
    )
    return response.model_dump(mode="json")


def _message(text: str, annotations: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_01",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": annotations}],
    }


def _file_search(results: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {
        "type": "file_search_call",
        "id": "fs_01",
        "status": "completed",
        "queries": ["grass and penguins"],
        "results": [
            {"file_id": fid, "filename": name, "score": 0.9, "text": text, "attributes": {}}
            for fid, name, text in results
        ],
    }


LINK_G = " ([example.com](https://example.com/grass))"
LINK_P = " ([example.org](https://example.org/penguins))"


def openai_responses_cases() -> list[Case]:
    fmt = "openai.responses"
    text1 = "The grass is green. Emperor penguins are the tallest penguins."
    files = _responses(
        [
            _file_search(
                [
                    ("file-g", "grass.txt", GRASS),
                    ("file-p", "penguins.txt", PENGUINS[:42]),
                    ("file-p", "penguins.txt", PENGUINS[43:]),
                ]
            ),
            _message(
                text1,
                [
                    {
                        "type": "file_citation",
                        "file_id": "file-g",
                        "filename": "grass.txt",
                        "index": 19,
                    },
                    {
                        "type": "file_citation",
                        "file_id": "file-p",
                        "filename": "penguins.txt",
                        "index": 62,
                    },
                ],
            ),
        ]
    )
    text2 = (
        "The grass is green" + LINK_G + ". Emperor penguins are the tallest penguins" + LINK_P + "."
    )
    g0 = text2.index(LINK_G)
    p0 = text2.index(LINK_P)
    urls = _responses(
        [
            _message(
                text2,
                [
                    {
                        "type": "url_citation",
                        "url": "https://example.com/grass",
                        "title": "Grass",
                        "start_index": g0,
                        "end_index": g0 + len(LINK_G),
                    },
                    {
                        "type": "url_citation",
                        "url": "https://example.org/penguins",
                        "title": "P",
                        "start_index": p0,
                        "end_index": p0 + len(LINK_P),
                    },
                ],
            )
        ]
    )
    text3 = "The sky is blue. " + MOON
    ranges = _responses(
        [
            _message(
                text3,
                [
                    {
                        "type": "url_citation",
                        "url": "https://example.com/grass",
                        "title": "Grass",
                        "start_index": 0,
                        "end_index": 16,
                    },
                    {
                        "type": "url_citation",
                        "url": "https://unknown.example/x",
                        "title": "X",
                        "start_index": 0,
                        "end_index": 16,
                    },
                    {
                        "type": "url_citation",
                        "url": "https://example.com/grass",
                        "title": "Grass",
                        "start_index": 70,
                        "end_index": 90,
                    },
                ],
            )
        ]
    )
    past = _responses(
        [
            _file_search([("file-g", "grass.txt", GRASS)]),
            _message(
                "The grass is green and the sky is blue.",
                [
                    {
                        "type": "file_citation",
                        "file_id": "file-g",
                        "filename": "grass.txt",
                        "index": 57,
                    }
                ],
            ),
        ]
    )
    url_docs = [
        {"id": "grass", "url": "https://example.com/grass", "text": GRASS},
        {"id": "https://example.org/penguins", "text": PENGUINS},
    ]
    return [
        Case(
            "file_search_multi_document",
            fmt,
            envelope(fmt, "files", files, None),
            claims=[
                ("The grass is green.", (0,), "supported"),
                ("Emperor penguins are the tallest penguins.", (1,), "supported"),
            ],
            citations=[
                Cite("segment", "file-g", None, GRASS),
                Cite("segment", "file-p", None, PENGUINS[:42] + "\n\n" + PENGUINS[43:]),
            ],
        ),
        Case(
            "url_markers",
            fmt,
            envelope(fmt, "urls", urls, url_docs),
            claims=[
                ("The grass is green" + LINK_G + ".", (0,), "supported"),
                ("Emperor penguins are the tallest penguins" + LINK_P + ".", (1,), "supported"),
            ],
            citations=[
                Cite("numeric", "grass", None, GRASS),
                Cite("numeric", "https://example.org/penguins", None, PENGUINS),
            ],
        ),
        Case(
            "ranges_unknown_url_uncited_remainder",
            fmt,
            envelope(fmt, "ranges", ranges, url_docs),
            claims=[
                ("The sky is blue.", (0, 1), "supported"),
                (MOON, (), "not_supported"),
            ],
            citations=[
                Cite("segment", "grass", None, GRASS),
                Cite("segment", None, "document_not_found"),
                Cite("segment", "grass", "span_out_of_bounds", GRASS),
            ],
        ),
        Case(
            "file_citation_index_past_text",
            fmt,
            envelope(fmt, "past", past, None),
            claims=[("The grass is green and the sky is blue.", (0,), "supported")],
            citations=[Cite("segment", "file-g", None, GRASS)],
            notes=("file_citation index 57 past the text (39)",),
        ),
        Case(
            "malformed_text",
            fmt,
            envelope(fmt, "bad", _with(files, ["output", 1, "content", 0, "text"], None), None),
            rejected=("invalid_response", "response.output[1].content[0].text must be a string"),
        ),
        Case(
            "missing_response",
            fmt,
            {"format": fmt, "event_id": "openai.responses:none", "app": "vendors"},
            rejected=("invalid_response", "response is required"),
        ),
    ]


def _chat(content: str, annotations: list[dict[str, Any]], n: int = 1) -> dict[str, Any]:
    from openai.types.chat import ChatCompletion

    choice = {
        "finish_reason": "stop",
        "message": {"role": "assistant", "content": content, "annotations": annotations},
    }
    completion = ChatCompletion.model_validate(
        {
            "id": "chatcmpl-01",
            "object": "chat.completion",
            "created": 1764236400,
            "model": "gpt-4o-search-preview",
            "choices": [{**choice, "index": i} for i in range(n)],
        }
    )
    return completion.model_dump(mode="json")


def _url(url: str, start: int, end: int) -> dict[str, Any]:
    return {
        "type": "url_citation",
        "url_citation": {"url": url, "title": "t", "start_index": start, "end_index": end},
    }


def openai_chat_cases() -> list[Case]:
    fmt = "openai.chat"
    docs = [
        {"id": "grass", "url": "https://example.com/grass", "text": GRASS},
        {"id": "penguins", "url": "https://example.org/penguins", "text": PENGUINS},
    ]
    text1 = (
        "The grass is green" + LINK_G + ". Emperor penguins are the tallest penguins" + LINK_P + "."
    )
    g0, p0 = text1.index(LINK_G), text1.index(LINK_P)
    markers = _chat(
        text1,
        [
            _url("https://example.com/grass", g0, g0 + len(LINK_G)),
            _url("https://example.org/penguins", p0, p0 + len(LINK_P)),
        ],
    )
    text2 = "Emperor penguins are the tallest penguins. " + MOON
    remainder = _chat(text2, [_url("https://example.org/penguins", 0, 42)])
    past = _chat("The sky is blue.", [_url("https://example.com/grass", 4, 40)])
    two = _chat("The sky is blue.", [_url("https://example.com/grass", 0, 16)], n=2)
    return [
        Case(
            "url_markers_multi_document",
            fmt,
            envelope(fmt, "markers", markers, docs),
            claims=[
                ("The grass is green" + LINK_G + ".", (0,), "supported"),
                ("Emperor penguins are the tallest penguins" + LINK_P + ".", (1,), "supported"),
            ],
            citations=[
                Cite("numeric", "grass", None, GRASS),
                Cite("numeric", "penguins", None, PENGUINS),
            ],
        ),
        Case(
            "uncited_remainder",
            fmt,
            envelope(fmt, "remainder", remainder, docs),
            claims=[
                ("Emperor penguins are the tallest penguins.", (0,), "supported"),
                (MOON, (), "not_supported"),
            ],
            citations=[Cite("segment", "penguins", None, PENGUINS)],
        ),
        Case(
            "range_past_text",
            fmt,
            envelope(fmt, "past", past, docs),
            claims=[("The sky is blue.", (), "supported")],
            citations=[Cite("segment", "grass", "span_out_of_bounds", GRASS)],
        ),
        Case(
            "two_choices",
            fmt,
            envelope(fmt, "two", two, docs),
            claims=[("The sky is blue.", (0,), "supported")],
            citations=[Cite("segment", "grass", None, GRASS)],
            notes=("choices: 2, the first read",),
        ),
        Case(
            "malformed_no_choice",
            fmt,
            envelope(fmt, "bad", {**markers, "choices": []}, docs),
            rejected=("invalid_response", "response.choices must be a non-empty array"),
        ),
        Case(
            "malformed_response_type",
            fmt,
            {**envelope(fmt, "list", markers, docs), "response": [markers]},
            rejected=("invalid_response", "response must be an object, got list"),
        ),
    ]


# --- Cohere Chat v2 -------------------------------------------------------------------------------


def _cohere(text: str, citations: list[dict[str, Any]]) -> dict[str, Any]:
    from cohere import V2ChatResponse

    response = V2ChatResponse.model_validate(
        {
            "id": "c0ffee",
            "finish_reason": "COMPLETE",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "citations": citations,
            },
            "usage": {"billed_units": {"input_tokens": 100, "output_tokens": 30}},
        }
    )
    return response.model_dump(mode="json")


def _source(doc_id: str, document: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "document", "id": doc_id}
    if document is not None:
        out["document"] = document
    return out


def cohere_cases() -> list[Case]:
    fmt = "cohere.chat.v2"
    docs = [grass_doc(), penguin_doc()]
    text1 = "The grass is green and emperor penguins are the tallest penguins."
    multi = _cohere(
        text1,
        [
            {
                "start": 0,
                "end": 18,
                "text": "The grass is green",
                "sources": [_source("grass.txt")],
                "type": "TEXT_CONTENT",
            },
            {
                "start": 23,
                "end": 64,
                "text": "emperor penguins are the tallest penguins",
                "sources": [_source("penguins.txt"), _source("grass.txt")],
                "type": "TEXT_CONTENT",
            },
        ],
    )
    carried = _cohere(
        "Penguins breed in Antarctica during winter.",
        [
            {
                "start": 0,
                "end": 42,
                "text": "Penguins breed in Antarctica during winter",
                "sources": [
                    _source("doc:0", {"id": "doc:0", "snippet": PENGUINS, "title": "Penguins"})
                ],
            },
        ],
    )
    text3 = "The sky is blue. " + MOON
    remainder = _cohere(
        text3,
        [
            {"start": 0, "end": 15, "text": "The sky is blue", "sources": [_source("grass.txt")]},
            {
                "start": 0,
                "end": 8,
                "text": "search grass",
                "sources": [_source("tool:0")],
                "type": "PLAN",
            },
        ],
    )
    wrong = _cohere(
        "The grass is green and the sky is blue.",
        [
            {"start": 0, "end": 18, "text": "Penguins are tall", "sources": [_source("grass.txt")]},
            {"start": 23, "end": 38, "text": "the sky is blue", "sources": [_source("doc:9")]},
        ],
    )
    return [
        Case(
            "multi_document",
            fmt,
            envelope(fmt, "multi", multi, docs),
            claims=[
                ("The grass is green", (0,), "supported"),
                ("emperor penguins are the tallest penguins", (1, 2), "supported"),
            ],
            citations=[
                Cite("segment", "grass.txt", None, GRASS),
                Cite("segment", "penguins.txt", None, PENGUINS),
                Cite("segment", "grass.txt", None, GRASS),
            ],
        ),
        Case(
            "documents_in_sources",
            fmt,
            envelope(fmt, "carried", carried, None),
            claims=[("Penguins breed in Antarctica during winter", (0,), "supported")],
            citations=[Cite("segment", "doc:0", None, PENGUINS)],
        ),
        Case(
            "uncited_remainder_and_plan",
            fmt,
            envelope(fmt, "remainder", remainder, docs),
            claims=[("The sky is blue", (0,), "supported"), (MOON, (), "not_supported")],
            citations=[Cite("segment", "grass.txt", None, GRASS)],
            notes=("tool plan citations left out: 1",),
        ),
        Case(
            "text_mismatch_unknown_source",
            fmt,
            envelope(fmt, "wrong", wrong, docs),
            claims=[
                ("The grass is green", (0,), "not_supported"),
                ("the sky is blue", (1,), "not_supported"),
            ],
            citations=[
                Cite("segment", "grass.txt", "excerpt_mismatch", GRASS),
                Cite("segment", None, "document_not_found"),
            ],
        ),
        Case(
            "malformed_start",
            fmt,
            envelope(fmt, "bad", _with(multi, ["message", "citations", 0, "start"], "zero"), docs),
            rejected=("invalid_response", "response.message.citations[0].start must be an integer"),
        ),
        Case(
            "malformed_message",
            fmt,
            envelope(fmt, "nomsg", {"id": "x", "finish_reason": "COMPLETE"}, docs),
            rejected=("invalid_response", "response.message must be an object"),
        ),
    ]


# --- Gemini generate_content ----------------------------------------------------------------------

CAFE = "Café au lait est né en France. Le thé vert vient de Chine."
CAFE_DOCS = ["Le café au lait est né en France.", "Le thé vert vient de Chine."]


def _gemini(
    text: str, chunks: list[dict[str, Any]], supports: list[dict[str, Any]], snake: bool = False
) -> dict[str, Any]:
    from google.genai import types

    response = types.GenerateContentResponse.model_validate(
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": text}]},
                    "finishReason": "STOP",
                    "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": supports},
                }
            ],
            "modelVersion": "gemini-2.5-flash",
        }
    )
    if snake:  # the SDK's dump: snake_case
        return response.model_dump(mode="json", exclude_none=True)
    # the HTTP body: camelCase, zeros left out as proto3 JSON does
    import json

    return json.loads(response.model_dump_json(exclude_none=True, by_alias=True))


def _support(start: int, end: int, text: str, chunks: list[int]) -> dict[str, Any]:
    segment: dict[str, Any] = {"endIndex": end, "text": text}
    if start:
        segment["startIndex"] = start
    return {"segment": segment, "groundingChunkIndices": chunks}


def _context(uri: str, text: str) -> dict[str, Any]:
    return {"retrievedContext": {"uri": uri, "title": uri.rsplit("/", 1)[-1], "text": text}}


def gemini_cases() -> list[Case]:
    fmt = "gemini.generate_content"
    chunks = [_context("gs://kb/cafe.txt", CAFE_DOCS[0]), _context("gs://kb/the.txt", CAFE_DOCS[1])]
    # bytes: "Café au lait est né en France." is 30 characters, 32 bytes (é, é); the second
    # sentence starts at character 31, byte 33, and ends at character 58, byte 61 (é)
    supports = [
        _support(0, 32, "Café au lait est né en France.", [0]),
        _support(33, 61, "Le thé vert vient de Chine.", [1]),
    ]
    non_ascii = _gemini(CAFE, chunks, supports)
    snake = _gemini(CAFE, chunks, supports, snake=True)
    text2 = "The grass is green. Emperor penguins are the tallest penguins."
    web = [
        {"web": {"uri": "https://example.com/grass", "title": "example.com"}},
        {"web": {"uri": "https://example.org/penguins", "title": "example.org"}},
    ]
    indexed = _gemini(
        text2,
        web,
        [_support(0, 19, "The grass is green.", [0]), _support(20, 62, text2[20:], [1, 0])],
    )
    text3 = "The sky is blue. " + MOON
    remainder = _gemini(
        text3,
        web,
        [_support(0, 16, "The sky is blue.", [0, 1, 7])],
    )
    mismatch = _gemini(
        "The grass is green.", web, [_support(0, 19, "Penguins are the tallest.", [0])]
    )
    split = _gemini(CAFE, chunks, [_support(0, 4, "Caf", [0])])
    return [
        Case(
            "non_ascii_bytes",
            fmt,
            envelope(fmt, "cafe", non_ascii, None),
            claims=[
                ("Café au lait est né en France.", (0,), "supported"),
                ("Le thé vert vient de Chine.", (1,), "supported"),
            ],
            citations=[
                Cite("segment", "gs://kb/cafe.txt", None, CAFE_DOCS[0]),
                Cite("segment", "gs://kb/the.txt", None, CAFE_DOCS[1]),
            ],
        ),
        Case(
            "non_ascii_bytes_sdk_dump",
            fmt,
            envelope(fmt, "cafe-snake", snake, None),
            claims=[
                ("Café au lait est né en France.", (0,), "supported"),
                ("Le thé vert vient de Chine.", (1,), "supported"),
            ],
            citations=[
                Cite("segment", "gs://kb/cafe.txt", None, CAFE_DOCS[0]),
                Cite("segment", "gs://kb/the.txt", None, CAFE_DOCS[1]),
            ],
        ),
        Case(
            "documents_by_index",
            fmt,
            envelope(fmt, "indexed", indexed, [grass_doc(), penguin_doc()]),
            claims=[
                ("The grass is green.", (0,), "supported"),
                ("Emperor penguins are the tallest penguins.", (1, 2), "supported"),
            ],
            citations=[
                Cite("segment", "grass.txt", None, GRASS),
                Cite("segment", "penguins.txt", None, PENGUINS),
                Cite("segment", "grass.txt", None, GRASS),
            ],
        ),
        Case(
            "web_chunks_uncited_remainder",
            fmt,
            envelope(
                fmt,
                "remainder",
                remainder,
                [{"id": "grass", "url": "https://example.com/grass", "text": GRASS}],
            ),
            claims=[("The sky is blue.", (0, 1, 2), "supported"), (MOON, (), "not_supported")],
            citations=[
                Cite("segment", "grass", None, GRASS),
                Cite("segment", None, "document_not_found"),
                Cite("segment", None, "index_out_of_range"),
            ],
        ),
        Case(
            "segment_text_mismatch",
            fmt,
            envelope(fmt, "mismatch", mismatch, [grass_doc()]),
            claims=[("The grass is green.", (0,), "not_supported")],
            citations=[Cite("segment", "grass.txt", "excerpt_mismatch", GRASS)],
        ),
        Case(
            "malformed_split_character",
            fmt,
            envelope(fmt, "split", split, None),
            rejected=("offset_splits_character", "byte offset 4 falls inside a UTF-8 character"),
        ),
        Case(
            "malformed_no_candidates",
            fmt,
            envelope(fmt, "empty", {"candidates": []}, None),
            rejected=("invalid_response", "response.candidates must not be empty"),
        ),
    ]


# --- LlamaIndex -----------------------------------------------------------------------------------


def _llama(answer: str | None, nodes: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    from llama_index.core.base.response.schema import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    response = Response(
        response=answer,
        source_nodes=[
            NodeWithScore(node=TextNode(id_=nid, text=text, metadata=meta), score=0.8 - i / 10)
            for i, (nid, text, meta) in enumerate(nodes)
        ],
        metadata={"engine": "citation"},
    )
    # Response is a dataclass; its nodes are pydantic models: serialised as the SDK does
    return {
        "response": response.response,
        "source_nodes": [n.model_dump(mode="json") for n in response.source_nodes],
        "metadata": response.metadata,
    }


def llamaindex_cases() -> list[Case]:
    fmt = "llamaindex.response"
    nodes = [
        ("n-grass", "Source 1:\n" + GRASS, {"file_name": "grass.txt"}),
        ("n-peng", "Source 2:\n" + PENGUINS, {"file_name": "penguins.txt", "page_label": "4"}),
    ]
    cited = _llama("The grass is green [1]. Emperor penguins are the tallest penguins [2].", nodes)
    uncited = _llama("The sky is blue. " + MOON, nodes)
    past = _llama("The grass is green [1][3].", nodes)
    return [
        Case(
            "citation_engine_multi_document",
            fmt,
            envelope(fmt, "cited", cited, None),
            claims=[
                ("The grass is green [1].", (0,), "supported"),
                ("Emperor penguins are the tallest penguins [2].", (1,), "supported"),
            ],
            citations=[
                Cite("numeric", "n-grass", None, "Source 1:\n" + GRASS),
                Cite("numeric", "n-peng", None, "Source 2:\n" + PENGUINS),
            ],
        ),
        Case(
            "uncited_remainder",
            fmt,
            envelope(fmt, "uncited", uncited, None),
            claims=[("The sky is blue.", (), "supported"), (MOON, (), "not_supported")],
        ),
        Case(
            "index_past_nodes",
            fmt,
            envelope(fmt, "past", past, None),
            claims=[("The grass is green [1][3].", (0, 1), "supported")],
            citations=[
                Cite("numeric", "n-grass", None, "Source 1:\n" + GRASS),
                Cite("numeric", None, "index_out_of_range"),
            ],
        ),
        Case(
            "no_answer",
            fmt,
            envelope(fmt, "empty", _llama(None, nodes), None),
            claims=[],
        ),
        Case(
            "malformed_nodes",
            fmt,
            envelope(fmt, "bad", {**cited, "source_nodes": {"node": {}}}, None),
            rejected=("invalid_response", "response.source_nodes must be an array"),
        ),
        Case(
            "malformed_node_text",
            fmt,
            envelope(fmt, "bad-text", _with(cited, ["source_nodes", 0, "node", "text"], 7), None),
            rejected=("invalid_response", "response.source_nodes[0].node.text must be a string"),
        ),
    ]


# --- LangChain retrieval chain -----------------------------------------------------------------------


def _context_docs() -> list[dict[str, Any]]:
    from langchain_core.documents import Document

    return [
        Document(
            page_content=GRASS, metadata={"source": "https://example.com/grass", "title": "Grass"}
        ).model_dump(mode="json"),
        Document(
            page_content=PENGUINS,
            metadata={"source": "kb/penguins.txt", "title": "Penguins"},
            id="peng",
        ).model_dump(mode="json"),
    ]


def _ai_message(text: str, citations: list[dict[str, Any]]) -> dict[str, Any]:
    from langchain_core.messages import AIMessage
    from langchain_core.messages import content as blocks

    made = [blocks.create_citation(**c) for c in citations]
    message = AIMessage(content=[blocks.create_text_block(text, annotations=made)])
    return message.model_dump(mode="json")


def langchain_cases() -> list[Case]:
    fmt = "langchain.retrieval"
    q = "What colour is grass?"
    markers = {
        "input": q,
        "context": _context_docs(),
        "answer": "The grass is green [1]. Emperor penguins are the tallest penguins [2].",
    }
    plain = {"input": q, "context": _context_docs(), "answer": "The sky is blue. " + MOON}
    text = "The grass is green and penguins breed in Antarctica during winter."
    blocks = {
        "input": q,
        "context": _context_docs(),
        "answer": _ai_message(
            text,
            [
                {
                    "url": "https://example.com/grass",
                    "title": "Grass",
                    "start_index": 0,
                    "end_index": 18,
                    "cited_text": "The grass is green.",
                },
                {
                    "title": "Penguins",
                    "start_index": 23,
                    "end_index": 65,
                    "cited_text": "They breed in Antarctica during winter.",
                },
                {
                    "url": "https://nowhere.example",
                    "title": "Nowhere",
                    "start_index": 23,
                    "end_index": 65,
                    "cited_text": "Penguins breed.",
                },
                {
                    "url": "https://example.com/grass",
                    "title": "Grass",
                    "start_index": 0,
                    "end_index": 18,
                    "cited_text": "The moon is made of cheese.",
                },
            ],
        ),
    }
    return [
        Case(
            "markers_multi_document",
            fmt,
            envelope(fmt, "markers", markers, None),
            claims=[
                ("The grass is green [1].", (0,), "supported"),
                ("Emperor penguins are the tallest penguins [2].", (1,), "supported"),
            ],
            citations=[
                Cite("numeric", "https://example.com/grass", None, GRASS),
                Cite("numeric", "peng", None, PENGUINS),
            ],
        ),
        Case(
            "uncited_remainder",
            fmt,
            envelope(fmt, "plain", plain, None),
            claims=[("The sky is blue.", (), "supported"), (MOON, (), "not_supported")],
        ),
        Case(
            "citation_blocks",
            fmt,
            envelope(fmt, "blocks", blocks, None),
            claims=[
                ("The grass is green", (0, 3), "supported"),
                ("penguins breed in Antarctica during winter", (1, 2), "supported"),
            ],
            citations=[
                Cite("segment", "https://example.com/grass", None, GRASS),
                Cite("segment", "peng", None, PENGUINS),
                Cite("segment", None, "document_not_found"),
                Cite("segment", "https://example.com/grass", "excerpt_mismatch", GRASS),
            ],
        ),
        Case(
            "envelope_documents_after_context",
            fmt,
            envelope(
                fmt,
                "extra",
                {**markers, "answer": "The sky is blue [3]."},
                [{"id": "sky", "text": "The sky is blue."}],
            ),
            claims=[("The sky is blue [3].", (0,), "supported")],
            citations=[Cite("numeric", "sky", None, "The sky is blue.")],
        ),
        Case(
            "malformed_context",
            fmt,
            envelope(fmt, "bad", _with(markers, ["context", 1, "page_content"], None), None),
            rejected=("invalid_response", "response.context[1].page_content must be a string"),
        ),
        Case(
            "malformed_answer",
            fmt,
            envelope(fmt, "noanswer", {"input": q, "context": _context_docs()}, None),
            rejected=("invalid_response", "response.answer must be a string"),
        ),
    ]


def all_cases() -> list[Case]:
    return [
        *anthropic_cases(),
        *openai_responses_cases(),
        *openai_chat_cases(),
        *cohere_cases(),
        *gemini_cases(),
        *llamaindex_cases(),
        *langchain_cases(),
    ]
