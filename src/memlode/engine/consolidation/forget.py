"""The forget cycle (opt-in: it runs only when named, ``--cycle forget``): rows nobody needs
leave the store, into an archive first.

A row is forgotten when it is old (created more than ``forget_after_days`` ago, 90 by
default), has never been opened or recalled, and is either of low importance (decay left it
at ``MAX_IMPORTANCE`` or less) or superseded (a summary stands for it, or a newer row
SUPERSEDES / INVALIDATES it). Never forgotten: what a user stored (source ``memory``), memory
files (``doc``: evergreen or not, the file is the truth), conversation turns, consolidation's own
summaries and patterns, and decisions and preferences of any source.

Forgetting moves the row whole (its vector, graph edges, decay and demotion records) into
``memory_archive``; ``memlode consolidate restore`` puts it back. A summary whose members are
archived keeps its text, and its cluster record is rewritten to the members still in the
store, so that the cluster cycle does not rewrite the summary from fewer rows. Archived rows
older than ``ARCHIVE_DAYS`` are removed for good by a later forget run.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from memlode.engine.consolidation.cluster import members_hash
from memlode.engine.consolidation.cycle import CycleContext, CycleRun, log_finish, log_start
from memlode.errors import InvalidInput, NotFound
from memlode.fastjson import loads
from memlode.storage import archive
from memlode.storage.capture import SUMMARY_SOURCE
from memlode.types import format_ts

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memlode.engine import Engine

__all__ = ["ARCHIVE_DAYS", "MAX_IMPORTANCE", "archived", "restore", "run"]

MAX_IMPORTANCE = 0.1
ARCHIVE_DAYS = 30.0  # an archived row can be restored this long
PROTECTED_SOURCES = ("memory", "doc", "transcript", "conversation", SUMMARY_SOURCE)
PROTECTED_TYPES = ("decision", "preference")
BATCH = 500  # rows archived per transaction


def run(ctx: CycleContext, report: CycleRun) -> None:
    before = format_ts(ctx.moment - timedelta(days=ctx.forget_after_days))
    report.parameters = {
        "forget_after_days": ctx.forget_after_days,
        "max_importance": MAX_IMPORTANCE,
        "archive_days": ARCHIVE_DAYS,
    }
    log_id = log_start(ctx, report)
    found = archive.forget_candidates(
        ctx.engine.conn,
        report.namespace,
        protected_sources=PROTECTED_SOURCES,
        protected_types=PROTECTED_TYPES,
        before=before,
        max_importance=MAX_IMPORTANCE,
    )
    report.counts = {
        "archived": len(found),
        "superseded": sum(reason == "superseded" for _, reason in found),
        "low_importance": sum(reason == "low importance" for _, reason in found),
    }
    report.changes = [{"id": memory_id, "reason": reason} for memory_id, reason in found]
    if log_id is None:
        return
    archived_at = format_ts(ctx.moment)
    for start in range(0, len(found), BATCH):
        batch = found[start : start + BATCH]
        with ctx.engine.db.write() as conn:
            summaries = _summaries_of(conn, [memory_id for memory_id, _ in batch])
            archive.archive_memories(conn, batch, log_id, archived_at)
            _keep_summaries(conn, summaries)
        ctx.tick(report, min(start + BATCH, len(found)), len(found))
    purge_before = format_ts(ctx.moment - timedelta(days=ARCHIVE_DAYS))
    with ctx.engine.db.write() as conn:
        report.counts["purged"] = archive.purge_archive(conn, report.namespace, purge_before)
    log_finish(ctx, log_id, report)


def _summaries_of(conn: Any, ids: Sequence[str]) -> set[str]:
    from memlode.storage.graph import edges_of

    wanted = set(ids)
    return {
        e.source_id
        for e in edges_of(conn, ids)
        if str(e.relationship) == "SUMMARIZES" and e.target_id in wanted
    }


def _keep_summaries(conn: Any, summaries: set[str]) -> None:
    for summary_id in sorted(summaries):
        live = archive.live_summarized(conn, summary_id)
        archive.set_cluster_members(conn, summary_id, members_hash(live))


def archived(
    engine: Engine,
    *,
    namespace: str | None = None,
    run_id: int | None = None,
    limit: int | None = 50,
) -> list[dict[str, Any]]:
    """The archive, newest first: what forget removed and can be restored."""
    ns = engine.resolve_namespace(namespace)
    out = []
    for memory_id, ns_, log_id, at, reason, memory in archive.archived_rows(
        engine.conn, namespace=ns, run_id=run_id, ids=(), limit=limit
    ):
        row = loads(memory)
        out.append(
            {
                "id": memory_id,
                "namespace": ns_,
                "run_id": int(log_id),
                "archived_at": at,
                "reason": reason,
                "source": row.get("source"),
                "created_at": row.get("created_at"),
                "content": row.get("content"),
            }
        )
    return out


def restore(
    engine: Engine,
    *,
    ids: Sequence[str] = (),
    run_id: int | None = None,
    namespace: str | None = None,
    dry_run: bool = False,
) -> dict[str, str]:
    """Put archived rows back: those of ``ids`` (all of which must be in the archive), or of
    forget run ``run_id``, or (neither) every archived row of ``namespace``; memory id ->
    "restored" (or "would restore"), or why not (its content is back in the store already)."""
    ns = engine.resolve_namespace(namespace)
    if ids and run_id is not None:
        raise InvalidInput("give memory ids or a run, not both")
    if any(not memory_id.strip() for memory_id in ids):
        raise InvalidInput("a memory id must not be empty")
    chosen = archive.archived_rows(
        engine.conn, namespace=None if ids else ns, run_id=run_id, ids=list(ids), limit=None
    )
    found = [str(r[0]) for r in chosen]
    missing = [memory_id for memory_id in ids if memory_id not in found]
    if missing:
        raise NotFound(f"not in the archive: {', '.join(missing[:5])}")
    if run_id is not None and not found:
        raise NotFound(
            f"nothing in the archive from run {run_id}; see `memlode consolidate archive`"
        )
    out: dict[str, str] = {}
    if dry_run:
        return {memory_id: "would restore" for memory_id in found}
    for start in range(0, len(found), BATCH):
        with engine.db.write() as conn:
            batch = found[start : start + BATCH]
            done = archive.restore_memories(conn, batch)
            summaries = _summaries_of(conn, [m for m, state in done.items() if state == "restored"])
            _keep_summaries(conn, summaries)
            out.update(done)
    return out
