"""Late interaction (search/late.py): sign-bit storage, MaxSim, the bonus, and how the engine
keeps token states beside the vectors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from memlode.embed import CachedEmbedder, HashEmbedder, token_embedder
from memlode.engine import Engine, SearchHit
from memlode.search.hybrid import RecallParams
from memlode.search.late import (
    MAX_STATE_TOKENS,
    late_bonus,
    pack_states,
    read_states,
    stored_maxsim,
    unpack_states,
)


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.float32,
        st.tuples(st.integers(1, 9), st.sampled_from([1, 7, 8, 13, 384])),
        elements=st.floats(-1, 1, width=32).filter(lambda v: v != 0),
    )
)
def test_packing_keeps_each_sign(states: np.ndarray) -> None:
    dim = states.shape[1]
    blob = pack_states(states)
    assert len(blob) == states.shape[0] * ((dim + 7) // 8)
    back = unpack_states(blob, dim)
    assert back.shape == states.shape
    assert np.array_equal(np.sign(back), np.sign(states))
    assert np.allclose(np.linalg.norm(back, axis=1), 1.0, atol=1e-5)


def test_packing_keeps_the_first_tokens_only() -> None:
    states = np.ones((MAX_STATE_TOKENS + 5, 16), dtype=np.float32)
    assert unpack_states(pack_states(states), 16).shape == (MAX_STATE_TOKENS, 16)


@pytest.mark.parametrize("blob", [b"", b"\x01", b"\x01" * 47, b"\x01" * 49])
def test_a_blob_of_the_wrong_size_gives_no_tokens(blob: bytes) -> None:
    assert unpack_states(blob, 384).shape == (0, 384)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(1, 6), min_size=1, max_size=6))
def test_stored_score_is_the_mean_of_each_query_tokens_best_match(
    seed: int, sizes: list[int]
) -> None:
    rng = np.random.default_rng(seed)
    dim = 13  # not a whole number of bytes: each token's bits are padded
    query = _unit(rng.standard_normal((3, dim)))
    packed = [pack_states(rng.standard_normal((n, dim)).astype(np.float32)) for n in sizes]
    signs = [unpack_states(blob, dim) for blob in packed]
    expected = [float(np.mean([max(float(q @ t) for t in d) for q in query])) for d in signs]
    assert stored_maxsim(query, packed, dim) == pytest.approx(expected, abs=1e-5)


def _store_states(engine: Engine, states: dict[str, np.ndarray]) -> None:
    with engine.db.write() as conn:
        for memory_id, rows in states.items():
            conn.execute(
                "INSERT INTO memory_tokens (memory_id, model, states) VALUES (?, 'm', ?)",
                (memory_id, pack_states(rows)),
            )


def test_bonus_spreads_the_weight_over_the_pool(engine: Engine) -> None:
    ids = [engine.store(f"memory {i}", "context").id for i in range(4)]
    query = _unit(np.array([[1.0, 1.0, 0.0, 0.0]]))
    _store_states(
        engine,
        {
            ids[0]: np.array([[1.0, 1.0, -1.0, -1.0]]),  # every sign agrees with the query
            ids[1]: np.array([[1.0, -1.0, 1.0, 1.0]]),  # half agree: dot 0
            ids[2]: np.array([[-1.0, -1.0, 1.0, 1.0]]),  # none agree
        },
    )  # ids[3] has no states
    scored = [(ids[0], 0.5), (ids[1], 0.8), (ids[2], 1.0), (ids[3], 0.9)]
    bonus = late_bonus(engine.conn, scored, query, "m", 0.2, 10)
    assert bonus[ids[0]] == pytest.approx(0.2)  # best match: weight x best score
    assert bonus[ids[2]] == pytest.approx(0.0)  # worst match
    assert bonus[ids[1]] == pytest.approx(0.1)
    assert bonus[ids[3]] == pytest.approx(0.1)  # no states: the pool's mean, no gain or loss
    # The pool is the best-scored few: ids[0] ranks last of four and is left out with pool 3.
    small = late_bonus(engine.conn, scored, query, "m", 0.2, 3)
    assert ids[0] not in small and small[ids[1]] == pytest.approx(0.2)
    # Another model's states are never compared; nor is anything with fewer than two states.
    assert late_bonus(engine.conn, scored, query, "other", 0.2, 10) == {}
    assert late_bonus(engine.conn, scored[:1] + scored[3:], query, "m", 0.2, 10) == {}
    assert late_bonus(engine.conn, scored, query, "m", 0.0, 10) == {}


def test_hash_embedder_states_are_one_vector_per_content_word() -> None:
    embedder = HashEmbedder(64)
    vectors, states = embedder.embed_with_tokens(["The pottery bowl is blue", "the and of", ""])
    assert np.allclose(vectors, embedder.embed(["The pottery bowl is blue", "the and of", ""]))
    assert [len(s) for s in states] == [3, 3, 0]  # pottery bowl blue; stop words only: all
    assert np.allclose(states[0][0], embedder.embed(["pottery"])[0])


class _NoStates:
    """An embedder whose server returns one vector per text (as the HTTP providers)."""

    name = "plain"
    dim = 8
    max_tokens = 512

    def embed(self, texts: list[str]) -> np.ndarray:
        return HashEmbedder(8).embed(texts)


def test_cache_keeps_query_states_and_their_vectors() -> None:
    cached = CachedEmbedder(HashEmbedder(32), max_entries=10)
    assert token_embedder(cached) is cached
    first_vector, first_states = cached.embed_with_tokens(["blue bowl"])
    assert (cached.hits, cached.misses) == (0, 1)
    again_vector, again_states = cached.embed_with_tokens(["blue bowl"])
    assert (cached.hits, cached.misses) == (1, 1)
    assert np.array_equal(again_vector, first_vector)
    assert again_states[0] is first_states[0]
    # A batch (memories being embedded) keeps its vectors but not its states.
    cached.embed_with_tokens(["red pottery", "green vase"])
    cached.embed(["red pottery"])
    assert (cached.hits, cached.misses) == (2, 3)
    cached.embed_with_tokens(["green vase"])
    assert (cached.hits, cached.misses) == (2, 4)
    plain = CachedEmbedder(_NoStates())  # type: ignore[arg-type]
    assert token_embedder(plain) is None
    with pytest.raises(Exception, match="no token states"):
        plain.embed_with_tokens(["x"])


def test_states_are_stored_beside_vectors_and_go_with_them(engine: Engine) -> None:
    memory = engine.store("We bought a pottery bowl at the market", "context")
    engine.store("Camping trip with the kids", "context")
    assert engine.embed_pending() == 2
    model = engine.embeddings.model_name()
    assert model is not None
    dim = engine.embeddings.embedder.dim  # type: ignore[union-attr]

    def tokens_of(memory_id: str) -> int | None:
        stored = read_states(engine.conn, model, dim, [memory_id])
        return len(stored[memory_id]) // ((dim + 7) // 8) if memory_id in stored else None

    # Embedded as "[context | ns: test]\nWe bought a pottery bowl at the market": the content
    # words of the enriched text, stop words ("we", "a", "at", "the") left out.
    assert tokens_of(memory.id) == 7
    assert engine.pending_token_states() == 0
    # New content drops the vector, and the states with it (a trigger), until re-embedded.
    engine.update(memory.id, content="We sold the pottery bowl")
    assert tokens_of(memory.id) is None
    engine.embed_pending()
    assert tokens_of(memory.id) == 6
    engine.delete(memory.id)
    assert engine.conn.execute("SELECT count(*) FROM memory_tokens").fetchone()[0] == 1


def test_old_rows_get_states_in_the_background_not_in_a_search(engine: Engine) -> None:
    for i in range(3):
        engine.store(f"note {i} about pottery", "context")
    engine.embed_pending()
    with engine.db.write() as conn:  # a store embedded before token states existed
        conn.execute("DELETE FROM memory_tokens")
    vectors_before = engine.conn.execute(
        "SELECT memory_id, vector, rowid FROM memory_embeddings ORDER BY memory_id"
    ).fetchall()
    assert engine.pending_token_states() == 3
    assert engine.pending_embeddings() == 0
    engine.search("pottery", k=3)  # the catch-up embeds rows without vectors only
    assert engine.pending_token_states() == 3
    assert engine.embed_pending(limit=2) == 2
    assert engine.pending_token_states() == 1
    assert engine.embed_pending() == 1
    assert engine.pending_token_states() == 0
    vectors_after = engine.conn.execute(
        "SELECT memory_id, vector, rowid FROM memory_embeddings ORDER BY memory_id"
    ).fetchall()
    assert [tuple(r) for r in vectors_after] == [tuple(r) for r in vectors_before]


def test_late_interaction_lifts_the_memory_that_holds_the_query_words(engine: Engine) -> None:
    # The long memory holds both query words among many others, which dilutes its one vector
    # and its BM25 length, but not its best token match for each query word.
    long = engine.store(
        "Yesterday afternoon the neighbours came over, we talked about school, the weather, "
        "holidays, football, recipes and finally the tomatoes in my garden",
        "context",
    )
    short = engine.store("Garden party at noon: the garden was full", "context")
    for i in range(5):
        engine.store(f"Tomatoes number {i} were cheap at the market", "context")
    engine.embed_pending()

    def ranked(weight: float) -> list[SearchHit]:
        params = RecallParams(weights=engine.get_weights(), late_interaction=weight, mmr_lambda=1)
        engine.recall_params = lambda: params  # type: ignore[method-assign]
        return engine.search("garden tomatoes", k=3)

    assert [h.memory.id for h in ranked(0.0)][:2] == [short.id, long.id]
    top, second, _ = ranked(0.5)
    assert [top.memory.id, second.memory.id] == [long.id, short.id]
    # The best match gains weight x the best score before the bonus (the short memory's,
    # first until now); the short memory, the worst match of the pool, gains nothing.
    assert second.signals["late"] == 0.0
    assert top.signals["late"] == pytest.approx(0.5 * second.score)
    assert top.score == pytest.approx(sum(top.signals.values()))
