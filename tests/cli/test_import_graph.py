"""Dependencies point down, with no cycles: the import graph of every ``arena`` module.

The graph is read from the source (``ast``), never by importing, and it counts every
import: module level, inside functions, and under ``if TYPE_CHECKING:``. A cycle
through a function-level or type-only import does not fail at run time, but a reader
still has to hold both modules in mind at once, and the next edit that moves the
import up turns it into a real one; so all imports count.

``from package import name`` is an edge to ``package.name`` when that is a module,
else to the package's ``__init__``. A package's ``__init__`` importing its own private
modules is how each front door is built and is no cycle by itself; a private module
importing its own package's front door (``from arena.dealer import X`` inside
``arena/dealer/``) closes a cycle and fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

import arena

ROOT = Path(arena.__file__).parent

LAYERS: dict[str, int] = {
    "text": 0,
    "engine": 1,
    "history": 1,
    "stats": 1,
    "ratings": 1,
    "protocol": 2,
    "store": 2,
    "sdk": 3,
    "sandbox": 3,
    "policies": 3,
    "dealer": 4,
    "rl": 4,
    "tournament": 5,
    "server": 5,
    "executors": 6,
    "plugins": 6,
    "web": 6,
    "ladder": 7,
    "cli": 8,
}
"""The README's layout table as ranks: a package imports only packages of lower rank.

Layer 0 is ``text``, the escaping of untrusted text that every layer shows.

Layer 1 is engine, history, stats and ratings (history may read the engine, ratings
may use stats: the only imports within a rank); the SDK and the in-process policies sit
on the protocol and below the dealer; the command line sits on the plugins (both are
layer 5 in the README, and plugins never import the command line)."""

SAME_LAYER = {("history", "engine"), ("ratings", "stats")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {
    module_name(path): path
    for path in sorted(ROOT.rglob("*.py"))
    if "_generated" not in path.parts  # protoc's output imports only protobuf
}


def imports_of(name: str, path: Path) -> set[str]:
    """Every ``arena`` module that ``name`` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            if "._generated" in target:
                continue  # protoc's modules: outside the graph
            while target and target not in MODULES:  # arena.protocol.pb -> arena.protocol
                target = target.rpartition(".")[0]
            if target.startswith("arena") and target != name:
                found.add(target)
    return found


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of nodes (first == last), or ``None``."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_the_graph_sees_every_kind_of_import(tmp_path: Path):
    """Function-level, type-only and package imports are edges too (a reader must find them)."""
    inner = tmp_path / "inner.py"
    inner.write_text("def f():\n    import arena.engine\n")
    front = tmp_path / "front.py"
    front.write_text(
        "from typing import TYPE_CHECKING\nfrom arena import tournament\n"
        "if TYPE_CHECKING:\n    from arena.dealer import BotDriver\n"
    )
    assert {"arena.engine"} == imports_of("arena.x", inner)
    assert {"arena.tournament", "arena.dealer"} == imports_of("arena.y", front)


def test_find_cycle_finds_one():
    """The checker itself: a three-module loop is reported, a chain is not."""
    assert ["a", "b", "c", "a"] == find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}})
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_inside_arena():
    """No module reaches itself through its imports (all imports, see the docstring)."""
    assert find_cycle(GRAPH) is None


def test_every_package_has_a_layer():
    """A new package gets a rank here and a row in the README's layout table."""
    packages = {layer_of(name) for name in MODULES} - {None}
    packages = {p for p in packages if (ROOT / p).is_dir()}
    assert packages == set(LAYERS)


def test_dependencies_point_down():
    """Each import across packages goes to a lower layer (the README's layout table)."""
    wrong = []
    for name, targets in GRAPH.items():
        source = layer_of(name)
        for target in targets:
            goal = layer_of(target)
            if source is None or goal is None or source == goal or source not in LAYERS:
                continue
            if LAYERS[goal] < LAYERS[source] or (source, goal) in SAME_LAYER:
                continue
            wrong.append(f"{name} imports {target}")
    assert [] == sorted(wrong)
