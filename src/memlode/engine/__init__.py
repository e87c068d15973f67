"""L3, the engine: the operations a user names, behind one facade (``Engine``).

Interfaces (``memlode.cli``, ``memlode.mcp``, ``memlode.resident``) import ``Engine`` from here;
nothing below this package imports it.

- ``facade``: ``Engine`` — open a store; store, get, update, delete, list and search memories;
  sessions, stats, health; the entry to everything below.
- ``weights``: the ranking weights set at run time.
- ``links``: typed edges between memories, and a memory's neighbours.
- ``namespace_ops``: list, find, delete, move and keep whole namespaces.
"""

from __future__ import annotations

from memlode.engine.facade import Engine, StoreResult
from memlode.engine.namespace_ops import ALL_NAMESPACES
from memlode.types import SearchHit

__all__ = ["ALL_NAMESPACES", "Engine", "SearchHit", "StoreResult"]
