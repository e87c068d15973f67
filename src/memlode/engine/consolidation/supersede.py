"""The supersede cycle: what the user told the assistant, as the prompt hook kept it, linked to
the earlier statement it replaces ("from now on use pnpm instead of npm").

A stored memory is linked as it is stored (``Engine.store``); an instruction the prompt hook
captured is not, since the hook stays light. This cycle reads each captured instruction new
since its last run (a watermark per namespace in ``store_settings``: the newest ``created_at``
read), oldest first, at most ``MAX_NEW`` per run, against the namespace's stored statements and
earlier instructions, with the rules of :mod:`memlode.engine.supersede_rules`, and writes the
links (``memlode.engine.supersession``). A dry run lists what it would link and writes nothing.
"""

from __future__ import annotations

from memlode.engine import supersession
from memlode.engine.consolidation.cycle import CycleContext, CycleRun, log_finish, log_start
from memlode.storage import supersession as links
from memlode.storage.store_settings import get_setting, put_setting

__all__ = ["MAX_NEW", "run"]

MAX_NEW = 2000  # captured instructions read per run (bounded work); the next run goes on
_WATERMARK = "supersede:captured:"


def run(ctx: CycleContext, report: CycleRun) -> None:
    report.parameters = {"max_new": MAX_NEW}
    key = _WATERMARK + report.namespace
    conn = ctx.engine.conn
    after = get_setting(conn, key) or ""
    new = links.captured_after(conn, report.namespace, supersession.CAPTURED, after, MAX_NEW)
    report.counts = {"instructions_new": len(new), "linked": 0}
    ids = [memory_id for memory_id, _at in new]
    log_id = log_start(ctx, report)  # logged with nothing new too: the schedule reads the log
    if not ids:
        made = []
    elif log_id is None:  # a dry run: what it would link
        made = supersession.plan_replacements(conn, ids, captured=True)
    else:  # the rules read outside the write lock; only the links are written
        found = supersession.plan_replacements(conn, ids, captured=True)
        with ctx.engine.db.write() as wconn:
            made = supersession.record(wconn, found)
            put_setting(wconn, key, new[-1][1])
    report.counts["linked"] = len(made)
    report.changes = [
        {"relationship": "SUPERSEDES", "source": r.new_id, "target": r.old_id, "rule": r.how}
        for r in made
    ]
    log_finish(ctx, log_id, report)
