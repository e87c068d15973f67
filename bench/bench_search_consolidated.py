"""Hybrid search before and after consolidation, on the synthetic month of
``bench_consolidation.py`` (10k observations, ``hash`` vectors): the p50 of 80 queries in three
passes each, before and after ``consolidate`` with the cycles named.

    .venv/bin/python bench/bench_search_consolidated.py [--cycles cluster,creative] [--size N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench_consolidation import NAMESPACE, _fill
from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.consolidation import consolidate

QUERIES = [f"module_{i} file_{i % 17} read lines" for i in range(40)] + [
    f"pytest tests/test_{i}.py failed" for i in range(40)
]


def p50(engine: Engine) -> float:
    """Milliseconds, the median over the queries of one pass."""
    latencies = []
    for query in QUERIES:
        started = time.perf_counter()
        engine.search(query, 10, namespace=NAMESPACE)
        latencies.append((time.perf_counter() - started) * 1000)
    return statistics.median(latencies)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", default="cluster,creative")
    parser.add_argument("--size", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memlode-bench-search-") as tmp:
        settings = Settings.load(
            {"home": Path(tmp), "db_path": Path(tmp) / "m.db", "embed_provider": "hash"}
        )
        engine = Engine(settings)
        try:
            _fill(engine, args.size)
            engine.embed_pending()
            p50(engine)  # warm: indexes loaded
            before = [round(p50(engine), 2) for _ in range(3)]
            cycles = args.cycles.split(",")
            while any(r.changes for r in consolidate(engine, namespace=NAMESPACE, cycles=cycles)):
                pass  # creative takes 5,000 new vectors a run
            p50(engine)
            after = [round(p50(engine), 2) for _ in range(3)]
        finally:
            engine.close()
    print(f"{args.cycles}: search p50 ms before {before}, after {after}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
