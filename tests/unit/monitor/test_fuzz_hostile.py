"""Hostile inputs of production size: 1 MB probes against every regex-driven stage, JSON that is
nested a million deep, non-standard constants, duplicate keys, unparseable numbers, and answers
with 100,000 citations. Each input ends as a verdict or a rejection reason, never a crash.

No timing assertion (a hang guard of HANG_GUARD_S only catches runaway backtracking); the time
each probe took is printed (`pytest -s`) so regressions are visible.
"""

from __future__ import annotations

import contextlib
import json
import signal
import time
from collections.abc import Iterator

import pytest

from monitor.check import check_bytes
from monitor.config.options import CheckOptions
from monitor.records.models import REJECTION_REASONS, Rejection, Verdict
from tests.unit.monitor.test_fuzz_check import _assert_outcome

OPTS = CheckOptions()
# An operator may raise the size cap; the parsers must still hold at several megabytes.
OPTS_BIG = CheckOptions(max_event_bytes=16_000_000)
MB = 1_000_000
HANG_GUARD_S = 120  # far above any probe (< 2 s each here): a hang, not a slow run, trips it
DOCS = [
    {"id": "a.pdf", "text": "Revenue grew 5% to $1.2M in 2023. " * 30, "pages": ["p1 " * 50]},
    {"id": "src/x.py", "text": "def f():\n    return 1\n" * 20},
    {"id": "1", "text": "The premium is 1,200 dollars per year."},
]
DATA = {"quote": {"premium": 1200}, "items": [{"price": 9.99}]}


class Hang(Exception):
    pass


