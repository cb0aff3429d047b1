"""The examples of docs/inputs.md are real: each decodes, its citations resolve, and what the
page says about it holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.inputs.envelope import FORMATS
from monitor.records.models import AnswerEvent

DOC = Path(__file__).resolve().parents[4] / "docs" / "inputs.md"
OPTS = CheckOptions()


def _examples() -> dict[str, dict[str, object]]:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    out = {}
    for block in blocks:
        if "…" in block:
            continue  # the schematic envelope at the top
        obj = json.loads(block)
        out[str(obj["format"])] = obj
    return out


def test_one_example_per_format_and_each_checks_out() -> None:
    examples = _examples()
    assert sorted(examples) == sorted(FORMATS)
    for fmt, obj in examples.items():
        event = decode_event(json.dumps(obj).encode(), OPTS)
        assert isinstance(event, AnswerEvent), (fmt, event)
        verdict = check_event(event, OPTS)
        assert verdict.citations, fmt
        assert all(r.valid for r in verdict.citations), (fmt, verdict.citations)
        assert verdict.claims[0].support.verdict == "supported", (fmt, verdict.claims[0])
    anthropic = decode_event(json.dumps(examples["anthropic.messages"]).encode(), OPTS)
    assert isinstance(anthropic, AnswerEvent)
    moon = check_event(anthropic, OPTS).claims[1]
    assert moon.claim.citation_indexes == () and moon.support.verdict == "not_supported"
    gemini = decode_event(json.dumps(examples["gemini.generate_content"]).encode(), OPTS)
    assert isinstance(gemini, AnswerEvent) and gemini.adapted is not None
    claim = gemini.adapted.claims[0]
    assert (claim.start, claim.end) == (0, 30)
