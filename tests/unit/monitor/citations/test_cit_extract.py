"""extract_citations: every format, what is not a citation, groups, caps, segments."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.citations import extract_citations
from monitor.config.options import CheckOptions
from monitor.inputs.decode import event_from_obj
from monitor.records.models import AnswerEvent, Document, Segment
from tests.unit.monitor.citations import test_cit_properties as prop
from tests.unit.monitor.citations.helpers import cites, event, raws
from tests.unit.monitor.citations.reference_extract import reference_inline


def test_span_citation_fields_and_raw_slice() -> None:
    answer = "Revenue rose [annual_report.pdf:5:1234-1289]."
    (c,) = cites(answer)
    assert (c.index, c.format, c.doc_ref, c.page, c.range_start, c.range_end) == (
        0,
        "span",
        "annual_report.pdf",
        5,
        1234,
        1289,
    )
    assert (c.start, c.end) == (13, 44)
    assert answer[c.start : c.end] == c.raw == "[annual_report.pdf:5:1234-1289]"


def test_multi_span_gives_one_citation_per_range_sharing_raw() -> None:
    found = cites("X [report.pdf:2:10-50,70-90] y")
    assert [(c.range_start, c.range_end) for c in found] == [(10, 50), (70, 90)]
    assert {c.raw for c in found} == {"[report.pdf:2:10-50,70-90]"}
    assert [c.index for c in found] == [0, 1]
    assert found[0].start == found[1].start == 2 and found[0].group == found[1].group


def test_extended_format_carries_the_excerpt() -> None:
    (c,) = cites('Q1 [report.pdf:2:10-50 | excerpt: "quoted text..."]')
    assert c.format == "span" and c.excerpt == "quoted text..." and c.range_end == 50


def test_cross_reference_brackets_share_a_group() -> None:
    found = cites("A [a.pdf:1:0-9] [b.pdf:3:5-40]. B [1][2] and [3], [4]\n[5]")
    assert [c.raw for c in found] == [
        "[a.pdf:1:0-9]",
        "[b.pdf:3:5-40]",
        "[1]",
        "[2]",
        "[3]",
        "[4]",
        "[5]",
    ]
    # only whitespace (no newline) between brackets joins them; "," does not
    assert [c.group for c in found] == [0, 0, 1, 1, 2, 3, 4]


def test_line_citations_range_and_single_line() -> None:
    found = cites("Auth [src/auth.py:10-25] and [lib/core/Axios.js:100] done")
    assert [(c.format, c.doc_ref, c.range_start, c.range_end) for c in found] == [
        ("line", "src/auth.py", 10, 25),
        ("line", "lib/core/Axios.js", 100, 100),
    ]


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("see [3].", [3]),
        ("see [1, 2].", [1, 2]),
        ("see [1-3].", [1, 2, 3]),
        ("see [2–4].", [2, 3, 4]),
        ("see [1,3-4, 7].", [1, 3, 4, 7]),
    ],
)
def test_numeric_lists_and_ranges(text: str, numbers: list[int]) -> None:
    found = cites(text)
    assert [c.number for c in found] == numbers
    assert all(c.format == "numeric" and c.raw == found[0].raw for c in found)


def test_numeric_chain_is_two_citations_in_one_group() -> None:
    found = cites("Fact [1][2].")
    assert [(c.raw, c.number, c.group) for c in found] == [("[1]", 1, 0), ("[2]", 2, 0)]


def test_json_paths_with_and_without_data() -> None:
    # without data a path-shaped bracket is still a citation (it fails as path_not_found in
    # resolve), never silently prose that leaves its claim uncited
    answer = "Premium $1,200 [quote.premium], price [items.0.price]."
    assert [(c.format, c.path) for c in cites(answer)] == [
        ("json_path", "quote.premium"),
        ("json_path", "items.0.price"),
    ]
    found = cites(answer, data={"quote": {}})
    assert [(c.format, c.path) for c in found] == [
        ("json_path", "quote.premium"),
        ("json_path", "items.0.price"),
    ]


def test_single_identifier_is_a_json_path_only_as_a_top_level_key() -> None:
    assert raws("see [quote] and [x]", data={"quote": 1}) == ["[quote]"]
    assert raws("see [quote] and [x]", data={"other": 1}) == []
    assert raws("see [quote] and [x]") == []


@pytest.mark.parametrize(
    "text",
    [
        "He said it [sic] twice.",
        "Tall claim [citation needed].",
        "See [the docs](https://example.com/a.pdf:1:2-3) please.",
        "Index a[i] and arr[0] and m[1][2] and arr[0][1].",
        "Use `x[1]` or `[0-9]` here.",
        "Code:\n```python\nprint(a[1])\nre.compile('[0-9]')\n[1]\n```\nend",
        "Tilde fence:\n~~~\n[2]\n~~~\n",
        "Double ticks ``a ` [1] `` stay code.",
        "Escaped \\[1] is literal.",
        "Quote from [John 3:16] and at [10:30] and [Note: 3].",
        "Task list - [ ] open - [x] done, and [...] ellipsis.",
        "[1]: https://example.com/source is a link definition",
        "Ref link [the docs][1] uses a label.",
        "Bible [Genesis 1:1-3] verse.",
    ],
)
def test_prose_and_code_are_not_citations(text: str) -> None:
    assert raws(text, data={"the": {"docs": 1}}) == []


def test_link_text_is_never_a_json_path_but_numeric_links_count() -> None:
    text = "[quote.premium](http://x) and [1](http://y)"
    assert raws(text, data={"quote": {"premium": 1}}) == ["[1]"]


def test_unclosed_inline_backtick_is_literal_text() -> None:
    assert raws("a ` b [1] c") == ["[1]"]


def test_unclosed_fence_hides_everything_after_it() -> None:
    assert raws("[1] before\n```\n[2] inside forever") == ["[1]"]


def test_bracket_spanning_into_code_is_not_a_citation() -> None:
    assert raws("[1 `]` x] [2]") == ["[2]"]


def test_file_citation_glued_to_a_word_still_counts() -> None:
    assert raws("grew[report.pdf:2:10-50] while a[1] did not") == ["[report.pdf:2:10-50]"]


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("[r.pdf:2:abc-50]", "span"),
        ("[r.pdf:2:10-]", "span"),
        ("[r.pdf:x:10-20]", "span"),
        ("[src/auth.py:ten]", "line"),
        ("[src/auth.py:]", "line"),
        ('[r.pdf | excerpt: "x"]', "span"),
        ("[r.pdf:1:0-4 | quote this]", "span"),
        ("[3-1]", "numeric"),
        ("[1-500]", "numeric"),
        ("[r.pdf:1:1-9999999999999999999]", "span"),
    ],
)
def test_malformed_file_and_numeric_citations(text: str, fmt: str) -> None:
    (c,) = cites(f"Claim {text}.")
    assert c.malformed and c.format == fmt and c.raw == text


def test_urls_as_file_references() -> None:
    (c,) = cites("[https://x.org/a.pdf:2:1-5]")
    assert (c.format, c.doc_ref, c.page) == ("span", "https://x.org/a.pdf", 2)


def test_document_id_without_extension_is_accepted_for_lines() -> None:
    from monitor.records.models import Document

    docs = (Document(id="README", text="a\nb"),)
    assert raws("[README:1-2] [OTHER:1-2]", documents=docs) == ["[README:1-2]"]


def test_cap_on_citations_with_note() -> None:
    opts = CheckOptions(max_citations=3)
    found, notes = extract_citations(event("[1] [2] [3-5]"), opts)
    assert [c.number for c in found] == [1, 2, 3]
    assert notes == ["too_many_citations: capped at 3"]
    found, notes = extract_citations(event("[1] [2] [3]"), opts)
    assert len(found) == 3 and notes == []


def test_segments_replace_inline_citations() -> None:
    segs = (
        Segment("First claim [9].", ("r.pdf", 2)),
        Segment("Missing text.", ("x",)),
        Segment("Second claim.", ()),
        Segment("Third.", ("notes.txt",)),
    )
    answer = "First claim [9]. Second claim. Third."
    found = cites(answer, segments=segs)
    assert [(c.raw, c.format, c.segment, c.group) for c in found] == [
        ("r.pdf", "segment", 0, 0),
        ("2", "segment", 0, 0),
        ("x", "segment", 1, 1),
        ("notes.txt", "segment", 3, 3),
    ]
    assert (found[0].doc_ref, found[0].number) == ("r.pdf", None)
    assert (found[1].doc_ref, found[1].number) == (None, 2)
    assert (found[0].start, found[0].end) == (0, 16)
    assert (found[2].start, found[2].end) == (0, 0)  # not found in the answer
    assert (found[3].start, found[3].end) == (31, 37)


@settings(max_examples=600, deadline=None)
@given(
    prop.answers,
    prop.documents,
    prop.data,
    st.sampled_from([0, 1, 2, 3, 50]),
    st.sampled_from(["", "a", "x_", "\\", "]", "[1]", "\n", "- ", "`"]),
)
def test_inline_loop_equals_the_reference(
    answer: str,
    docs: tuple[Document, ...],
    data_: dict[str, Any] | None,
    cap: int,
    prefix: str,
) -> None:
    ev = AnswerEvent(event_id="p", answer=prefix + answer, documents=docs, data=data_)
    opts = CheckOptions(max_citations=cap)
    assert extract_citations(ev, opts) == reference_inline(ev, opts)


def test_inline_loop_equals_the_reference_on_the_standard_mix(
    mix_300: list[dict[str, Any]],
) -> None:
    capped = CheckOptions(max_citations=3)
    for obj in mix_300:
        ev = event_from_obj(obj)
        assert isinstance(ev, AnswerEvent)
        if ev.segments is None:
            for opts in (CheckOptions(), capped):
                assert extract_citations(ev, opts) == reference_inline(ev, opts)
