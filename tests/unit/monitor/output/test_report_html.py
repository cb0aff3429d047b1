"""The HTML report: ROC arithmetic by hand, and a document a person can open."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from monitor.output.report_html import ReportRow, area, render_report, roc_points


def test_roc_points_and_area_by_hand() -> None:
    # positives 0.9, 0.4; negatives 0.6, 0.1 → pairs ranked right: (0.9>0.6, 0.9>0.1, 0.4>0.1) = 3/4
    pts = roc_points([0.9, 0.6, 0.4, 0.1], [True, False, True, False])
    assert pts == [(0.0, 0.0), (0.0, 0.5), (0.5, 0.5), (0.5, 1.0), (1.0, 1.0)]
    assert area(pts) == 0.75


def test_ties_count_half() -> None:
    pts = roc_points([0.5, 0.5], [True, False])
    assert pts == [(0.0, 0.0), (1.0, 1.0)] and area(pts) == 0.5
    assert roc_points([0.1, 0.2], [True, True]) == [] and area([]) is None


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            assert not (name in ("src", "href") and value and "://" in value), (
                "no external resources"
            )


def rows() -> list[ReportRow]:
    return [
        ReportRow("e1", "wice", "supported", "supported", 0.9, "supported", 0.95),
        ReportRow("e2", "wice", "not_supported", "supported", 0.7, "not_supported", 0.05),
        ReportRow("e3", "expertqa", "partially_supported", "unverifiable", 0.5),
        ReportRow("e4", "<script>alert(1)</script>", "not_supported", "not_supported", 0.1),
    ]


def test_report_is_self_contained_and_escaped() -> None:
    page = render_report(rows(), summary="cheap: balanced accuracy 0.5")
    parser = _Collect()
    parser.feed(page)
    assert "script" not in parser.tags and "<script>alert" not in page
    assert "&lt;script&gt;" in page
    assert parser.tags.count("svg") == 4  # histogram + ROC for cheap and judge
    assert "judge tier (2 claims)" in page and "cheap tier (4 claims)" in page


def test_report_tables_hold_hand_counted_figures() -> None:
    page = render_report(rows())
    # cheap agreement for wice: e1 agrees, e2 does not → 0.500; judge agrees on both → 1.000;
    # judge vs cheap disagreement: e2 only → 0.500
    wice = re.search(r"<tr><td>wice</td>(.*?)</tr>", page)
    assert wice is not None
    cells = re.findall(r"<td>(.*?)</td>", wice.group(1))
    assert cells == ["2", "1 / 0 / 1", "0.500", "2", "1.000", "0.500"]
    # confusion row "not_supported" of the cheap tier: e2 → supported, e4 → not_supported
    cheap = page.split("judge tier")[0]
    row = re.search(r"<tr><th>not_supported</th>(.*?)</tr>", cheap)
    assert row is not None
    assert re.findall(r"<td>(\d+)</td>", row.group(1)) == ["1", "0", "1", "0"]
    assert "AUROC 1.000" in page.split("judge tier")[1]


@pytest.mark.parametrize("n", [0, 1])
def test_tiny_inputs_render(n: int) -> None:
    assert render_report(rows()[:n]).startswith("<!DOCTYPE html>")
