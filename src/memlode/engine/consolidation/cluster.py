"""The cluster cycle: observations that repeat one another become one summary memory.

The hooks store an observation per tool call, so a month of work holds the same file read
forty times, the same test command run thirty times, a file edited in twenty steps. Each such
group in a namespace (``MIN_MEMBERS`` or more observations of one kind with one key: the file
read, the file edited, the command run) gets one summary memory (source ``consolidation``, tag
``summary``), built from the members' own text without a model: how many, over which days and
sessions, what the parts said (line ranges read, each edit's change, failures and the last
output of a command). ``SUMMARIZES`` edges lead from it to its members, and recall ranks the
members of read and command groups lower (``memlode.search.hybrid``; an edit holds its own
change and keeps its rank); nothing is deleted. The prompt hook never injects a summary
(``memlode.hooks._recall.NOT_INJECTED``): it answers "how often", not "what".

Idempotent: a group whose members did not change since the last run is left as it is; one that
grew gets its summary rewritten.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memlode.engine.consolidation.cycle import CycleContext, CycleRun, log_finish, log_start
from memlode.fastjson import loads
from memlode.storage import consolidation as rows
from memlode.storage import graph
from memlode.storage import memories as memory_rows
from memlode.storage.capture import FAILURE_TAG, HOOK_SOURCE, SUMMARY_SOURCE, SUMMARY_TAG
from memlode.storage.values import NewMemory
from memlode.textutil import command_key
from memlode.types import Edge, MemoryType, Relationship

if TYPE_CHECKING:
    import sqlite3

__all__ = [
    "MIN_MEMBERS",
    "SUMMARY_SOURCE",
    "SUMMARY_TAG",
    "Cluster",
    "members_hash",
    "plan_clusters",
    "run",
]

# A group is summarised from this many observations on (two reads of a file are normal work).
MIN_MEMBERS = 3
# The part lists of a summary stop at this many characters (it is read, not scrolled).
MAX_PARTS_CHARS = 700
# Groups written per transaction (each whole: its summary, edges, demotions and record).
BATCH = 50
# Groups whose members keep their rank under their summary (session replay: demoting the steps
# of an edit chain lost a prompt whose answer was one step's added line; bench/RESULTS.md).
KEEP_RANK = frozenset({"edit"})


@dataclass
class _Member:
    id: str
    content: str
    tags: list[str]
    session_id: str
    created_at: str
    importance: float


@dataclass
class Cluster:
    namespace: str
    kind: str  # read, edit, command
    key: str
    members: list[_Member] = field(default_factory=list)
    state: str = "new"  # new, changed, unchanged
    summary_id: str | None = None

    @property
    def members_hash(self) -> str:
        return members_hash(m.id for m in self.members)

    def summary(self) -> str:
        return _SUMMARIES[self.kind](self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "kind": self.kind,
            "key": self.key,
            "members": len(self.members),
            "state": self.state,
            "summary_id": self.summary_id,
        }


def members_hash(ids: Iterable[str]) -> str:
    """What a cluster record keeps of its members: a re-run compares it to see a change."""
    return hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()[:32]


def plan_clusters(conn: Any, namespace: str) -> list[Cluster]:
    """The groups of ``namespace``'s observations, each marked new, changed or unchanged
    against what the last run summarised (nothing is written here)."""
    groups: dict[tuple[str, str], Cluster] = {}
    for (
        memory_id,
        content,
        tags_json,
        meta_json,
        session,
        created,
        importance,
    ) in rows.observation_rows(conn, namespace, HOOK_SOURCE):
        tags = loads(tags_json) if tags_json else []
        meta = loads(meta_json) if meta_json else {}
        found = _kind_and_key(tags if isinstance(tags, list) else [], meta)
        if found is None:
            continue
        kind, key = found
        cluster = groups.setdefault((kind, key), Cluster(namespace, kind, key))
        cluster.members.append(
            _Member(str(memory_id), str(content), tags, session or "", created, float(importance))
        )
    out = [c for c in groups.values() if len(c.members) >= MIN_MEMBERS]
    for cluster in out:
        record = rows.cluster_record(conn, namespace, cluster.kind, cluster.key)
        if record is not None:
            cluster.summary_id = record[0]
            cluster.state = "unchanged" if record[1] == cluster.members_hash else "changed"
    out.sort(key=lambda c: (c.kind, c.key))
    return out


def _kind_and_key(tags: list[Any], meta: Any) -> tuple[str, str] | None:
    if not isinstance(meta, dict):
        return None
    if "read" in tags and isinstance(meta.get("file"), str):
        return "read", meta["file"]
    if "edit" in tags and isinstance(meta.get("file"), str):
        return "edit", meta["file"]
    if "command" in tags and isinstance(meta.get("command"), str):
        parts = [p.strip() for p in meta["command"].split("&&")]
        while len(parts) > 1 and parts[0].startswith("cd "):
            parts.pop(0)
        command = " ".join(" && ".join(parts).split())
        if command and command_key(command):
            return "command", command
    return None


def _span(cluster: Cluster) -> str:
    days = sorted({m.created_at[:10] for m in cluster.members})
    sessions = len({m.session_id for m in cluster.members if m.session_id})
    when = days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"
    return f"{len(cluster.members)} times in {sessions or 1} session(s), {when}"


def _parts(items: list[str]) -> str:
    out: list[str] = []
    size = 0
    for item in dict.fromkeys(i for i in items if i):
        if size + len(item) > MAX_PARTS_CHARS:
            out.append("…")
            break
        out.append(item)
        size += len(item) + 2
    return "; ".join(out)


def _shown_path(cluster: Cluster, verb: str) -> str:
    first = cluster.members[-1].content.split("\n", 1)[0]
    if first.startswith(verb + " "):
        return first[len(verb) + 1 :].split(":", 1)[0].split(" lines ", 1)[0].strip()
    return os.path.basename(cluster.key)


def _read_summary(cluster: Cluster) -> str:
    ranges = []
    for m in cluster.members:
        first = m.content.split("\n", 1)[0]
        if " lines " in first:
            ranges.append("lines " + first.split(" lines ", 1)[1].split(";", 1)[0])
    last = cluster.members[-1].content.split("\n", 1)[0]
    defines = last.split("; defines ", 1)[1] if "; defines " in last else ""
    text = f"Read {_shown_path(cluster, 'Read')} {_span(cluster)}"
    if ranges:
        text += f"; parts read: {_parts(ranges)}"
    return text + (f"; defines {defines}" if defines else "")


def _edit_summary(cluster: Cluster) -> str:
    steps = []
    for m in cluster.members:
        first = m.content.split("\n", 1)[0]
        steps.append(first.split(": ", 1)[1] if ": " in first else first)
    return f"Edited {_shown_path(cluster, 'Edited')} {_span(cluster)}: {_parts(steps)}"


def _command_summary(cluster: Cluster) -> str:
    failed = [m for m in cluster.members if FAILURE_TAG in m.tags]
    text = f"Ran `{cluster.key[:200]}` {_span(cluster)}"
    if failed:
        text += f"; {len(failed)} failed, {len(cluster.members) - len(failed)} did not"
    last = cluster.members[-1]
    outcome = "failed" if FAILURE_TAG in last.tags else "ran"
    body = " ".join(last.content.split("\n", 1)[1].split()) if "\n" in last.content else ""
    if body:
        text += f". Last time ({last.created_at[:10]}) it {outcome}: {body[:300]}"
    return text


_SUMMARIES = {"read": _read_summary, "edit": _edit_summary, "command": _command_summary}


def run(ctx: CycleContext, report: CycleRun) -> None:
    report.parameters = {"min_members": MIN_MEMBERS}
    log_id = log_start(ctx, report)
    clusters = plan_clusters(ctx.engine.conn, report.namespace)
    todo = [c for c in clusters if c.state != "unchanged"]
    report.counts = {
        "groups": len(clusters),
        "new": sum(c.state == "new" for c in clusters),
        "changed": sum(c.state == "changed" for c in clusters),
        "unchanged": sum(c.state == "unchanged" for c in clusters),
        "members": sum(len(c.members) for c in clusters),
    }
    if log_id is None:
        report.changes = [{**c.to_dict(), "summary": c.summary()} for c in todo]
        return
    # one short transaction per batch of groups; a run killed midway is finished by the next
    for start in range(0, len(todo), BATCH):
        with ctx.engine.db.write() as conn:
            for cluster in todo[start : start + BATCH]:
                _write_summary(conn, cluster)
        ctx.tick(report, min(start + BATCH, len(todo)), len(todo))
    report.changes = [c.to_dict() for c in todo]
    log_finish(ctx, log_id, report)


def _write_summary(conn: sqlite3.Connection, cluster: Cluster) -> None:
    text = cluster.summary()
    first, last = cluster.members[0], cluster.members[-1]
    metadata: dict[str, Any] = {
        "cluster": cluster.kind,
        "key": cluster.key,
        "members": len(cluster.members),
        "first_at": first.created_at,
        "last_at": last.created_at,
    }
    if cluster.kind != "command":
        metadata["file"] = cluster.key
    if cluster.summary_id is None:
        new = NewMemory(
            content=text,
            memory_type=MemoryType.CONTEXT,
            importance=max(m.importance for m in cluster.members),
            tags=[SUMMARY_TAG, f"cluster:{cluster.kind}"],
            metadata=metadata,
            namespace=cluster.namespace,
            source=SUMMARY_SOURCE,
            created_at=last.created_at,
        )
        cluster.summary_id, _created = memory_rows.insert(conn, new)
    else:
        memory_rows.update(conn, cluster.summary_id, {"content": text, "metadata": metadata})
    summary_id = cluster.summary_id
    graph.ensure_memory_node(conn, summary_id, text, cluster.namespace)
    for member in cluster.members:
        graph.ensure_memory_node(conn, member.id, member.content, cluster.namespace)
        graph.add_edge(
            conn, Edge(summary_id, member.id, Relationship.SUMMARIZES), keep_existing=True
        )
    # each edit holds its own change (the line that answers "which setting did we keep?"):
    # an edit chain gets its summary, its steps keep their rank
    demoted = [] if cluster.kind in KEEP_RANK else [m.id for m in cluster.members]
    rows.set_demotions(conn, summary_id, demoted)
    rows.save_cluster(
        conn, cluster.namespace, cluster.kind, cluster.key, summary_id, cluster.members_hash
    )
