"""Hybrid recall: candidates from BM25, vectors and the graph, scored by weighted signals.

Pipeline for one query:

1. candidates: the BM25 top ``candidates`` (FTS5; on a large store the rare terms choose the
   rows, see ``search/fts.py``), the vector top ``candidates`` (exact cosine; computed on a
   worker thread meanwhile, see ``search/vector_side.py``), and the graph neighbours of the
   best few of those. Every candidate gets the BM25 score the whole query gives it, however
   it was found. Candidates are light rows (``search/candidates.py``); whole memories are
   read only for the MMR window and the hits;
2. signals per candidate, each on a 0..1 scale: ``bm25`` and ``vector`` (max-normalised over
   the candidates), ``graph`` (cached centrality, or degree), ``temporal`` (closeness to a time
   the query names), ``tags`` (query terms found in tags), ``importance``, ``confidence``,
   ``recency`` (exponential decay with a half-life; evergreen files do not decay);
3. score = the weighted sum over the signals that exist for this query (a signal nobody can
   have — no vectors, no graph, no time in the query — drops out and the remaining weights are
   re-normalised), so scores stay comparable with the minimum score; times the weight of the
   memory's source (a transcript row's 0.9: ``recall_params.SOURCE_WEIGHTS``);
4. session context: a memory's relevance is lifted by the relevance of its neighbours in the
   same session (conversation turns answer questions together); a memory that only asks a
   question loses a share of the best score (its answer is elsewhere);
5. late interaction: the best ``late_pool`` are re-scored token by token against the query
   (``search/late.py``) and gain up to ``late_interaction`` of the best score;
6. MMR re-ranking for diversity (cosine between vectors; Jaccard over words without vectors),
   then the minimum score.

Every hit carries the weighted contribution of each signal (``--explain``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memlode.search import subject
from memlode.search.candidates import CandidateRow, conversation_neighbours, load_rows, passes
from memlode.search.fts import (
    Bm25Query,
    RowScores,
    TermFrequencies,
)
from memlode.search.late import late_bonus
from memlode.search.query import SearchQuery
from memlode.search.recall_params import (
    ADJUSTMENTS,
    BOOKKEEPING_EDGES,
    DECAY_FLOOR,
    GRAPH_MIX,
    GRAPH_NEIGHBOURS,
    MIN_VECTOR_SIMILARITY,
    SESSION_TOP,
    SIGNALS,
    SUPERSEDED_MARGIN,
    RecallParams,
)
from memlode.search.signals import (
    decay,
    is_evergreen,
    mmr,
    mmr_similarity,
    tag_match,
    temporal_alignment,
)
from memlode.search.statements import beside, sittings_apart
from memlode.search.vector_side import NearestVectors
from memlode.storage.capture import FAILURE_TAG, SUMMARY_SOURCE
from memlode.storage.consolidation import demoted
from memlode.storage.memories import fetch_many
from memlode.storage.recall_graph import (
    has_memory_edges,
    linked_memories,
    memory_centrality,
    memory_degrees,
)
from memlode.storage.supersession import (
    ASKED_GAP,
    ASKED_SUBJECT_COSINE,
    SAME_SUBJECT_COSINE,
    SAME_SUBJECT_MARGIN,
    STATED_SOURCES,
    Replacement,
    replaced_by,
)
from memlode.storage.values import MemoryFilter
from memlode.types import Memory, parse_ts

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from memlode.vector.index import VectorIndex

__all__ = ["RecallParams", "ScoredHit", "recall"]


@dataclass(slots=True)
class ScoredHit:
    memory: Memory
    score: float
    signals: dict[str, float] = field(default_factory=dict)
    replaced: Replacement | None = None  # what replaced it, if a later memory did


@dataclass(slots=True)
class _Candidate:
    id: str
    bm25: float = 0.0
    cosine: float | None = None
    scored: bool = False  # bm25 is known (0.0 for a row no query term matches)


def recall(
    conn: sqlite3.Connection,
    query: SearchQuery | str,
    flt: MemoryFilter,
    k: int,
    params: RecallParams,
    *,
    now: datetime,
    vectors: NearestVectors | None = None,
    frequencies: TermFrequencies | None = None,
    text_scores: RowScores | None = None,
) -> list[ScoredHit]:
    """The ``k`` best memories for ``query`` that pass ``flt``. ``vectors`` are the query's
    nearest neighbours, ``params.vector_candidates(k)`` of them (none: BM25 and the rest);
    ``text_scores`` every row's BM25 rank, when the in-memory index computed them.

    Four steps: gather the candidates (``_gather``), score each on the weighted signals
    (``_score``), add the list-level adjustments (``_adjust``: session prior, question penalty,
    late interaction), then diversify and cut (``_diversify``). ``query`` is split once
    (``SearchQuery``); a string is parsed here."""
    if isinstance(query, str):
        query = SearchQuery.parse(query, now)
    text = Bm25Query(
        conn,
        query.fts_terms,
        params.pool(k),
        budget=params.scoring_budget,
        frequencies=frequencies,
        scores=text_scores,
    )
    pool = _gather(conn, text, flt, params, vectors)
    if not pool.rows:
        return []
    hint = query.hint
    active = _active_weights(params, pool.use_vectors, pool.graph_available, hint)
    raw, scored = _score(conn, pool, params, active, query.words, hint, now)
    scored, extra = _adjust(conn, scored, pool, params, query.asks_about_failure)
    ranked_ids, memories = _diversify(conn, scored, pool, k, params)
    if pool.replacements and params.superseded_penalty > 0:
        ranked_ids = _replacements_first(
            ranked_ids, {old: rep.new_id for old, rep in pool.replacements.items()}
        )
    ranked_ids = _later_first(conn, ranked_ids, pool, k, memories)
    final = dict(scored)
    out_ids = [i for i in ranked_ids if final[i] >= params.min_score][:k]
    missing = [i for i in out_ids if i not in memories]
    if missing:
        memories.update(fetch_many(conn, missing))
    return [
        ScoredHit(
            memories[i],
            final[i],
            _contributions(
                raw[i],
                active,
                pool.rows[i].source in params.decay_sources,
                params.source_weights.get(pool.rows[i].source, 1.0),
                extra["session"].get(i),
                {name: extra[name][i] for name in ADJUSTMENTS if i in extra[name]},
            ),
            pool.replacements.get(i),
        )
        for i in out_ids
        if i in memories
    ]


@dataclass(slots=True)
class _Pool:
    """The candidates of one query: their scores so far and their rows (those that pass the
    filter), and what the vector side gave."""

    cands: dict[str, _Candidate]
    rows: dict[str, CandidateRow]
    index: VectorIndex | None
    query_vector: npt.NDArray[np.float32] | None
    query_states: npt.NDArray[np.float32] | None
    graph_available: bool
    # what replaced each candidate a later memory replaced (``_adjust`` reads it, once)
    replacements: dict[str, Replacement] = field(default_factory=dict)

    @property
    def use_vectors(self) -> bool:
        return self.index is not None and self.query_vector is not None


def _gather(
    conn: sqlite3.Connection,
    text: Bm25Query,
    flt: MemoryFilter,
    params: RecallParams,
    vectors: NearestVectors | None,
) -> _Pool:
    """BM25's pool, the vector side's neighbours and their graph neighbours, with their rows;
    every candidate gets its BM25 rank and (with vectors) its smoothed cosine."""
    cands: dict[str, _Candidate] = {}
    for hit in text.top(flt):
        cands[hit.id] = _Candidate(hit.id, bm25=hit.rank, scored=True)
    # BM25's rows are read while the vector side may still be running; the others after it
    loaded = load_rows(conn, cands) if vectors is not None else {}
    index: VectorIndex | None = None
    query_vector: npt.NDArray[np.float32] | None = None
    query_states: npt.NDArray[np.float32] | None = None
    if vectors is not None:
        nearest = vectors.result()
        if nearest.vector is not None and len(vectors.index) > 0:
            index, query_vector = vectors.index, nearest.vector
            query_states = nearest.states
            known = nearest.bm25 or {}
            for memory_id, cosine in nearest.hits:
                if memory_id in cands or cosine >= MIN_VECTOR_SIMILARITY:
                    cand = cands.setdefault(memory_id, _Candidate(memory_id))
                    cand.cosine = cosine
                    if not cand.scored and memory_id in known:
                        cand.bm25, cand.scored = known[memory_id], True
    graph_available = _add_graph_neighbours(conn, cands, flt.namespace)
    loaded.update(load_rows(conn, (i for i in cands if i not in loaded)))
    rows = {i: r for i, r in loaded.items() if passes(r, flt)}
    pool = _Pool(cands, rows, index, query_vector, query_states, graph_available)
    if not rows:
        return pool
    ids = list(rows)
    # Candidates found by vectors (usually scored on the vector side already) or the graph get
    # the BM25 score the whole query gives them, not 0 for ranking below BM25's pool or for
    # being pruned out of it (see Bm25Query.ranks).
    unscored = {rows[i].rowid: i for i in ids if not cands[i].scored}
    for rowid, rank in text.ranks(list(unscored)).items():
        cands[unscored[rowid]].bm25 = rank
    neighbours = conversation_neighbours(conn, rows)
    if index is not None and query_vector is not None:
        cosines = index.similarities(query_vector, ids, neighbours, params.smoothing)
        for memory_id, cosine in zip(ids, cosines, strict=True):
            cands[memory_id].cosine = cosine
    return pool


def _active_weights(
    params: RecallParams, use_vectors: bool, graph_available: bool, hint: Any
) -> list[tuple[str, float]]:
    """The signals that apply to this query, their weights normalised to sum 1."""
    weights = dict(params.weights)
    if not use_vectors:
        weights["vector"] = 0.0
    if not graph_available:
        weights["graph"] = 0.0
    if hint is None:
        weights["temporal"] = 0.0
    total = sum(weights.values()) or 1.0
    weights = {name: w / total for name, w in weights.items()}
    return [(name, weights[name]) for name in SIGNALS if weights.get(name)]


def _score(
    conn: sqlite3.Connection,
    pool: _Pool,
    params: RecallParams,
    active: list[tuple[str, float]],
    terms: frozenset[str],
    hint: Any,
    now: datetime,
) -> tuple[dict[str, dict[str, float]], list[tuple[str, float]]]:
    """Each candidate's signal values (normalised to 0..1) and its weighted score."""
    cands, rows = pool.cands, pool.rows
    ids = list(rows)
    # a consolidation summary joins many observations' words: it does not set the scale the
    # others are normalised to (session replay, bench/RESULTS.md)
    scale = [i for i in ids if rows[i].source != SUMMARY_SOURCE] or ids
    max_bm25 = max((cands[i].bm25 for i in scale), default=0.0) or 1.0
    max_cos = max((max(cands[i].cosine or 0.0, 0.0) for i in scale), default=0.0) or 1.0
    graph_strength = _graph_strength(conn, ids) if pool.graph_available else {}
    raw: dict[str, dict[str, float]] = {}
    scored: list[tuple[str, float]] = []
    for memory_id in ids:
        row = rows[memory_id]
        cand = cands[memory_id]
        created = parse_ts(row.created_at)
        evergreen = row.evergreen or is_evergreen(row.path, params.evergreen)
        age_days = (now - created).total_seconds() / 86400.0
        values = {
            "bm25": min(cand.bm25 / max_bm25, 1.0),
            "vector": min(max(cand.cosine or 0.0, 0.0) / max_cos, 1.0),
            "graph": graph_strength.get(memory_id, 0.0),
            "temporal": temporal_alignment(created, hint) if hint is not None else 0.0,
            "tags": tag_match(terms, row.tags),
            "importance": row.importance,
            "confidence": row.confidence,
            "recency": 1.0 if evergreen else decay(age_days, params.half_life_days),
        }
        raw[memory_id] = values
        score = 0.0
        for name, weight in active:
            score += weight * values[name]
        if row.source in params.decay_sources:
            score *= min(max(values["recency"], DECAY_FLOOR), 1.0)
        score *= params.source_weights.get(row.source, 1.0)
        scored.append((memory_id, score))
    return raw, scored


