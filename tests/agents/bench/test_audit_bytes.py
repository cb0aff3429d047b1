"""`python -m agents.bench.audit_bytes`: the audit trail's bytes per answer, by field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.bench.audit_bytes import audit_bytes, main
from tests.conftest import standard_mix


@pytest.fixture(scope="module")
def events() -> list[bytes]:
    return [json.dumps(e).encode() for e in standard_mix(60)]


def test_passages_referenced_by_default_copied_on_request(
    events: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAGMON_AUDIT_PASSAGES", raising=False)
    lean = audit_bytes(events)
    monkeypatch.setenv("RAGMON_AUDIT_PASSAGES", "copy")
    copied = audit_bytes(events)
    assert lean["answers"] == copied["answers"] == 60
    assert 0 < lean["audited"] == copied["audited"] <= 60  # the same answers are audited
    for out in (lean, copied):  # per answer and per record describe the same total
        total = out["bytes_per_answer"] * out["answers"]
        assert total == pytest.approx(out["bytes_per_record"] * out["audited"])
    assert "citations.cited_text" in copied["field_bytes_per_record"]
    assert "citations.span" in lean["field_bytes_per_record"]
    assert lean["bytes_per_record"] < copied["bytes_per_record"]


def test_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "none.jsonl")])
    assert stop.value.code == 2
