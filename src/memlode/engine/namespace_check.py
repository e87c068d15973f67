"""The doctor's check on namespaces: rows that migration 0010 left under a folder name.

Migration 0010 (``memlode.storage.namespace_rekey``) moved each folder-name namespace's rows to
the key of the project whose paths they recorded. Rows it could not place stay under the old
name, where no project reads them by default: this says where they are and how to place them
(``memlode namespaces --move``) or to keep the name on purpose (``--keep``). A namespace the
settings pin (``MEMLODE_NAMESPACE``, ``namespace =``) is chosen, not left over, and not reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memlode.storage.namespaces import legacy_left

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["legacy_namespace_warnings"]

_WHY = {
    "no-paths": "no row recorded a path that says which project they belong to",
    "several-projects": "they recorded no path, and the namespace held rows of several "
    "projects called {name!r} ({keys})",
    "duplicates": "the same content was already in {keys}",
}


def legacy_namespace_warnings(engine: Engine) -> list[str]:
    """One line per folder-name namespace that still holds rows no project reads."""
    pinned = engine.settings.namespace
    out: list[str] = []
    for item in legacy_left(engine.conn):
        name = item.namespace
        if name == pinned:
            continue
        keys = ", ".join(item.keys) or "-"
        why = _WHY.get(item.reason, "they could not be placed").format(name=name, keys=keys)
        out.append(
            f"namespace {name!r}: {item.memories} memories and {item.sessions} sessions"
            f" stayed under this folder name from before project identities ({why}); inside"
            f" the project they belong to run `memlode namespaces --move {name}`, or keep the"
            f" name on purpose with `memlode namespaces --keep {name}`"
        )
    return out
