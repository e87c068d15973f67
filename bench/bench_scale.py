"""Scale benchmark: one store of 1,000,000 memories, built once and searched warm.

    python bench/bench_scale.py --n 1000000 --keep /tmp/scale [--real 20000] [--queries 200]
        [--mcp-calls 100] [--json]

Prints the build (storing every memory through ``Engine.store_many``, with the FTS triggers;
writing every vector and token state through ``Engine.embed_pending``), the database's size on
disk (db, WAL, the vector mirror beside it), then, in a fresh process that only opens the
store and searches (``--serve``): the first search's time (model, vector index and its
projection loaded), the wait for the in-memory text index, hybrid p50/p95 warm over the
queries with each query embedded live by the local model (``bench_recall.search_latency``),
the vector index's recall against an exact product, BM25-only p50 (the same store opened with
``embed_provider=none``), and that process's memory from ``/proc/self/status`` (VmRSS, VmHWM
= peak, RssAnon, RssFile). With ``--mcp-calls K`` it then starts the real ``memlode mcp`` on
the store, asks the resident socket for vectors as the prompt hook does, times K
``recall_memory`` round trips through the SDK's stdio client, and reads the server's memory.
``--keep DIR`` keeps the store in ``DIR/n<N>`` and reuses it on the next run.

How the vectors are made. Embedding 1M texts with the local model runs at 23-46 texts a
second on this project's 2-core machine (10 hours at least), so only the first ``--real``
memories of the corpus are embedded for real (all-MiniLM-L6-v2, vectors and token states,
kept in ``DIR/vectors`` by ``bench_recall.CorpusVectorCache``). Every other memory's vector
comes from a model of those real vectors: the corpus builds each text from slots
(``corpus.memory_slots``: subject, verb, thing, file, reason, person, follow-up, the words of
its identifier and component, and the header's type and tags), and an additive model - the
mean vector plus one learned vector per slot value, fitted by backfitting on the real vectors -
gives the part of a vector its slots explain (92% of the variance on 18k real vectors); the
rest is the residual of another real memory (what the model cannot know: ticket and note
numbers, the identifier as a whole, word order). Its token states are those of a real memory
with the same subject, verb and thing. The bench prints how faithful this is, on real memories
held out of the fit: their derived vector against their real one (cosine ~0.95), the mean
cosine between two memories, and a live query's 1st, 10th and 100th best cosine among the real
vectors against among the derived vectors of the same texts.

Why the timing holds: the search path timed is the product's own (``Engine.search`` in a
process that did nothing else; ``recall_memory`` through the real server), the query is
embedded live by the real model on every search, and the rows, FTS index, vectors and token
states are in the store as the product writes them. What a derived vector changes is only
which memories are nearest, and the work per query does not depend on that: the projection
ranks every row, re-ranks a fixed shortlist exactly and returns a fixed number of neighbours;
candidates and late interaction take a fixed number of rows. The projection's own recall
check (and the recall printed here) runs on the derived vectors, so an index that would need a
longer shortlist on them pays for it in the timing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import numpy.typing as npt

from bench_recall import CORPUS_SEED, CorpusVectorCache, cache_path, search_latency
from corpus import corpus, memory_slots, queries
from memlode.config import Settings
from memlode.embed import Embedder, enrich, make_embedder, token_embedder
from memlode.engine import Engine
from memlode.search.hybrid import RecallParams
from memlode.search.late import unpack_states

NAMESPACE = "bench"
STORE_BATCH = 5_000  # memories a store_many transaction
EMBED_BATCH = 2_000  # rows an embed_pending batch writes
# The real memory whose token states a derived one takes: the finest of these slot groups it
# shares with one (a rare combination may have none).
STATE_DONOR = (("subject", "verb", "thing"), ("subject", "thing"), ("subject",))
HELD_OUT = 2_000  # embedded memories the check derives without fitting on them
SWEEPS = 4  # backfitting passes (the fit changes by <1e-3 after the third)
SHRINK = 2.0  # a slot value seen n times gets n / (n + SHRINK) of its mean residual
RESIDUAL_STEP = 7_919  # a prime: which real memory lends its residual to memory i


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


# ---- vectors ----------------------------------------------------------------------------------


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def enriched_corpus(n: int) -> list[tuple[str, str, list[str]]]:
    return corpus(n, seed=CORPUS_SEED)


def real_vectors(folder: Path, real: int, inner: Embedder) -> tuple[CorpusVectorCache, float]:
    """The cache of real vectors for the first ``real`` memories, embedding those it lacks;
    also the embedding rate of this run (texts a second, 0 when nothing was embedded)."""
    cache = CorpusVectorCache(inner, cache_path(folder, real, inner.name))
    texts = [enrich(t, memory_type=k, namespace=NAMESPACE, tags=g) for t, k, g in corpus(real)]
    todo = [t for t in texts if _digest(t) not in cache.states]
    start = time.perf_counter()
    for i in range(0, len(todo), 128):
        cache.embed_with_tokens(todo[i : i + 128])
        if i % 2560 == 0:
            print(f"  embedded {i} of {len(todo)}", file=sys.stderr, flush=True)
    cache.save()
    elapsed = time.perf_counter() - start
    return cache, (len(todo) / elapsed if todo else 0.0)


def features(slots: dict[str, str], header: str) -> list[str]:
    """The slot values the model adds up for a text: its corpus slots and the enrichment
    header's type and tags (``[decision | ns: bench | tags: api, perf]``)."""
    parts = [p.strip() for p in header.strip("[]").split("|")]
    tags = next((p[len("tags: ") :].split(", ") for p in parts if p.startswith("tags: ")), [])
    ident = slots["ident"]
    words = ident.split("_") if "_" in ident else re.findall(r"[a-z]+|[A-Z][a-z]*", ident)
    values = [
        parts[0],
        *[*tags, "", ""][:2],
        *(slots[name] for name in ("subject", "verb", "thing", "file", "reason", "person")),
        slots["extra"],
        *(w.lower() for w in [*words, "", "", ""][:3]),
        *slots["component"].split()[:2],
    ]
    return [f"{i}:{v}" for i, v in enumerate(values)]


