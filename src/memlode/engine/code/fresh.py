"""Keeping the code index fresh between ``memlode index`` runs: named files re-indexed, then
the graph state and the session map.

Two callers name the files: the resident process, from the edit marks the PostToolUse hook
leaves (``storage.code_dirty``; :func:`reindex_marked`), and ``memlode watch --code``, from
file-system events (``engine.code.watch``). Both go through :func:`reindex_files`:

1. ``code.reindex.reindex_paths`` re-indexes the files in every indexed root containing them
   (one transaction per root; files outside every root are ignored);
2. :func:`symbols_changed` is told, per root, which files' symbols changed: the one call site
   for whatever keeps per-symbol state derived off the hot path;
3. the graph state of each changed namespace is rebuilt (``index_state.refresh``: cached
   centrality, then the repo map the SessionStart hook prints), unless the caller defers it.

Centrality is refreshed once per burst, not per edit: the resident defers step 3 while more
marks are waiting and runs it when a burst is over. Reads that rank by centrality keep their
own check (``index_state.refresh_for_read``), so a read that comes between the re-index and
the rebuild rebuilds it itself, as after any index run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.storage import code_dirty

if TYPE_CHECKING:
    from memlode.code.reindex import ReindexStats
    from memlode.engine import Engine

__all__ = ["pending_marks", "refresh_graphs", "reindex_files", "reindex_marked", "symbols_changed"]

log = logging.getLogger(__name__)


def reindex_files(
    engine: Engine,
    paths: Iterable[str | Path],
    *,
    exclude: Sequence[str] = (),
    refresh_graph: bool = True,
) -> dict[str, Any]:
    """Re-index ``paths`` where they lie in indexed roots; a JSON-able report.

    The report's ``namespaces`` are those whose code changed (their graph state is stale until
    :func:`refresh_graphs` runs, which this does unless ``refresh_graph`` is False).
    """
    from memlode.code.reindex import reindex_paths

    started = time.perf_counter()
    runs = reindex_paths(engine.code_db, paths, exclude=exclude)
    for run in runs:
        if run.changed:
            symbols_changed(engine, run)
    namespaces = sorted({r.namespace for r in runs if r.changed})
    report: dict[str, Any] = {
        "roots": [r.to_dict() for r in runs],
        "namespaces": namespaces,
        "reindex_seconds": round(time.perf_counter() - started, 4),
    }
    if refresh_graph:
        report["graph"] = refresh_graphs(engine, namespaces)
    report["seconds"] = round(time.perf_counter() - started, 4)
    return report


def symbols_changed(engine: Engine, run: ReindexStats) -> None:
    """The symbols of ``run.changed_files`` (relative to ``run.root``, in ``run.namespace``)
    were just replaced or removed; a whole root when ``run.walked``.

    The single place a re-index reports changed symbols, for state derived per symbol off the
    hot path. Symbol vectors (``engine.code.vectors``) need nothing here: a re-indexed file's
    symbols are pending by their file hash, and the resident's background embedder (woken by
    its code refresher) embeds them.
    """
    log.debug(
        "code of %s changed in %s: %s",
        run.namespace,
        run.root,
        "the whole root" if run.walked else ", ".join(run.changed_files),
    )


def refresh_graphs(engine: Engine, namespaces: Iterable[str]) -> dict[str, Any]:
    """Rebuild the stale graph state (centrality, session map) of each namespace."""
    from memlode.engine.code.index_state import refresh

    out: dict[str, Any] = {}
    for ns in namespaces:
        # the re-index linked cross-repo imports already
        rebuilt = refresh(engine, ns, full=True, linked=True)
        out[ns] = rebuilt.to_dict() if rebuilt is not None else None
    return out


def pending_marks(engine: Engine) -> list[code_dirty.Mark]:
    """The hooks' edit marks waiting for a re-index (``storage.code_dirty``)."""
    return code_dirty.pending(engine.code_db.conn)


def reindex_marked(
    engine: Engine, marks: Sequence[code_dirty.Mark], *, refresh_graph: bool = True
) -> dict[str, Any]:
    """Re-index the marked files, then clear those marks (a file marked again meanwhile keeps
    its mark, so its newer edit is re-indexed next time)."""
    report = reindex_files(engine, [m[0] for m in marks], refresh_graph=refresh_graph)
    with engine.code_db.write() as conn:
        code_dirty.clear(conn, marks)
    return report
