"""The less common paths of the adapters, one response each (SDK types, hand-worked offsets):
Gemini thought parts and a later part in bytes, Anthropic search results, OpenAI's second text
part and container files, Cohere's second content item."""

from __future__ import annotations

import json
from typing import Any

from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.records.models import AnswerEvent, Verdict
from tests.unit.monitor.inputs.vendor_cases import (
    GRASS,
    PENGUINS,
    _anthropic,
    _responses,
    envelope,
    require_sdks,
)

require_sdks()
OPTS = CheckOptions()


def _check(env: dict[str, Any]) -> tuple[AnswerEvent, Verdict]:
    event = decode_event(json.dumps(env).encode(), OPTS)
    assert isinstance(event, AnswerEvent), event
    return event, check_event(event, OPTS)


def test_gemini_skips_thoughts_and_counts_bytes_in_a_later_part() -> None:
    from google.genai import types

    response = types.GenerateContentResponse.model_validate(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"text": "Let me think.", "thought": True},
                            {"text": "Über uns. "},
                            {"text": "Grüße aus Köln."},
                        ],
                    },
                    "groundingMetadata": {
                        "groundingSupports": [
                            {
                                # 15 characters, 18 bytes (ü, ß, ö)
                                "segment": {
                                    "partIndex": 2,
                                    "endIndex": 18,
                                    "text": "Grüße aus Köln.",
                                },
                                "groundingChunkIndices": [0],
                            }
                        ]
                    },
                }
            ]
        }
    ).model_dump(mode="json", exclude_none=True)
    docs = [{"id": "koeln", "text": "Viele Grüße aus Köln."}]
    event, verdict = _check(envelope("gemini.generate_content", "parts", response, docs))
    assert event.answer == "Über uns. Grüße aus Köln."  # no thought
    assert [(r.claim.text, r.claim.start, r.claim.end) for r in verdict.claims] == [
        ("Grüße aus Köln.", 10, 25)  # "Über uns." has 2 words: no claim
    ]
    assert [(r.doc_id, r.valid) for r in verdict.citations] == [("koeln", True)]


def test_anthropic_search_results_by_source_then_by_index() -> None:
    def result(source: str, index: int, first: int, stop: int, cited: str) -> dict[str, Any]:
        return {
            "type": "search_result_location",
            "cited_text": cited,
            "search_result_index": index,
            "source": source,
            "title": "kb",
            "start_block_index": first,
            "end_block_index": stop,
        }

    response = _anthropic(
        [
            {
                "type": "text",
                "text": "The sky is blue",
                "citations": [
                    result("https://kb.example/grass", 7, 1, 2, "The sky is blue."),
                    result("kb://unknown", 1, 0, 1, PENGUINS[:42]),
                    result("kb://unknown", 5, 0, 1, "x"),
                ],
            }
        ]
    )
    docs = [
        {
            "id": "grass",
            "url": "https://kb.example/grass",
            "pages": ["The grass is green.", "The sky is blue."],
        },
        {"id": "penguins", "text": PENGUINS[:42]},
    ]
    _, verdict = _check(envelope("anthropic.messages", "search", response, docs))
    got = [(r.doc_id, r.error, r.cited_text) for r in verdict.citations]
    assert (
        got
        == [
            ("grass", None, "The sky is blue."),  # by source (the url), block 1
            ("penguins", None, PENGUINS[:42]),  # source unknown: documents[1]
            (None, "index_out_of_range", None),
        ]
    )
    assert [r.citation.format for r in verdict.citations] == ["span"] * 3


def test_openai_second_text_part_and_container_file() -> None:
    message = {
        "type": "message",
        "id": "msg_01",
        "role": "assistant",
        "status": "completed",
        "content": [
            {"type": "output_text", "text": "The grass is green. ", "annotations": []},
            {
                "type": "output_text",
                "text": "Emperor penguins are the tallest penguins.",
                "annotations": [
                    {
                        "type": "container_file_citation",
                        "container_id": "cntr_1",
                        "file_id": "cfile_1",
                        "filename": "penguins.csv",
                        "start_index": 0,
                        "end_index": 42,
                    }
                ],
            },
        ],
    }
    docs = [{"id": "penguins.csv", "text": PENGUINS}, {"id": "grass", "text": GRASS}]
    event, verdict = _check(envelope("openai.responses", "parts", _responses([message]), docs))
    assert event.answer == "The grass is green. Emperor penguins are the tallest penguins."
    got = [(r.claim.text, r.claim.start, r.claim.citation_indexes) for r in verdict.claims]
    assert got == [
        ("The grass is green.", 0, ()),
        ("Emperor penguins are the tallest penguins.", 20, (0,)),  # the part starts at 20
    ]
    assert [(r.doc_id, r.valid) for r in verdict.citations] == [("penguins.csv", True)]


def test_cohere_offsets_of_a_second_content_item() -> None:
    from cohere import V2ChatResponse

    response = V2ChatResponse.model_validate(
        {
            "id": "x",
            "finish_reason": "COMPLETE",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Here is what I found. "},
                    {"type": "text", "text": "The sky is blue."},
                ],
                "citations": [
                    {
                        "start": 4,
                        "end": 15,
                        "text": "sky is blue",
                        "content_index": 1,
                        "sources": [{"type": "document", "id": "grass"}],
                    }
                ],
            },
        }
    ).model_dump(mode="json")
    event, verdict = _check(
        envelope("cohere.chat.v2", "items", response, [{"id": "grass", "text": GRASS}])
    )
    assert event.answer == "Here is what I found. The sky is blue."
    claim = verdict.claims[-1].claim
    assert (claim.text, claim.start, claim.end) == ("sky is blue", 26, 37)  # 22 + 4, 22 + 15
    assert verdict.citations[0].valid
