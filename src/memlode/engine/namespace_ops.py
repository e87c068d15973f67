"""Whole namespaces: list them, find one a user names, delete one, move one into another, keep
a folder-name namespace that migration 0010 left as it is."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memlode.errors import InvalidInput, NotFound
from memlode.project import is_identity_key
from memlode.storage import namespaces as namespace_repo

if TYPE_CHECKING:
    from memlode.storage.store import Store

__all__ = ["ALL_NAMESPACES", "delete", "existing", "keep", "key", "listing", "move"]

# Sentinel for "every namespace" in list/search/stats filters.
ALL_NAMESPACES = "*"


def key(conn: sqlite3.Connection, name: str, current: str) -> str:
    """The namespace a user means by ``name``: the namespace of that name if the store has
    one, else the one project key whose readable name it is (``app`` -> ``app-1a2b3c4d``),
    else ``name`` itself (a new namespace). Two projects called ``name``: InvalidInput."""
    if not name or name == current or is_identity_key(name):
        return name
    if namespace_repo.exists(conn, name):
        return name
    keys = namespace_repo.keys_named(conn, name)
    if len(keys) > 1:
        raise InvalidInput(
            f"namespace {name!r} is ambiguous: {len(keys)} projects are called {name!r} "
            f"({', '.join(keys)}); give one of those keys"
        )
    return keys[0] if keys else name


def listing(conn: sqlite3.Connection, current: str) -> list[dict[str, Any]]:
    """Every namespace with its readable name, counts and time span; ``current`` marks the
    project's own."""
    found = namespace_repo.listing(conn)
    for item in found:
        item["current"] = item["namespace"] == current
    return found


def existing(conn: sqlite3.Connection, namespace: str, key_of: Callable[[str], str]) -> str:
    """The key (``key_of``, the engine's ``namespace_key``) of a namespace that holds something
    (else NotFound); one at a time, never '*'."""
    if namespace.strip() == ALL_NAMESPACES:
        raise InvalidInput("one namespace at a time, not '*'")
    key = key_of(namespace.strip())
    if not namespace_repo.exists(conn, key):
        raise NotFound(f"no namespace {namespace.strip()!r}")
    return key


def delete(db: Store, key: str) -> int:
    """Delete the namespace ``key`` and everything in it; the number of memories deleted."""
    with db.write() as conn:
        return namespace_repo.delete(conn, key)


def move(db: Store, source: str, target: str) -> dict[str, Any]:
    """Move everything in namespace ``source`` into ``target``."""
    if not target or target == ALL_NAMESPACES:
        raise InvalidInput("move into one namespace: run inside the project, or give --to NAME")
    if target == source:
        raise InvalidInput(f"{source!r} is already that namespace")
    with db.write() as conn:
        report = namespace_repo.move(conn, source, target)
        namespace_repo.forget_legacy(conn, source)
    return {"from": source, "to": target, **report.to_dict()}


def keep(db: Store, name: str) -> bool:
    """Drop the note migration 0010 left for a folder-name namespace; False if there was none."""
    with db.write() as conn:
        return namespace_repo.forget_legacy(conn, name.strip(), keep=True)
