"""Hybrid recall through the engine: signals, weights, decay/evergreen, MMR, vectors."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.errors import InvalidInput
from memlode.search.hybrid import _replacements_first, recall
from memlode.types import format_ts, utcnow


def _ago(days: float) -> str:
    return format_ts(utcnow() - timedelta(days=days))


def test_hit_carries_every_signal_contribution(engine: Engine) -> None:
    engine.store("JWT tokens expire after one hour", "decision", tags="auth,jwt")
    engine.store("The CI pipeline runs on two cores", "context")
    engine.catch_up()  # vectors for both (a search is a read)
    hits = engine.search("when do jwt tokens expire", k=5)
    assert hits, "expected a hit"
    top = hits[0]
    assert "JWT" in top.memory.content
    assert set(top.signals) >= {"bm25", "vector", "importance", "confidence", "recency", "tags"}
    assert top.score == pytest.approx(sum(top.signals.values()))
    assert top.signals["tags"] > 0  # the query names the jwt tag


def test_vectors_are_filled_by_search_catch_up(engine: Engine) -> None:
    engine.store("alpha beta gamma", "context")
    assert engine.pending_embeddings() == 1
    engine.search("alpha", k=1)
    assert engine.pending_embeddings() == 1  # a search is a read
    assert engine.catch_up() == 1
    assert engine.pending_embeddings() == 0
    row = engine.conn.execute("SELECT model, dim, length(vector) FROM memory_embeddings").fetchone()
    assert row[0].startswith("hash:")
    assert row[2] == row[1] * 4  # float32


def test_vector_only_match_is_found(engine: Engine) -> None:
    # the hash embedder shares character trigrams: "authentication" ~ "authenticate"
    engine.store("authentication flow uses refresh rotation", "decision")
    engine.store("database vacuum runs nightly", "context")
    engine.embed_pending()
    hits = engine.search("authenticate rotating", k=2)
    assert hits[0].memory.content.startswith("authentication")
    assert hits[0].signals.get("vector", 0) > 0


def test_weights_are_normalised_persisted_and_validated(engine: Engine) -> None:
    effective = engine.set_weights({"bm25": 2, "vector": 2}, merge=False)
    assert effective["bm25"] == pytest.approx(0.5)
    assert effective["graph"] == 0
    assert sum(effective.values()) == pytest.approx(1.0)
    # persisted: a second engine on the same file sees them
    other = Engine(engine.settings)
    try:
        assert other.get_weights() == pytest.approx(effective)
    finally:
        other.close()
    with pytest.raises(InvalidInput):
        engine.set_weights({"nonsense": 1})
    with pytest.raises(InvalidInput):
        engine.set_weights({"bm25": -1})
    with pytest.raises(InvalidInput):
        engine.set_weights({"bm25": 0, "vector": 0}, merge=False)
    assert engine.reset_weights() == pytest.approx(engine.settings.effective_weights)


def test_weights_change_the_ranking(engine: Engine) -> None:
    old_important = engine.store("deploy checklist for releases", importance=1.0)
    engine.conn.execute(
        "UPDATE memories SET created_at = ? WHERE id = ?", (_ago(400), old_important.id)
    )
    fresh = engine.store("deploy checklist for releases and rollbacks", importance=0.0)
    engine.set_weights({"importance": 1.0}, merge=False)
    assert engine.search("deploy checklist", k=2)[0].memory.id == old_important.id
    engine.set_weights({"recency": 1.0}, merge=False)
    assert engine.search("deploy checklist", k=2)[0].memory.id == fresh.id


def test_evergreen_does_not_decay(engine: Engine) -> None:
    old = _ago(365)
    plain = engine.store(
        "release process notes",
        source="doc",
        metadata={"path": "/p/notes/release.md"},
        created_at=old,
    )
    ever = engine.store(
        "release process memory",
        source="doc",
        metadata={"path": "/p/MEMORY.md"},
        created_at=old,
    )
    hits = {h.memory.id: h for h in engine.search("release process", k=5)}
    assert hits[ever.id].signals["recency"] > hits[plain.id].signals["recency"]
    assert hits[plain.id].signals["recency"] < 0.01  # a year is ~12 half-lives
    assert engine.search("release process", k=1)[0].memory.id == ever.id


def test_a_transcript_row_ranks_below_the_hooks_record_of_the_same_evidence(
    engine: Engine,
) -> None:
    # the same words stored twice: as the hooks observed a command, and inside a transcript row
    said = "git push origin main rejected: the remote holds work you do not have"
    hook = engine.store(f"Failed: $ {said}", source="hook")
    turn = engine.store(f"Failed: $ {said}", source="transcript")
    engine.catch_up()
    hits = {h.memory.id: h for h in engine.search("why was the push to main rejected", k=5)}
    assert [h.memory.id for h in engine.search("push to main rejected", k=2)] == [hook.id, turn.id]
    shown = hits[turn.id]
    assert shown.score == pytest.approx(0.9 * hits[hook.id].score, rel=0.05)
    # --explain shows the source's weight as its own part, and the parts still sum to the score
    assert shown.signals["source"] < 0 and "source" not in hits[hook.id].signals
    assert shown.score == pytest.approx(sum(shown.signals.values()))


def test_mmr_pushes_near_duplicates_down(memlode_home: Path) -> None:
    eng = Engine(Settings.load({"namespace": "t"}))
    try:
        a = eng.store("the cache layer uses redis with a five minute ttl")
        b = eng.store("the cache layer uses redis with a five minute ttl!")
        c = eng.store("redis cache layer evicts keys by ttl with allkeys-lru")
        eng.catch_up()
        ids = [h.memory.id for h in eng.search("redis cache layer ttl", k=3)]
        assert ids[0] in (a.id, b.id)
        assert ids[1] == c.id, "MMR should put the different memory before the near-duplicate"
    finally:
        eng.close()


def test_temporal_signal_prefers_the_named_time(engine: Engine) -> None:
    march = engine.store("we met the vendor about pricing", created_at="2025-03-10T10:00:00")
    engine.store("we met the vendor about pricing again", created_at="2025-09-10T10:00:00")
    hits = engine.search("vendor pricing meeting in March 2025", k=2)
    assert hits[0].memory.id == march.id
    assert hits[0].signals["temporal"] > hits[1].signals.get("temporal", 0)


def test_filters_apply_to_vector_candidates(engine: Engine) -> None:
    engine.store("kafka consumer lag alerting", "decision")
    engine.store("kafka consumer lag dashboard", "context")
    engine.store("kafka consumer elsewhere", "decision", namespace="other")
    hits = engine.search("kafka consumer lag", k=5, memory_types=["decision"])
    assert [h.memory.memory_type for h in hits] == ["decision"]
    assert all(h.memory.namespace == "test" for h in hits)


def test_bm25_only_when_embeddings_off(memlode_home: Path) -> None:
    eng = Engine(Settings.load({"namespace": "t", "embed_provider": "none"}))
    try:
        eng.store("sqlite busy timeout before wal")
        hits = eng.search("busy timeout", k=1)
        assert hits and hits[0].signals.get("vector", 0) == 0
        assert eng.embeddings.embedder is None
    finally:
        eng.close()


def test_model_change_makes_rows_pending_and_reembed_replaces(memlode_home: Path) -> None:
    first = Engine(Settings.load({"namespace": "t"}))
    try:
        first.store("one memory")
        first.store("another memory")
        assert first.embed_pending() == 2
        first.conn.execute("UPDATE memory_embeddings SET model = 'old:model'")
        assert first.pending_embeddings() == 2  # vectors of another model do not count
        assert first.embeddings.drop_other_models() == 2
        assert first.embed_pending() == 2
        assert first.embeddings.models_in_store() == {first.embeddings.model_name(): 2}
    finally:
        first.close()


def test_vector_index_appends_and_rebuilds(engine: Engine) -> None:
    engine.store("first vector row")
    engine.embed_pending()
    index = engine.embeddings.index
    assert index is not None and len(index) == 1
    engine.store("second vector row")
    engine.embed_pending()
    assert len(engine.embeddings.index or []) == 2
    victim = engine.list_memories(limit=1)[0]
    engine.delete(victim.id)
    index = engine.embeddings.index
    assert index is not None and len(index) == 1 and victim.id not in index.ids
    # a fresh process maps the on-disk mirror written by the refresh
    cached = list((engine.settings.home / "cache").glob("vectors-*.npy"))
    assert cached


def test_recall_with_expansion_follows_edges(engine: Engine) -> None:
    a = engine.store("switched auth to JWT", "decision")
    b = engine.store("session cookies caused CSRF issues", "insight")
    engine.associate(a.id, b.id, "DERIVED_FROM")
    out = engine.recall_with_expansion("JWT auth switch", k=1, depth=1)
    assert out[0]["id"] == a.id
    assert [e["id"] for e in out[0]["expanded"]] == [b.id]
    with pytest.raises(InvalidInput):
        engine.recall_with_expansion("x", depth=9)


def test_unrelated_query_finds_nothing(engine: Engine) -> None:
    engine.store("postgres connection pooling with pgbouncer")
    engine.embed_pending()
    assert engine.search("zebra giraffe savanna", k=5) == []
    assert engine.search("pgbouncer pooling", k=5)


def test_two_databases_in_one_home_keep_their_own_vectors(memlode_home: Path) -> None:
    first = Engine(Settings.load({"namespace": "t", "db_path": str(memlode_home / "a.db")}))
    second = Engine(Settings.load({"namespace": "t", "db_path": str(memlode_home / "b.db")}))
    try:
        a = first.store("alpha database memory about kafka")
        b = second.store("beta database memory about kafka")
        first.embed_pending()
        second.embed_pending()
        assert first.embeddings.index is not None and second.embeddings.index is not None
        # a fresh engine on each file maps its own mirror, never the other's
        for path, own in (("a.db", a.id), ("b.db", b.id)):
            fresh = Engine(Settings.load({"namespace": "t", "db_path": str(memlode_home / path)}))
            try:
                index = fresh.embeddings.index
                assert index is not None and index.ids == [own]
            finally:
                fresh.close()
    finally:
        first.close()
        second.close()


def test_bm25_filter_falls_back_when_other_namespaces_dominate(engine: Engine) -> None:
    # 40 matching memories elsewhere outrank the one in this namespace: the fast path
    # (rank first, filter after) sees none of ours and must fall back to the joined query.
    for i in range(40):
        engine.store(f"kafka kafka kafka consumer lag {i}", namespace="noisy")
    mine = engine.store("kafka consumer lag in our service", "decision")
    from memlode.search.fts import bm25_search

    hits = bm25_search(engine.conn, "kafka consumer lag", engine.filter(None), 5)
    assert [h.id for h in hits] == [mine.id]


def _rank(engine: Engine, query: str, question_penalty: float | None = None) -> list[str]:
    params = engine.recall_params()
    if question_penalty is not None:
        params = replace(params, question_penalty=question_penalty)
    hits = recall(engine.conn, query, engine.filter(), 5, params, now=utcnow())
    return [h.memory.id for h in hits]


def test_a_memory_that_only_asks_ranks_below_its_answer(engine: Engine) -> None:
    asks = engine.store("Melanie: What did you name the new puppy? \n", source="conversation")
    tells = engine.store("Caroline: The new puppy is named Rex, after my grandfather's dog")
    # On words alone the question wins: it is shorter, with the same query words.
    assert _rank(engine, "name of the new puppy", question_penalty=0.0)[:2] == [asks.id, tells.id]
    assert _rank(engine, "name of the new puppy")[:2] == [tells.id, asks.id]

    hits = {h.memory.id: h for h in engine.search("name of the new puppy", k=5)}
    assert hits[asks.id].signals["question"] < 0
    assert "question" not in hits[tells.id].signals
    assert hits[asks.id].score == pytest.approx(sum(hits[asks.id].signals.values()))


def test_only_single_utterances_count_as_asking(engine: Engine) -> None:
    # A transcript turn joins the user's request, the answer and the next request: ending in
    # a question does not make it empty of facts.
    turn = engine.store(
        "User: rename the worker pool\nAssistant: renamed it to TaskPool in pool.py\n"
        "User: does the pool still drain on shutdown?",
        source="transcript",
    )
    hits = engine.search("worker pool rename", k=3)
    assert hits[0].memory.id == turn.id
    assert "question" not in hits[0].signals


def test_a_replaced_memory_is_moved_after_its_replacement_when_diversity_lifted_it() -> None:
    """Diversity (MMR) may pick a replaced memory before its replacement, which is like a hit
    it already took: the replaced one then goes right after its replacement, the rest keep
    their order, and a pair already in order or half outside the list stays as it is."""
    ranked = ["a", "old", "b", "new", "c", "kept", "fresh"]
    replacements = {"old": "new", "kept": "elsewhere", "fresh": "c"}
    assert _replacements_first(ranked, replacements) == [
        "a",
        "b",
        "new",
        "old",
        "c",
        "kept",
        "fresh",
    ]
    assert _replacements_first(["x", "y"], {}) == ["x", "y"]
