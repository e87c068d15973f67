"""What ``memlode index`` derives after its commit, kept in step with the code index.

An index run commits a project's files, symbols, references and code edges in one transaction.
Three steps follow, each in its own transaction: linking imports between indexed projects, the
cached centrality of the namespace's graph (PageRank, betweenness, degree, community), and the
repo map kept for the SessionStart hook. A process killed after the commit used to leave
centrality empty for good: the next run found no changed file and stopped before those steps.

Now the commit itself bumps the namespace's generation (a trigger on ``code_files``, migration
0011), and the steps record the generation and the graph fingerprint they were built from
(``storage/derived.py``). :func:`refresh` compares them and rebuilds what is stale:

- ``full`` (an index run; ``graph pagerank`` and ``graph clusters``): the generation, the
  graph's fingerprint (memory links change it too) and a centrality row for every code node;
- otherwise (a read that ranks by centrality: symbol search, symbol info, impact): the
  generation and the namespace's first code node, one index lookup each.

The cross-repo links and the session map depend on the code alone: they are rebuilt when the
generation moved (or was never built), not when only memory links changed the graph.

The symbols' FTS5 index is written in the index transaction itself, so a crash cannot leave it
behind; an index run still compares it with its table (two counts) and rebuilds it when rows
went missing some other way (:func:`refresh_symbol_index`).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memlode.errors import MemlodeError
from memlode.storage import derived
from memlode.storage.store_stats import has_indexed_code

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = [
    "GraphRefresh",
    "refresh",
    "refresh_for_read",
    "refresh_symbol_index",
    "stale_reasons",
]

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class GraphRefresh:
    """One rebuild of a namespace's graph state, and why it was needed."""

    namespace: str
    reasons: list[str]
    code: bool  # the cross-repo links and the session map were rebuilt too
    nodes: int = 0
    edges: int = 0
    communities: int = 0
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "reasons": self.reasons,
            "code": self.code,
            "nodes": self.nodes,
            "edges": self.edges,
            "communities": self.communities,
            "seconds": round(self.seconds, 3),
            **self.extra,
        }


def stale_reasons(
    engine: Engine, namespace: str, *, full: bool
) -> tuple[derived.Record, list[str], bool]:
    """(the record, why the state is stale (empty: fresh), whether the code part is stale)."""
    from memlode.graph.store import graph_fingerprint

    code_db = engine.code_db
    conn = code_db.conn
    rec = derived.record(conn, derived.graph_name(namespace))
    reasons: list[str] = []
    code = False
    if rec.built_from is None and (rec.generation or has_indexed_code(conn, namespace)):
        reasons.append("never built")
        code = True
    elif rec.built_from is not None and rec.stale_generation():
        reasons.append("code index changed since the last build")
        code = True
    probe = derived.graph_probe(conn, namespace, full=full)
    if probe.missing:
        reasons.append(f"centrality missing for {probe.missing} of {probe.nodes} code nodes")
    if full:
        built = rec.built_from or {}
        if built.get("graph") != graph_fingerprint(code_db, namespace) and not code:
            reasons.append("graph changed since centrality was computed")
    return rec, reasons, code


def refresh(
    engine: Engine,
    namespace: str,
    *,
    full: bool = True,
    force: bool = False,
    linked: bool = False,
    method: str = "leiden",
    progress: Progress | None = None,
) -> GraphRefresh | None:
    """Rebuild the namespace's graph state when stale (or ``force``); None when it was fresh.

    ``linked``: the caller has just linked cross-repo imports (an index run that wrote files),
    so that step is not repeated.
    """
    from memlode.graph.store import graph_fingerprint, recompute_centrality

    started = time.perf_counter()
    rec, reasons, code = stale_reasons(engine, namespace, full=full)
    if force:
        reasons = reasons or ["asked for"]
        code = code or has_indexed_code(engine.code_db.conn, namespace)
    if not reasons:
        return None
    db = engine.code_db  # the store itself, or on PostgreSQL this machine's code store
    if code and not linked:
        from memlode.code import link_cross_repo

        link_cross_repo(engine.code_db)
    if progress:
        progress("centrality", 0, 1)
    fingerprint = graph_fingerprint(db, namespace)
    run = recompute_centrality(db, namespace, method=method, fingerprint=fingerprint)
    if progress:
        progress("centrality", 1, 1)
    if db is not engine.db and full:  # a team store's memory graph, on the server
        recompute_centrality(engine.db, namespace, method=method)
    result = GraphRefresh(namespace, reasons, code, run.nodes, run.edges, run.communities)
    if code:
        from memlode.engine.code.repo_map import save_session_map

        result.extra["session_map_chars"] = len(save_session_map(engine, namespace))
    with db.write() as conn:
        derived.mark_built(
            conn,
            derived.graph_name(namespace),
            rec.generation,
            {"graph": fingerprint, "nodes": run.nodes, "method": method},
        )
    result.seconds = time.perf_counter() - started
    if reasons != ["asked for"]:
        log.info("graph state of %r rebuilt: %s", namespace, "; ".join(reasons))
    return result


def refresh_for_read(engine: Engine, namespace: str | None) -> None:
    """The cheap check before a read that ranks by centrality; a store that cannot be written
    (read-only, full disk, busy) answers from what it has."""
    if namespace is None:
        return
    try:
        refresh(engine, namespace, full=False)
    except (sqlite3.Error, MemlodeError) as exc:
        log.warning(
            "cannot rebuild the graph state of %r, answering from it as is: %s", namespace, exc
        )


def refresh_symbol_index(engine: Engine) -> bool:
    """Rebuild the symbols' FTS5 index when it does not hold every symbol; True if it did."""
    table = "code_symbols_fts"
    if not derived.fts_probe(engine.code_db.conn, table).stale:
        return False
    with engine.code_db.write() as conn:
        derived.fts_rebuild(conn, table)
    log.info("the symbol search index did not match its table; rebuilt")
    return True
