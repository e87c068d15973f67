"""The local all-MiniLM-L6-v2 embedder against reference vectors computed once, outside the
project, with torch 2.13 (CPU, float32): transformers 5.23 BertModel + mean pooling over the
attention mask + L2 normalisation, truncation at 256, which sentence-transformers 6.2's own
``encode`` reproduced exactly. Our graph matched them to 2.3e-7; the tolerance here is 1e-4."""

from __future__ import annotations

import json
import logging
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memlode.embed import Embedder, LocalEmbedder
from memlode.embed._onnx_bert import GRAPH_VERSION
from memlode.search.late import pack_states, stored_maxsim

TOLERANCE = 1e-4
LONG_TEXT = " ".join(f"word{i} alpha beta" for i in range(200))  # 931 word pieces
# (text, first 8 values, projection on cos(0.7 * i)) from the torch reference.
REFERENCE: list[tuple[str, list[float], float]] = [
    (
        "This is a test sentence",
        [0.071552, 0.06848, 0.006603, 0.10177, 0.011122, 0.000245, 0.016587, -0.012005],
        -0.119187,
    ),
    (
        "The cat sits on the mat.",
        [0.134177, -0.0329, -0.024804, 0.041439, -0.036348, 0.041814, 0.031217, 0.037202],
        0.471204,
    ),
    (
        "A feline is resting on a rug.",
        [0.082739, 0.018575, 0.037986, 0.11383, -0.002621, 0.073561, -0.019066, 0.010646],
        -0.470222,
    ),
    (
        "Stock markets fell sharply on Monday.",
        [0.026722, -0.039124, 0.074647, 0.044596, -0.016923, 0.023, -0.072788, 0.038787],
        0.332208,
    ),
    (
        "def parse_config(path: str) -> dict:  # load TOML settings",
        [-0.046563, 0.034875, -0.009347, -0.037395, -0.051286, -0.124835, -0.045053, -0.003945],
        0.191794,
    ),
    (
        "We decided to use JWT tokens for auth because sessions did not scale.",
        [-0.043359, 0.008832, 0.011374, -0.022714, 0.006081, -0.045667, -0.014966, 0.028049],
        -0.958458,
    ),
    (
        "Ünïcödé façade — naïve café 東京 🚀",
        [0.060247, 0.040745, 0.061497, -0.053106, -0.048488, -0.043996, 0.018425, -0.075141],
        0.530583,
    ),
    (
        "",
        [-0.118838, 0.048299, -0.002548, -0.011011, 0.051951, 0.010292, 0.115433, 0.000701],
        -0.851592,
    ),
    (
        "SQLite WAL mode with busy_timeout avoids lost writes between hook processes.",
        [0.018187, -0.039806, -0.031302, 0.082967, 0.019069, -0.047144, 0.02357, -0.004285],
        -0.809039,
    ),
    (
        LONG_TEXT,
        [0.024873, -0.055033, -0.036647, 0.000562, -0.013824, 0.035888, 0.032013, -0.037964],
        -0.067709,
    ),
]
TEXTS = [text for text, _, _ in REFERENCE]
# Reference cosines: (i, j, cosine) between REFERENCE rows.
COSINES = [(1, 2, 0.57349), (1, 3, 0.02672), (2, 3, 0.03334), (0, 7, 0.19974), (8, 2, 0.1522)]
PROJECTION = np.cos(0.7 * np.arange(384))


def test_reproduces_the_torch_reference(local: LocalEmbedder) -> None:
    vectors = local.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384)
    assert vectors.dtype == np.float32
    for row, (text, head, projection) in zip(vectors, REFERENCE, strict=True):
        assert row[:8] == pytest.approx(head, abs=TOLERANCE), text[:40]
        assert float(row @ PROJECTION) == pytest.approx(projection, abs=TOLERANCE), text[:40]
    for i, j, cosine in COSINES:
        assert float(vectors[i] @ vectors[j]) == pytest.approx(cosine, abs=TOLERANCE)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(np.ones(len(TEXTS)), abs=1e-5)


def test_identity_and_limits(local: LocalEmbedder) -> None:
    embedder: Embedder = local
    assert embedder is local
    assert local.name == "local:all-MiniLM-L6-v2"
    assert local.dim == 384
    assert local.max_tokens == 256
    assert local.embed([]).shape == (0, 384)


