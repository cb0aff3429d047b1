"""Timings of extract+resolve on 1 MB adversarial answers (a script, not a test).

usage: .venv/bin/python -m tests.unit.monitor.citations.adversarial_timings
"""

from __future__ import annotations

import time

from monitor.citations import extract_citations, resolve_citations
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Document

M = 1_000_000
CASES = {
    "[ x 1e6": "[" * M,
    "[a: x 333k": "[a:" * (M // 3),
    "[1, x 333k": "[1," * (M // 3),
    "[1] x 250k": "[1] " * (M // 4),
    "[sic] x 166k": "[sic] " * (M // 6),
    "[q.p] x 166k": "[q.p] " * (M // 6),
    "nested [[[ ]]]": "[" * (M // 2) + "]" * (M // 2),
    "unclosed fence": "```\n" + "[1] " * (M // 4),
    "backtick runs": "".join("`" * k + " [1] " for k in range(1, 1400)),
    "` [1] x 166k": "` [1] " * (M // 6),
    "a[0] x 250k": "a[0]" * (M // 4),
    "[x](y) x 166k": "[x](y)" * (M // 6),
    "[John 3:16] x 83k": "[John 3:16] " * (M // 12),
    "[1-100] x 125k": "[1-100] " * (M // 8),
}


def main() -> None:
    docs = (Document(id="r.pdf", text="x" * 100),)
    opts = CheckOptions()
    for name, text in CASES.items():
        ev = AnswerEvent(event_id="adv", answer=text, documents=docs, data={"q": {"p": 5}})
        t0 = time.perf_counter()
        found, _ = extract_citations(ev, opts)
        resolve_citations(ev, found, opts)
        dt = time.perf_counter() - t0
        print(f"{name:20s} {len(text):>8d} chars {len(found):>5d} citations {dt * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
