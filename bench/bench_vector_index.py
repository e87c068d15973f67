"""Vector index upkeep: what a long-lived process pays to take in a small batch of new vectors.

A server embeds pending memories in batches of 32 and refreshes its index before the next
search. This bench builds a real store of N random unit vectors (384 dims, inserted directly,
no model), loads the index once, then times ``refresh`` after each of R appended batches (the
rows are inserted first, untimed), and a fresh index's first ``refresh`` at the end, which
maps the mirror and catches up.

    python bench/bench_vector_index.py [--rows 100000] [--batch 32] [--rounds 20] [--json]

Run another checkout's code with ``PYTHONPATH=that/src`` to compare in the same session.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from memlode.storage.db import Database
from memlode.vector.index import VectorIndex

DIM = 384
MODEL = "bench:random"
NOW = "2026-11-23T00:00:00.000000Z"


def _add(db: Database, start: int, count: int, rng: np.random.Generator) -> None:
    vectors = rng.standard_normal((count, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"m{start + i}" for i in range(count)]
    with db.write() as conn:
        conn.executemany(
            "INSERT INTO memories (id, content, content_hash, namespace, created_at, updated_at)"
            " VALUES (?, ?, ?, 'ns', ?, ?)",
            [(i, f"memory {i}", f"h-{i}", NOW, NOW) for i in ids],
        )
        conn.executemany(
            "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash, created_at)"
            " VALUES (?, ?, ?, ?, '', ?)",
            [(i, MODEL, DIM, v.tobytes(), NOW) for i, v in zip(ids, vectors, strict=True)],
        )


def run(rows: int, batch: int, rounds: int) -> dict[str, Any]:
    rng = np.random.default_rng(20261123)
    with tempfile.TemporaryDirectory(prefix="memlode-bench-vectors-") as tmp:
        root = Path(tmp)
        db = Database(root / "memlode.db")
        for start in range(0, rows, 10_000):
            _add(db, start, min(10_000, rows - start), rng)
        index = VectorIndex(MODEL, DIM, cache_dir=root / "cache", database="bench")
        started = time.perf_counter()
        index.refresh(db.conn)
        first = time.perf_counter() - started
        appends: list[float] = []
        for r in range(rounds):
            _add(db, rows + r * batch, batch, rng)
            started = time.perf_counter()
            index.refresh(db.conn)
            appends.append(time.perf_counter() - started)
        assert len(index) == rows + rounds * batch
        fresh = VectorIndex(MODEL, DIM, cache_dir=root / "cache", database="bench")
        started = time.perf_counter()
        fresh.refresh(db.conn)
        fresh_time = time.perf_counter() - started
        assert fresh.ids == index.ids
        db.close()
    return {
        "rows": rows,
        "batch": batch,
        "rounds": rounds,
        "first_refresh_s": round(first, 3),
        "append_ms_p50": round(1000 * statistics.median(appends), 1),
        "append_ms_mean": round(1000 * statistics.fmean(appends), 1),
        "append_ms_max": round(1000 * max(appends), 1),
        "fresh_process_refresh_ms": round(1000 * fresh_time, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.rows, args.batch, args.rounds)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return
    print(
        f"{result['rows']} vectors: first refresh {result['first_refresh_s']} s; "
        f"refresh after a {result['batch']}-row batch: p50 {result['append_ms_p50']} ms, "
        f"mean {result['append_ms_mean']} ms, max {result['append_ms_max']} ms "
        f"({result['rounds']} batches); a fresh process's first refresh "
        f"{result['fresh_process_refresh_ms']} ms"
    )


if __name__ == "__main__":
    main()
