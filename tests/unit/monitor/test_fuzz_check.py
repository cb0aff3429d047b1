"""Fuzzing the decoder and the whole cheap tier: no crash, no hang, a verdict or a reason.

Two kinds of generated input:
- hypothesis strategies through the whole cheap tier (`check_bytes`), with shrinking;
- a seeded campaign through the decoder and the citation parser (extract + resolve), fast
  enough for a million inputs: grammar-built events, byte and structure mutations of them, and
  random bytes. A failure names the seed and input number; `campaign_input(seed, i)` rebuilds it.

Bounded in CI (CAMPAIGN_DEFAULT inputs, EXAMPLES hypothesis examples per test). The opt-in
large run: `RAGMON_FUZZ_EXAMPLES=1000000 pytest tests/unit/monitor/test_fuzz_check.py -s`
(the campaign gets 1,000,000 inputs; the hypothesis tests get up to RAGMON_FUZZ_CHECK_EXAMPLES,
default min(RAGMON_FUZZ_EXAMPLES, 20000), since each of those runs every check).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.check import check_bytes
from monitor.citations import extract_citations, resolve_citations
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.output.verdict_io import dumps_line, verdict_to_dict
from monitor.records.models import CITATION_ERRORS, REJECTION_REASONS, Rejection, Verdict
from tests.unit.monitor.fuzz_campaign import campaign_input

CAMPAIGN_DEFAULT = 20_000
_SCALE = os.environ.get("RAGMON_FUZZ_EXAMPLES")
CAMPAIGN = int(_SCALE or CAMPAIGN_DEFAULT)
EXAMPLES = int(os.environ.get("RAGMON_FUZZ_CHECK_EXAMPLES") or min(int(_SCALE or 300), 20_000))
CAMPAIGN_SEED = int(os.environ.get("RAGMON_FUZZ_SEED", "20261120"))
OPTS = CheckOptions()
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Fragments that look like every citation format, half-formed ones and prose brackets.
FRAGMENTS = [
    "[1]",
    "[2, 3]",
    "[1-3]",
    "[1][2]",
    "[0]",
    "[99]",
    "[a.pdf:1:0-5]",
    "[a.pdf:2:3-1]",
    "[a.pdf:1:0-5,7-9]",
    '[a.pdf:1:0-4 | excerpt: "alpha"]',
    "[src/x.py:1-2]",
    "[src/x.py:9-1]",
    "[quote.premium]",
    "[items.0.price]",
    "[sic]",
    "[citation needed]",
    "[text](http://x)",
    "a[i]",
    "`[1]`",
    "```\n[2]\n```",
    "[",
    "]",
    ":",
    "-",
    ",",
    "|",
    '"',
    "excerpt:",
    " ",
    ". ",
    "1,200",
    "$2.5M",
    "e.g.",
    "Dr.",
    "3.14",
    "?",
    "\n",
    "# Header\n",
    "\u00e9",
    "\ud83d\ude00",
]
answers = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=6), max_size=40).map("".join)
documents = st.lists(
    st.fixed_dictionaries(
        {"id": st.sampled_from(["1", "2", "a.pdf", "src/x.py", "b"])},
        optional={
            "text": st.text(max_size=60),
            "pages": st.lists(st.text(max_size=30), max_size=3),
        },
    ),
    max_size=3,
)
events = st.fixed_dictionaries(
    {"event_id": st.text(min_size=1, max_size=8), "answer": answers, "documents": documents},
    optional={
        "data": st.fixed_dictionaries(
            {
                "quote": st.fixed_dictionaries(
                    {"premium": st.integers(0, 5000) | st.text(max_size=5)}
                ),
                "items": st.lists(
                    st.fixed_dictionaries(
                        {"price": st.floats(allow_nan=False, allow_infinity=False)}
                    ),
                    max_size=2,
                ),
            }
        ),
        "segments": st.lists(
            st.fixed_dictionaries(
                {
                    "text": answers,
                    "citations": st.lists(st.sampled_from(["1", "a.pdf", "zz", 1, 7]), max_size=3),
                }
            ),
            max_size=3,
        ),
        "gold": st.fixed_dictionaries(
            {
                "citation_spans": st.lists(
                    st.fixed_dictionaries(
                        {
                            "doc_id": st.sampled_from(["a.pdf", "1"]),
                            "start": st.integers(0, 50),
                            "end": st.integers(0, 80),
                        }
                    ),
                    max_size=2,
                )
            }
        ),
    },
)


def _assert_outcome(out: Verdict | Rejection) -> None:
    if isinstance(out, Rejection):
        assert out.reason in REJECTION_REASONS
        return
    record = verdict_to_dict(out)
    json.loads(dumps_line(record))
    for c in out.citations:
        assert (c.status == "valid") == (c.error is None)
    for cl in out.claims:
        assert 0.0 <= cl.support.score <= 1.0
        for i in cl.claim.citation_indexes:
            assert 0 <= i < len(out.citations)


@FUZZ
@given(events)
def test_structured_events_never_crash(event: dict[str, Any]) -> None:
    _assert_outcome(check_bytes(json.dumps(event).encode(), OPTS))


@FUZZ
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash(raw: bytes) -> None:
    _assert_outcome(check_bytes(raw, OPTS))


@FUZZ
@given(st.text(max_size=200))
def test_arbitrary_json_text_never_crashes(text: str) -> None:
    _assert_outcome(
        check_bytes(
            json.dumps({"event_id": "f", "answer": text, "documents": [{"id": "1", "text": text}]}),
            OPTS,
        )
    )


def test_hostile_shapes() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    cases: list[bytes | str] = [
        b'{"event_id": "e", "answer": ' + deep.encode() + b"}",
        '{"event_id": "e", "answer": "x", "data": ' + '{"a":' * 5000 + "1" + "}" * 5000 + "}",
        b'{"event_id": "e", "answer": "x", "answer": "y"}',
        b'{"event_id": "e", "answer": "x", "data": {"v": NaN}}',
        json.dumps(
            {
                "event_id": "e",
                "answer": "Claim [1]. " * 100_000,
                "documents": [{"id": "1", "text": "t"}],
            }
        ),
    ]
    for raw in cases:
        out = check_bytes(raw, OPTS)
        _assert_outcome(out)
    capped = check_bytes(cases[-1], OPTS)
    assert isinstance(capped, Verdict)
    assert len(capped.citations) <= OPTS.max_citations
    assert any("too_many_citations" in n for n in capped.notes)


def _check_parsed(raw: bytes) -> str:
    """Decoder + citation parser on one input; the outcome label (verdict path or reason)."""
    decoded = decode_event(raw, OPTS)
    if isinstance(decoded, Rejection):
        assert decoded.reason in REJECTION_REASONS
        assert decoded.detail
        return decoded.reason
    citations, notes = extract_citations(decoded, OPTS)
    assert len(citations) <= OPTS.max_citations
    assert [c.index for c in citations] == list(range(len(citations)))
    results = resolve_citations(decoded, citations, OPTS)
    assert [r.citation for r in results] == citations
    for c in citations:
        if c.format != "segment":
            assert 0 <= c.start < c.end <= len(decoded.answer)
            assert decoded.answer[c.start : c.end] == c.raw
    for r in results:
        assert (r.status == "valid") == (r.error is None)
        assert r.error is None or r.error in CITATION_ERRORS
    return "capped" if notes else "parsed"


FULL_CHECK_EVERY = 20  # campaign inputs that also go through the whole cheap tier


def test_decoder_and_citation_parser_campaign() -> None:
    """CAMPAIGN generated inputs (RAGMON_FUZZ_EXAMPLES): each a parse or a rejection reason."""
    outcomes: Counter[str] = Counter()
    started = time.perf_counter()
    for i in range(CAMPAIGN):
        raw = campaign_input(CAMPAIGN_SEED, i)
        try:
            outcomes[_check_parsed(raw)] += 1
            if i % FULL_CHECK_EVERY == 0:
                _assert_outcome(check_bytes(raw, OPTS))
                outcomes["fully_checked"] += 1
        except Exception as exc:
            raise AssertionError(
                f"input {i} of seed {CAMPAIGN_SEED} (campaign_input({CAMPAIGN_SEED}, {i})): "
                f"{raw[:300]!r}"
            ) from exc
    seconds = time.perf_counter() - started
    assert outcomes.total() - outcomes["fully_checked"] == CAMPAIGN
    # Every kind of outcome occurs, so the generator reaches past the decoder.
    assert outcomes["parsed"] > CAMPAIGN // 4 and outcomes["invalid_json"] > 0
    print(
        f"\nfuzz campaign: {CAMPAIGN:,} inputs (seed {CAMPAIGN_SEED}) in {seconds:.1f} s "
        f"({CAMPAIGN / seconds:,.0f}/s): {dict(outcomes.most_common())}"
    )