def _adjust(
    conn: sqlite3.Connection,
    scored: list[tuple[str, float]],
    pool: _Pool,
    params: RecallParams,
    asks_about_failure: bool,
) -> tuple[list[tuple[str, float]], dict[str, dict[str, float]]]:
    """The list-level adjustments, in order: the session prior, the question penalty, the
    failure boost (for a question about what went wrong), the penalty of what a summary stands
    for, the late-interaction bonus, the penalty of what a later memory replaced; the scores
    sorted, and each adjustment per memory."""
    rows = pool.rows
    bonus: dict[str, float] = {}
    if params.session_prior > 0:
        bonus = _session_prior(scored, rows, params.session_prior)
        scored = [(i, score + bonus[i]) for i, score in scored]
    penalty: dict[str, float] = {}
    if params.question_penalty > 0 and scored:
        cut = params.question_penalty * max(s[1] for s in scored)
        penalty = {i: -cut for i, _ in scored if rows[i].asks}
        scored = [(i, score + penalty.get(i, 0.0)) for i, score in scored]
    failure: dict[str, float] = {}
    if asks_about_failure and params.failure_boost > 0 and scored:
        lift = params.failure_boost * max(s[1] for s in scored)
        failure = {i: lift for i, _ in scored if FAILURE_TAG in rows[i].tags}
        scored = [(i, score + failure.get(i, 0.0)) for i, score in scored]
    summarized: dict[str, float] = {}
    if params.summarized_penalty > 0 and scored:
        cut = params.summarized_penalty * max(s[1] for s in scored)
        summarized = {i: -cut for i in demoted(conn, [i for i, _ in scored])}
        scored = [(i, score + summarized.get(i, 0.0)) for i, score in scored]
    late: dict[str, float] = {}
    index, states = pool.index, pool.query_states
    if index is not None and states is not None and params.late_interaction > 0:
        late = late_bonus(
            conn, scored, states, index.model, params.late_interaction, params.late_pool
        )
        scored = [(i, score + late.get(i, 0.0)) for i, score in scored]
    # last, so that no later bonus lifts a replaced memory back above its replacement; what
    # replaced each candidate is read once, for the penalty and for the hits to say it
    pool.replacements.update(replaced_by(conn, [i for i, _ in scored]) if scored else {})
    superseded: dict[str, float] = {}
    inherited: dict[str, float] = {}
    if params.superseded_penalty > 0 and pool.replacements:
        inherited = _inherited(scored, pool.replacements)
        scored = [(i, score + inherited.get(i, 0.0)) for i, score in scored]
        superseded = _superseded(scored, params.superseded_penalty, pool.replacements)
        scored = [(i, score + superseded.get(i, 0.0)) for i, score in scored]
    scored.sort(key=lambda item: (-item[1], item[0]))
    adjustments = {
        "question": penalty,
        "failure": failure,
        "summarized": summarized,
        "superseded": superseded,
        "replacing": inherited,
    }
    return scored, {"session": bonus, **adjustments, "late": late}


