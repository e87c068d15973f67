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


def _from_module(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a ``from ... import`` inside ``package`` names (relative ones
    resolved)."""
    base = node.module or ""
    if node.level:
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    return base


def _imports(name: str, tree: ast.Module) -> set[str]:
    """Every module ``name`` imports, at the top or inside a function."""
    out: set[str] = set()
    package = name if name.count(".") == 0 else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _from_module(node, package)
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


# Where a module may tell the backends apart by name: PostgreSQL's own package. Everywhere else
# asks the connection's dialect for a construct or a capability (``memlode.storage.sql``).
BACKEND_PACKAGE = "memlode.storage.postgres"
# Backend questions outside it ("module:line: what"); none is left, and none may come back.
BACKEND_QUESTIONS: set[str] = set()
_DIALECT_VALUES = frozenset({"SQLITE", "POSTGRESQL"})
_BY_NAME_PROPERTIES = frozenset({"postgres", "sqlite", "is_postgres", "is_sqlite"})


def test_no_module_asks_which_backend_it_is() -> None:
    """Outside ``storage/postgres`` no module compares a dialect (or its ``name``) with anything,
    tests its class, reads a by-name property (``.postgres``) or imports PostgreSQL's dialect:
    Django's model, one method per construct per backend and flags a caller asks. ``name`` is
    for display (``memlode stats``' backend)."""
    found = set()
    for name, _, tree in _modules():
        if name == BACKEND_PACKAGE or name.startswith(BACKEND_PACKAGE + "."):
            continue
        found.update(f"{name}:{where}" for where in backend_questions(tree))
    assert found == BACKEND_QUESTIONS


def backend_questions(tree: ast.Module) -> list[str]:
    """ "line: what" of each place ``tree`` asks which backend it is (see the test above)."""
    held = _dialect_names(tree)
    out = []
    for node in ast.walk(tree):
        what = None
        if isinstance(node, ast.Attribute) and node.attr in _BY_NAME_PROPERTIES:
            what = f"reads .{node.attr}"
        elif isinstance(node, ast.Compare) and any(
            _is_dialect(side, held, named=True) for side in [node.left, *node.comparators]
        ):
            what = "compares a dialect"
        elif isinstance(node, ast.Call) and _tests_class(node):
            what = "tests a dialect's class"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("postgres.dialect"):
            what = "imports PostgreSQL's dialect"
        elif isinstance(node, ast.ClassDef) and node.name.endswith("Dialect"):
            what = _compares_own_name(node)
        if what is not None:
            out.append(f"{getattr(node, 'lineno', 0)}: {what}")
    return out


def _compares_own_name(cls: ast.ClassDef) -> str | None:
    """A dialect class that compares its own ``self.name``: a by-name branch inside it."""
    for node in ast.walk(cls):
        if isinstance(node, ast.Compare) and any(
            isinstance(side, ast.Attribute)
            and side.attr == "name"
            and isinstance(side.value, ast.Name)
            and side.value.id == "self"
            for side in [node.left, *node.comparators]
        ):
            return f"compares self.name (line {node.lineno})"
    return None


def _dialect_names(tree: ast.Module) -> set[str]:
    """Names bound to a dialect in ``tree`` (``d = dialect_of(conn)``, ``d = db.dialect``)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if _is_dialect(node.value, set(), named=False):
                out.update(t.id for t in targets if isinstance(t, ast.Name))
    return out


def _is_dialect(node: ast.expr, held: set[str], *, named: bool) -> bool:
    """Is ``node`` a dialect (``dialect_of(x)``, ``x.dialect``, ``SQLITE``, a name holding
    one) or, with ``named``, a dialect's ``name`` or ``type()``?"""
    if named and isinstance(node, ast.Attribute) and node.attr == "name":
        return _is_dialect(node.value, held, named=False)
    if named and isinstance(node, ast.Call) and _called(node) == "type" and node.args:
        return _is_dialect(node.args[0], held, named=False)
    if isinstance(node, ast.Call):
        return _called(node) == "dialect_of"
    if isinstance(node, ast.Attribute):
        return node.attr == "dialect" or node.attr in _DIALECT_VALUES
    return isinstance(node, ast.Name) and (node.id in held or node.id in _DIALECT_VALUES)


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _tests_class(node: ast.Call) -> bool:
    """``isinstance(d, PostgresDialect)``: a backend's dialect class, not the base ``Dialect``
    (``dialect_of`` asks whether a connection carries a dialect at all)."""
    if _called(node) not in ("isinstance", "issubclass") or len(node.args) != 2:
        return False
    names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
    return any(n.endswith("Dialect") and n != "Dialect" for n in names)


# Each way of asking which backend it is, and uses of a dialect that do not ask.
_ASKS = {
    "d = dialect_of(conn)\nif d.name == 'postgresql': pass": "compares a dialect",
    "if dialect_of(conn).name != 'sqlite': pass": "compares a dialect",
    "if db.dialect is POSTGRESQL: pass": "compares a dialect",
    "x = sql.SQLITE == dialect_of(conn)": "compares a dialect",
    "if type(dialect_of(conn)) is not Dialect: pass": "compares a dialect",
    "if dialect_of(conn).postgres: pass": "reads .postgres",
    "if isinstance(dialect_of(conn), PostgresDialect): pass": "tests a dialect's class",
    "from memlode.storage.postgres.dialect import POSTGRESQL": "imports PostgreSQL's dialect",
    "class Dialect:\n    def f(self):\n        return self.name == 'pg'": "compares self.name",
}
_DOES_NOT_ASK = (
    "d = dialect_of(conn)\nif d.has_fts5 and not d.on_server: pass",
    "report = {'backend': db.dialect.name}",
    "sql = f'SELECT {dialect_of(conn).json_has(\"tags\")}'",
    "d = 3\nif d == 3: pass",
    "if isinstance(x, Dialect): pass",
)


def test_the_backend_check_sees_each_way_of_asking() -> None:
    for source, what in _ASKS.items():
        found = backend_questions(ast.parse(source))
        assert len(found) == 1 and what in found[0], (source, found)
    for source in _DOES_NOT_ASK:
        assert backend_questions(ast.parse(source)) == [], source


def _module_edges(name: str, is_package: bool, tree: ast.Module, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``name`` imports: for ``from package import x``, the
    module ``package.x`` when there is one, else ``package`` (its ``__init__`` holds ``x``)."""
    out: set[str] = set()
    package = name if is_package else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _from_module(node, package)
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
