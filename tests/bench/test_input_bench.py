"""Throughput of an adapted event (a vendor envelope) against a native v1 event of the same
content: same documents, same answer sentences, same citations (a char span per cited sentence
for Anthropic, the whole document for the others), checked from bytes to Verdict.

Paired: each round times a native batch and the adapted batch of the same content back to back
(order alternating, evidence-index cache cleared before each), and the round's ratio is
native time / adapted time (= adapted throughput / native throughput). Disabled by default
(`--benchmark-disable` in addopts): one round as a smoke test. Figures:
`.venv/bin/python -m pytest tests/bench/test_input_bench.py --benchmark-enable -s`, or on the
compiled core (after `make fast`): `.venv/bin/python tests/bench/test_input_bench.py --compiled`.
Asserts no timing, only that both events of a pair are the same content (claims and citations
agree). Monitor modules are imported inside the functions, so the script can put the compiled
core first on the path.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import pytest

EVENTS = 200
WORDS = [
    "revenue",
    "margin",
    "policy",
    "customer",
    "refund",
    "invoice",
    "contract",
    "shipping",
    "warehouse",
    "battery",
    "sensor",
    "firmware",
    "update",
    "release",
    "cluster",
    "replica",
    "latency",
    "budget",
    "quarter",
    "region",
    "audit",
    "account",
    "premium",
    "discount",
    "renewal",
    "outage",
    "incident",
    "backup",
    "storage",
    "network",
]


def _sentence(rng: random.Random) -> str:
    words = rng.sample(WORDS, 9)
    return f"The {words[0]} {words[1]} grew {rng.randint(2, 90)}% while {' '.join(words[2:])}."


def _content(rng: random.Random) -> tuple[list[dict[str, Any]], list[tuple[int, int, int]]]:
    """Three documents of eight sentences, and five cited sentences (doc, start, end) of them."""
    docs = []
    spans = []
    for k in range(3):
        sentences = [_sentence(rng) for _ in range(8)]
        text = " ".join(sentences)
        docs.append({"id": f"doc{k}.txt", "text": text, "url": f"https://kb.example/doc{k}"})
        pos = 0
        for s in sentences:
            spans.append((k, pos, pos + len(s)))
            pos += len(s) + 1
    return docs, rng.sample(spans, 5)


def _pair(fmt: str, i: int, rng: random.Random) -> tuple[bytes, bytes]:
    docs, cited = _content(rng)
    texts = [docs[k]["text"][s:e] for k, s, e in cited]
    uncited = "Nobody mentioned the quarterly parade of purple elephants in the lobby."
    native_parts, blocks, citations, supports = [], [], [], []
    answer = ""
    for (k, s, e), text in zip(cited, texts, strict=True):
        body = text[:-1]  # the claim without its period
        start = len(answer)
        answer += body
        if fmt == "anthropic.messages":
            native_parts.append(f"{body} [doc{k}.txt:1:{s}-{e}].")
            loc = {
                "type": "char_location",
                "cited_text": text,
                "document_index": k,
                "start_char_index": s,
                "end_char_index": e,
            }
            blocks.append({"type": "text", "text": body, "citations": [loc]})
            blocks.append({"type": "text", "text": ". "})
        else:
            native_parts.append(f"{body} [{k + 1}].")
            citations.append((start, start + len(body), k, body))
        answer += ". "
    answer += uncited
    native = {"event_id": f"n{i}", "app": "bench", "answer": " ".join(native_parts) + " " + uncited}
    native["documents"] = docs
    if fmt == "anthropic.messages":
        blocks.append({"type": "text", "text": uncited})
        response: dict[str, Any] = {"type": "message", "role": "assistant", "content": blocks}
    elif fmt == "openai.chat":
        notes = [
            {
                "type": "url_citation",
                "url_citation": {
                    "url": docs[k]["url"],
                    "title": "t",
                    "start_index": a,
                    "end_index": b,
                },
            }
            for a, b, k, _ in citations
        ]
        message = {"role": "assistant", "content": answer, "annotations": notes}
        response = {"choices": [{"index": 0, "message": message}]}
    elif fmt == "cohere.chat.v2":
        cites = [
            {
                "start": a,
                "end": b,
                "text": body,
                "sources": [{"type": "document", "id": f"doc{k}.txt"}],
            }
            for a, b, k, body in citations
        ]
        response = {
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": answer}],
                "citations": cites,
            }
        }
    else:  # gemini: ASCII here, so byte offsets are character offsets
        supports = [
            {
                "segment": {"startIndex": a, "endIndex": b, "text": body},
                "groundingChunkIndices": [k],
            }
            for a, b, k, body in citations
        ]
        response = {
            "candidates": [
                {
                    "content": {"parts": [{"text": answer}]},
                    "groundingMetadata": {"groundingSupports": supports},
                }
            ]
        }
    envelope = {
        "format": fmt,
        "event_id": f"a{i}",
        "app": "bench",
        "response": response,
        "documents": docs,
    }
    return json.dumps(native).encode(), json.dumps(envelope).encode()


FORMATS = ("anthropic.messages", "openai.chat", "cohere.chat.v2", "gemini.generate_content")


def _batch(raws: list[bytes]) -> tuple[float, list[Any]]:
    from monitor.check import check_bytes, clear_caches
    from monitor.config.options import CheckOptions

    options = CheckOptions()
    clear_caches()
    t0 = time.perf_counter()
    out = [check_bytes(r, options) for r in raws]
    return time.perf_counter() - t0, out


def measure(fmt: str, rounds: int) -> dict[str, Any]:
    """Paired rounds over EVENTS pairs of one format: the ratios and per-event times."""
    from monitor.records.models import Verdict

    rng = random.Random(25)
    pairs = [_pair(fmt, i, rng) for i in range(EVENTS)]
    natives = [n for n, _ in pairs]
    adapted = [a for _, a in pairs]
    ratios, native_us, adapted_us = [], [], []
    for r in range(rounds):
        if r % 2:
            ta, va = _batch(adapted)
            tn, vn = _batch(natives)
        else:
            tn, vn = _batch(natives)
            ta, va = _batch(adapted)
        ratios.append(tn / ta)
        native_us.append(tn / EVENTS * 1e6)
        adapted_us.append(ta / EVENTS * 1e6)
    # the same content: as many claims and as many valid citations on both sides
    for n, a in zip(vn, va, strict=True):
        assert isinstance(n, Verdict) and isinstance(a, Verdict), (n, a)
        assert len(n.claims) == len(a.claims) == 6
        assert sum(c.valid for c in n.citations) == sum(c.valid for c in a.citations) == 5
        assert [c.support.verdict for c in n.claims] == [c.support.verdict for c in a.claims]
    return {
        "ratio_median": statistics.median(ratios),
        "ratio_min": min(ratios),
        "native_us_median": statistics.median(native_us),
        "adapted_us_median": statistics.median(adapted_us),
        "rounds": rounds,
    }


def _line(fmt: str, m: dict[str, Any]) -> str:
    return (
        f"{fmt}: adapted/native throughput {m['ratio_median']:.3f} (median of {m['rounds']} "
        f"paired rounds; min {m['ratio_min']:.3f}), per event {m['native_us_median']:.0f} µs "
        f"native, {m['adapted_us_median']:.0f} µs adapted"
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_adapted_vs_native_throughput(fmt: str, benchmark: Any) -> None:
    m = measure(fmt, 1 if benchmark.disabled else 9)
    benchmark.extra_info.update(m)
    print("\n" + _line(fmt, m))


def main(argv: list[str]) -> int:
    """`python tests/bench/test_input_bench.py [--compiled] [--rounds N]`: the same figures as a
    script; --compiled runs them on the mypyc-compiled core (`make fast`), refused when stale."""
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    if "--compiled" in argv:
        from agents.checking import fastcore

        stale = fastcore.freshness(fastcore.DEFAULT_BUILD)
        if stale is not None:
            print(f"no fresh compiled core: {stale} (make fast)", file=sys.stderr)
            return 2
        sys.path.insert(0, str(fastcore.DEFAULT_BUILD))
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 9
    import monitor.check

    print(f"core: {monitor.check.__file__}")
    for fmt in FORMATS:
        print(_line(fmt, measure(fmt, rounds)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
