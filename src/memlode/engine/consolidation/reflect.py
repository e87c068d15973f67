"""The reflect cycle: what each finished session established, as insight memories.

For each session of the namespace that ended (``sessions.ended_at``) or has stored nothing for
``IDLE_HOURS``, the rules of :mod:`.reflect_rules` read its rows (the hooks' observations and
the decisions stored in it) and give its items: decisions taken, problems solved and how,
what is still open. Each item is an insight memory (source ``consolidation``, tags
``reflection`` and ``reflection:<kind>``, metadata with the session, the kind and the thread),
a sentence or two, with ``DERIVED_FROM`` edges to its evidence.

Threads: an item on the thread of an earlier session's item (the same command family, the
same decision topic, the same edited files) supersedes it: new ``SUPERSEDES`` old, old
``EVOLVED_INTO`` new, and recall ranks the old one lower (``memory_demotions``, as a summary
does its members). An open item later solved is so superseded by the solved one.

Idempotent: each item has its record in ``consolidation_clusters`` (kind
``reflection:<kind>``, key ``<session>|<thread>``, a hash of its kind, sentence and evidence);
an item whose evidence and predecessor did not change is left alone. An insight whose item a
later version of the rules no longer finds is left as it is (nothing is deleted). A session
whose item changed kind (open, then solved after the session was resumed) gets its insight
rewritten, not a second one.
The prompt hook never injects an insight of this cycle (``memlode.hooks._recall.NOT_INJECTED``);
the SessionStart briefing shows the latest open ones.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from memlode.engine.consolidation.cycle import CycleContext, CycleRun, log_finish, log_start
from memlode.engine.consolidation.reflect_rules import Item, distil, parse_rows
from memlode.storage import consolidation as rows
from memlode.storage import graph, reflection
from memlode.storage import memories as memory_rows
from memlode.storage.capture import REFLECTION_TAG, SUMMARY_SOURCE
from memlode.storage.values import NewMemory
from memlode.types import Edge, MemoryType, Relationship, format_ts

if TYPE_CHECKING:
    import sqlite3
    from datetime import datetime

__all__ = ["IDLE_HOURS", "REFLECTION_TAG", "Reflection", "plan_reflection", "run"]

# A session that stored nothing for this long is reflected on as if it had ended (a session
# the assistant never closed: the terminal was shut, the machine slept).
IDLE_HOURS = 4.0
IMPORTANCE = {"decision": 0.7, "solved": 0.6, "open": 0.6}
# Items written per transaction (each whole: its insight, edges, demotion and record).
BATCH = 50


@dataclass
class Reflection:
    namespace: str
    session: str
    item: Item
    state: str = "new"  # new, changed, unchanged
    insight_id: str | None = None
    old_kind: str | None = None  # the record's kind when the item changed kind
    stands_for_it: str | None = None  # what the recorded insight is demoted under
    previous: Reflection | None = None  # the earlier session's item on the same thread
    labels: dict[str, str] | None = None  # evidence id -> its text (for its graph node)

    @property
    def key(self) -> str:
        return f"{self.session}|{self.item.thread}"

    @property
    def record_kind(self) -> str:
        return reflection.REFLECTION_KIND + self.item.kind

    @property
    def members_hash(self) -> str:
        # its evidence, and its sentence: a rule that words it anew rewrites it
        joined = "\n".join([self.item.kind, self.item.text, *sorted(self.item.evidence)])
        return hashlib.sha256(joined.encode()).hexdigest()[:32]

    def to_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "kind": self.item.kind,
            "members": len(self.item.evidence),
            "session": self.session,
            "thread": self.item.thread,
            "insight_id": self.insight_id,
            "supersedes": None if self.previous is None else self.previous.key,
            "summary": self.item.text,
        }


def plan_reflection(conn: Any, namespace: str, moment: datetime) -> list[Reflection]:
    """The items of the namespace's ended or idle sessions, oldest first, each marked new,
    changed or unchanged against its record and linked to its thread's previous item
    (nothing is written here)."""
    records = {str(r[1]): r for r in reflection.reflection_records(conn, namespace)}
    idle_before = format_ts(moment - timedelta(hours=IDLE_HOURS))
    out: list[Reflection] = []
    for session, _started, ended, last in reflection.sessions_to_reflect(
        conn, namespace, idle_before
    ):
        found = parse_rows(reflection.session_evidence(conn, namespace, session, SUMMARY_SOURCE))
        if not found:
            continue
        where = f"in session {str(session)[:8]} ({str(ended or last or '')[:10]})"
        labels = {r.id: r.content for r in found}
        for item in distil(found, where):
            entry = Reflection(namespace, str(session), item, labels=labels)
            record = records.get(entry.key)
            if record is not None:
                entry.insight_id, entry.stands_for_it = str(record[2]), record[4]
                same = record[0] == entry.record_kind and record[3] == entry.members_hash
                entry.state = "unchanged" if same else "changed"
                entry.old_kind = None if record[0] == entry.record_kind else str(record[0])
            out.append(entry)
    out.sort(key=lambda e: (e.item.at, e.session, e.item.thread))
    kept: list[Reflection] = []
    latest: dict[str, Reflection] = {}
    for entry in out:
        previous = latest.get(entry.item.thread)
        if previous is not None and previous.session == entry.session:
            previous = None
        if entry.item.follow_up and (previous is None or previous.item.kind != "open"):
            continue  # a check that passed, with nothing open before it: nothing to say
        if previous is not None:
            entry.previous = previous
            linked = previous.insight_id is not None and previous.stands_for_it == entry.insight_id
            if entry.state == "unchanged" and not (linked and entry.insight_id is not None):
                entry.state = "changed"  # its predecessor is new, or not yet linked to it
        latest[entry.item.thread] = entry
        kept.append(entry)
    return kept


def run(ctx: CycleContext, report: CycleRun) -> None:
    report.parameters = {"idle_hours": IDLE_HOURS}
    log_id = log_start(ctx, report)
    planned = plan_reflection(ctx.engine.conn, report.namespace, ctx.moment)
    todo = [r for r in planned if r.state != "unchanged"]
    report.counts = {
        "items": len(planned),
        "sessions": len({r.session for r in planned}),
        "new": sum(r.state == "new" for r in planned),
        "changed": sum(r.state == "changed" for r in planned),
        "unchanged": sum(r.state == "unchanged" for r in planned),
        "superseding": sum(r.previous is not None for r in planned),
    }
    if log_id is None:
        report.changes = [r.to_dict() for r in todo]
        return
    # oldest first, in short transactions: an item's predecessor is written before it
    for start in range(0, len(todo), BATCH):
        with ctx.engine.db.write() as conn:
            for entry in todo[start : start + BATCH]:
                _write(conn, entry)
    report.changes = [r.to_dict() for r in todo]
    log_finish(ctx, log_id, report)


def _write(conn: sqlite3.Connection, entry: Reflection) -> None:
    item = entry.item
    tags = [REFLECTION_TAG, f"{REFLECTION_TAG}:{item.kind}"]
    metadata: dict[str, Any] = {
        "session_id": entry.session,
        "reflection": item.kind,
        "thread": item.thread,
        "evidence": len(item.evidence),
    }
    if entry.insight_id is None:
        new = NewMemory(
            content=item.text,
            memory_type=MemoryType.INSIGHT,
            importance=IMPORTANCE[item.kind],
            tags=tags,
            metadata=metadata,
            namespace=entry.namespace,
            source=SUMMARY_SOURCE,
            session_id=entry.session,
            created_at=item.at,
        )
        entry.insight_id, _created = memory_rows.insert(conn, new)
    else:
        changes = {"content": item.text, "tags": tags, "metadata": metadata}
        memory_rows.update(conn, entry.insight_id, changes)
    insight = entry.insight_id
    graph.ensure_memory_node(conn, insight, item.text, entry.namespace)
    for evidence in item.evidence:
        label = (entry.labels or {}).get(evidence, "")
        graph.ensure_memory_node(conn, evidence, label, entry.namespace)
        graph.add_edge(conn, Edge(insight, evidence, Relationship.DERIVED_FROM), keep_existing=True)
    previous = entry.previous
    if previous is not None and previous.insight_id is not None:
        old = previous.insight_id
        graph.ensure_memory_node(conn, old, previous.item.text, entry.namespace)
        graph.add_edge(conn, Edge(insight, old, Relationship.SUPERSEDES), keep_existing=True)
        graph.add_edge(conn, Edge(old, insight, Relationship.EVOLVED_INTO), keep_existing=True)
        rows.set_demotions(conn, insight, [old])
        previous.stands_for_it = insight
    if entry.old_kind is not None:
        reflection.drop_record(conn, entry.namespace, entry.old_kind, entry.key)
    rows.save_cluster(
        conn, entry.namespace, entry.record_kind, entry.key, insight, entry.members_hash
    )
