"""The PostgreSQL repositories are bound like the SQLite ones: each under the name and Protocol
it has on ``Backend``, each module's public functions that take a connection all in that
Protocol (none bypasses the contract) but the declared ``BEYOND_PROTOCOLS``, and each Protocol
the contract suite covers."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from pathlib import Path
from typing import Any

from memlode.storage import backend
from memlode.storage.postgres import repositories

CONTRACT = Path(__file__).resolve().parents[1] / "contract"


def _conn_functions(module: Any) -> set[str]:
    out = set()
    for name in getattr(module, "__all__", ()):
        value = getattr(module, name)
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            params = list(inspect.signature(value).parameters)
            if params and params[0] == "conn":
                out.add(name)
    return out


def test_each_repository_is_bound_as_on_backend() -> None:
    hints = backend.Backend.__annotations__
    fields = [f for f in dataclasses.fields(repositories.PostgresRepositories) if f.name != "name"]
    assert len(fields) >= 12
    for field in fields:
        assert hints[field.name] == field.type, field.name
        module = getattr(repositories.POSTGRES, field.name)
        # a folded repository is the SQLite module itself (one module, both backends)
        if module is not getattr(backend.SQLITE, field.name):
            assert module is importlib.import_module(f"memlode.storage.postgres.{field.name}")
        protocol = getattr(backend, str(field.type))
        members = {n for n, v in vars(protocol).items() if not n.startswith("_") and callable(v)}
        extra = repositories.BEYOND_PROTOCOLS.get(field.name, frozenset())
        assert _conn_functions(module) - extra <= members, field.name
        assert members <= set(dir(module)), field.name


def test_the_contract_suite_calls_each_bound_repository() -> None:
    text = " ".join(p.read_text() for p in CONTRACT.glob("test_*.py"))
    for field in dataclasses.fields(repositories.PostgresRepositories):
        if field.name != "name":
            assert f"store.rows.{field.name}" in text or f"= store.rows.{field.name}" in text, (
                field.name
            )
