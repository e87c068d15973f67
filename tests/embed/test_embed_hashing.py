"""The hash embedder: deterministic across processes, unit length, similar for shared words."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from memlode.embed import HASH_DIM, Embedder, HashEmbedder

TEXT = "JWT auth tokens expire after 15 minutes"


def cosine(embedder: HashEmbedder, a: str, b: str) -> float:
    va, vb = embedder.embed([a, b])
    return float(va @ vb)


def test_identity_shape_and_unit_rows() -> None:
    embedder: Embedder = HashEmbedder()
    assert embedder.name == "hash:v1-256"
    assert embedder.dim == HASH_DIM == 256
    vectors = embedder.embed([TEXT, "", "   ", "x"])
    assert vectors.shape == (4, 256)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert embedder.embed([]).shape == (0, 256)


def test_other_dimensions_have_their_own_name() -> None:
    embedder = HashEmbedder(64)
    assert embedder.name == "hash:v1-64"
    assert embedder.embed([TEXT]).shape == (1, 64)
    with pytest.raises(ValueError, match="positive"):
        HashEmbedder(0)


def test_same_vector_in_another_process() -> None:
    # Python salts str hashes per process; the embedder must not depend on them.
    code = (
        "from memlode.embed import HashEmbedder\n"
        "import json\n"
        f"print(json.dumps(HashEmbedder().embed([{TEXT!r}])[0].tolist()))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )
    other = np.array(json.loads(result.stdout), dtype=np.float32)
    np.testing.assert_array_equal(other, HashEmbedder().embed([TEXT])[0])


def test_shared_words_are_similar_and_unrelated_texts_are_not() -> None:
    embedder = HashEmbedder()
    near = cosine(embedder, "the auth token expired", "refresh the expired auth token")
    far = cosine(embedder, "the auth token expired", "bake bread with sourdough starter")
    assert near > 0.5
    assert abs(far) < 0.25
    assert near > far + 0.4
    assert cosine(embedder, TEXT, TEXT.upper()) == pytest.approx(1.0, abs=1e-6)
    # Trigrams tie inflections together: closer than two unrelated words.
    assert cosine(embedder, "parsing", "parser") > cosine(embedder, "parsing", "zebra") + 0.2


def test_repetition_is_dampened() -> None:
    embedder = HashEmbedder()
    once = cosine(embedder, "cache invalidation bug", "cache")
    many = cosine(embedder, "cache invalidation bug", "cache " * 50)
    assert many == pytest.approx(once, abs=0.15)
