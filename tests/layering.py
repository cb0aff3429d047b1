"""The import-graph reader behind the layer tests of agents/ and monitor/.

A package is split into wings (subpackages, or a top-level module such as monitor/check.py).
Each wing has a rank; a module may import modules of its own wing and of wings of lower rank,
never of a higher rank, and no module may import itself round a circle. Every import counts,
also one inside a function or under `TYPE_CHECKING`: a lazy import still couples the wings and
still closes a circle for a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(path: Path, module: str, top: str) -> set[str]:
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == top)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base == top or base.startswith(top + "."):
                # `from pkg.x import y` may name a module y or an attribute of x
                found.update(f"{base}.{a.name}" for a in node.names)
                found.add(base)
    return found


def graph(top: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Module → the modules of the same top package it imports (package __init__s excluded)."""
    modules = {module_name(p, root): p for p in (root / top).rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {t for t in imports_of(path, name, top) if t in modules and t != name}
        # importing a package's submodule runs the package's __init__, which is not a dependency
        edges[name] = {t for t in targets if not name.startswith(t + ".") and t != top}
    return edges


def upward(edges: dict[str, set[str]], ranks: dict[str, float]) -> list[str]:
    return sorted(
        f"{src} -> {dst}"
        for src, dsts in edges.items()
        for dst in dsts
        if ranks[wing(dst)] > ranks[wing(src)]
    )


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
