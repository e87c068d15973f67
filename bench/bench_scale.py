"""Scale benchmark: one store of 1,000,000 memories, built once and searched warm.

    python bench/bench_scale.py --n 1000000 --keep /tmp/scale [--real 20000] [--queries 200]
        [--fresh-index] [--mcp-calls 100] [--json]

Prints the build (storing every memory through ``Engine.store_many``, with the FTS triggers;
writing every vector and token state through ``Engine.embed_pending``), the database's size on
disk (db, WAL, the vector mirror beside it), then, in a fresh process that only opens the store
and searches (``--serve``): the vector index's load (``--fresh-index``: rebuilt from SQLite
first, then mapped from the mirror it wrote by a second process), the first search's time, the
wait for the in-memory text index, hybrid p50/p95 warm over the queries with each query
embedded live by the local model, twice (the second pass is the steady state), with the CPU
time a search takes in all the process's threads, the vector index's recall against an exact
product, BM25-only p50 (the same store opened with ``embed_provider=none``), and that process's
memory from ``/proc/self/status`` (VmRSS, VmHWM = peak, RssAnon, RssFile: the mapped mirror's
pages are file pages the kernel may drop). With ``--mcp-calls K`` it then starts the real
``memlode mcp`` on the store, asks the resident socket for vectors as the prompt hook does,
times K ``recall_memory`` round trips through the SDK's stdio client, and reads the server's
memory. ``--keep DIR`` keeps the store in ``DIR/n<N>`` and reuses it on the next run.

How the vectors are made. Embedding 1M texts with the local model runs at 23-46 texts a second
on this project's 2-core machine (10 hours at least), so only the first ``--real`` memories of
the corpus are embedded for real (all-MiniLM-L6-v2, vectors and token states, kept in
``DIR/vectors`` by ``bench_recall.CorpusVectorCache``; ``bench/scale_vectors.py``). Every other
memory's vector comes from a model of those real vectors: the corpus builds each text from
slots (``corpus.memory_slots``: subject, verb, thing, file, reason, person, follow-up, the
words of its identifier and component, and the header's type and tags), and an additive model -
the mean vector plus one learned vector per slot value, fitted by backfitting on the real
vectors - gives the part of a vector its slots explain (92% of the variance on 18k real
vectors); the rest is the residual of another real memory (what the model cannot know: ticket
and note numbers, the identifier as a whole, word order). Its token states are those of a real
memory with the same subject, verb and thing. The bench prints how faithful this is, on real
memories held out of the fit: their derived vector against their real one (cosine ~0.95), the
mean cosine between two memories, and a live query's 1st, 10th and 100th best cosine among the
real vectors against among the derived vectors of the same texts.

Why the timing holds: the search path timed is the product's own (``Engine.search`` in a
process that did nothing else; ``recall_memory`` through the real server), the query is
embedded live by the real model on every search, and the rows, FTS index, vectors and token
states are in the store as the product writes them. What a derived vector changes is only
which memories are nearest, and the work per query hardly depends on that: the vector index
reads the rows of a fixed number of its inverted lists (chosen when it is fitted, by its
recall check on these vectors), re-ranks a fixed shortlist exactly and returns a fixed number
of neighbours; candidates and late interaction take a fixed number of rows. Because the
derived vectors spread as the real ones do (same mean cosine, same query profile), the lists
they form and the number a query must read to keep recall are those real vectors would need;
the recall against exact printed here is measured on them, with real query embeddings.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

from bench_recall import CORPUS_SEED, search_latency
from corpus import corpus, queries
from memlode.config import Settings
from memlode.embed import make_embedder, token_embedder
from memlode.engine import Engine
from memlode.search.hybrid import RecallParams
from scale_vectors import NAMESPACE, DerivedVectors, RealRows, check_model, real_vectors

STORE_BATCH = 5_000  # memories a store_many transaction
EMBED_BATCH = 2_000  # rows an embed_pending batch writes


def proc_status(pid: int | str = "self") -> dict[str, float]:
    """VmRSS, VmHWM (peak), RssAnon and RssFile of a process, in MB (Linux)."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key = line.split(":", 1)[0]
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[key + "_mb"] = round(int(line.split()[1]) / 1024, 1)
    return out


