"""L3, the code capability as a user names it: index a project, keep the index fresh, search its
symbols, walk what depends on what, ask the code graph, draw the repo map, make symbol vectors.

The CLI, the MCP tools, the resident and the dashboard import these names from here, never from
the modules below; results are JSON-able dicts, errors ``InvalidInput`` / ``NotFound`` with a
message saying what to do. Each module holds one idea:

- ``index``: an index run (then what it derives, then its symbol vectors), and the links
  between indexed projects.
- ``search``: symbol and code search, as every interface ranks it.
- ``impact``: one symbol, what depends on it and what it depends on.
- ``centrality``: PageRank, betweenness and communities of a namespace's graph, cached.
- ``graph``: questions the graph library answers about the code (path, components, layers).
- ``repo_map``: the repo map heated by recent edits, and the map kept for SessionStart.
- ``index_state``: what an index run derives after its commit (centrality, cross-repo links,
  the session map), rebuilt when stale.
- ``fresh``: named files re-indexed between index runs (the resident, ``watch --code``);
  ``watch``: the file-system watcher that names them.
- ``vectors``: the symbol-vector pass and the query side of semantic code search;
  ``handoff``: who makes the vectors an index run leaves (the resident, else the run).

tree-sitter, igraph and the embedders are imported inside the functions that need them, never
when this package is imported.
"""

from __future__ import annotations

from memlode.engine.code.centrality import clusters, pagerank, recompute
from memlode.engine.code.fresh import pending_marks, refresh_graphs, reindex_files, reindex_marked
from memlode.engine.code.graph import LEVELS, components, layers, path
from memlode.engine.code.impact import dependencies, impact, is_description, symbol_info
from memlode.engine.code.index import cross_repo, default_root, index
from memlode.engine.code.index_state import refresh, stale_reasons
from memlode.engine.code.repo_map import edit_heat, repo_map, save_session_map, session_map
from memlode.engine.code.search import MAX_CODE_LINES, search_code, search_symbols
from memlode.engine.code.vectors import (
    SymbolBacklog,
    SymbolEmbedStats,
    embed_symbols,
    pending_report,
    pending_symbols,
)
from memlode.engine.code.watch import watch_code, watched_roots

__all__ = [
    "LEVELS",
    "MAX_CODE_LINES",
    "SymbolBacklog",
    "SymbolEmbedStats",
    "clusters",
    "components",
    "cross_repo",
    "default_root",
    "dependencies",
    "edit_heat",
    "embed_symbols",
    "impact",
    "index",
    "is_description",
    "layers",
    "pagerank",
    "path",
    "pending_marks",
    "pending_report",
    "pending_symbols",
    "recompute",
    "refresh",
    "refresh_graphs",
    "reindex_files",
    "reindex_marked",
    "repo_map",
    "save_session_map",
    "search_code",
    "search_symbols",
    "session_map",
    "stale_reasons",
    "symbol_info",
    "watch_code",
    "watched_roots",
]
