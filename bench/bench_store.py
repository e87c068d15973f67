"""Store and search throughput of the embedded SQLite store (BM25 only: no embedder).

For each size N it fills two fresh databases with the same N synthetic memories -- one through
``Engine.store`` (one transaction per memory, as a hook or the CLI stores), one through
``Engine.store_many`` in batches (as an ingester does) -- and then times ``Engine.search`` over
the batched database with random queries drawn from the same vocabulary.

    python bench/bench_store.py                      # N = 10k and 100k, 200 queries
    python bench/bench_store.py --sizes 2000 --queries 50 --json

The text is built from word lists with a fixed seed, so every run stores the same memories.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memlode import __version__
from memlode.config import Settings
from memlode.engine import Engine

SEED = 20261122
NAMESPACE = "bench"
MEMORY_TYPES = ["decision", "pattern", "preference", "style", "habit", "insight", "context"]

COMPONENTS = [
    "the storage layer",
    "the FTS5 index",
    "the migration runner",
    "the CLI entry point",
    "the MCP server",
    "the session hook",
    "the transcript ingester",
    "the repo map",
    "the embedding cache",
    "the vector index",
    "the graph builder",
    "the config loader",
    "the retry loop",
    "the JSONL exporter",
    "the dashboard",
    "the tokenizer",
    "the scheduler",
    "the auth middleware",
    "the payment service",
    "the upload handler",
    "the rate limiter",
]
FILES = [
    "src/storage/db.py",
    "src/engine.py",
    "src/cli/main.py",
    "api/routes/users.ts",
    "web/components/Header.tsx",
    "internal/cache/lru.go",
    "src/lib.rs",
    "pkg/auth/token.go",
    "app/models/order.rb",
    "server/handlers/upload.py",
    "core/Scheduler.java",
    "include/pool.h",
    "tests/test_search.py",
    "scripts/deploy.sh",
    "docs/architecture.md",
    "config/settings.toml",
]
IDENTIFIERS = [
    "getUserName",
    "parse_config",
    "HTTPServer",
    "retryWithBackoff",
    "apply_migrations",
    "EmbeddingCache",
    "bm25_search",
    "TokenBucket",
    "loadSettings",
    "write_jsonl",
    "PageRank",
    "useSession",
    "OrderRepository",
    "validate_email",
    "connectPool",
    "render_markdown",
    "SessionStore",
    "flushQueue",
    "compute_hash",
    "RateLimiter",
    "resolveNamespace",
]
# A larger, code-like vocabulary (prefix x noun identifiers, per-module files), so that a
# query term matches a realistic share of the store rather than a fifth of it.
PREFIXES = [
    "get",
    "set",
    "load",
    "parse",
    "build",
    "fetch",
    "save",
    "update",
    "delete",
    "render",
    "validate",
    "compute",
    "sync",
    "merge",
    "resolve",
    "flush",
    "open",
    "close",
]
NOUNS = [
    "User",
    "Order",
    "Config",
    "Session",
    "Token",
    "Cache",
    "Index",
    "Query",
    "Invoice",
    "Payment",
    "Upload",
    "Report",
    "Schema",
    "Migration",
    "Embedding",
    "Vector",
    "Graph",
    "Node",
    "Edge",
    "Commit",
    "Branch",
    "Ticket",
    "Account",
    "Profile",
    "Message",
    "Thread",
    "Channel",
    "Webhook",
    "Metric",
    "Alert",
    "Deploy",
    "Release",
    "Feature",
    "Flag",
    "Tenant",
    "Role",
    "Permission",
    "Audit",
    "Backup",
    "Snapshot",
    "Cursor",
    "Page",
    "Batch",
    "Job",
    "Worker",
    "Queue",
    "Event",
    "Stream",
    "Buffer",
    "Socket",
]
FOLDERS = ["src", "lib", "api", "internal", "pkg", "app", "server", "core", "web", "services"]
EXTENSIONS = [".py", ".ts", ".go", ".rs", ".java", ".rb", ".tsx", ".cpp"]


def _identifier(rng: random.Random) -> str:
    prefix, noun = rng.choice(PREFIXES), rng.choice(NOUNS)
    if rng.random() < 0.5:
        return f"{prefix}{noun}"
    return f"{prefix}_{noun.lower()}"


def _file(rng: random.Random) -> str:
    noun = rng.choice(NOUNS).lower()
    return f"{rng.choice(FOLDERS)}/{noun}/{rng.choice(PREFIXES)}_{noun}{rng.choice(EXTENSIONS)}"


VERBS = [
    "moved",
    "split",
    "cached",
    "rewrote",
    "deprecated",
    "inlined",
    "renamed",
    "batched",
    "parallelised",
    "guarded",
    "simplified",
    "validated",
    "logged",
    "retried",
    "indexed",
    "profiled",
    "documented",
    "tested",
    "locked",
    "streamed",
]
REASONS = [
    "because parallel hooks were timing out",
    "so that startup stays under 50 ms",
    "after the benchmark showed a 3x slowdown",
    "to keep one SQLite file as the source of truth",
    "since the old path leaked file handles",
    "because users asked for offline mode",
    "to avoid a network round trip",
    "after a corrupt index in production",
    "so the tests no longer need mocks",
    "because the API returns paginated results",
    "to make the ranking deterministic",
    "since Windows paths broke the parser",
    "to cut memory use on 100k rows",
    "after the review flagged a race condition",
]
OPENERS = [
    "Decided to",
    "We",
    "The team",
    "I",
    "Going forward we",
    "Last sprint we",
    "Finally",
    "After some debate we",
]
EXTRAS = [
    "Follow-up: add a regression test.",
    "See the design notes for details.",
    "This also fixes the flaky CI job.",
    "Revisit when we add PostgreSQL support.",
    "Prefer small functions here.",
    "The user prefers tabs over spaces in this repo.",
    "Keep error messages actionable.",
    "Measure before optimising further.",
    "",
]


def synthetic_memory(rng: random.Random, serial: int) -> str:
    """One realistic-looking memory about code; ``serial`` keeps every text distinct."""
    sentence = (
        f"{rng.choice(OPENERS)} {rng.choice(VERBS)} {rng.choice(COMPONENTS)} in "
        f"{_file(rng) if rng.random() < 0.7 else rng.choice(FILES)} "
        f"({_identifier(rng) if rng.random() < 0.7 else rng.choice(IDENTIFIERS)}) "
        f"{rng.choice(REASONS)}."
    )
    extra = rng.choice(EXTRAS)
    ticket = f"Ticket #{1000 + serial}."
    return " ".join(part for part in (sentence, extra, ticket) if part)


def corpus(n: int, seed: int = SEED) -> Iterator[tuple[str, str, float, list[str]]]:
    rng = random.Random(seed)
    for i in range(n):
        tags = rng.sample(["storage", "search", "cli", "perf", "bug", "api", "ui", "infra"], 2)
        yield synthetic_memory(rng, i), rng.choice(MEMORY_TYPES), round(rng.random(), 2), tags


def queries(count: int, seed: int = SEED + 1) -> list[str]:
    """Queries as a user or a hook would send them: an identifier or a topic, plus context."""
    rng = random.Random(seed)
    general = [
        *(w for c in COMPONENTS for w in c.split()[1:]),
        *VERBS,
        *(w for r in REASONS for w in r.split() if len(w) > 4),
    ]
    out = []
    for _ in range(count):
        focus = rng.choice(
            [
                _identifier(rng),
                rng.choice(IDENTIFIERS),
                f"{rng.choice(PREFIXES)} {rng.choice(NOUNS).lower()}",
                rng.choice(NOUNS).lower(),
            ]
        )
        words = [focus, *rng.sample(general, rng.randint(1, 2))]
        if rng.random() < 0.3:  # a natural-language question now and then
            words = ["why", "did", "we", *words]
        out.append(" ".join(words))
    return out


def open_engine(db_path: Path) -> Engine:
    settings = Settings.load(
        {
            "home": str(db_path.parent),
            "db_path": str(db_path),
            "namespace": NAMESPACE,
            "embed_provider": "none",  # BM25-only at this stage
        },
        environ={},
    )
    return Engine(settings)


def bench_single(db_path: Path, n: int) -> tuple[float, float]:
    """Memories per second through ``Engine.store``: (wall clock, process CPU time)."""
    with open_engine(db_path) as engine:
        start, cpu = time.perf_counter(), time.process_time()
        for content, memory_type, importance, tags in corpus(n):
            engine.store(content, memory_type, importance, tags=tags)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return n / elapsed, n / cpu


def bench_batched(db_path: Path, n: int, batch: int) -> tuple[float, float]:
    """Memories per second through ``Engine.store_many``: (wall clock, process CPU time)."""
    with open_engine(db_path) as engine:
        start, cpu = time.perf_counter(), time.process_time()
        pending = []
        for content, memory_type, importance, tags in corpus(n):
            pending.append(engine.new_memory(content, memory_type, importance, tags=tags))
            if len(pending) >= batch:
                engine.store_many(pending)
                pending = []
        if pending:
            engine.store_many(pending)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        stored = engine.stats()["memories"]
    if stored != n:
        raise SystemExit(f"expected {n} memories, found {stored}")
    return n / elapsed, n / cpu


def _percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, round(fraction * len(sorted_values)) - 1)]


def bench_search(db_path: Path, count: int, k: int) -> dict[str, float]:
    texts = queries(count)
    with open_engine(db_path) as engine:
        for text in texts[:10]:  # warm the page cache and the statement cache
            engine.search(text, k)
        timings: list[float] = []
        cpu_timings: list[float] = []
        hits = 0
        for text in texts:
            start, cpu = time.perf_counter(), time.process_time()
            found = engine.search(text, k)
            timings.append((time.perf_counter() - start) * 1000)
            cpu_timings.append((time.process_time() - cpu) * 1000)
            hits += len(found)
    timings.sort()
    cpu_timings.sort()
    return {
        "p50_ms": statistics.median(timings),
        "p95_ms": _percentile(timings, 0.95),
        "mean_ms": statistics.fmean(timings),
        "max_ms": timings[-1],
        "cpu_p50_ms": statistics.median(cpu_timings),
        "cpu_p95_ms": _percentile(cpu_timings, 0.95),
        "mean_hits": hits / len(texts),
    }


def _pair(wall: float, cpu: float, digits: int) -> str:
    return f"{wall:.{digits}f} ({cpu:.{digits}f})".rjust(16)


def machine() -> dict[str, Any]:
    return {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "memlode": __version__,
        "load_average_at_start": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated N values")
    parser.add_argument("--queries", type=int, default=200, help="timed searches per size")
    parser.add_argument("--k", type=int, default=10, help="results per search")
    parser.add_argument("--batch", type=int, default=1000, help="memories per store_many call")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--keep", type=Path, default=None, help="keep the databases here")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    results: dict[str, Any] = {"machine": machine(), "runs": []}
    if not args.json:
        m = results["machine"]
        print(
            f"memlode {m['memlode']}  python {m['python']}  sqlite {m['sqlite']}  "
            f"nproc {m['nproc']}  {m['platform']}"
        )
        print("load average at start: " + " ".join(f"{x:.2f}" for x in m["load_average_at_start"]))
        print(
            "wall clock, with process CPU time in brackets (CPU is what a loaded machine"
            " cannot take away)"
        )
        print(
            f"{'N':>8}  {'single/s':>16}  {'batched/s':>16}  {'search p50 ms':>16}  "
            f"{'search p95 ms':>16}  {'hits':>5}  {'db MB':>6}"
        )
    with tempfile.TemporaryDirectory(prefix="memlode-bench-") as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        for n in sizes:
            single_db, batched_db = root / f"single-{n}.db", root / f"batched-{n}.db"
            for path in (single_db, batched_db):
                for suffix in ("", "-wal", "-shm"):
                    Path(str(path) + suffix).unlink(missing_ok=True)
            single, single_cpu = bench_single(single_db, n)
            batched, batched_cpu = bench_batched(batched_db, n, args.batch)
            search = bench_search(batched_db, args.queries, args.k)
            size_mb = (
                sum(p.stat().st_size for p in root.glob(f"batched-{n}.db*") if p.is_file()) / 1e6
            )
            run = {
                "n": n,
                "single_per_s": single,
                "single_per_cpu_s": single_cpu,
                "batched_per_s": batched,
                "batched_per_cpu_s": batched_cpu,
                "queries": args.queries,
                "k": args.k,
                **search,
                "db_mb": size_mb,
            }
            results["runs"].append(run)
            if not args.json:
                print(
                    f"{n:>8}  {_pair(single, single_cpu, 0)}  {_pair(batched, batched_cpu, 0)}  "
                    f"{_pair(search['p50_ms'], search['cpu_p50_ms'], 2)}  "
                    f"{_pair(search['p95_ms'], search['cpu_p95_ms'], 2)}  "
                    f"{search['mean_hits']:>5.1f}  {size_mb:>6.1f}",
                    flush=True,
                )
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