def _inherited(
    scored: list[tuple[str, float]], replaced: Mapping[str, Replacement]
) -> dict[str, float]:
    """What each candidate that replaced another candidate gains to stand where that one
    stood: a query that matches the replaced statement asks what is now current on its
    subject, which is its replacement (a chain passes it on, oldest link first)."""
    score = dict(scored)
    out: dict[str, float] = {}
    for old_id, rep in sorted(replaced.items(), key=lambda item: item[1].at):
        if rep.new_id in score and old_id in score and score[old_id] > score[rep.new_id]:
            gain = score[old_id] - score[rep.new_id]
            out[rep.new_id] = out.get(rep.new_id, 0.0) + gain
            score[rep.new_id] += gain
    return out


def _superseded(
    scored: list[tuple[str, float]], share: float, replaced: Mapping[str, Replacement]
) -> dict[str, float]:
    """The penalty of each candidate a later memory replaced (``replaced``: what replaced it):
    ``share`` of the best score, and more where needed to rank it just below its replacement
    when that is a candidate too."""
    score = dict(scored)
    top = max(s for _i, s in scored)
    cut = share * top
    out: dict[str, float] = {}
    for memory_id, rep in replaced.items():
        penalty = -cut
        newer = score.get(rep.new_id)
        if newer is not None:
            penalty = min(penalty, newer - score[memory_id] - SUPERSEDED_MARGIN * top)
        out[memory_id] = penalty
    return out


