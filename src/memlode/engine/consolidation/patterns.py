"""The patterns cycle: what repeats across a namespace's work becomes one readable memory each.

From what the hooks stored (observations of reads, edits, commands and failures; prompts) and
the decisions of the namespace, deterministically and without a model, it finds
(``patterns_detect`` and ``patterns_fixes``; the strength formulas are there):

- file hotspots: files read or edited in many sessions (type ``pattern``);
- repeated questions: the same question, by its words, asked in two or more sessions
  (``pattern``);
- repeated searches: the same search (a Grep, a grep/rg command), by its words, in three or
  more sessions (``pattern``);
- habits: how the project runs its tests, which tool it searches code with (``pattern``);
- error → fix pairs: a command that failed, what was edited or run, the same command passing
  (``insight``);
- decision chains: edits to one file with the decisions that led to them (``insight``).

Each pattern is one memory (source ``consolidation``, tags ``pattern`` and ``pattern:<kind>``,
metadata ``pattern`` (its kind), ``key``, ``strength`` and ``evidence``), and each piece of
evidence ``EXEMPLIFIES`` it (at most ``MAX_EVIDENCE`` edges, the latest; bookkeeping edges, left
out of embeddings and of the graph signal like a summary's). Idempotent through
``consolidation_clusters`` (kind ``pattern:<kind>``, the hash of the evidence ids): evidence
unchanged, nothing is written; changed, the memory's text and metadata are rewritten in place.
A pattern whose evidence no longer qualifies stays as it was (it was true then). The prompt
hook never injects a pattern (``memlode.hooks._recall.NOT_INJECTED``); SessionStart shows the
strongest, at or above ``STRONG`` (``memlode.hooks.injection``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from memlode.engine.consolidation.cycle import CycleContext, CycleRun, log_finish, log_start
from memlode.engine.consolidation.patterns_detect import (
    KINDS,
    MAX_EVIDENCE,
    Observation,
    Pattern,
    habits,
    hotspots,
    questions,
    searches,
)
from memlode.engine.consolidation.patterns_fixes import decision_chains, error_fixes
from memlode.fastjson import loads
from memlode.storage import consolidation as rows
from memlode.storage import graph
from memlode.storage import memories as memory_rows
from memlode.storage import patterns as pattern_rows
from memlode.storage.briefing import STRONG_PATTERN
from memlode.storage.capture import HOOK_SOURCE, SUMMARY_SOURCE
from memlode.storage.values import NewMemory
from memlode.types import Edge, Relationship

__all__ = ["KINDS", "PATTERN_TAG", "STRONG", "Pattern", "detect", "plan_patterns", "run", "stored"]

PATTERN_TAG = "pattern"
# SessionStart shows patterns at least this strong (see storage.briefing).
STRONG = STRONG_PATTERN
# Patterns written per transaction (each whole: its memory, edges and record).
BATCH = 50
# The cycle's relationship from each piece of evidence to its pattern.
EVIDENCE_EDGE = Relationship.EXEMPLIFIES


def detect(
    observations: list[Observation], decisions: list[tuple[str, str, str, str]]
) -> list[Pattern]:
    """Every pattern of one namespace, by kind then key. ``observations`` oldest first;
    ``decisions`` (id, content, session, created_at) oldest first."""
    sessions = set[str]().union(*(o.sessions for o in observations))
    found = [
        *hotspots(observations, len(sessions)),
        *questions(observations),
        *searches(observations),
        *habits(observations),
        *error_fixes(observations),
        *decision_chains(observations, decisions),
    ]
    return sorted(found, key=lambda p: (KINDS.index(p.kind), p.key))


def _observations(conn: Any, namespace: str) -> list[Observation]:
    seen: dict[str, list[str]] = {}
    for memory_id, session in pattern_rows.seen_rows(conn, namespace, HOOK_SOURCE):
        seen.setdefault(str(memory_id), []).append(str(session))
    out = []
    for memory_id, content, tags, meta, session, created, _imp in rows.observation_rows(
        conn, namespace, HOOK_SOURCE
    ):
        parsed_tags = loads(tags) if tags else []
        parsed_meta = loads(meta) if meta else {}
        out.append(
            Observation(
                str(memory_id),
                str(content),
                parsed_tags if isinstance(parsed_tags, list) else [],
                parsed_meta if isinstance(parsed_meta, dict) else {},
                str(session or ""),
                str(created),
                tuple(seen.get(str(memory_id), ())),
            )
        )
    return out


Planned = tuple[Pattern, str, str | None]  # (pattern, state, stored memory id)


def plan_patterns(conn: Any, namespace: str) -> tuple[list[Planned], dict[str, str]]:
    """``namespace``'s patterns, each new, changed or unchanged against what the last run
    stored, and the text of each piece of evidence by id (nothing is written here)."""
    decisions = [
        (str(a), str(b), str(c or ""), str(d))
        for a, b, c, d in pattern_rows.decision_rows(conn, namespace, SUMMARY_SOURCE)
    ]
    observations = _observations(conn, namespace)
    texts = {o.id: o.content for o in observations} | {d[0]: d[1] for d in decisions}
    out: list[Planned] = []
    for pattern in detect(observations, decisions):
        record = rows.cluster_record(conn, namespace, f"pattern:{pattern.kind}", pattern.key)
        if record is None:
            out.append((pattern, "new", None))
        else:
            state = "unchanged" if record[1] == pattern.evidence_hash else "changed"
            out.append((pattern, state, record[0]))
    return out, texts


def _change(pattern: Pattern, state: str, memory_id: str | None) -> dict[str, Any]:
    return {
        "kind": pattern.kind,
        "key": pattern.key,
        "state": state,
        "strength": pattern.strength,
        "evidence": len(pattern.evidence),
        "text": pattern.text,
        "memory_id": memory_id,
    }


def run(ctx: CycleContext, report: CycleRun) -> None:
    report.parameters = {"strong": STRONG}
    log_id = log_start(ctx, report)
    planned, texts = plan_patterns(ctx.engine.conn, report.namespace)
    todo = [p for p in planned if p[1] != "unchanged"]
    report.counts = {
        "patterns": len(planned),
        "new": sum(s == "new" for _p, s, _i in planned),
        "changed": sum(s == "changed" for _p, s, _i in planned),
        "unchanged": sum(s == "unchanged" for _p, s, _i in planned),
        **{kind: sum(p.kind == kind for p, _s, _i in planned) for kind in KINDS},
    }
    if log_id is None:
        report.changes = [_change(*p) for p in todo]
        return
    changes = []
    # one short transaction per batch; a run killed midway is finished by the next
    for start in range(0, len(todo), BATCH):
        with ctx.engine.db.write() as conn:
            for pattern, state, memory_id in todo[start : start + BATCH]:
                written = _write(conn, report.namespace, pattern, memory_id, texts)
                changes.append(_change(pattern, state, written))
    report.changes = changes
    log_finish(ctx, log_id, report)


def _write(
    conn: sqlite3.Connection,
    namespace: str,
    pattern: Pattern,
    memory_id: str | None,
    texts: dict[str, str],
) -> str:
    metadata: dict[str, Any] = {
        "pattern": pattern.kind,
        "key": pattern.key,
        "strength": pattern.strength,
        "evidence": len(pattern.evidence),
        **pattern.details,
    }
    if memory_id is None or not _rewrite(conn, memory_id, pattern.text, metadata):
        new = NewMemory(
            content=pattern.text,
            memory_type=pattern.memory_type,
            importance=round(0.3 + 0.4 * pattern.strength, 3),
            tags=[PATTERN_TAG, f"pattern:{pattern.kind}"],
            metadata=metadata,
            namespace=namespace,
            source=SUMMARY_SOURCE,
        )
        memory_id, _created = memory_rows.insert(conn, new)
    graph.ensure_memory_node(conn, memory_id, pattern.text, namespace)
    for evidence in pattern.evidence[-MAX_EVIDENCE:]:
        graph.ensure_memory_node(conn, evidence, texts.get(evidence, evidence), namespace)
        graph.add_edge(conn, Edge(evidence, memory_id, EVIDENCE_EDGE), keep_existing=True)
    rows.save_cluster(
        conn, namespace, f"pattern:{pattern.kind}", pattern.key, memory_id, pattern.evidence_hash
    )
    return memory_id


def _rewrite(conn: sqlite3.Connection, memory_id: str, text: str, metadata: dict[str, Any]) -> bool:
    """Rewrite a stored pattern in place; False when it is gone (deleted by the user)."""
    try:
        return memory_rows.update(conn, memory_id, {"content": text, "metadata": metadata})
    except sqlite3.IntegrityError:  # another pattern has this very text: keep the metadata
        return memory_rows.update(conn, memory_id, {"metadata": metadata})


def stored(
    engine: Any,
    *,
    namespace: str | None = None,
    kind: str | None = None,
    min_strength: float = 0.0,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """The stored patterns of ``namespace`` (the engine's; '*' every namespace), strongest
    first: what ``memlode patterns`` and the ``pattern_insights`` tool list."""
    from memlode.errors import InvalidInput

    if kind is not None and kind not in KINDS:
        raise InvalidInput(f"unknown pattern kind {kind!r}; the kinds are {list(KINDS)}")
    if not 0.0 <= min_strength <= 1.0:
        raise InvalidInput("the minimum strength must be between 0 and 1")
    if not 1 <= limit <= 1000:
        raise InvalidInput("limit must be between 1 and 1000")
    resolved = engine.resolve_namespace(namespace)
    found = pattern_rows.stored_patterns(
        engine.conn, resolved, SUMMARY_SOURCE, kind, min_strength, limit
    )
    out = []
    for memory_id, ns, memory_type, content, meta, created, updated in found:
        parsed = loads(meta) if meta else {}
        parsed = parsed if isinstance(parsed, dict) else {}
        out.append(
            {
                "id": str(memory_id),
                "namespace": str(ns),
                "kind": str(parsed.get("pattern", "")),
                "memory_type": str(memory_type),
                "strength": float(parsed.get("strength", 0.0)),
                "evidence": int(parsed.get("evidence", 0)),
                "text": str(content),
                "created_at": str(created),
                "updated_at": str(updated),
            }
        )
    return out
