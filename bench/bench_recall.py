"""Hybrid recall benchmark: search latency with vectors and ingest throughput with embeddings.

    python bench/bench_recall.py --sizes 10000,100000 --queries 200 [--provider local] [--json]

Prints, per size: build time, then warm search p50/p95 (query embedding included) over the
queries; and once: ingest throughput with embeddings (store + embed_pending) against the raw
embedder's throughput on the same enriched texts in the same run (the ratio is the figure).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import corpus, queries
from memlode.config import Settings
from memlode.embed import enrich
from memlode.engine import Engine


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def build(engine: Engine, n: int, batch: int = 2000) -> tuple[float, float]:
    items = corpus(n)
    start = time.perf_counter()
    for i in range(0, n, batch):
        engine.store_many(
            [engine.new_memory(text, kind, tags=tags) for text, kind, tags in items[i : i + batch]]
        )
    stored = time.perf_counter() - start
    start = time.perf_counter()
    engine.embed_pending(batch_size=128)
    return stored, time.perf_counter() - start


def search_latency(engine: Engine, qs: list[str], k: int = 10) -> dict[str, float]:
    engine.search(qs[0], k=k)  # warm: index loaded, model loaded
    times = []
    for q in qs:
        start = time.perf_counter()
        engine.search(q, k=k, catch_up=0)
        times.append((time.perf_counter() - start) * 1000)
    return {
        "p50_ms": round(_percentile(times, 50), 2),
        "p95_ms": round(_percentile(times, 95), 2),
        "mean_ms": round(statistics.fmean(times), 2),
    }


def ingest_ratio(provider: str, n: int, rounds: int = 4) -> dict[str, float]:
    """Store + embed through the engine vs the raw embedder on the same enriched texts.

    The two are interleaved in ``rounds`` so that a load change on a shared machine hits both.
    The raw embedder is a separate, uncached instance, so neither side profits from the other.
    """
    from memlode.embed import make_embedder

    items = corpus(n, seed=99)
    texts = [enrich(t, memory_type=k, namespace="bench", tags=g) for t, k, g in items]
    raw_s = engine_s = 0.0
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
            start = time.perf_counter()
            for i in range(chunk.start, chunk.stop, 128):
                raw_embedder.embed(texts[i : min(i + 128, chunk.stop)])
            raw_s += time.perf_counter() - start
            start = time.perf_counter()
            build_items(engine, items[chunk])
            engine_s += time.perf_counter() - start
        engine.close()
    done = step * rounds
    return {
        "n": done,
        "raw_embedder_per_s": round(done / raw_s, 1),
        "ingest_with_embeddings_per_s": round(done / engine_s, 1),
        "ratio": round(raw_s / engine_s, 3),
    }


def build_items(engine: Engine, items: list[tuple[str, str, list[str]]]) -> tuple[float, float]:
    start = time.perf_counter()
    engine.store_many([engine.new_memory(t, k, tags=g) for t, k, g in items])
    stored = time.perf_counter() - start
    start = time.perf_counter()
    engine.embed_pending(batch_size=128)
    return stored, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--provider", default="local")
    parser.add_argument("--ingest-n", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, object] = {"provider": args.provider}
    results["ingest"] = ingest_ratio(args.provider, args.ingest_n)
    if not args.json:
        print(f"ingest: {results['ingest']}", flush=True)
    qs = queries(args.queries)
    for n in [int(s) for s in args.sizes.split(",") if s]:
        with tempfile.TemporaryDirectory() as tmp:
            engine = Engine(
                Settings.load({"home": tmp, "namespace": "bench", "embed_provider": args.provider})
            )
            stored_s, embed_s = build(engine, n)
            latency = search_latency(engine, qs)
            bm25_only = Engine(
                Settings.load({"home": tmp, "namespace": "bench", "embed_provider": "none"})
            )
            latency_bm25 = search_latency(bm25_only, qs)
            bm25_only.close()
            engine.close()
        row = {
            "n": n,
            "store_s": round(stored_s, 1),
            "embed_s": round(embed_s, 1),
            "hybrid": latency,
            "bm25_only": latency_bm25,
        }
        results[str(n)] = row
        if not args.json:
            print(json.dumps(row), flush=True)
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