def _replacements_first(ranked_ids: list[str], replacements: Mapping[str, str]) -> list[str]:
    """``ranked_ids`` with each replaced memory moved to just after its replacement where it
    came before it: diversity (MMR) may pass over the replacement, which is like what it
    replaced, and lift the replaced one above it (held-out update cases, session 27)."""
    out = list(ranked_ids)
    for old_id, new_id in replacements.items():
        if old_id in out and new_id in out and out.index(old_id) < out.index(new_id):
            out.remove(old_id)
            out.insert(out.index(new_id) + 1, old_id)
    return out


def _later_first(
    conn: sqlite3.Connection,
    ranked_ids: list[str],
    pool: _Pool,
    k: int,
    memories: dict[str, Memory],
) -> list[str]:
    """``ranked_ids`` with each stated memory among the first ``k`` moved before its nearest
    earlier stated hit of the namespace when that is on its subject (``SAME_SUBJECT_COSINE``,
    nearer than the next by ``SAME_SUBJECT_MARGIN``, or as the question asks it:
    ``_asked_alike``) and of its type, and not ``subject.unrelated`` to it (alike only in
    what the project's statements share), unless it sits beside it
    (``statements.beside``: "also", "for the launch weekend only", another environment): a
    later answer to the same question is presumed current, whether or not a rule linked the
    two, and the question's words often match the replaced statement best (held-out update
    cases, session 28). A later memory only moves before an earlier one, so it
    ends; both stay in the list. ``memories`` (those read so far) gains the ones read here."""
    index = pool.index
    if index is None or len(ranked_ids) < 2:
        return ranked_ids
    rows = pool.rows

    # A stated pattern ("each screen gets its own view model") is not presumed replaced by a
    # later one near it: later patterns mostly add ways of doing (training update set C, session
    # 32: 4 of its 7 pattern controls went before their rule, no pattern case gained); the
    # rules, which need a change in the words, link them.
    def stated(memory_id: str) -> bool:
        row = rows.get(memory_id)
        return row is not None and row.source in STATED_SOURCES and row.memory_type != "pattern"

    head = [i for i in ranked_ids[:k] if stated(i)]
    if len(head) < 2:
        return ranked_ids
    vectors = {i: v for i in head if (v := index.vector_of(i)) is not None}
    out = list(ranked_ids)
    before: dict[str, list[str]] = {}  # an earlier hit -> the later ones moved before it
    for memory_id in head:
        vector = vectors.get(memory_id)
        if vector is None:
            continue
        row = rows[memory_id]
        earlier = [
            i
            for i in head
            if i in vectors
            and rows[i].namespace == row.namespace
            and sittings_apart(rows[i].created_at, row.created_at)
        ]
        if not earlier:
            continue
        alike = sorted(zip(index.similarities(vector, earlier), earlier, strict=True), reverse=True)
        best, nearest = alike[0]
        second = alike[1][0] if len(alike) > 1 else 0.0
        if best - second < SAME_SUBJECT_MARGIN:
            continue
        if best < SAME_SUBJECT_COSINE and not _asked_alike(pool, best, memory_id, nearest):
            continue
        if rows[nearest].memory_type != row.memory_type:
            continue
        if subject.unrelated(conn, index, vector, nearest, row.namespace):
            continue
        if out.index(nearest) > out.index(memory_id):
            continue
        missing = [i for i in (memory_id, nearest) if i not in memories]
        if missing:
            memories.update(fetch_many(conn, missing))
        if (
            memory_id in memories
            and nearest in memories
            and not beside(memories[memory_id].content, memories[nearest].content)
        ):
            out.remove(memory_id)
            # before the earlier one, and before any statement already moved there that is
            # older than this one: of several later answers to its question, the latest first
            moved = before.setdefault(nearest, [])
            older = [out.index(i) for i in moved if rows[i].created_at < row.created_at]
            out.insert(min(older) if older else out.index(nearest), memory_id)
            moved.append(memory_id)
    return out


