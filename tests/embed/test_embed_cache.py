"""CachedEmbedder: only misses reach the inner embedder, in one call, order kept, LRU bound."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from memlode.embed import CachedEmbedder, Embedder, HashEmbedder


class CountingEmbedder:
    """An Embedder that records every batch it is asked to embed."""

    def __init__(self) -> None:
        self.inner = HashEmbedder(32)
        self.calls: list[list[str]] = []

    @property
    def name(self) -> str:
        return "counting:v1"

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def max_tokens(self) -> int:
        return 128

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


@pytest.fixture
def counting() -> CountingEmbedder:
    return CountingEmbedder()


def test_misses_go_in_one_batch_and_hits_stay_home(counting: CountingEmbedder) -> None:
    cached = CachedEmbedder(counting)
    as_protocol: Embedder = cached  # a wrapper is an Embedder too (checked by mypy)
    assert as_protocol.name == "counting:v1"
    assert (cached.name, cached.dim, cached.max_tokens) == ("counting:v1", 32, 128)
    first = cached.embed(["a", "b", "c"])
    assert counting.calls == [["a", "b", "c"]]
    assert (cached.hits, cached.misses) == (0, 3)

    second = cached.embed(["c", "a"])
    assert counting.calls == [["a", "b", "c"]]  # no new call
    assert (cached.hits, cached.misses) == (2, 3)
    np.testing.assert_array_equal(second, first[[2, 0]])

    mixed = cached.embed(["d", "b", "e", "a"])
    assert counting.calls[-1] == ["d", "e"]
    assert len(counting.calls) == 2
    assert (cached.hits, cached.misses) == (4, 5)
    np.testing.assert_array_equal(mixed, counting.inner.embed(["d", "b", "e", "a"]))


def test_duplicates_in_one_call_are_embedded_once(counting: CountingEmbedder) -> None:
    cached = CachedEmbedder(counting)
    out = cached.embed(["x", "y", "x", "x"])
    assert counting.calls == [["x", "y"]]
    assert (cached.hits, cached.misses) == (2, 2)
    np.testing.assert_array_equal(out[0], out[2])
    np.testing.assert_array_equal(out[0], out[3])


def test_least_recently_used_entry_is_evicted(counting: CountingEmbedder) -> None:
    cached = CachedEmbedder(counting, max_entries=2)
    cached.embed(["a", "b"])
    cached.embed(["a"])  # a is now the most recent
    cached.embed(["c"])  # evicts b
    assert len(cached) == 2
    counting.calls.clear()
    cached.embed(["a", "b"])
    assert counting.calls == [["b"]]


def test_callers_cannot_corrupt_the_cache(counting: CountingEmbedder) -> None:
    cached = CachedEmbedder(counting)
    out = cached.embed(["a"])
    expected = out.copy()
    out[:] = 0.0
    np.testing.assert_array_equal(cached.embed(["a"]), expected)


def test_empty_input_and_clear(counting: CountingEmbedder) -> None:
    cached = CachedEmbedder(counting)
    assert cached.embed([]).shape == (0, 32)
    assert counting.calls == []
    cached.embed(["a"])
    cached.clear()
    cached.embed(["a"])
    assert counting.calls == [["a"], ["a"]]
    with pytest.raises(ValueError, match="positive"):
        CachedEmbedder(counting, max_entries=0)
