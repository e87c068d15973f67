"""Backup, restore and repair of a store: ``memlode backup``, ``restore``, ``doctor --repair``.

- :func:`backup` copies the live store with SQLite's online backup API into a new owner-only
  file: a consistent snapshot while other processes write, self-contained (no WAL), moved into
  place only when complete, so a killed backup never leaves half a file under the name.
- :func:`restore` checks that a file is a memlode store that passes ``integrity_check`` and
  that this memlode knows its schema, copies it to a scratch file beside the store, migrates it
  there when it is older, moves every counter that copies outside the database compare against
  past the live store's (``storage/derived.py``), and writes it into the live database through
  the backup API: one write transaction, so running processes see the old store or the new one,
  never a file swapped under them, and their in-memory copies rebuild.
- :func:`repair` rebuilds everything derived (the FTS5 indexes, the code edges, cross-repo
  links, centrality and session maps, the vector index mirror, the change log that in-memory
  FTS copies follow), redacts again what was stored before a redaction rule existed
  (``engine/rescrub.py``: rows, the code index, memlode's memory files), deletes derived rows
  that cannot be read (``memlode embed`` makes them again), reports stored rows that cannot be
  read (never changed), and runs the integrity check before and after.

L3: composes ``storage`` (backup API, row checks, derived state) with the engine.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.engine.rescrub import rescrub
from memlode.errors import InvalidInput, MemlodeError, StorageError
from memlode.owner_only import FILE_MODE
from memlode.storage import backup as store_copy
from memlode.storage import derived, row_checks, vector_rows
from memlode.storage.db import connect
from memlode.storage.migrations import apply_migrations, latest_version

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["backup", "repair", "restore"]

log = logging.getLogger(__name__)

# Rows of each kind listed in a repair report (the count is always complete).
REPORT_ROWS = 50


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _check(conn: sqlite3.Connection, pragma: str = "integrity_check") -> list[str]:
    return store_copy.check(conn, pragma)


# ---- backup -------------------------------------------------------------------------------------


def backup(database: Path, target: Path, *, force: bool = False) -> dict[str, Any]:
    """Copy the store at ``database`` to a new file ``target`` (replacing one only if
    ``force``); what was written."""
    started = time.perf_counter()
    target = Path(target).expanduser()
    if not database.exists():
        raise StorageError(f"no store at {database}; there is nothing to back up")
    if target.is_dir():
        raise InvalidInput(f"{target} is a folder; give the path of the backup file to write")
    if not target.parent.is_dir():
        raise InvalidInput(f"folder {target.parent} does not exist; create it first")
    if _same_file(target, database):
        raise InvalidInput(f"{target} is the store itself; give another path")
    if target.exists() and not force:
        raise InvalidInput(f"{target} exists; pass --force to replace it")
    source = connect(database, migrate=False)
    try:
        with store_copy.scratch_database(target, "backup") as (scratch, conn):
            store_copy.copy_pages(source, conn)
            store_copy.settle_journal(conn)
            check = _check(conn, "quick_check")
            if check != ["ok"]:
                raise StorageError(f"the copy of {database} fails its check: {check[0]}")
            memories = store_copy.memory_count(conn)
            versions = store_copy.schema_versions(conn)
            conn.close()
            os.replace(scratch, target)
    finally:
        source.close()
    os.chmod(target, FILE_MODE)
    return {
        "path": str(target),
        "database": str(database),
        "memories": memories,
        "schema_version": max(versions, default=0),
        "bytes": target.stat().st_size,
        "check": "ok",
        "seconds": round(time.perf_counter() - started, 3),
    }


# ---- restore ------------------------------------------------------------------------------------


def restore(database: Path, source: Path, *, force: bool = False) -> dict[str, Any]:
    """Replace the store at ``database`` with the memlode store in ``source``; what was done."""
    started = time.perf_counter()
    source = Path(source).expanduser()
    if _same_file(source, database):
        raise InvalidInput(f"{source} is the store itself; give a backup file")
    info = store_copy.inspect_store(source)
    if info.unknown:
        raise StorageError(
            f"{source} was written by a newer memlode (schema {info.version}, this one knows "
            f"{latest_version()}); upgrade memlode to restore it"
        )
    if not info.ok:
        raise StorageError(
            f"{source} fails the integrity check ({info.integrity[0]}); not restored"
        )
    if database.exists() and not force:
        raise InvalidInput(
            f"{database} exists and would be replaced; pass --force to restore over it "
            "(`memlode backup PATH` first keeps a copy)"
        )
    live = connect(database)
    try:
        with store_copy.scratch_database(database, "restore") as (_scratch, conn):
            reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
            try:
                store_copy.copy_pages(reader, conn)
            finally:
                reader.close()
            store_copy.settle_journal(conn)
            migrated = apply_migrations(conn)
            store_copy.match_page_size(conn, live)
            store_copy.invalidate_copies_of(conn, live)
            store_copy.copy_pages(conn, live)
        check = _check(live, "quick_check")
        memories = store_copy.memory_count(live)
    finally:
        live.close()
    return {
        "database": str(database),
        "source": str(source),
        "memories": memories,
        "schema_from": info.version,
        "schema_version": latest_version(),
        "migrated": migrated,
        "check": "ok" if check == ["ok"] else check,
        "seconds": round(time.perf_counter() - started, 3),
    }


# ---- repair -------------------------------------------------------------------------------------


class _Steps:
    """Runs the repair's steps one by one; a step that fails is reported and the rest go on."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def run(self, name: str, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except (sqlite3.Error, MemlodeError, OSError) as exc:
            log.warning("repair: %s failed: %s", name, exc)
            self.errors.append(f"{name}: {exc}")
            return None