def _asked_alike(pool: _Pool, best: float, later: str, earlier: str) -> bool:
    """Whether a later stated hit ``best`` alike to its nearest earlier one, less than
    ``SAME_SUBJECT_COSINE``, is on its subject as the question asks it: alike at
    ``ASKED_SUBJECT_COSINE``, and the question's cosine with it at most ``ASKED_GAP`` below
    its cosine with the earlier one."""
    if best < ASKED_SUBJECT_COSINE or pool.index is None or pool.query_vector is None:
        return False
    to_later, to_earlier = pool.index.similarities(pool.query_vector, [later, earlier])
    return to_later >= to_earlier - ASKED_GAP


def _diversify(
    conn: sqlite3.Connection,
    scored: list[tuple[str, float]],
    pool: _Pool,
    k: int,
    params: RecallParams,
) -> tuple[list[str], dict[str, Memory]]:
    """The ids in MMR order over the best window (then the rest by score), and the memories
    read for it."""
    ranked_ids = [s[0] for s in scored]
    memories: dict[str, Memory] = {}
    if params.mmr_lambda < 1.0 and len(scored) > 1:
        window = scored[: max(k * 3, k + 10)]
        top = window[0][1] or 1.0
        window_ids = [s[0] for s in window]
        memories = fetch_many(conn, window_ids)
        similarity = mmr_similarity(window_ids, memories, pool.index if pool.use_vectors else None)
        picked = mmr(window_ids, [s[1] / top for s in window], similarity, k, params.mmr_lambda)
        chosen = set(picked)
        ranked_ids = picked + [s[0] for s in scored if s[0] not in chosen]
    return ranked_ids, memories