def disk_sizes(home: Path) -> dict[str, float]:
    """Sizes in MB of the database, its WAL and SHM, and the vector mirror (stat only)."""
    sizes = {}
    for name in ("memlode.db", "memlode.db-wal", "memlode.db-shm"):
        path = home / name
        sizes[name] = round(path.stat().st_size / 2**20, 1) if path.exists() else 0.0
    cache = home / "cache"
    mirror = sum(p.stat().st_size for p in cache.glob("vectors-*")) if cache.exists() else 0
    sizes["vector_mirror"] = round(mirror / 2**20, 1)
    return sizes


# ---- build ------------------------------------------------------------------------------------


def settings_for(home: Path, provider: str = "local") -> Settings:
    return Settings.load({"home": str(home), "namespace": NAMESPACE, "embed_provider": provider})


def build(home: Path, n: int, derived: DerivedVectors) -> dict[str, Any]:
    items = corpus(n, seed=CORPUS_SEED)
    engine = Engine(settings_for(home))
    start = time.perf_counter()
    for i in range(0, n, STORE_BATCH):
        engine.store_many(
            [
                engine.new_memory(text, kind, tags=tags)
                for text, kind, tags in items[i : i + STORE_BATCH]
            ]
        )
        if i % 100_000 == 0:
            print(f"  stored {i}", file=sys.stderr, flush=True)
    stored_s = time.perf_counter() - start
    del items
    engine.embeddings.use_embedder(derived)
    start = time.perf_counter()
    done = engine.embed_pending(
        batch_size=EMBED_BATCH,
        progress=lambda k, total: (
            print(f"  vectors {k} of {total}", file=sys.stderr, flush=True)
            if k % 100_000 < EMBED_BATCH
            else None
        ),
    )
    vectors_s = time.perf_counter() - start
    engine.close()
    return {
        "store_s": round(stored_s, 1),
        "store_per_s": round(n / stored_s),
        "vectors_written": done,
        "vectors_derived": derived.derived,
        "vector_write_s": round(vectors_s, 1),
    }


# ---- search, in a fresh process ---------------------------------------------------------------


def exact_recall(engine: Engine, qs: Sequence[str], k: int) -> dict[str, float]:
    """The index's top ``k`` against an exact product over every stored vector (in chunks,
    so the check does not hold a second copy of the matrix)."""
    index, embedder = engine.embeddings.index, engine.embeddings.embedder
    if index is None or embedder is None or not len(index):
        return {}
    query_vectors = embedder.embed(list(qs))
    best = np.full((len(qs), k), -np.inf, dtype=np.float32)
    rows = np.zeros((len(qs), k), dtype=np.int64)
    chunk = 50_000
    for start in range(0, len(index), chunk):
        block = np.stack(
            [index.vector_of(i) for i in index.ids[start : start + chunk]]  # type: ignore[misc]
        )
        scores = query_vectors @ block.T
        both = np.concatenate([best, scores], axis=1)
        both_rows = np.concatenate(
            [rows, np.broadcast_to(np.arange(start, start + len(block)), scores.shape)], axis=1
        )
        top = np.argpartition(-both, k - 1, axis=1)[:, :k]
        best = np.take_along_axis(both, top, axis=1)
        rows = np.take_along_axis(both_rows, top, axis=1)
    found = []
    for q, vector in enumerate(query_vectors):
        truth = {index.ids[r] for r in rows[q]}
        got = {memory_id for memory_id, _ in index.search(vector, k)}
        found.append(len(truth & got) / k)
    return {"k": k, "recall": round(float(np.mean(found)), 4), "worst_query": min(found)}


