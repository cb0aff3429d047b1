"""One definition of the windows a claim is compared with, for `ragmon eval` and the live
opinion alike: per text, a window two texts share kept once, capped after deduplication.
A recording embedder stands in for the model: what matters here is what it is given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from agents.semantic import opinion
from agents.semantic.opinion import opinion_of, request_texts
from agents.semantic.score import window_pool
from monitor.judge.request import Item

A = "Revenue grew in 2023."
B = "Costs fell by a tenth."
C = "The board met twice."


def test_windows_are_cut_per_text_and_a_shared_window_is_kept_once() -> None:
    pool, capped = window_pool([f"{A} {B}", f"{A} {B}", C])
    # text 1: "A B" and "B"; text 2 repeats both; text 3: "C"; never "B C" across texts
    assert pool == [f"{A} {B}", B, C] and not capped


def test_the_cap_counts_distinct_windows() -> None:
    texts = [f"Fact number {i} holds." for i in range(5)]
    assert window_pool(texts + texts, max_windows=5) == ([t for t in texts], False)
    assert window_pool(texts, max_windows=4) == (texts[:4], True)
    assert window_pool([], max_windows=4) == ([], False)


def test_a_request_splits_back_into_its_texts_without_source_lines() -> None:
    evidence = f"(source: a.pdf)\n{A} {B}\n\n(source: 2)\n{C}"
    assert request_texts(evidence) == [f"\n{A} {B}", f"\n{C}"]
    assert request_texts("(source: 1)\n") == []


class Recorder:
    """Embeds text i as the unit vector on axis (hash of the text): the claim matches the
    window with the same text, and the call shows the pool the claim was compared with."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        self.calls.append(list(texts))
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, sum(t.encode()) % 64] = 1.0
        return out


def test_the_live_opinion_compares_the_claim_with_the_eval_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    embedder = Recorder()
    evidence = f"(source: 1)\n{A} {B}\n\n(source: 2)\n{A} {B}\n\n{C}"
    entry = opinion_of(embedder, Item(0, C, evidence))  # type: ignore[arg-type]
    [call] = embedder.calls
    assert call == [C, *window_pool([f"{A} {B}", f"{A} {B}", C])[0]] == [C, f"{A} {B}", B, C]
    assert entry["windows"] == 3 and entry["cosine"] == 1.0
    # the cap is the eval's too
    monkeypatch.setattr(opinion, "window_pool", lambda texts: window_pool(texts, max_windows=1))
    assert opinion_of(embedder, Item(0, C, evidence))["windows"] == 1  # type: ignore[arg-type]