def _contributions(
    values: dict[str, float],
    active: list[tuple[str, float]],
    decays: bool,
    source_weight: float,
    session_bonus: float | None,
    adjustments: dict[str, float],
) -> dict[str, float]:
    """Each signal's weighted share of a hit's score (what ``--explain`` shows); they sum to
    the score, with the age decay of a memory file, its source's weight, the session bonus and
    the list-level ``adjustments`` (question penalty, failure boost, late interaction) as their
    own parts."""
    contributions = {name: weight * values[name] for name, weight in active}
    factors = []
    if decays:
        factors.append(("decay", max(values["recency"], DECAY_FLOOR)))
    factors.append(("source", source_weight))
    for name, factor in factors:
        if factor != 1.0:
            total = 0.0
            for value in contributions.values():
                total += value
            contributions[name] = total * (factor - 1.0)
    if session_bonus is not None:
        contributions["session"] = session_bonus
    contributions.update(adjustments)
    return contributions


def _add_graph_neighbours(
    conn: sqlite3.Connection, cands: dict[str, _Candidate], namespace: str | None
) -> bool:
    """Add memories linked to the strongest candidates; True if the namespace has memory edges."""
    if not has_memory_edges(conn, namespace):
        return False
    seeds = sorted(cands.values(), key=lambda c: (-(c.bm25 + (c.cosine or 0.0)), c.id))[:10]
    linked = linked_memories(
        conn, [c.id for c in seeds], skip=BOOKKEEPING_EDGES, limit=GRAPH_NEIGHBOURS
    )
    for memory_id in linked:
        cands.setdefault(memory_id, _Candidate(memory_id))
    return True


def _graph_strength(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, float]:
    """Centrality mix from the cache when present, else normalised degree."""
    cached = memory_centrality(conn, ids)
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
    rows = memory_degrees(conn, ids, skip=BOOKKEEPING_EDGES)
    if not rows:
        return {}
    top = max(r[1] for r in rows) or 1
    return {r[0]: r[1] / top for r in rows}


def _session_prior(
    scored: list[tuple[str, float]], rows: dict[str, CandidateRow], weight: float
) -> dict[str, float]:
    """A bonus per memory for belonging to a session whose best turns match well.

    A memory outside any conversation is a session of its own, so the bonus is comparable.
    """
    if not scored:
        return {}
    top = max(s[1] for s in scored) or 1.0

    def session_of(memory_id: str) -> str:
        return rows[memory_id].conversation or "\0" + memory_id

    per_session: dict[str, list[float]] = {}
    for memory_id, score in scored:
        per_session.setdefault(session_of(memory_id), []).append(score)
    strength = {
        key: sum(sorted(values, reverse=True)[:SESSION_TOP]) / min(len(values), SESSION_TOP)
        for key, values in per_session.items()
    }
    best = max(strength.values()) or 1.0
    return {i: weight * top * strength[session_of(i)] / best for i, _ in scored}
