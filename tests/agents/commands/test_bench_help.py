"""`ragmon bench --help` names each section by the first sentence of its docstring, whole."""

from __future__ import annotations

from agents.commands.bench import section_summaries


def test_every_section_summary_is_a_whole_sentence() -> None:
    found = section_summaries()
    assert {"e2e", "judge", "stages"} <= set(found)
    for name, summary in found.items():
        assert summary and summary != "no description", name
        assert summary.count("(") == summary.count(")"), (name, summary)
        assert not summary.rstrip().endswith((",", ";", ":", "(")), (name, summary)
        assert "\n" not in summary and "  " not in summary, (name, summary)