def split_enriched(text: str) -> tuple[str, str]:
    """(header, content) of an enriched text."""
    header, _, content = text.partition("\n")
    return header, content


class SlotModel:
    """Vector = mean + one vector per slot value (see the module docstring), fitted on real
    vectors by backfitting; ``residuals`` are what it leaves of each real vector."""

    def __init__(self, vectors: npt.NDArray[np.float32], rows: list[list[str]]) -> None:
        self.dim = vectors.shape[1]
        self.mean = vectors.mean(axis=0)
        self.values: list[dict[str, int]] = []
        codes = []
        for j in range(len(rows[0])):
            table: dict[str, int] = {}
            codes.append(np.array([table.setdefault(r[j], len(table)) for r in rows]))
            self.values.append(table)
        self.effects = [np.zeros((len(t), self.dim), dtype=np.float64) for t in self.values]
        residual = (vectors - self.mean).astype(np.float64)
        for _ in range(SWEEPS):
            for j, code in enumerate(codes):
                residual += self.effects[j][code]  # this slot's share back in
                sums = np.zeros_like(self.effects[j])
                np.add.at(sums, code, residual)
                seen = np.bincount(code, minlength=len(sums))[:, None]
                self.effects[j] = sums / (seen + SHRINK)
                residual -= self.effects[j][code]
        self.residuals = residual.astype(np.float32)
        total = float(((vectors - self.mean) ** 2).sum())
        self.explained = 1.0 - float((residual**2).sum()) / total

    def fitted(self, feats: list[str]) -> npt.NDArray[np.float64]:
        out = self.mean.astype(np.float64)
        for j, value in enumerate(feats):
            code = self.values[j].get(value)
            if code is not None:
                out = out + self.effects[j][code]
        return out

    def derive(self, feats: list[str], salt: int, own: int = -1) -> npt.NDArray[np.float32]:
        """The vector for ``feats`` with the residual of the real memory ``salt`` picks (never
        ``own``: a real memory derived again gets another's)."""
        donor = salt * RESIDUAL_STEP % len(self.residuals)
        if donor == own:
            donor = (donor + 1) % len(self.residuals)
        vector = self.fitted(feats) + self.residuals[donor]
        return (vector / np.linalg.norm(vector)).astype(np.float32)


class RealRows:
    """The embedded memories: their vectors, token states and slots, and the model fitted on
    them."""

    def __init__(self, cache: CorpusVectorCache, items: Sequence[tuple[str, str, list[str]]]):
        vectors, states, feats, slots = [], [], [], []
        for text, kind, tags in items:
            enriched = enrich(text, memory_type=kind, namespace=NAMESPACE, tags=tags)
            found = memory_slots(text)
            assert found is not None, text
            vectors.append(cache.rows[_digest(enriched)])
            states.append(cache.states[_digest(enriched)])
            feats.append(features(found, split_enriched(enriched)[0]))
            slots.append(found)
        self.vectors: npt.NDArray[np.float32] = np.stack(vectors).astype(np.float32)
        self.states = states
        self.features = feats
        self.by_key: list[dict[tuple[str, ...], int]] = [{} for _ in STATE_DONOR]
        for row, found in enumerate(slots):
            for level, names in enumerate(STATE_DONOR):
                self.by_key[level].setdefault(tuple(found[n] for n in names), row)
        self.model = SlotModel(self.vectors, feats)

    def states_for(self, slots: dict[str, str]) -> bytes:
        for level, names in enumerate(STATE_DONOR):
            row = self.by_key[level].get(tuple(slots[n] for n in names))
            if row is not None:
                return self.states[row]
        return self.states[0]


