"""Ranking metrics over dialogue turns: what a retrieval evaluation reports.

Pure functions, no storage: a ranking is a list of *units* (what the engine returned), each
covering one or more turn ids. ``expand_turns`` flattens units into turns in rank order, so a
store that keeps windows or whole sessions is judged on the same turn-level scale as one that
keeps single turns. Turn ids are LoCoMo dialogue ids (``"D3:14"``: session 3, turn 14).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

__all__ = [
    "METRIC_NAMES",
    "expand_turns",
    "mean_metrics",
    "ndcg_at",
    "question_metrics",
    "reciprocal_rank",
    "session_of",
    "session_recall_at",
    "turn_recall_at",
]

# The keys of every metrics dict, in report order (the issue fixes these names).
METRIC_NAMES = (
    "turn_recall@5",
    "turn_recall@10",
    "turn_recall@25",
    "session_recall@5",
    "session_recall@10",
    "mrr",
    "ndcg@10",
)


def session_of(turn_id: str) -> str:
    """The session part of a dialogue id: ``"D3:14"`` -> ``"D3"`` (the id itself if no colon)."""
    head, sep, _ = turn_id.partition(":")
    return head if sep else turn_id


def expand_turns(units: Iterable[Sequence[str]], limit: int | None = None) -> list[str]:
    """Turn ids of ranked units, in rank order, each once, cut at ``limit`` turns."""
    seen: dict[str, None] = {}
    for unit in units:
        for turn in unit:
            if turn in seen:
                continue
            seen[turn] = None
            if limit is not None and len(seen) >= limit:
                return list(seen)
    return list(seen)


def turn_recall_at(ranked: Sequence[str], evidence: Iterable[str], k: int) -> float:
    """Fraction of the evidence turns found among the first ``k`` ranked turns."""
    wanted = set(evidence)
    if not wanted:
        return 0.0
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def session_recall_at(
    ranked: Sequence[str],
    evidence: Iterable[str],
    k: int,
    session: Callable[[str], str] = session_of,
) -> float:
    """1.0 if any evidence session is among the first ``k`` distinct sessions of the ranking."""
    wanted = {session(t) for t in evidence}
    top: dict[str, None] = {}
    for turn in ranked:
        if len(top) >= k:
            break
        top.setdefault(session(turn), None)
    return 1.0 if wanted.intersection(top) else 0.0


def reciprocal_rank(ranked: Sequence[str], evidence: Iterable[str]) -> float:
    """1 / rank of the first evidence turn (ranks from 1); 0.0 when none was retrieved."""
    wanted = set(evidence)
    for rank, turn in enumerate(ranked, start=1):
        if turn in wanted:
            return 1.0 / rank
    return 0.0


def ndcg_at(ranked: Sequence[str], evidence: Iterable[str], k: int) -> float:
    """Normalised discounted cumulative gain at ``k`` with binary relevance over turns."""
    wanted = set(evidence)
    if not wanted:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, turn in enumerate(ranked[:k]) if turn in wanted)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(wanted), k)))
    return dcg / ideal


def question_metrics(
    ranked: Sequence[str],
    evidence: Sequence[str],
    session: Callable[[str], str] = session_of,
) -> dict[str, float]:
    """Every metric in ``METRIC_NAMES`` for one question's ranked turns."""
    return {
        "turn_recall@5": turn_recall_at(ranked, evidence, 5),
        "turn_recall@10": turn_recall_at(ranked, evidence, 10),
        "turn_recall@25": turn_recall_at(ranked, evidence, 25),
        "session_recall@5": session_recall_at(ranked, evidence, 5, session),
        "session_recall@10": session_recall_at(ranked, evidence, 10, session),
        "mrr": reciprocal_rank(ranked, evidence),
        "ndcg@10": ndcg_at(ranked, evidence, 10),
    }


def mean_metrics(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """The mean of each metric over questions (0.0 for every metric when there are none)."""
    if not rows:
        return dict.fromkeys(METRIC_NAMES, 0.0)
    return {name: sum(r[name] for r in rows) / len(rows) for name in METRIC_NAMES}