def _listed(rows: list[row_checks.BadRow]) -> dict[str, Any]:
    return {"count": len(rows), "rows": [r.to_dict() for r in rows[:REPORT_ROWS]]}


def repair(engine: Engine) -> dict[str, Any]:
    """Rebuild every derived index of the engine's store; what was rebuilt and what could not
    be read (see the module docstring)."""
    started = time.perf_counter()
    db, conn = engine.db, engine.conn
    steps = _Steps()
    report: dict[str, Any] = {"database": str(db.path)}
    report["integrity_before"] = steps.run("integrity check", lambda: _check(conn)) or []

    removed: dict[str, Any] = {}
    unreadable: dict[str, Any] = {}

    def drop_bad_derived_rows() -> None:
        with db.write() as c:
            vectors = row_checks.bad_embeddings(c)
            row_checks.delete_embeddings(c, [r.id for r in vectors])
            states = row_checks.bad_token_states(c)
            row_checks.delete_token_states(c, [r.id for r in states])
        removed["embeddings"] = _listed(vectors)
        removed["token_states"] = _listed(states)

    steps.run("derived rows", drop_bad_derived_rows)
    stored = steps.run(
        "stored rows",
        lambda: row_checks.unreadable_memories(conn) + row_checks.unreadable_json(conn),
    )
    unreadable.update(_listed(stored or []))
    report["removed"] = removed
    report["unreadable"] = unreadable

    # text stored before a redaction rule existed loses its secrets (engine/rescrub.py)
    report["redacted"] = steps.run("redaction", lambda: rescrub(engine)) or {}

    rebuilt: dict[str, Any] = {}

    def rebuild_text_indexes() -> None:
        with db.write() as c:
            for table in derived.FTS_TABLES:
                derived.fts_rebuild(c, table)
            # processes holding an in-memory FTS copy or vector index read them again
            rebuilt["copies"] = derived.invalidate_copies(c, derived.copy_marks(c)).to_dict()
        rebuilt["fts"] = {t: derived.fts_probe(conn, t).to_dict() for t in derived.FTS_TABLES}

    steps.run("FTS indexes", rebuild_text_indexes)
    edges: dict[str, int] = {}
    for ns in steps.run("code namespaces", lambda: derived.code_namespaces(conn)) or []:
        count = steps.run(f"code edges of {ns}", derived.rebuild_code_edges, db, ns)
        if count is not None:
            edges[ns] = count
    rebuilt["code_edges"] = edges
    rebuilt["graph"] = _rebuild_graphs(engine, steps)
    rebuilt["vectors"] = steps.run("vector index", lambda: _rebuild_vectors(engine))
    report["rebuilt"] = rebuilt

    fts_checks = {
        t: steps.run(f"{t} check", derived.fts_integrity, conn, t) or "ok"
        for t in derived.FTS_TABLES
    }
    report["fts_integrity"] = fts_checks
    report["integrity_after"] = steps.run("integrity check", lambda: _check(conn)) or []
    problems = list(steps.errors)
    if report["integrity_after"] != ["ok"]:
        problems.append(f"integrity check: {'; '.join(report['integrity_after'][:5])}")
    problems += [f"{t}: {why}" for t, why in fts_checks.items() if why != "ok"]
    if unreadable["count"]:
        problems.append(
            f"{unreadable['count']} stored values cannot be read (listed under unreadable);"
            " they were left as they are"
        )
    report["problems"] = problems
    report["ok"] = not problems
    report["seconds"] = round(time.perf_counter() - started, 3)
    return report


def _rebuild_graphs(engine: Engine, steps: _Steps) -> dict[str, Any]:
    from memlode.engine.code import refresh

    out: dict[str, Any] = {}
    for ns in steps.run("graph namespaces", lambda: derived.graph_namespaces(engine.conn)) or []:
        run = steps.run(f"graph of {ns}", partial(refresh, engine, ns, force=True))
        if run is not None:
            out[ns] = {"nodes": run.nodes, "edges": run.edges, "communities": run.communities}
    return out


def _rebuild_vectors(engine: Engine) -> dict[str, Any]:
    """Delete the store's vector mirror files (every model's) and write the current model's
    again from ``memory_embeddings``."""
    from memlode.vector.index import VectorIndex

    settings = engine.settings
    cache = settings.home / "cache"
    database = engine.db.key or ""
    models = set(vector_rows.known_models(engine.conn))
    current = engine.embeddings.model_name()
    if current is not None:
        models.add(current)
    deleted = 0
    for model in sorted(models):
        key = VectorIndex(model, 1, cache, database=database).cache_key
        for path in cache.glob(f"vectors-{key}.*"):
            path.unlink(missing_ok=True)
            deleted += 1
    out: dict[str, Any] = {"mirror_files_deleted": deleted, "model": current}
    index = engine.embeddings.index  # refreshed: rebuilt from the table, mirror written
    if index is None:
        out["rows"] = 0
        out["note"] = engine.embeddings.error or "no embedder configured (BM25 only)"
    else:
        out["rows"] = len(index)
    return out