class DerivedVectors:
    """An ``Embedder`` (with token states) for the benchmark's build: a real vector for an
    embedded memory, a derived one (``SlotModel.derive``) for any other memory of the corpus.
    Fed to ``Engine.embed_pending`` through ``EmbeddingService.use_embedder``, so the rows are
    written exactly as the product writes them."""

    def __init__(self, real: RealRows, cache: CorpusVectorCache) -> None:
        self.real = real
        self.cache = cache
        self.derived = 0

    @property
    def name(self) -> str:
        return self.cache.name

    @property
    def dim(self) -> int:
        return self.cache.dim

    @property
    def max_tokens(self) -> int:
        return self.cache.max_tokens

    @property
    def token_states(self) -> bool:
        return True

    def embed_with_tokens(
        self, texts: Sequence[str]
    ) -> tuple[npt.NDArray[np.float32], list[npt.NDArray[np.float32]]]:
        vectors, states = [], []
        for text in texts:
            digest = _digest(text)
            if digest in self.cache.states:
                vectors.append(self.cache.rows[digest])
                states.append(unpack_states(self.cache.states[digest], self.dim))
                continue
            header, content = split_enriched(text)
            slots = memory_slots(content)
            if slots is None:
                raise ValueError(f"not a corpus text, cannot derive its vector: {text[:80]!r}")
            vectors.append(self.real.model.derive(features(slots, header), int(slots["note"])))
            states.append(unpack_states(self.real.states_for(slots), self.dim))
            self.derived += 1
        return np.stack(vectors), states

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self.embed_with_tokens(texts)[0]


def _mean_offdiagonal(matrix: npt.NDArray[np.float32]) -> float:
    gram = matrix @ matrix.T
    n = len(matrix)
    return float((gram.sum() - np.trace(gram)) / (n * (n - 1)))


def check_model(real: RealRows, query_vectors: npt.NDArray[np.float32]) -> dict[str, Any]:
    """How close derived vectors are to real ones (see the module docstring): a model fitted
    without the last ``HELD_OUT`` real memories derives theirs; and a live query's best
    cosines among the real vectors against among the derived vectors of the same texts."""
    count = len(real.vectors)
    held = list(range(max(1, count - HELD_OUT), count))
    fitted_on = SlotModel(real.vectors[: held[0]], real.features[: held[0]])
    derived = np.stack([fitted_on.derive(real.features[r], r) for r in held])
    truth = real.vectors[held]
    # every real memory derived by the full model, with another memory's residual
    model = real.model
    everyone = np.stack([model.derive(real.features[r], r, own=r) for r in range(count)])
    profile = {}
    for label, matrix in (("real", real.vectors), ("derived", everyone)):
        scores = -np.sort(-(query_vectors @ matrix.T), axis=1)
        profile[label] = {
            f"rank_{r}": round(float(scores[:, r - 1].mean()), 4) for r in (1, 10, 100)
        }
    return {
        "explained_variance": round(model.explained, 4),
        "held_out": len(held),
        "held_out_cosine_to_real": round(float(np.einsum("ij,ij->i", derived, truth).mean()), 4),
        "mean_cosine_between_real": round(_mean_offdiagonal(truth), 4),
        "mean_cosine_between_derived": round(_mean_offdiagonal(derived), 4),
        "query_cosine_profile": profile,
    }


# ---- build ------------------------------------------------------------------------------------


def settings_for(home: Path, provider: str = "local") -> Settings:
    return Settings.load({"home": str(home), "namespace": NAMESPACE, "embed_provider": provider})


def build(home: Path, n: int, derived: DerivedVectors) -> dict[str, Any]:
    items = enriched_corpus(n)
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
        engine.search(q, k=k, catch_up=0)
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


def mcp_run(home: Path, calls: int, settle_s: float) -> dict[str, Any]:
    """``memlode mcp`` on the store: the resident socket asked for vectors (as the prompt hook
    does), then ``calls`` timed ``recall_memory`` round trips, then the server's memory."""
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
                await anyio.sleep(settle_s)  # the text index builds in the background
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
        settle = float(results["search"]["hybrid"]["text_index_wait_s"]) * 2 + 10
        show("mcp", mcp_run(home, args.mcp_calls, settle))
        show("disk_after_mcp", disk_sizes(home))
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
