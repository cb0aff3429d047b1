"""Escaping, times and links for the on-call pages. Every string from a record goes through
`esc` (quotes included) before it reaches a page.

Pure: standard library only.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#1b1b1b;max-width:72em}
h1{font-size:1.3em}h2{font-size:1.1em;margin:1.6em 0 .4em}
.answer{border:1px solid #ccc;border-radius:6px;padding:.6em 1em;margin:1em 0}
.meta{color:#555;font-size:.9em}.move{font-weight:bold;color:#b71c1c}
mark.claim{background:#fff3c4}mark.claim.bad{background:#ffd6d6}mark.span{background:#c8e6c9}
.passage{background:#f6f6f6;padding:.4em .6em;border-left:3px solid #999;white-space:pre-wrap}
table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ddd;padding:.2em .5em;
vertical-align:top;text-align:left}.invalid{color:#b71c1c}.valid{color:#2e7d32}
pre.answer-text{white-space:pre-wrap;font:inherit;background:#fafafa;padding:.5em}
.alert{border:2px solid #b71c1c;border-radius:6px;padding:.5em 1em;margin:.5em 0}
.why{color:#b71c1c;padding:.2em 0}
"""


def esc(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def when(epoch: float | None) -> str:
    if epoch is None:
        return "?"
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def link(href: str, text: str) -> str:
    return f'<a href="{esc(href)}">{esc(text)}</a>'
