"""Tunables of the checking core, as a plain frozen dataclass (the settings object builds it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CheckOptions:
    # decoding
    max_event_bytes: int = 2_000_000
    # what an object without a `format` key is: "auto" (a v1 answer event) or an envelope format
    # name (monitor/inputs/envelope.py)
    input_format: str = "auto"
    # extraction: an answer with more citations than this is capped (error too_many_citations)
    max_citations: int = 1_000
    # structural validation (seed 000 §6: max_span_length)
    max_span_chars: int = 10_000
    excerpt_min_similarity: float = 0.8
    quote_min_similarity: float = 0.8
    # json path value checking (seed 002)
    check_values: bool = True
    value_window_chars: int = 200
    numeric_rel_tolerance: float = 0.01
    string_min_similarity: float = 0.8
    # claims (seed 001 §6)
    min_claim_words: int = 4  # uncited sentences only: a cited sentence is always a claim
    # uncited claims checked against the event's documents per answer; later ones undecided
    max_grounded_claims: int = 1_000
    # windowed rates and claim counters: the most claims one answer weighs (0: no cap)
    answer_claim_weight: int = 10
    # span accuracy (seed 000 §4.2)
    span_tolerance_chars: int = 10
    # evidence excerpt stored in a verdict's cited_text
    cited_text_max_chars: int = 500
