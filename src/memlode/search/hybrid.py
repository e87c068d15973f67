"""Hybrid recall: candidates from BM25, vectors and the graph, scored by weighted signals.

Pipeline for one query:

1. candidates: the BM25 top ``candidates`` (FTS5), the vector top ``candidates`` (exact
   cosine), and the graph neighbours of the best few of those;
2. signals per candidate, each on a 0..1 scale: ``bm25`` and ``vector`` (max-normalised over
   the candidates), ``graph`` (cached centrality, or degree), ``temporal`` (closeness to a time
   the query names), ``tags`` (query terms found in tags), ``importance``, ``confidence``,
   ``recency`` (exponential decay with a half-life; evergreen files do not decay);
3. score = the weighted sum over the signals that exist for this query (a signal nobody can
   have — no vectors, no graph, no time in the query — drops out and the remaining weights are
   re-normalised), so scores stay comparable with the minimum score;
4. session context: a memory's relevance is lifted by the relevance of its neighbours in the
   same session (conversation turns answer questions together);
5. MMR re-ranking for diversity (cosine between vectors; Jaccard over words without vectors),
   then the minimum score.

Every hit carries the weighted contribution of each signal (``--explain``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memlode.search.fts import bm25_search, query_terms
from memlode.search.signals import (
    DEFAULT_HALF_LIFE_DAYS,
    EVERGREEN_NAMES,
    decay,
    is_evergreen,
    jaccard,
    mmr,
    tag_match,
    temporal_alignment,
    time_hint,
    token_set,
)
from memlode.storage.context import CONVERSATION_SOURCES, session_orders
from memlode.storage.memories import MemoryFilter, fetch_many
from memlode.types import Memory, parse_ts

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from memlode.vector.index import VectorIndex

__all__ = ["RecallParams", "ScoredHit", "recall"]

# DESIGN.md defaults: MMR lambda 0.7, minimum score 0.1.
DEFAULT_MMR_LAMBDA = 0.7
DEFAULT_MIN_SCORE = 0.1
# How many candidates each index contributes before scoring.
DEFAULT_CANDIDATES = 100
# A memory that shares no word with the query must be at least this close in meaning to be a
# candidate: below it, all-MiniLM-L6-v2 cosines are unrelated text (typically 0.0-0.15).
MIN_VECTOR_SIMILARITY = 0.2
# Conversation turns (see storage/context.py): a turn's vector is smoothed with its neighbours'
# (v + 0.5 * (prev + next)), and every turn gets a bonus from how well its whole session
# matches (mean of the session's best two scores, max-normalised, times 0.4). Both measured
# on LoCoMo (bench/RESULTS.md): smoothing +0.02 turn recall@5, the session prior +0.01 @10.
DEFAULT_SMOOTHING = 0.5
DEFAULT_SESSION_PRIOR = 0.4
SESSION_TOP = 2
# Sources whose score decays with age (memory files: issue 7); others only get the recency
# signal. The floor keeps a stale note findable instead of erasing it.
DECAY_SOURCES = frozenset({"doc"})
DECAY_FLOOR = 0.2
# Graph strength mix from DESIGN.md: PageRank 40% + betweenness 30% + degree 20% + cluster 10%.
GRAPH_MIX = (0.4, 0.3, 0.2, 0.1)


@dataclass(slots=True)
class RecallParams:
    weights: dict[str, float]
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS
    evergreen: frozenset[str] = EVERGREEN_NAMES
    mmr_lambda: float = DEFAULT_MMR_LAMBDA
    min_score: float = DEFAULT_MIN_SCORE
    candidates: int = DEFAULT_CANDIDATES
    smoothing: float = DEFAULT_SMOOTHING
    session_prior: float = DEFAULT_SESSION_PRIOR
    decay_sources: frozenset[str] = DECAY_SOURCES

    def describe(self) -> dict[str, Any]:
        return {
            "weights": dict(self.weights),
            "half_life_days": self.half_life_days,
            "evergreen": sorted(self.evergreen),
            "mmr_lambda": self.mmr_lambda,
            "min_score": self.min_score,
            "candidates": self.candidates,
            "smoothing": self.smoothing,
            "session_prior": self.session_prior,
            "decay_sources": sorted(self.decay_sources),
        }


@dataclass(slots=True)
class ScoredHit:
    memory: Memory
    score: float
    signals: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class _Candidate:
    id: str
    bm25: float = 0.0
    cosine: float | None = None


def recall(
    conn: sqlite3.Connection,
    query: str,
    flt: MemoryFilter,
    k: int,
    params: RecallParams,
    *,
    now: datetime,
    query_vector: npt.NDArray[np.float32] | None = None,
    index: VectorIndex | None = None,
) -> list[ScoredHit]:
    pool = max(params.candidates, k * 2)
    cands: dict[str, _Candidate] = {}
    for hit in bm25_search(conn, query, flt, pool):
        cands[hit.id] = _Candidate(hit.id, bm25=hit.rank)
    use_vectors = query_vector is not None and index is not None and len(index) > 0
    if use_vectors:
        assert index is not None and query_vector is not None
        for memory_id, cosine in index.search(query_vector, pool * 2, flt.namespace):
            if memory_id in cands or cosine >= MIN_VECTOR_SIMILARITY:
                cands.setdefault(memory_id, _Candidate(memory_id)).cosine = cosine
    graph_available = _add_graph_neighbours(conn, cands, flt.namespace)
    memories = {i: m for i, m in fetch_many(conn, list(cands)).items() if _passes(m, flt)}
    if not memories:
        return []
    ids = list(memories)
    neighbours = _conversation_neighbours(conn, memories)
    if use_vectors:
        assert index is not None and query_vector is not None
        for memory_id in ids:
            cands[memory_id].cosine = _smoothed_cosine(
                index, query_vector, memory_id, neighbours.get(memory_id, ()), params.smoothing
            )

    terms = query_terms(query)
    hint = time_hint(query, now)
    weights = dict(params.weights)
    if not use_vectors:
        weights["vector"] = 0.0
    if not graph_available:
        weights["graph"] = 0.0
    if hint is None:
        weights["temporal"] = 0.0
    total = sum(weights.values()) or 1.0
    weights = {name: w / total for name, w in weights.items()}

    max_bm25 = max((cands[i].bm25 for i in ids), default=0.0) or 1.0
    max_cos = max((max(cands[i].cosine or 0.0, 0.0) for i in ids), default=0.0) or 1.0
    graph_strength = _graph_strength(conn, ids) if graph_available else {}

    raw: dict[str, dict[str, float]] = {}
    for memory_id in ids:
        memory = memories[memory_id]
        cand = cands[memory_id]
        created = parse_ts(memory.created_at)
        path = memory.metadata.get("path") if isinstance(memory.metadata, dict) else None
        evergreen = bool(memory.metadata.get("evergreen")) or is_evergreen(
            path if isinstance(path, str) else None, params.evergreen
        )
        age_days = (now - created).total_seconds() / 86400.0
        raw[memory_id] = {
            "bm25": cand.bm25 / max_bm25,
            "vector": max(cand.cosine or 0.0, 0.0) / max_cos,
            "graph": graph_strength.get(memory_id, 0.0),
            "temporal": temporal_alignment(created, hint),
            "tags": tag_match(terms, memory.tags),
            "importance": memory.importance,
            "confidence": memory.confidence,
            "recency": 1.0 if evergreen else decay(age_days, params.half_life_days),
        }

    scored: list[tuple[str, float, dict[str, float]]] = []
    for memory_id in ids:
        contributions = {
            name: weights[name] * value for name, value in raw[memory_id].items() if weights[name]
        }
        total_score = sum(contributions.values())
        if memories[memory_id].source in params.decay_sources:
            factor = max(raw[memory_id]["recency"], DECAY_FLOOR)
            if factor < 1.0:
                contributions["decay"] = total_score * (factor - 1.0)
                total_score *= factor
        scored.append((memory_id, total_score, contributions))
    if params.session_prior > 0:
        scored = _session_prior(scored, memories, params.session_prior)
    scored.sort(key=lambda item: (-item[1], item[0]))

    ranked_ids = [s[0] for s in scored]
    if params.mmr_lambda < 1.0 and len(scored) > 1:
        window = scored[: max(k * 3, k + 10)]
        top = window[0][1] or 1.0
        similarity = _similarity(memories, index if use_vectors else None)
        picked = mmr(
            [s[0] for s in window], [s[1] / top for s in window], similarity, k, params.mmr_lambda
        )
        ranked_ids = picked + [s[0] for s in scored if s[0] not in set(picked)]
    by_id = {s[0]: s for s in scored}
    out: list[ScoredHit] = []
    for memory_id in ranked_ids:
        _, score, contributions = by_id[memory_id]
        if score < params.min_score:
            continue
        out.append(ScoredHit(memories[memory_id], score, contributions))
        if len(out) >= k:
            break
    return out


def _passes(memory: Memory, flt: MemoryFilter) -> bool:
    """``flt`` evaluated on a fetched memory (vector and graph candidates come unfiltered)."""
    if flt.namespace is not None and memory.namespace != flt.namespace:
        return False
    if flt.memory_types and memory.memory_type not in flt.memory_types:
        return False
    if flt.tags and not set(flt.tags) <= set(memory.tags):
        return False
    if flt.sources and memory.source not in flt.sources:
        return False
    if flt.session_id is not None and memory.session_id != flt.session_id:
        return False
    if flt.since is not None and memory.created_at < flt.since:
        return False
    return not (flt.until is not None and memory.created_at >= flt.until)


def _add_graph_neighbours(
    conn: sqlite3.Connection, cands: dict[str, _Candidate], namespace: str | None
) -> bool:
    """Add memories linked to the strongest candidates; True if the namespace has memory edges."""
    sql = (
        "SELECT 1 FROM graph_nodes n JOIN graph_edges e ON e.source_id = n.id"
        " WHERE n.kind = 'memory'"
    )
    params: list[object] = []
    if namespace is not None:
        sql += " AND n.namespace = ?"
        params.append(namespace)
    if conn.execute(sql + " LIMIT 1", params).fetchone() is None:
        return False
    seeds = sorted(cands.values(), key=lambda c: (-(c.bm25 + (c.cosine or 0.0)), c.id))[:10]
    if not seeds:
        return True
    marks = ",".join("?" * len(seeds))
    seed_ids = [c.id for c in seeds]
    rows = conn.execute(
        "SELECT n.memory_id FROM graph_edges e JOIN graph_nodes n"
        f" ON n.id = CASE WHEN e.source_id IN ({marks}) THEN e.target_id ELSE e.source_id END"
        f" WHERE (e.source_id IN ({marks}) OR e.target_id IN ({marks}))"
        " AND n.memory_id IS NOT NULL",
        [*seed_ids, *seed_ids, *seed_ids],
    )
    for (memory_id,) in rows:
        cands.setdefault(memory_id, _Candidate(memory_id))
    return True


def _graph_strength(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, float]:
    """Centrality mix from the cache when present, else normalised degree."""
    marks = ",".join("?" * len(ids))
    cached = conn.execute(
        "SELECT n.memory_id, c.pagerank, c.betweenness, c.degree, c.cluster FROM graph_centrality c"
        f" JOIN graph_nodes n ON n.id = c.node_id WHERE n.memory_id IN ({marks})",
        list(ids),
    ).fetchall()
    strength: dict[str, float] = {}
    if cached:
        max_pr = max(r[1] for r in cached) or 1.0
        max_bt = max(r[2] for r in cached) or 1.0
        max_dg = max(r[3] for r in cached) or 1.0
        top_cluster = cached[0][4]
        for memory_id, pr, bt, dg, cluster in cached:
            strength[memory_id] = (
                GRAPH_MIX[0] * pr / max_pr
                + GRAPH_MIX[1] * bt / max_bt
                + GRAPH_MIX[2] * dg / max_dg
                + GRAPH_MIX[3] * (1.0 if cluster is not None and cluster == top_cluster else 0.0)
            )
        return strength
    rows = conn.execute(
        "SELECT n.memory_id, count(e.id) FROM graph_nodes n JOIN graph_edges e"
        " ON e.source_id = n.id OR e.target_id = n.id"
        f" WHERE n.memory_id IN ({marks}) GROUP BY n.memory_id",
        list(ids),
    ).fetchall()
    if not rows:
        return {}
    top = max(r[1] for r in rows) or 1
    return {r[0]: r[1] / top for r in rows}


def _conversation_neighbours(
    conn: sqlite3.Connection, memories: dict[str, Memory]
) -> dict[str, tuple[str, ...]]:
    """Previous and next turn of each conversation memory among ``memories``."""
    sessions = {
        m.session_id for m in memories.values() if m.session_id and m.source in CONVERSATION_SOURCES
    }
    if not sessions:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for order in session_orders(conn, sessions).values():
        for i, memory_id in enumerate(order):
            if memory_id in memories:
                out[memory_id] = tuple(order[j] for j in (i - 1, i + 1) if 0 <= j < len(order))
    return out


def _smoothed_cosine(
    index: VectorIndex,
    query: npt.NDArray[np.float32],
    memory_id: str,
    neighbours: Sequence[str],
    smoothing: float,
) -> float:
    """Cosine between the query and the memory's vector, smoothed with its neighbours'."""
    vec = index.vector_of(memory_id)
    if vec is None:
        return 0.0
    if smoothing <= 0 or not neighbours:
        return float(vec @ query)
    total = vec.astype("float32")
    for other in neighbours:
        nvec = index.vector_of(other)
        if nvec is not None:
            total = total + smoothing * nvec
    norm = float((total @ total) ** 0.5) or 1.0
    return float(total @ query) / norm


def _session_prior(
    scored: list[tuple[str, float, dict[str, float]]],
    memories: dict[str, Memory],
    weight: float,
) -> list[tuple[str, float, dict[str, float]]]:
    """Add a bonus for belonging to a session whose best turns match well.

    A memory outside any conversation is a session of its own, so the bonus is comparable.
    """
    if not scored:
        return scored
    top = max(s[1] for s in scored) or 1.0

    def session_of(memory_id: str) -> str:
        memory = memories[memory_id]
        if memory.session_id and memory.source in CONVERSATION_SOURCES:
            return memory.session_id
        return "\0" + memory_id

    per_session: dict[str, list[float]] = {}
    for memory_id, score, _ in scored:
        per_session.setdefault(session_of(memory_id), []).append(score)
    strength = {
        key: sum(sorted(values, reverse=True)[:SESSION_TOP]) / min(len(values), SESSION_TOP)
        for key, values in per_session.items()
    }
    best = max(strength.values()) or 1.0
    out = []
    for memory_id, score, contributions in scored:
        bonus = weight * top * strength[session_of(memory_id)] / best
        out.append((memory_id, score + bonus, {**contributions, "session": bonus}))
    return out


def _similarity(
    memories: dict[str, Memory], index: VectorIndex | None
) -> Callable[[str, str], float]:
    tokens: dict[str, frozenset[str]] = {}

    def words_of(memory_id: str) -> frozenset[str]:
        # only the MMR window needs them: computed on first use
        found = tokens.get(memory_id)
        if found is None:
            found = tokens[memory_id] = token_set(memories[memory_id].content)
        return found

    def jaccard_of(a: str, b: str) -> float:
        return jaccard(words_of(a), words_of(b))

    if index is None:
        return jaccard_of

    def cosine(a: str, b: str) -> float:
        va, vb = index.vector_of(a), index.vector_of(b)
        if va is None or vb is None:
            return jaccard_of(a, b)
        return float(va @ vb)

    return cosine
