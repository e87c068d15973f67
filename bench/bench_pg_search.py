"""Hybrid search on PostgreSQL against SQLite, same run: warm p50/p95 at 10k and 100k memories,
the query embedded live by the configured embedder (issue #21).

    python bench/bench_pg_search.py                          # 10k and 100k, 300 queries
    python bench/bench_pg_search.py --sizes 10000 --queries 100 --json

Per size, one store on each backend is built with the same memories (``bench/corpus.py``, seed
7, through ``Engine.store_many``) and the same vectors and token states (``Engine.embed_pending``
with a stand-in embedder, below), then both are searched through ``Engine.search`` (the path of
``memlode search`` and ``recall_memory``) in one process, warm: each engine has searched twice,
its in-memory text index is built (the wait is printed) and its vector index loaded. The
queries (``corpus.queries``) are timed in rounds that alternate the backends, so that a change
of load on a shared machine falls on both; before each round the embedders' query caches are
cleared, so every timed search embeds its query with the configured model (``--provider``,
default ``local``: all-MiniLM-L6-v2 on onnxruntime). Also printed: the CPU time per search (all
of the process's threads; another job on the machine delays the wall clock, not the CPU time)
and the load average.

The stand-in embedder. Embedding 100k memories with the local model takes about 35 minutes of
CPU on an idle 2-core machine, so the stored vectors are made without it: ``StandIn`` has the
configured model's name and dimension (so the queries' real vectors are compared with them)
and gives each word of a text the hash embedder's vector of that word at that dimension
(``memlode.embed``'s ``HashEmbedder``), as its token state, and the text the normalised sum of
them (texts that share words are near, others near orthogonal); one state per word is about
as many as the model keeps. Both backends get the
very same vectors; what they change against real ones is which memories are nearest, not the
work a search does (exact vector scores up to the size where the approximate first stage takes
over, a fixed shortlist after it; candidates and late interaction read a fixed number of rows).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import numpy.typing as npt

from corpus import corpus, queries
from memlode.config import Settings
from memlode.embed import Embedder, HashEmbedder
from memlode.engine import Engine

CORPUS_SEED = 7
NAMESPACE = "bench"
STORE_BATCH = 2_000
_WORD = re.compile(r"\w+")


class StandIn:
    """Vectors and token states for building a store, under another embedder's name and size
    (see the module docstring)."""

    def __init__(self, real: Embedder) -> None:
        self._name, self._dim, self._max = real.name, real.dim, real.max_tokens
        self._hash = HashEmbedder(real.dim)
        self._words: dict[str, npt.NDArray[np.float32]] = {}  # the corpus has few words

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._max

    @property
    def token_states(self) -> bool:
        return True

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self.embed_with_tokens(texts)[0]

    def embed_with_tokens(
        self, texts: Sequence[str]
    ) -> tuple[npt.NDArray[np.float32], list[npt.NDArray[np.float32]]]:
        states = [np.stack([self._word(w) for w in _WORD.findall(t.lower()) or [t]]) for t in texts]
        vectors = np.stack([s.sum(axis=0) for s in states]) if texts else np.empty((0, self._dim))
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.maximum(norms, 1e-12)).astype(np.float32), states

    def _word(self, word: str) -> npt.NDArray[np.float32]:
        vector = self._words.get(word)
        if vector is None:
            vector = self._words[word] = self._hash.embed([word])[0]
        return vector


def settings_for(home: Path, provider: str, db_url: str | None) -> Settings:
    values: dict[str, Any] = {"home": str(home), "namespace": NAMESPACE}
    values["embed_provider"] = provider
    if db_url is not None:
        values["db_path"] = db_url
    return Settings.load(values, environ={})


def build(engine: Engine, n: int) -> dict[str, float]:
    items = corpus(n, seed=CORPUS_SEED)
    began = time.perf_counter()
    for i in range(0, n, STORE_BATCH):
        engine.store_many(
            [engine.new_memory(t, k, tags=g) for t, k, g in items[i : i + STORE_BATCH]]
        )
    stored = time.perf_counter() - began
    real = engine.embeddings.embedder
    assert real is not None, engine.embeddings.error
    engine.embeddings.use_embedder(StandIn(real))
    began = time.perf_counter()
    written = engine.embed_pending(batch_size=500)
    vectors = time.perf_counter() - began
    engine.embeddings.use_embedder(real)  # searches embed their queries with the real model
    return {"store_s": round(stored, 1), "vectors_s": round(vectors, 1), "vectors": written}


def _clear_query_cache(engine: Engine) -> None:
    clear = getattr(engine.embeddings.embedder, "clear", None)
    if clear is not None:
        clear()


def warm(engine: Engine, qs: Sequence[str]) -> dict[str, float]:
    began = time.perf_counter()
    engine.search(qs[0], k=10)  # loads the model and the vector index
    first = time.perf_counter() - began
    engine.search(qs[1], k=10)  # the second search starts the text index's build
    began = time.perf_counter()
    engine.text_index.wait()
    waited = time.perf_counter() - began
    return {"first_search_s": round(first, 2), "text_index_wait_s": round(waited, 2)}


def _pct(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))], 2)


def timed(engines: dict[str, Engine], qs: Sequence[str], rounds: int) -> dict[str, Any]:
    walls: dict[str, list[float]] = {name: [] for name in engines}
    cpus: dict[str, list[float]] = {name: [] for name in engines}
    hits: dict[str, list[list[str]]] = {name: [] for name in engines}
    step = max(1, len(qs) // rounds)
    for start in range(0, len(qs), step):
        for name, engine in engines.items():
            _clear_query_cache(engine)
            for q in qs[start : start + step]:
                wall, cpu = time.perf_counter(), time.process_time()
                found = engine.search(q, k=10)
                cpus[name].append((time.process_time() - cpu) * 1000)
                walls[name].append((time.perf_counter() - wall) * 1000)
                hits[name].append([h.memory.content for h in found])  # ids differ by store
    out: dict[str, Any] = {
        name: {
            "p50_ms": _pct(walls[name], 50),
            "p95_ms": _pct(walls[name], 95),
            "mean_ms": round(statistics.fmean(walls[name]), 2),
            "cpu_p50_ms": _pct(cpus[name], 50),
        }
        for name in engines
    }
    names = list(engines)
    if len(names) == 2:
        a, b = hits[names[0]], hits[names[1]]
        pairs = list(zip(a, b, strict=True))
        out["same_top10"] = round(sum(x == y for x, y in pairs) / len(pairs), 3)
        out["same_top1"] = round(sum(x[:1] == y[:1] for x, y in pairs) / len(pairs), 3)
    return out


def run_size(n: int, server_url: str, qs: Sequence[str], provider: str, rounds: int) -> Any:
    from memlode.storage.postgres.scratch import scratch_store

    row: dict[str, Any] = {"n": n}
    with tempfile.TemporaryDirectory() as tmp, scratch_store(server_url, "bench") as url:
        engines = {
            "sqlite": Engine(settings_for(Path(tmp) / "sqlite", provider, None)),
            "postgresql": Engine(settings_for(Path(tmp) / "pg", provider, url)),
        }
        try:
            for name, engine in engines.items():
                row[f"build_{name}"] = build(engine, n)
                print(f"  n={n} {name} built: {row[f'build_{name}']}", file=sys.stderr)
            for name, engine in engines.items():
                row[f"warm_{name}"] = warm(engine, qs)
            row["load_1min_before"] = round(os.getloadavg()[0], 2)
            row.update(timed(engines, qs, rounds))
            row["load_1min_after"] = round(os.getloadavg()[0], 2)
            row["embed_model"] = engines["postgresql"].embeddings.model_name()
        finally:
            for engine in engines.values():
                engine.close()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--provider", default="local")
    parser.add_argument("--url", help="a PostgreSQL server to use instead of the test server")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from bench import pg_server

    server = None if args.url else pg_server.start()
    server_url = args.url or server.url()  # type: ignore[union-attr]
    qs = queries(args.queries)
    rows = []
    try:
        for n in [int(s) for s in args.sizes.split(",") if s]:
            rows.append(run_size(n, server_url, qs, args.provider, args.rounds))
            if not args.json:
                print(json.dumps(rows[-1]), flush=True)
    finally:
        if server is not None:
            server.stop()
    if args.json:
        print(json.dumps({"provider": args.provider, "queries": len(qs), "sizes": rows}, indent=2))
        return
    print(f"\nwarm hybrid search, {len(qs)} queries embedded live ({rows[0]['embed_model']})")
    print(f"{'n':>8} {'backend':>11} {'p50 ms':>8} {'p95 ms':>8} {'cpu p50':>8}  load")
    for r in rows:
        for name in ("sqlite", "postgresql"):
            m = r[name]
            print(f"{r['n']:>8} {name:>11} {m['p50_ms']:>8} {m['p95_ms']:>8} {m['cpu_p50_ms']:>8}"
                  f"  {r['load_1min_before']}-{r['load_1min_after']}")  # fmt: skip


if __name__ == "__main__":
    main()
