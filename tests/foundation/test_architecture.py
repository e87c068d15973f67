"""The house rules of ``src/memlode`` (``../shared/DESIGN.md``, "Layers"), checked on the source.

Each rule has a list of the places that still break it. The lists only shrink: a new breach
fails its test, and so does an entry that no longer breaks the rule (delete it from the list),
so each list is always the true list of what is left to do.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "memlode"
INTERFACES = ("cli", "mcp", "hooks", "resident", "viz")
MAX_MODULE_LINES = 800  # STYLE.md: ~500 asks whether a module holds one idea; 800 is the limit
MAX_FUNCTION_LINES = 80

# Modules outside storage/ that still run SQL themselves.
SQL_OUTSIDE_STORAGE: set[str] = set()
LONG_MODULES: set[str] = set()
LONG_FUNCTIONS: set[str] = set()
# (importer, imported interface) pairs across interfaces.
INTERFACE_IMPORTS: set[tuple[str, str]] = set()


def _modules() -> Iterator[tuple[str, Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path, ast.parse(path.read_text("utf-8"))


def _imports(name: str, tree: ast.Module) -> set[str]:
    """Every module ``name`` imports, at the top or inside a function."""
    out: set[str] = set()
    package = name if name.count(".") == 0 else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in out if m == "memlode" or m.startswith("memlode.")}


def test_sql_lives_in_storage() -> None:
    found = set()
    for name, _, tree in _modules():
        if name.startswith("memlode.storage"):
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("execute", "executemany", "executescript")
            ):
                found.add(name)
    assert found == SQL_OUTSIDE_STORAGE


def test_modules_and_functions_stay_small() -> None:
    long_modules, long_functions = set(), set()
    for name, path, tree in _modules():
        if len(path.read_text("utf-8").splitlines()) > MAX_MODULE_LINES:
            long_modules.add(name)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
                    long_functions.add(f"{name}.{node.name}")
    assert long_modules == LONG_MODULES
    assert long_functions == LONG_FUNCTIONS


def _interface(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in INTERFACES else None


def test_interfaces_do_not_import_each_other() -> None:
    found = set()
    for name, _, tree in _modules():
        mine = _interface(name)
        if mine is None:
            continue
        for imported in _imports(name, tree):
            theirs = _interface(imported)
            if theirs is not None and theirs != mine:
                found.add((name, theirs))
    assert found == INTERFACE_IMPORTS


def test_no_import_cycles_between_modules() -> None:
    """Strongly connected groups of modules. An import at any depth counts (one inside a
    function, or under ``TYPE_CHECKING``, still ties the two modules together), and so does a
    package's ``__init__``: ``from memlode.storage import memories`` is an edge to the module
    ``memories``, ``from memlode.storage import open_store`` one to the package's ``__init__``."""
    found = list(_modules())
    names = {name for name, _, _ in found}
    graph = {
        name: _module_edges(name, path.name == "__init__.py", tree, names)
        for name, path, tree in found
    }
    cycles = sorted(sorted(group) for group in _strongly_connected(graph) if len(group) > 1)
    assert cycles == KNOWN_CYCLES


KNOWN_CYCLES: list[list[str]] = []


def _module_edges(name: str, is_package: bool, tree: ast.Module, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``name`` imports: for ``from package import x``, the
    module ``package.x`` when there is one, else ``package`` (its ``__init__`` holds ``x``)."""
    out: set[str] = set()
    package = name if is_package else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in modules else base)
    return {m for m in out if m in modules and m != name}


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[set[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                groups.append(group)
    return groups
