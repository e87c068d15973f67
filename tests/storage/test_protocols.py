"""The storage contracts cover the SQLite repositories both ways.

mypy checks that each module bound in ``memlode.storage.backend`` has every member of its
Protocol with a compatible signature; this test checks the other direction (every public
function of a bound module that takes a connection is in its Protocol, so none bypasses the
contract) and that every storage module with such functions is bound.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from typing import Any

from memlode.storage import backend
from memlode.storage.code_repo import CodeRepo
from memlode.storage.protocols.code import CodeRepository

STORAGE = Path(backend.__file__).parent
# Connection-level modules: what a backend is, not rows behind a contract.
CONNECTION_LEVEL = {"db", "fastpath", "backend", "sql"}  # connections and dialects, not rows
# Another program's database read as a source (OpenCode's sessions), never memlode's store:
# its SQL lives in storage/ like all SQL, but no backend serves it.
FOREIGN_DATABASES = {"opencode_db"}


def _protocol_members(protocol: type[Any]) -> set[str]:
    return {
        name
        for name, value in vars(protocol).items()
        if not name.startswith("_") and callable(value)
    }


def _conn_functions(module: Any) -> set[str]:
    names = getattr(module, "__all__", None) or dir(module)
    out = set()
    for name in names:
        value = getattr(module, name, None)
        if name.startswith("_") or not inspect.isfunction(value):
            continue
        if value.__module__ != module.__name__:
            continue
        params = list(inspect.signature(value).parameters)
        if params and params[0] == "conn":
            out.add(name)
    return out


def test_every_bound_module_function_is_in_its_protocol() -> None:
    hints = backend.Backend.__annotations__
    checked = 0
    for attribute, annotation in hints.items():
        if attribute == "name":
            continue
        module = importlib.import_module(f"memlode.storage.{attribute}")
        protocol_name = annotation if isinstance(annotation, str) else annotation.__name__
        protocol = getattr(backend, protocol_name)
        missing = _conn_functions(module) - _protocol_members(protocol)
        assert not missing, f"{module.__name__} functions outside {protocol_name}: {missing}"
        assert _protocol_members(protocol) <= set(dir(module))
        assert getattr(backend.SQLITE, attribute) is module
        checked += 1
    assert checked >= 25


def test_code_repo_methods_are_in_its_protocol() -> None:
    public = {n for n, v in vars(CodeRepo).items() if not n.startswith("_") and callable(v)}
    assert public == _protocol_members(CodeRepository)


def test_every_storage_module_with_rows_is_bound() -> None:
    bound = set(backend.Backend.__annotations__)
    unbound = []
    for path in sorted(STORAGE.glob("*.py")):
        name = path.stem
        if name.startswith("_") or name in CONNECTION_LEVEL | FOREIGN_DATABASES or name in bound:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        takes_conn = [
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef)
            and not node.name.startswith("_")
            and node.args.args
            and node.args.args[0].arg == "conn"
        ]
        if takes_conn:
            unbound.append((name, takes_conn))
    assert unbound == []