@contextlib.contextmanager
def hang_guard(seconds: int) -> Iterator[None]:
    def fire(signum: int, frame: object) -> None:
        raise Hang(f"no result after {seconds} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def event(answer: str, **extra: object) -> bytes:
    return json.dumps(
        {"event_id": "hostile", "answer": answer, "documents": DOCS, "data": DATA, **extra},
        ensure_ascii=False,
    ).encode()


def fill(unit: str, size: int = MB) -> str:
    """`unit` repeated to about `size` bytes once JSON-encoded as UTF-8."""
    encoded = len(json.dumps(unit, ensure_ascii=False).encode()) - 2
    return unit * max(1, size // encoded)


# 1 MB answers aimed at each parser: near-misses that make a naive regex retry at every offset.
ANSWER_PROBES: dict[str, str] = {
    "open_brackets": fill("["),
    "close_brackets": fill("]"),
    "unclosed_span": fill("[a.pdf:1:"),
    "span_range_list": "[a.pdf:1:" + fill("0-5,")[:-1],
    "unclosed_excerpt": fill('[a.pdf:1:0-5 | excerpt: "'),
    "numeric_list_prefix": fill("[1,"),
    "numeric_range_prefix": fill("[1-"),
    "json_path_prefix": fill("[quote."),
    "json_path_long": "[" + fill("items.0.")[:-1] + "]",
    "bracket_longer_than_cap": "[" + fill("a") + "]",
    "markdown_links": fill("[x]("),
    "link_definitions": fill("[1]: http://x\n"),
    "glued_code": fill("a[i]"),
    "glued_numeric": fill("word[1]"),
    "escaped_brackets": fill("\\["),
    "backticks": fill("`"),
    "unclosed_fences": fill("```\n[1] "),
    "abbreviations": fill("e.g. Dr. "),
    "dots_and_digits": fill("1."),
    "thousands": fill("1,"),
    "money": fill("$1.2M "),
    "quotes": fill('"'),
    "curly_quotes": fill("“a "),
    "spaces": fill(" "),
    "newlines": fill("\n"),
    "no_spaces": fill("a"),
    "combining_marks": fill("e\u0301"),
    "emoji": fill("\U0001f600"),
    "headers": fill("# h\n"),
    "urls": fill("http://x.y/"),
}


def probe(raw: bytes | str, opts: CheckOptions = OPTS) -> tuple[Verdict | Rejection, float]:
    started = time.perf_counter()
    with hang_guard(HANG_GUARD_S):
        out = check_bytes(raw, opts)
    seconds = time.perf_counter() - started
    _assert_outcome(out)
    return out, seconds


@pytest.mark.parametrize("name", sorted(ANSWER_PROBES))
def test_one_megabyte_answer_probe(name: str) -> None:
    raw = event(ANSWER_PROBES[name])
    assert len(raw) <= OPTS.max_event_bytes
    out, seconds = probe(raw)
    print(f"\nprobe {name}: {len(raw) / MB:.2f} MB in {seconds:.3f} s -> {type(out).__name__}")
    assert isinstance(out, Verdict), out  # valid JSON, valid schema: always checked
    assert len(out.citations) <= OPTS.max_citations


@pytest.mark.parametrize("unit", ["1,2", "1.", "Dr. ", "a ", "$1M ", "2020-2021 "])
def test_one_megabyte_evidence_probe(unit: str) -> None:
    """The evidence side (figures, stems, phrases) on a 1 MB cited document."""
    docs = [{"id": "1", "text": fill(unit)}, {"id": "b.pdf", "pages": [fill(unit, MB // 2)]}]
    answer = "Revenue was 1,200 in 2020 according to Dr. Smith [1]. It grew [b.pdf:1:0-40]."
    raw = json.dumps({"event_id": "e", "answer": answer, "documents": docs}).encode()
    out, seconds = probe(raw)
    print(f"\nevidence probe {unit!r}: {len(raw) / MB:.2f} MB in {seconds:.3f} s")
    assert isinstance(out, Verdict) and len(out.citations) == 2


def _rejected(raw: bytes | str, reason: str, detail: str, opts: CheckOptions = OPTS) -> None:
    assert detail, "an empty detail is in every message: name what the rejection must say"
    out, seconds = probe(raw, opts)
    assert isinstance(out, Rejection), out
    assert (out.reason, detail in out.detail) == (reason, True), out
    print(f"\nrejected {reason} ({out.detail[:60]}) in {seconds:.3f} s")


def test_a_million_levels_of_nesting_are_rejected_not_a_crash() -> None:
    for depth, opts in ((900_000, OPTS), (300_000, OPTS), (1_000_000, OPTS_BIG)):
        for nested in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
            raw = '{"event_id": "deep", "answer": "x", "data": {"v": ' + nested + "}}"
            if len(raw) <= opts.max_event_bytes:
                _rejected(raw, "invalid_json", "nested too deeply", opts)


def test_nesting_below_the_parser_limit_but_deep_for_the_checks() -> None:
    """Deep enough to hurt a recursive walker (json-path lookups), shallow enough to parse."""
    depth = 500
    data: object = 1200
    for _ in range(depth):
        data = {"a": data}
    path = ".".join(["a"] * depth)
    raw = json.dumps({"event_id": "d", "answer": f"It costs 1,200 [{path}].", "data": data})
    out, _ = probe(raw)
    assert isinstance(out, Verdict) and [c.citation.format for c in out.citations] == ["json_path"]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_standard_constants_are_invalid_json(constant: str) -> None:
    for raw in (
        f'{{"event_id": "n", "answer": "x", "data": {{"v": {constant}}}}}',
        f'{{"event_id": "n", "answer": "x", "gold": {{"citation_spans": [{{"doc_id": "1", '
        f'"start": {constant}, "end": 2}}]}}}}',
        constant,
    ):
        _rejected(raw, "invalid_json", constant.lstrip("-"))


def test_numbers_json_parses_to_infinity_or_cannot_parse() -> None:
    # 1e400 is valid JSON that Python reads as inf: a value check must cope, not crash.
    out, _ = probe('{"event_id": "i", "answer": "It costs 5 [quote.p].", "data": {"quote": '
                   '{"p": 1e400}}}')  # fmt: skip
    assert isinstance(out, Verdict) and out.citations[0].citation.format == "json_path"
    # An integer past Python's digit limit is unreadable, so the record is invalid JSON, and
    # the rejection says which limit (CPython's int_max_str_digits) it ran into.
    _rejected(
        '{"event_id": "i", "answer": "x", "data": {"v": ' + "9" * MB + "}}",
        "invalid_json",
        "integer string conversion",
    )
    # A 4,000-digit integer where gold data wants an offset: gold is only scored, so the answer
    # is checked as usual (its citation resolves) and every span score stays a ratio in [0, 1].
    out, _ = probe(
        '{"event_id": "i", "answer": "x [a.pdf:1:0-5].", "documents": [{"id": "a.pdf", '
        '"text": "hello world"}], "gold": {"citation_spans": [{"doc_id": "a.pdf", "start": 0, '
        '"end": ' + "9" * 4000 + "}]}}"
    )
    assert isinstance(out, Verdict), out
    [cited] = out.citations
    assert (cited.status, cited.cited_text) == ("valid", "hello")
    spans = out.scores.span_accuracy
    assert spans is not None and spans, out.scores
    assert all(0.0 <= v <= 1.0 for v in spans.values()), spans


@pytest.mark.parametrize(
    "raw",
    [
        '{"event_id": "d", "answer": "x", "answer": "y"}',
        '{"event_id": "d", "event_id": "e", "answer": "x"}',
        '{"event_id": "d", "answer": "x", "data": {"p": 1, "p": 2}}',
        '{"event_id": "d", "answer": "x", "documents": [{"id": "1", "id": "2"}]}',
    ],
)
def test_duplicate_keys_anywhere_are_invalid_json(raw: str) -> None:
    _rejected(raw, "invalid_json", "duplicate key")


def test_hundred_thousand_citations_are_capped_with_a_reason() -> None:
    shapes = {
        "claims": "Claim [1]. " * 100_000,
        "chain": "Claim " + "[1]" * 100_000 + ".",
        "spans": "[a.pdf:1:0-5] " * 100_000,
        "lines": "[src/x.py:1-2]" * 100_000,
        # brackets hold at most MAX_BRACKET_CHARS: 77 lists of 1,300 numbers
        "lists": ("Claim [" + ", ".join(["1"] * 1_300) + "]. ") * 77,
    }
    for name, answer in shapes.items():
        raw = event(answer)
        assert len(raw) <= OPTS.max_event_bytes, name
        out, seconds = probe(raw)
        assert isinstance(out, Verdict), name
        assert len(out.citations) == OPTS.max_citations, name
        assert any(n.startswith("too_many_citations") for n in out.notes), (name, out.notes)
        print(f"\n100k citations ({name}): capped at {len(out.citations)} in {seconds:.3f} s")


def test_hundred_thousand_segments_and_documents() -> None:
    n = 100_000
    raw = json.dumps(
        {
            "event_id": "seg",
            "answer": "a. " * n,
            "segments": [{"text": "a.", "citations": ["1", 1]} for _ in range(n)],
            "documents": [{"id": str(i), "text": "a"} for i in range(n)],
        }
    )
    _rejected(raw, "too_large", "exceeds the limit")  # 7 MB: over the default cap
    out, seconds = probe(raw, OPTS_BIG)
    assert isinstance(out, Verdict)
    assert len(out.citations) == OPTS.max_citations
    assert any(n.startswith("too_many_citations") for n in out.notes)
    print(f"\n100k segments/documents ({len(raw) / MB:.1f} MB): {seconds:.3f} s")


def test_every_rejection_reason_is_reachable_and_known() -> None:
    samples = {
        "empty": b"",
        "too_large": b"x" * (OPTS.max_event_bytes + 1),
        "invalid_utf8": b'{"event_id": "\xff"}',
        "invalid_json": b"{",
        "not_an_object": b"[]",
        "schema_violation": b'{"event_id": 1, "answer": "x"}',
        "unknown_format": b'{"format": "bard", "event_id": "e", "response": {}}',
        "invalid_response": b'{"format": "openai.chat", "event_id": "e", "response": []}',
        "offset_splits_character": (
            '{"format": "gemini.generate_content", "event_id": "e", "response": {"candidates":'
            ' [{"content": {"parts": [{"text": "é"}]}, "groundingMetadata": {"groundingSupports":'
            ' [{"segment": {"endIndex": 1}, "groundingChunkIndices": [0]}]}}]}}'
        ).encode(),
    }
    assert set(samples) == set(REJECTION_REASONS)
    for reason, raw in samples.items():
        out, _ = probe(raw)
        assert isinstance(out, Rejection) and out.reason == reason
