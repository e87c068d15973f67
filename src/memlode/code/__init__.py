"""Code intelligence (L2): tree-sitter symbols and references, the code graph, search, maps.

Public surface (imported lazily, so that ``import memlode.code.model`` stays cheap for hooks)::

    index_project(db, root, namespace, *, exclude=(), workers=None, progress=None,
                  centrality=True) -> IndexStats
    remove_index(db, namespace, root=None) -> int
    search_symbols(db, query, *, namespace=None, kind=None, limit=20) -> list[SymbolHit]
    repo_map(db, namespace, *, tokens=1024, heat=None, focus=()) -> RepoMap
    impact(db, namespace, symbol, *, depth=3) -> ImpactResult
    find_symbols(db, namespace, ref) -> list[SymbolRow]
    symbol_details(db, namespace, ref) -> SymbolDetails
    dependencies(db, namespace, symbol, *, depth=1) -> ImpactResult
    top_central(db, namespace, *, kinds=(), limit=20) -> list[CentralNode]
    clusters(db, namespace, *, limit=20, members=8) -> list[list[CentralNode]]
    link_cross_repo(db) -> list[CrossRepoLink];  cross_repo(db) -> list[CrossRepoLink]
    scan_project(root, exclude=()) -> ProjectScan      (no store: extracts in memory)
    extract_file(path, source, module="", language="") -> FileExtract
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memlode.code.crossrepo import CrossRepoLink, cross_repo, link_cross_repo
    from memlode.code.extract import extract_file
    from memlode.code.indexer import IndexStats, ProgressCallback, index_project, remove_index
    from memlode.code.model import FileExtract, Reference, RefKind, Symbol, Visibility
    from memlode.code.navigate import (
        CentralNode,
        ImpactHit,
        ImpactResult,
        SymbolDetails,
        clusters,
        dependencies,
        find_symbols,
        impact,
        impact_of_nodes,
        symbol_details,
        top_central,
    )
    from memlode.code.repomap import MapFile, MapSymbol, RepoMap, repo_map
    from memlode.code.scan import ProjectScan, scan_project
    from memlode.code.search import SymbolHit, search_symbols

__all__ = [
    "CentralNode",
    "CrossRepoLink",
    "FileExtract",
    "ImpactHit",
    "ImpactResult",
    "IndexStats",
    "MapFile",
    "MapSymbol",
    "ProgressCallback",
    "ProjectScan",
    "RefKind",
    "Reference",
    "RepoMap",
    "Symbol",
    "SymbolDetails",
    "SymbolHit",
    "Visibility",
    "clusters",
    "cross_repo",
    "dependencies",
    "extract_file",
    "find_symbols",
    "impact",
    "impact_of_nodes",
    "index_project",
    "link_cross_repo",
    "remove_index",
    "repo_map",
    "scan_project",
    "search_symbols",
    "symbol_details",
    "top_central",
]

_HOME = {
    "CrossRepoLink": "crossrepo",
    "cross_repo": "crossrepo",
    "link_cross_repo": "crossrepo",
    "extract_file": "extract",
    "IndexStats": "indexer",
    "ProgressCallback": "indexer",
    "index_project": "indexer",
    "remove_index": "indexer",
    "FileExtract": "model",
    "Reference": "model",
    "RefKind": "model",
    "Symbol": "model",
    "Visibility": "model",
    "ImpactHit": "navigate",
    "ImpactResult": "navigate",
    "SymbolDetails": "navigate",
    "find_symbols": "navigate",
    "impact": "navigate",
    "impact_of_nodes": "navigate",
    "symbol_details": "navigate",
    "CentralNode": "navigate",
    "clusters": "navigate",
    "dependencies": "navigate",
    "top_central": "navigate",
    "MapFile": "repomap",
    "MapSymbol": "repomap",
    "RepoMap": "repomap",
    "repo_map": "repomap",
    "ProjectScan": "scan",
    "scan_project": "scan",
    "SymbolHit": "search",
    "search_symbols": "search",
}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'memlode.code' has no attribute {name!r}")
    return getattr(importlib.import_module(f"memlode.code.{module}"), name)
