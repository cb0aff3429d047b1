"""Every alert rule has its runbook section (what it means, three things to check, the
commands), the packaged runbook is docs/runbook.md, and it renders as escaped HTML."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from monitor.alerting.alerts import load_rules
from monitor.oncall.links import runbook_url
from monitor.oncall.runbook import (
    RUNBOOK_FILE,
    SCRAPE_RULES,
    problems,
    render_runbook,
    runbook_text,
    sections,
    to_html,
)

DOCS = Path(__file__).resolve().parents[4] / "docs" / "runbook.md"
RULES = [r.name for r in load_rules()] + list(SCRAPE_RULES)

GOOD = """# runbook

## a_rule

### What it means
It means this.

### First three things to check
1. One, with `code`
   continued.
2. Two.
3. Three <b>bold</b>.

### Commands
```sh
ragmon audit --app x  # ## not a heading
```
"""


def test_every_rule_has_its_whole_section() -> None:
    assert problems(RULES, runbook_text()) == []


def test_the_packaged_runbook_is_docs_runbook() -> None:
    assert RUNBOOK_FILE.read_text(encoding="utf-8") == DOCS.read_text(encoding="utf-8"), (
        "cp docs/runbook.md monitor/oncall/runbook.md"
    )


def test_a_new_rule_without_a_section_fails_by_name() -> None:
    [problem] = problems(["a_rule", "abstention_high"], GOOD)
    assert problem.startswith("abstention_high: no section '## abstention_high' in docs/runbook.md")


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        (GOOD.replace("3. Three <b>bold</b>.\n", ""), "a_rule: 'First three things to check' lists 2 items, not 3"),
        (GOOD.replace("```sh\nragmon audit --app x  # ## not a heading\n```\n", "none\n"), "a_rule: 'Commands' has no code block"),
        (GOOD.replace("### What it means", "### Meaning"), "a_rule: its ### headings must be"),
    ],
)  # fmt: skip
def test_an_incomplete_section_says_what_it_lacks(broken: str, expected: str) -> None:
    [problem] = problems(["a_rule"], broken)
    assert problem.startswith(expected)


def test_a_heading_inside_a_code_block_is_no_section() -> None:
    assert list(sections(GOOD)) == ["a_rule"]
    assert sections(GOOD)["a_rule"].lines[-2] == "ragmon audit --app x  # ## not a heading"


def test_the_markdown_renders_escaped() -> None:
    out = to_html(GOOD.splitlines())
    assert '<h2 id="a_rule">a_rule</h2>' in out
    assert "<li>One, with <code>code</code> continued.</li>" in out
    assert "<li>Three &lt;b&gt;bold&lt;/b&gt;.</li>" in out
    assert "<pre><code>ragmon audit --app x  # ## not a heading</code></pre>" in out


def test_a_rule_page_is_its_section_with_a_link_to_the_whole() -> None:
    page = render_runbook('http://h/"x', "hallucination_high")
    assert page is not None
    assert "<h1>ragmon runbook: hallucination_high</h1>" in page
    assert 'href="http://h/&quot;x/evidence/runbook#hallucination_high"' in page
    text = html.unescape(page)
    assert "ragmon audit --app $APP --rule hallucination_high" in text
    assert "## validity_low" not in text and "validity_low" not in page.split("<h1>")[1][:40]
    assert render_runbook("http://h", "no_such_rule") is None
    whole = render_runbook("http://h")
    assert whole is not None
    for rule in RULES:
        assert f'<h2 id="{rule}">' in whole


def test_runbook_links_point_at_the_rules_section() -> None:
    base = "http://ragmon:6066"
    assert runbook_url("", base, "dlq_high") == f"{base}/evidence/runbook/dlq_high"
    assert runbook_url("https://wiki/ragmon", base, "dlq_high") == "https://wiki/ragmon#dlq_high"
    assert runbook_url("", base) == f"{base}/evidence/runbook"