def latency(engine: Engine, qs: Sequence[str], k: int = 10) -> dict[str, float]:
    """``bench_recall.search_latency`` (warm: model, vectors and the text index loaded; each
    query embedded live), plus the CPU time a search takes in all of the process's threads
    (the worker's, the model's and BLAS's included): on a machine shared with other jobs the
    wall clock waits for a core, the CPU time does not."""
    out = search_latency(engine, list(qs[:2]), k)  # warms up and waits for the text index
    walls, cpus = [], []
    for q in qs:
        wall, cpu = time.perf_counter(), time.process_time()
        engine.search(q, k=k)
        cpus.append((time.process_time() - cpu) * 1000)
        walls.append((time.perf_counter() - wall) * 1000)
    walls.sort()
    cpus.sort()
    return {
        "p50_ms": round(walls[len(walls) // 2], 2),
        "p95_ms": round(walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))], 2),
        "cpu_p50_ms": round(cpus[len(cpus) // 2], 2),
        "text_index_wait_s": out["text_index_wait_s"],
        "load_1min": round(os.getloadavg()[0], 2),
    }


def serve(home: Path, n_queries: int) -> dict[str, Any]:
    """Everything a long-lived searching process does, in this (fresh) process."""
    qs = queries(n_queries)
    out: dict[str, Any] = {"before_open": proc_status()}
    engine = Engine(settings_for(home))
    start = time.perf_counter()
    index = engine.embeddings.index
    out["vector_index_load_s"] = round(time.perf_counter() - start, 2)
    out["vectors"] = len(index) if index is not None else 0
    out["memory_after_vector_index"] = proc_status()
    start = time.perf_counter()
    engine.search(qs[0], k=10)
    out["first_search_s"] = round(time.perf_counter() - start, 2)
    out["memory_after_first_search"] = proc_status()
    out["hybrid"] = latency(engine, qs)
    out["memory_after_hybrid"] = proc_status()
    # A second pass (queries embedded again): the steady state of a process that keeps going.
    clear = getattr(engine.embeddings.embedder, "clear", None)
    if clear is not None:
        clear()
    out["hybrid_again"] = latency(engine, qs)
    out["memory_steady"] = proc_status()
    out["vector_recall_vs_exact"] = exact_recall(
        engine, qs[:50], RecallParams({}).vector_candidates(10)
    )
    engine.close()
    bm25_only = Engine(settings_for(home, "none"))
    out["bm25_only"] = latency(bm25_only, qs)
    bm25_only.close()
    return out


def search_process(home: Path, queries_n: int) -> dict[str, Any]:
    """``serve`` in a fresh interpreter (only what a searching process holds is in it)."""
    start = time.perf_counter()
    child = subprocess.run(
        [
            sys.executable,
            __file__,
            "--serve",
            str(home),
            "--queries",
            str(queries_n),
            "--keep",
            ".",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if child.returncode != 0:
        sys.exit(f"search process failed:\n{child.stderr[-4000:]}")
    served: dict[str, Any] = json.loads(child.stdout.strip().splitlines()[-1])
    served["process_s"] = round(time.perf_counter() - start, 1)
    return served


# ---- the real MCP server ----------------------------------------------------------------------


def _child_pid(marker: bytes) -> int | None:
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and marker in cmdline:
            return int(stat.parent.name)
    return None


def mcp_run(home: Path, calls: int, settle_s: float, warm_ms: float) -> dict[str, Any]:
    """``memlode mcp`` on the store: the resident socket asked for vectors (as the prompt hook
    does), then, once recalls are warm (the server's text index is built in the background:
    after ``settle_s``, five answers in a row within ``warm_ms``), ``calls`` timed
    ``recall_memory`` round trips, then the server's memory."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from memlode.hooks._resident import vector_hits

    qs = queries(calls + 2, seed=23)
    env = {
        "MEMLODE_HOME": str(home),
        "MEMLODE_NAMESPACE": NAMESPACE,
        "MEMLODE_EMBED_PROVIDER": "local",
        "PYTHONUNBUFFERED": "1",
        "PATH": os.environ.get("PATH", ""),
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memlode", "mcp"], env=env, cwd=str(home)
    )
    out: dict[str, Any] = {}

    async def run() -> None:
        args = {"namespace": NAMESPACE, "k": 10}
        with (home / "mcp-stderr.log").open("a", encoding="utf-8") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                pid = _child_pid(b"mcp")
                start = time.perf_counter()
                first = await session.call_tool("recall_memory", {"query": qs[0], **args})
                assert not first.is_error, first.content
                out["first_recall_s"] = round(time.perf_counter() - start, 2)
                await session.call_tool("recall_memory", {"query": qs[1], **args})
                start = time.perf_counter()
                hits = vector_hits(str(home), qs[0], NAMESPACE, 8, 600_000)
                out["resident_socket_first_s"] = round(time.perf_counter() - start, 2)
                out["resident_socket_hits"] = len(hits)
                start = time.perf_counter()
                await anyio.sleep(settle_s)  # the text index builds in the background
                warm = 0
                while warm < 5 and time.perf_counter() - start < settle_s + 300:
                    began = time.perf_counter()
                    await session.call_tool("recall_memory", {"query": qs[warm], **args})
                    quick = (time.perf_counter() - began) * 1000 < warm_ms
                    warm = warm + 1 if quick else 0
                out["warm_after_s"] = round(time.perf_counter() - start, 1)
                times = []
                for q in qs[2:]:
                    start = time.perf_counter()
                    result = await session.call_tool("recall_memory", {"query": q, **args})
                    times.append((time.perf_counter() - start) * 1000)
                    assert not result.is_error, result.content
                ordered = sorted(times)
                out["recall_round_trip_p50_ms"] = round(ordered[len(ordered) // 2], 1)
                out["recall_round_trip_p95_ms"] = round(ordered[int(0.95 * (len(ordered) - 1))], 1)
                out["calls"] = len(times)
                out["server_memory"] = proc_status(pid) if pid is not None else {}

    anyio.run(run)
    return out


# ---- main -------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--real", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep", type=Path, required=True, metavar="DIR")
    parser.add_argument("--mcp-calls", type=int, default=0)
    parser.add_argument(
        "--fresh-index",
        action="store_true",
        help="delete the vector mirror first: the search process rebuilds the index from SQLite"
        " (its peak memory), then a second one maps the mirror it wrote",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:  # the child: search only, print one JSON line
        print(json.dumps(serve(args.serve, args.queries)), flush=True)
        return
    results: dict[str, Any] = {"n": args.n, "real": min(args.real, args.n)}

    def show(key: str, value: Any) -> None:
        results[key] = value
        if not args.json:
            print(f"{key}: {json.dumps(value)}", flush=True)

    home = args.keep / f"n{args.n}"
    if not (home / "memlode.db").exists():
        inner = make_embedder(settings_for(args.keep / "model-home"), lru_size=0)
        assert inner is not None and token_embedder(inner) is not None
        start = time.perf_counter()
        cache, rate = real_vectors(args.keep / "vectors", results["real"], inner)
        show("real_vectors", {"s": round(time.perf_counter() - start, 1), "per_s": round(rate, 1)})
        real = RealRows(cache, corpus(results["real"]))
        show("derived_vectors_check", check_model(real, inner.embed(queries(50, seed=31))))
        derived = DerivedVectors(real, cache)
        home.mkdir(parents=True, exist_ok=True)
        show("build", build(home, args.n, derived))
        show("disk_after_build", disk_sizes(home))
    if args.fresh_index:
        for mirror in (home / "cache").glob("vectors-*"):
            mirror.unlink()
        show("search_from_sqlite", search_process(home, args.queries))
    show("search", search_process(home, args.queries))
    show("disk_after_search", disk_sizes(home))
    if args.mcp_calls > 0:
        served = results["search"]
        settle = float(served["hybrid"]["text_index_wait_s"]) + 10
        warm_ms = 3 * float(served["hybrid_again"]["p50_ms"]) + 20  # the JSON-RPC round trip
        show("mcp", mcp_run(home, args.mcp_calls, settle, warm_ms))
        show("disk_after_mcp", disk_sizes(home))
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
