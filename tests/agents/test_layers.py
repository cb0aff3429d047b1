"""The shape of agents/: wings import only downward, and no module imports itself round a circle.

The rule and its reader are in tests/layering.py; this file gives agents/ its ranks. `agents/cli.py`
sits on top.
"""

from __future__ import annotations

from tests.layering import find_cycle, graph, upward, wing

#: low to high; a wing may import its own rank and lower ranks
RANKS: dict[str, float] = {
    "telemetry": 0,
    "output": 1,
    "kafka": 2,
    "checking": 3,
    "semantic": 3.5,  # the embedding model: beside the check processes, below the judge
    "judging": 4,
    "labelling": 4.5,  # human labels: the labels topic, joined with the judge's verdicts
    "grafana": 5,
    "evidence": 6,
    "stream": 7,
    "evaluation": 8,
    "bench": 9,
    "demo": 10,
    "commands": 11,
    "cli": 12,
    "__init__": -1,  # agents/__init__.py imports nothing and may be imported by anyone
}


def test_every_wing_has_a_rank() -> None:
    wings = {wing(m) for m in graph("agents")}
    assert wings <= set(RANKS), f"add a rank for {sorted(wings - set(RANKS))}"


def test_imports_run_downward() -> None:
    found = upward(graph("agents"), RANKS)
    assert not found, "upward imports between wings:\n" + "\n".join(found)


def test_no_import_circle() -> None:
    cycle = find_cycle(graph("agents"))
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_checker_sees_a_circle_and_an_upward_import() -> None:
    # the rule must be able to fail: a made-up graph with both faults
    edges = {"agents.stream.a": {"agents.stream.b"}, "agents.stream.b": {"agents.stream.a"}}
    assert find_cycle(edges) == ["agents.stream.a", "agents.stream.b", "agents.stream.a"]
    made_up = {"agents.telemetry.metrics": {"agents.stream.app"}, "agents.stream.app": set()}
    assert upward(made_up, RANKS) == ["agents.telemetry.metrics -> agents.stream.app"]
