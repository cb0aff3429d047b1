"""The runbook: docs/runbook.md, one section per alert rule, shipped in the package (this
directory's runbook.md, a copy the tests keep identical) and served by the worker at
/evidence/runbook (the whole) and /evidence/runbook/<rule> (one section).

A rule's section is a level-2 heading with the rule's name (the anchor GitHub and the page
give it), then three level-3 headings in this order: `What it means`, `First three things to
check` (a numbered list of exactly three) and `Commands` (at least one code block).
`problems` says what a rule set lacks, so a new rule without its section fails a test by name.

Pure: standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from monitor.oncall.html_bits import CSS, esc, link

RUNBOOK_FILE = Path(__file__).with_name("runbook.md")
#: rules that exist in the Prometheus and Grafana rule files only (about the scrape, not a
#: figure): they are in no rules file, so they are named here
SCRAPE_RULES = ("not_reporting", "worker_down")
PARTS = ("What it means", "First three things to check", "Commands")
_RULE_HEADING = re.compile(r"^## ([a-z][a-z0-9_]*)\s*$")
_ITEM = re.compile(r"^(\d+)\. (.*)$")


@dataclass
class Section:
    rule: str
    lines: list[str] = field(default_factory=list)

    def parts(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        current = None
        for line in self.lines:
            if line.startswith("### "):
                current = line[4:].strip()
                out[current] = []
            elif current is not None:
                out[current].append(line)
        return out

    def problems(self) -> list[str]:
        parts = self.parts()
        found = [p for p in parts if p in PARTS]
        if found != list(PARTS):
            return [f"{self.rule}: its ### headings must be {', '.join(PARTS)} (found {found})"]
        out = []
        items = [line for line in parts[PARTS[1]] if _ITEM.match(line)]
        if len(items) != 3:
            out.append(f"{self.rule}: '{PARTS[1]}' lists {len(items)} items, not 3")
        if not any(line.startswith("```") for line in parts[PARTS[2]]):
            out.append(f"{self.rule}: 'Commands' has no code block")
        return out


def runbook_text() -> str:
    return RUNBOOK_FILE.read_text(encoding="utf-8")


def sections(text: str) -> dict[str, Section]:
    found: dict[str, Section] = {}
    current: Section | None = None
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else _RULE_HEADING.match(line)
        if match:
            current = found.setdefault(match.group(1), Section(match.group(1)))
        elif not fenced and line.startswith("## "):
            current = None  # a section that is no rule's
        elif current is not None:
            current.lines.append(line)
    return found


def problems(rules: Iterable[str], text: str) -> list[str]:
    """What the runbook lacks for these rules (empty: every rule has its whole section)."""
    found = sections(text)
    out = []
    for rule in rules:
        if rule not in found:
            out.append(
                f"{rule}: no section '## {rule}' in docs/runbook.md (copy it to "
                "monitor/oncall/runbook.md): what it means, the first three things to check, "
                "the commands"
            )
        else:
            out.extend(found[rule].problems())
    return out


def _inline(text: str) -> str:
    out = esc(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)


def to_html(lines: Iterable[str]) -> str:
    """The little Markdown the runbook uses: headings, paragraphs, numbered lists, code blocks,
    `code` and **bold**. Everything is escaped first."""
    out: list[str] = []
    para: list[str] = []
    items: list[str] = []
    code: list[str] | None = None

    def flush() -> None:
        if para:
            out.append(f"<p>{_inline(' '.join(para))}</p>")
            para.clear()
        if items:
            out.append("<ol>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ol>")
            items.clear()

    for line in lines:
        if code is not None:
            if line.startswith("```"):
                out.append(f"<pre><code>{esc(chr(10).join(code))}</code></pre>")
                code = None
            else:
                code.append(line)
            continue
        if line.startswith("```"):
            flush()
            code = []
        elif line.startswith("#"):
            flush()
            level = len(line) - len(line.lstrip("#"))
            title = line.lstrip("#").strip()
            anchor = f' id="{esc(title)}"' if _RULE_HEADING.match(line) else ""
            out.append(f"<h{level}{anchor}>{_inline(title)}</h{level}>")
        elif _ITEM.match(line):
            if para:
                flush()
            items.append(_ITEM.match(line).group(2))  # type: ignore[union-attr]
        elif not line.strip():
            flush()
        elif items and line.startswith(" "):
            items[-1] += " " + line.strip()
        else:
            para.append(line.strip())
    flush()
    return "\n".join(out)


def render_runbook(base: str, rule: str | None = None, text: str | None = None) -> str | None:
    """The whole runbook, or `rule`'s section (None when it has none)."""
    text = runbook_text() if text is None else text
    whole = f"{base}/evidence/runbook"
    if rule is None:
        title, body = "ragmon runbook", to_html(text.splitlines())
    else:
        section = sections(text).get(rule)
        if section is None:
            return None
        title = f"ragmon runbook: {rule}"
        body = (
            f"<h1>{esc(title)}</h1>{to_html(section.lines)}"
            f"<p>{link(whole + '#' + rule, 'the whole runbook')}</p>"
        )
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>{body}</body></html>"
    )
