"""Ranking metrics on tiny rankings computed by hand."""

from __future__ import annotations

import math

import pytest

from memlode.evaluation.metrics import (
    METRIC_NAMES,
    expand_turns,
    mean_metrics,
    ndcg_at,
    question_metrics,
    reciprocal_rank,
    session_recall_at,
    turn_recall_at,
)


def test_expand_turns_flattens_units_in_rank_order_without_repeats() -> None:
    units = [["D1:1", "D1:2"], ["D1:2", "D1:3"], ["D2:1"]]
    assert expand_turns(units) == ["D1:1", "D1:2", "D1:3", "D2:1"]


def test_expand_turns_cuts_at_the_limit_inside_a_unit() -> None:
    assert expand_turns([["D1:1", "D1:2", "D1:3"], ["D2:1"]], limit=2) == ["D1:1", "D1:2"]


def test_turn_recall_counts_evidence_in_the_top_k_turns() -> None:
    ranked = ["D1:1", "D1:2", "D2:5", "D3:1"]
    assert turn_recall_at(ranked, ["D2:5", "D3:1"], 3) == 0.5
    assert turn_recall_at(ranked, ["D2:5", "D3:1"], 4) == 1.0
    assert turn_recall_at(ranked, ["D9:9"], 4) == 0.0


def test_turn_recall_of_multi_turn_units_is_cut_at_k_turns() -> None:
    # Two window units of three turns: the evidence in the second window is the 6th turn.
    units = [["D1:1", "D1:2", "D1:3"], ["D1:7", "D1:8", "D1:9"]]
    ranked = expand_turns(units, limit=5)
    assert turn_recall_at(ranked, ["D1:2", "D1:9"], 5) == 0.5
    assert turn_recall_at(expand_turns(units), ["D1:2", "D1:9"], 10) == 1.0


def test_session_recall_uses_distinct_sessions_of_the_ranked_turns() -> None:
    ranked = ["D1:1", "D1:2", "D1:3", "D2:1", "D3:4", "D3:5"]
    # Top 2 distinct sessions are D1 and D2, though D2's turn is 4th.
    assert session_recall_at(ranked, ["D2:8"], 2) == 1.0
    assert session_recall_at(ranked, ["D3:8"], 2) == 0.0
    assert session_recall_at(ranked, ["D3:8", "D1:9"], 1) == 1.0  # any evidence session counts
    assert session_recall_at(ranked, ["D3:8"], 3) == 1.0


def test_session_recall_with_a_custom_session_map() -> None:
    sessions = {"a": "s1", "b": "s2"}
    assert session_recall_at(["a", "b"], ["b"], 1, sessions.__getitem__) == 0.0
    assert session_recall_at(["a", "b"], ["b"], 2, sessions.__getitem__) == 1.0


def test_reciprocal_rank_of_the_first_evidence_turn() -> None:
    assert reciprocal_rank(["D1:1", "D1:2", "D1:3"], ["D1:3", "D1:2"]) == 0.5
    assert reciprocal_rank(["D1:1"], ["D1:1"]) == 1.0
    assert reciprocal_rank(["D1:1"], ["D2:2"]) == 0.0


def test_ndcg_with_binary_relevance() -> None:
    ranked = ["x", "e1", "y", "e2"]
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 + 1 / math.log2(3)
    assert ndcg_at(ranked, ["e1", "e2"], 10) == pytest.approx(dcg / ideal)
    assert ndcg_at(["e1", "e2"], ["e1", "e2"], 10) == pytest.approx(1.0)
    assert ndcg_at(ranked, ["e2"], 3) == 0.0


def test_question_metrics_has_every_metric_and_the_mean_averages() -> None:
    first = question_metrics(["D1:1", "D2:1"], ["D1:1"])
    second = question_metrics(["D1:1", "D2:1"], ["D2:1"])
    assert tuple(first) == METRIC_NAMES
    assert first["mrr"] == 1.0 and second["mrr"] == 0.5
    mean = mean_metrics([first, second])
    assert mean["mrr"] == 0.75
    assert mean["turn_recall@5"] == 1.0
    assert mean_metrics([]) == dict.fromkeys(METRIC_NAMES, 0.0)
