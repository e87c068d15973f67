"""L3, the engine: the operations a user names, behind one facade (``Engine``).

Interfaces (``memlode.cli``, ``memlode.mcp``, ``memlode.resident``) import ``Engine`` from here;
nothing below this package imports it.

- ``facade``: ``Engine`` — open a store; store, get, update, delete, list and search memories;
  sessions, stats, health; the entry to everything below.
- ``weights``: the ranking weights set at run time.
- ``links``: typed edges between memories, and a memory's neighbours.
- ``namespace_ops``: list, find, delete, move and keep whole namespaces.
- ``embedding``: fill and query the vectors (``EmbeddingService``), off the hot path;
  ``embed_worker`` fills them in the background of a long-lived process.
- ``reports``: stats and health.
- ``transcripts`` (with ``transcript_units``, ``transcript_build``): ingest assistant
  transcripts incrementally as conversation turns.
- ``namespace_check``: what ``memlode doctor`` says about folder-name namespaces.
- ``docs`` (with ``watch``): memory files and project docs, indexed and watched.
- ``code`` (a subpackage with its own surface): the code index kept fresh, symbol search,
  impact, graph questions about the code, the repo map and the map kept for SessionStart,
  symbol vectors.
- ``graph_ops``: graph algorithms over the memory graph (PageRank, paths, communities).
- ``portability``: export and import.
- ``recovery``: backup, restore and repair of derived state.
- ``demo``: the main job of ``make run``.
"""

from __future__ import annotations

from memlode.engine.facade import Engine, EngineOpener, StoreResult
from memlode.engine.namespace_ops import ALL_NAMESPACES
from memlode.types import SearchHit

__all__ = ["ALL_NAMESPACES", "Engine", "EngineOpener", "SearchHit", "StoreResult"]
