"""Hybrid recall benchmark: search latency with vectors and ingest throughput with embeddings.

    python bench/bench_recall.py --sizes 10000,100000 --queries 200 [--provider local] [--json]
        [--vector-cache DIR] [--ingest-n N] [--keep DIR]

Prints, per size: build time, then warm search p50/p95 (query embedding included) over the
queries, with the in-memory text index (``memlode.search.text_index``; the wait for its build
is printed) and, in the same run, with BM25 left to FTS5 (``hybrid_fts5_bm25``, ``ratio_p50``);
and once: ingest throughput with embeddings (store + embed_pending) against the raw embedder's
throughput on the same enriched texts in the same run (the ratio is the figure).
Per size it also prints late interaction's share of the hybrid p50 (the same engine with it
off, alternating: ``late_interaction``), the mean bytes of token states a memory, and the
database's size, and the vector index's recall against exact search for the queries'
embeddings (the top ``RecallParams.vector_candidates(10)`` rows): 1.0 below the size where the
approximate first stage takes over (``memlode.vector.projection``). ``--ingest-n 0`` skips the
ingest figure; ``--keep DIR`` builds the stores under DIR (``DIR/n<N>``) and reuses one that
is already there, so a breakdown script can open the same store.

``--vector-cache DIR`` (opt-in) keeps the corpus's document vectors on disk between runs:
embedding 100k memories with the local model takes about 35 minutes of CPU, and the corpus is
deterministic. The file is keyed by corpus seed, size and model name
(``DIR/corpus<seed>-n<N>-<model>.npz``; a smaller corpus also finds its vectors in a larger
one's file) and each vector by the SHA-256 of the exact enriched text ``embed_pending`` asks
for, so a changed enrichment is a cache miss, never a wrong vector.
Only the store's build uses the cache: query embeddings are always computed (and timed), and the
"embed" time printed for a cached build is the cache's, not the model's. The ingest ratio never
uses it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import numpy.typing as npt

from corpus import corpus, queries
from memlode.config import Settings
from memlode.embed import Embedder, enrich, token_embedder
from memlode.engine import Engine
from memlode.search import text_index
from memlode.search.hybrid import RecallParams
from memlode.search.late import pack_states, unpack_states

CORPUS_SEED = 7  # corpus()'s default seed: part of the vector cache's key
CHECKPOINT = 10_000  # new vectors between two writes of the cache file


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


class CorpusVectorCache:
    """An ``Embedder`` that answers from a file of known vectors and asks ``inner`` for the rest
    (recording them, so that ``save`` can add them to the file). When ``inner`` gives token
    states (late interaction), they are kept too, as the sign bits the store keeps of them."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.path = path
        self.rows: dict[bytes, npt.NDArray[np.float32]] = {}
        self.states: dict[bytes, bytes] = {}  # packed sign bits (search/late.py)
        self.added = 0
        self.saved = 0
        # Every size's file of this seed and model: the corpus of n rows is the first n rows of
        # any larger one, and vectors are looked up by their text's digest anyway.
        width = (inner.dim + 7) // 8
        for known in sorted(path.parent.glob(cache_path(path.parent, "*", inner.name).name)):
            with np.load(known) as data:
                for digest, vector in zip(data["digests"], data["vectors"], strict=True):
                    self.rows[bytes(digest)] = vector
                if "state_counts" in data:
                    blob = data["states"].tobytes()
                    ends = np.cumsum(data["state_counts"]) * width
                    for digest, end, count in zip(
                        data["digests"], ends, data["state_counts"], strict=True
                    ):
                        self.states[bytes(digest)] = blob[end - count * width : end]

    @property
    def token_states(self) -> bool:
        return token_embedder(self.inner) is not None

    def embed_with_tokens(
        self, texts: Sequence[str]
    ) -> tuple[npt.NDArray[np.float32], list[npt.NDArray[np.float32]]]:
        inner = token_embedder(self.inner)
        assert inner is not None
        digests = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest() for t in texts]
        missing = [i for i, d in enumerate(digests) if d not in self.states]
        if missing:
            fresh, states = inner.embed_with_tokens([texts[i] for i in missing])
            for row, i in enumerate(missing):
                self.rows[digests[i]] = fresh[row]
                self.states[digests[i]] = pack_states(states[row])
            self.added += len(missing)
            if self.added - self.saved >= CHECKPOINT:
                self.save()
        vectors = (
            np.stack([self.rows[d] for d in digests])
            if texts
            else np.empty((0, self.dim), dtype=np.float32)
        )
        return vectors, [unpack_states(self.states[d], self.dim) for d in digests]

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        digests = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest() for t in texts]
        missing = [i for i, d in enumerate(digests) if d not in self.rows]
        if missing:
            fresh = self.inner.embed([texts[i] for i in missing])
            for row, i in enumerate(missing):
                self.rows[digests[i]] = fresh[row]
            self.added += len(missing)
            if self.added - self.saved >= CHECKPOINT:  # an interrupted build keeps its work
                self.save()
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        return np.stack([self.rows[d] for d in digests])

    def save(self) -> None:
        if self.added == self.saved:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        digests = list(self.rows)
        tmp = self.path.with_suffix(".tmp.npz")
        extra: dict[str, npt.NDArray[np.uint8] | npt.NDArray[np.int64]] = {}
        if self.states and all(d in self.states for d in digests):
            width = (self.dim + 7) // 8
            extra = {
                "states": np.frombuffer(b"".join(self.states[d] for d in digests), np.uint8),
                "state_counts": np.array([len(self.states[d]) // width for d in digests]),
            }
        np.savez(
            tmp,
            digests=np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(len(digests), 32),
            vectors=np.stack([self.rows[d] for d in digests]).astype(np.float32),
            **extra,  # type: ignore[arg-type]
        )
        tmp.replace(self.path)
        self.saved = self.added


def cache_path(folder: Path, n: int | str, model: str) -> Path:
    return folder / f"corpus{CORPUS_SEED}-n{n}-{re.sub(r'[^A-Za-z0-9.-]+', '_', model)}.npz"


def build(
    engine: Engine, n: int, batch: int = 2000, vector_cache: Path | None = None
) -> tuple[float, float]:
    items = corpus(n, seed=CORPUS_SEED)
    start = time.perf_counter()
    for i in range(0, n, batch):
        engine.store_many(
            [engine.new_memory(text, kind, tags=tags) for text, kind, tags in items[i : i + batch]]
        )
    stored = time.perf_counter() - start
    start = time.perf_counter()
    embedder = engine.embeddings.embedder
    if vector_cache is not None and embedder is not None:
        cached = CorpusVectorCache(embedder, cache_path(vector_cache, n, embedder.name))
        engine.embeddings.use_embedder(cached)
        engine.embed_pending(batch_size=128)
        cached.save()
        engine.embeddings.use_embedder(embedder)  # searches embed their queries for real
    else:
        engine.embed_pending(batch_size=128)
    return stored, time.perf_counter() - start


def search_latency(engine: Engine, qs: list[str], k: int = 10) -> dict[str, float]:
    """Warm search latency: the model and vectors loaded, and the in-memory copy of the FTS
    index built (it is built by a process's second search; the wait for it is reported)."""
    engine.search(qs[0], k=k)  # warm: index loaded, model loaded
    engine.search(qs[1], k=k)  # a second search starts the text index's build
    start = time.perf_counter()
    engine.text_index.wait()
    built_s = time.perf_counter() - start
    times = []
    for q in qs:
        start = time.perf_counter()
        engine.search(q, k=k)
        times.append((time.perf_counter() - start) * 1000)
    return {
        "p50_ms": round(_percentile(times, 50), 2),
        "p95_ms": round(_percentile(times, 95), 2),
        "mean_ms": round(statistics.fmean(times), 2),
        "text_index_wait_s": round(built_s, 2),
    }


def fts_latency(engine: Engine, qs: list[str], k: int = 10) -> dict[str, float]:
    """``search_latency`` with BM25 left to FTS5 (the text index never built): the baseline the
    in-memory index is compared with, in the same run."""
    saved = text_index.BUILD_AFTER_SEARCHES
    text_index.BUILD_AFTER_SEARCHES = 2**62
    try:
        engine.search(qs[0], k=k)
        times = []
        for q in qs:
            start = time.perf_counter()
            engine.search(q, k=k)
            times.append((time.perf_counter() - start) * 1000)
    finally:
        text_index.BUILD_AFTER_SEARCHES = saved
    return {"p50_ms": round(_percentile(times, 50), 2), "p95_ms": round(_percentile(times, 95), 2)}


def ingest_ratio(provider: str, n: int, rounds: int = 8) -> dict[str, float]:
    """Store + embed through the engine vs the raw embedder on the same enriched texts.

    The two are interleaved in ``rounds`` so that a load change on a shared machine hits both.
    The raw embedder is a separate, uncached instance, so neither side profits from the other.
    ``ratio`` compares wall-clock time; ``cpu_ratio`` compares the CPU time this process used
    (all its threads), which parallel jobs on the machine disturb much less.
    """
    from memlode.embed import make_embedder

    items = corpus(n, seed=99)
    texts = [enrich(t, memory_type=k, namespace="bench", tags=g) for t, k, g in items]
    raw_s = engine_s = raw_cpu = engine_cpu = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load({"home": tmp, "namespace": "bench", "embed_provider": provider})
        raw_embedder = make_embedder(settings, lru_size=0)
        assert raw_embedder is not None
        engine = Engine(settings)
        assert engine.embeddings.embedder is not None, engine.embeddings.error
        raw_embedder.embed(texts[:32])  # load both models outside the timings
        engine.embeddings.embedder.embed(["warm up"])
        step = n // rounds
        for r in range(rounds):
            chunk = slice(r * step, (r + 1) * step)
            start, cpu = time.perf_counter(), time.process_time()
            for i in range(chunk.start, chunk.stop, 128):
                raw_embedder.embed(texts[i : min(i + 128, chunk.stop)])
            raw_s += time.perf_counter() - start
            raw_cpu += time.process_time() - cpu
            start, cpu = time.perf_counter(), time.process_time()
            build_items(engine, items[chunk])
            engine_s += time.perf_counter() - start
            engine_cpu += time.process_time() - cpu
        engine.close()
    done = step * rounds
    return {
        "n": done,
        "raw_embedder_per_s": round(done / raw_s, 1),
        "ingest_with_embeddings_per_s": round(done / engine_s, 1),
        "ratio": round(raw_s / engine_s, 3),
        "cpu_ratio": round(raw_cpu / engine_cpu, 3),
    }


def build_items(engine: Engine, items: list[tuple[str, str, list[str]]]) -> tuple[float, float]:
    start = time.perf_counter()
    engine.store_many([engine.new_memory(t, k, tags=g) for t, k, g in items])
    stored = time.perf_counter() - start
    start = time.perf_counter()
    engine.embed_pending(batch_size=128)
    return stored, time.perf_counter() - start


def vector_recall(engine: Engine, qs: list[str], k: int) -> dict[str, float]:
    """The index's top ``k`` against an exact product over every stored vector."""
    index, embedder = engine.embeddings.index, engine.embeddings.embedder
    if index is None or embedder is None or not len(index):
        return {}
    matrix = np.stack([index.vector_of(i) for i in index.ids])
    found = total = 0
    worst = 1.0
    for query in embedder.embed(qs):
        exact = matrix @ query
        top = min(k, len(exact))
        truth = {index.ids[i] for i in np.argpartition(-exact, top - 1)[:top]}
        got = {memory_id for memory_id, _ in index.search(query, k)}
        found += len(truth & got)
        total += len(truth)
        worst = min(worst, len(truth & got) / len(truth))
    return {"k": k, "recall": round(found / total, 4), "worst_query": round(worst, 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--provider", default="local")
    parser.add_argument("--ingest-n", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--vector-cache", type=Path, default=None, metavar="DIR")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR")
    args = parser.parse_args()
    results: dict[str, object] = {"provider": args.provider}
    if args.ingest_n > 0:
        results["ingest"] = ingest_ratio(args.provider, args.ingest_n)
        if not args.json:
            print(f"ingest: {results['ingest']}", flush=True)
    qs = queries(args.queries)
    for n in [int(s) for s in args.sizes.split(",") if s]:
        with tempfile.TemporaryDirectory() as scratch:
            tmp = str(args.keep / f"n{n}") if args.keep is not None else scratch
            fresh = not (Path(tmp) / "memlode.db").exists()
            engine = Engine(
                Settings.load({"home": tmp, "namespace": "bench", "embed_provider": args.provider})
            )
            stored_s, embed_s = (
                build(engine, n, vector_cache=args.vector_cache) if fresh else (0.0, 0.0)
            )
            fts_only = Engine(
                Settings.load({"home": tmp, "namespace": "bench", "embed_provider": args.provider})
            )
            latency_fts = fts_latency(fts_only, qs)
            fts_only.close()
            latency = search_latency(engine, qs)
            # Late interaction's share: the same engine with it off and on again, alternating.
            late_runs = [latency["p50_ms"]]
            off_runs = []
            default_params = engine.recall_params
            for late_weight in (0.0, None, 0.0):
                params = default_params()
                if late_weight is not None:
                    params.late_interaction = late_weight
                engine.recall_params = lambda params=params: params  # type: ignore[method-assign]
                clear = getattr(engine.embeddings.embedder, "clear", None)
                if clear is not None:
                    clear()  # each pass embeds its queries again, as the first one did
                p50 = search_latency(engine, qs)["p50_ms"]
                (off_runs if late_weight is not None else late_runs).append(p50)
            engine.recall_params = default_params  # type: ignore[method-assign]
            states = engine.conn.execute(
                "SELECT count(*), coalesce(avg(length(states)), 0) FROM memory_tokens"
            ).fetchone()
            recall_vs_exact = vector_recall(engine, qs, RecallParams({}).vector_candidates(10))
            bm25_only = Engine(
                Settings.load({"home": tmp, "namespace": "bench", "embed_provider": "none"})
            )
            latency_bm25 = search_latency(bm25_only, qs)
            bm25_only.close()
            engine.close()
            db_bytes = (Path(tmp) / "memlode.db").stat().st_size
        row = {
            "n": n,
            "store_s": round(stored_s, 1),
            "embed_s": round(embed_s, 1),
            "hybrid": latency,
            "hybrid_fts5_bm25": latency_fts,
            "ratio_p50": round(latency["p50_ms"] / latency_fts["p50_ms"], 2),
            "vector_recall_vs_exact": recall_vs_exact,
            "bm25_only": latency_bm25,
            "late_interaction": {
                "p50_ms_on": late_runs,
                "p50_ms_off": off_runs,
                "ratio_p50": round(statistics.fmean(late_runs) / statistics.fmean(off_runs), 2),
                "memories_with_states": states[0],
                "state_bytes_mean": round(states[1]),
            },
            "database_bytes": db_bytes,
        }
        results[str(n)] = row
        if not args.json:
            print(json.dumps(row), flush=True)
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