def test_rows_do_not_depend_on_batching_or_order(
    local: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    together = local.embed(TEXTS)
    alone = np.vstack([local.embed([text]) for text in TEXTS])
    np.testing.assert_allclose(alone, together, atol=1e-5)
    order = [3, 9, 0, 7, 5, 1, 8, 2, 6, 4]
    shuffled = local.embed([TEXTS[i] for i in order])
    np.testing.assert_allclose(shuffled, together[order], atol=1e-5)
    monkeypatch.setattr(local, "batch_size", 3)  # several padded batches of mixed lengths
    np.testing.assert_allclose(local.embed(TEXTS), together, atol=1e-5)
    monkeypatch.setattr(local, "max_batch_tokens", 40)  # the token cap cuts batches too
    np.testing.assert_allclose(local.embed(TEXTS), together, atol=1e-5)


def test_truncates_where_sentence_transformers_does(local: LocalEmbedder) -> None:
    counts = local.token_counts([LONG_TEXT, "This is a test sentence"])
    assert counts == [931, 7]  # special tokens included, nothing truncated
    longer = LONG_TEXT + " and a tail that lies far beyond the limit"
    a, b = local.embed([LONG_TEXT, longer])
    assert float(a @ b) == pytest.approx(1.0, abs=1e-6)


def test_paraphrases_are_closer_than_unrelated_texts(local: LocalEmbedder) -> None:
    cat, feline, stocks = local.embed(TEXTS[1:4])
    assert float(cat @ feline) > float(cat @ stocks) + 0.3
    assert float(feline @ feline) == pytest.approx(1.0, abs=1e-5)


def test_numpy_backend_agrees_with_onnx(local: LocalEmbedder) -> None:
    numpy_embedder = LocalEmbedder(backend="numpy")
    assert numpy_embedder.name == local.name
    short = TEXTS[:6]  # long texts would only make this test slow
    np.testing.assert_allclose(numpy_embedder.embed(short), local.embed(short), atol=1e-5)


def test_token_states_come_from_the_same_pass(local: LocalEmbedder) -> None:
    texts = ["The cat sits on the mat.", "and the of", "", *TEXTS[3:6]]
    vectors, states = local.embed_with_tokens(texts)
    np.testing.assert_allclose(vectors, local.embed(texts), atol=1e-6)
    # Content word pieces only: cat, sits, mat; a text of stop words keeps its pieces; an
    # empty text has none ([CLS] and [SEP] are never kept).
    assert [len(s) for s in states[:3]] == [3, 3, 0]
    for rows in states:
        assert rows.shape[1] == 384
        np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    # Each kept piece is the last layer's state of that token: "cat" alone in a sentence and
    # in another sentence is the same word, so its states are close, closer than to "mat".
    cat_elsewhere = local.embed_with_tokens(["A cat slept."])[1][0][0]
    cat, _, mat = states[0]
    assert float(cat @ cat_elsewhere) > float(cat @ mat) + 0.1


def test_numpy_backend_gives_the_same_token_states(local: LocalEmbedder) -> None:
    numpy_embedder = LocalEmbedder(backend="numpy")
    short = TEXTS[:4]
    _, expected = local.embed_with_tokens(short)
    _, found = numpy_embedder.embed_with_tokens(short)
    for a, b in zip(found, expected, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-4)


def test_stored_token_signs_still_find_the_word(local: LocalEmbedder) -> None:
    _, (query, pottery, camping) = local.embed_with_tokens(
        [
            "Which pottery did she buy?",
            "I bought a lovely pottery bowl at the market",
            "We went camping with the kids last weekend",
        ]
    )
    near, far = stored_maxsim(query, [pack_states(s) for s in (pottery, camping)], 384)
    assert near > far + 0.05


def test_graph_is_built_once_and_reused(
    local: LocalEmbedder, model_cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    graphs = list(model_cache.glob("all-MiniLM-L6-v2-*.onnx"))
    assert len(graphs) == 1
    assert not list(model_cache.glob("*.tmp"))
    memo = json.loads((model_cache / "all-MiniLM-L6-v2.sha256.json").read_text())
    assert graphs[0].name == f"all-MiniLM-L6-v2-{memo['sha256'][:16]}-g{GRAPH_VERSION}.onnx"
    stamp = graphs[0].stat().st_mtime_ns
    caplog.set_level(logging.INFO, logger="memlode.embed")
    again = LocalEmbedder(cache_dir=model_cache)
    np.testing.assert_allclose(again.embed(TEXTS[:2]), local.embed(TEXTS[:2]), atol=1e-6)
    assert not [r for r in caplog.records if "building" in r.getMessage()]
    assert graphs[0].stat().st_mtime_ns == stamp


def test_corrupt_cached_graph_is_rebuilt(
    local: LocalEmbedder, model_cache: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (built,) = model_cache.glob("all-MiniLM-L6-v2-*.onnx")
    broken = tmp_path / built.name
    broken.write_bytes(b"not an onnx graph")
    caplog.set_level(logging.INFO, logger="memlode.embed")
    embedder = LocalEmbedder(cache_dir=tmp_path)
    np.testing.assert_allclose(embedder.embed(TEXTS[:1]), local.embed(TEXTS[:1]), atol=1e-6)
    assert any("rebuilding unreadable" in r.getMessage() for r in caplog.records)
    assert broken.stat().st_size > 1_000_000  # replaced by a real graph


def test_importing_and_choosing_the_local_provider_loads_nothing_heavy(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from memlode.config import Settings\n"
        "from memlode.embed import make_embedder\n"
        "from pathlib import Path\n"
        f"e = make_embedder(Settings(home=Path({str(tmp_path)!r})))\n"
        "assert e.name == 'local:all-MiniLM-L6-v2', e.name\n"
        "heavy = {'numpy', 'onnxruntime', 'onnx', 'tokenizers', 'safetensors', 'urllib.request'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"


def test_reference_projection_is_well_conditioned() -> None:
    # Guards the test itself: the projection must weigh every coordinate, not a few.
    assert math.isclose(float(PROJECTION @ PROJECTION), 192.0, rel_tol=0.05)
