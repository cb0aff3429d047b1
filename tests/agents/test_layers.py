"""The shape of agents/: wings import only downward, and no module imports itself round a circle.

The rule, written down: agents/ is split into wings (subpackages). Each wing has a rank below;
a module may import modules of its own wing and of wings of lower rank, never of a higher rank.
`agents/cli.py` sits on top. Every import counts, also one inside a function or under
`TYPE_CHECKING`: a lazy import still couples the wings and still closes a circle for a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

AGENTS = Path(__file__).resolve().parents[2] / "agents"

#: low to high; a wing may import its own rank and lower ranks
RANKS: dict[str, float] = {
    "telemetry": 0,
    "output": 1,
    "kafka": 2,
    "checking": 3,
    "semantic": 3.5,  # the embedding model: beside the check processes, below the judge
    "judging": 4,
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


def module_name(path: Path) -> str:
    rel = path.relative_to(AGENTS.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(path: Path, module: str) -> set[str]:
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("agents"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base == "agents" or base.startswith("agents."):
                # `from agents.x import y` may name a module y or an attribute of x
                found.update(f"{base}.{a.name}" for a in node.names)
                found.add(base)
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in AGENTS.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {t for t in imports_of(path, name) if t in modules and t != name}
        # importing a package's submodule runs the package's __init__, which is not a dependency
        edges[name] = {t for t in targets if not name.startswith(t + ".") and t != "agents"}
    return edges


def test_every_wing_has_a_rank() -> None:
    wings = {wing(m) for m in graph()}
    assert wings <= set(RANKS), f"add a rank for {sorted(wings - set(RANKS))}"


def test_imports_run_downward() -> None:
    upward = [
        f"{src} -> {dst}"
        for src, dsts in graph().items()
        for dst in dsts
        if RANKS[wing(dst)] > RANKS[wing(src)]
    ]
    assert not upward, "upward imports between wings:\n" + "\n".join(sorted(upward))


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_no_import_circle() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_checker_sees_a_circle_and_an_upward_import() -> None:
    # the rule must be able to fail: a made-up graph with both faults
    edges = {"agents.stream.a": {"agents.stream.b"}, "agents.stream.b": {"agents.stream.a"}}
    assert find_cycle(edges) == ["agents.stream.a", "agents.stream.b", "agents.stream.a"]
    assert RANKS[wing("agents.stream.app")] > RANKS[wing("agents.telemetry.metrics")]
