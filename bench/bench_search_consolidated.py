"""Hybrid search before and after consolidation, on the synthetic month of
``bench_consolidation.py`` (10k observations, ``hash`` vectors): p50 of 80 queries, three
passes each, then ``consolidate`` with the cycles named (comma-separated) and the same again.

    .venv/bin/python bench/bench_search_consolidated.py cluster,creative
"""

import statistics
import sys
import tempfile
import time

sys.path.insert(0, "bench")
from pathlib import Path

import bench_consolidation as b
from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.consolidation import consolidate

CYCLES = sys.argv[1].split(",")
t = tempfile.mkdtemp()
s = Settings.load(
    {
        "home": Path(t),
        "db_path": Path(t) / "m.db",
        "embed_provider": "hash",
        "namespace": b.NAMESPACE,
    }
)
e = Engine(s)
b._fill(e, 10000)
e.embed_pending()
qs = [f"module_{i} file_{i % 17} read lines" for i in range(40)] + [
    f"pytest tests/test_{i}.py failed" for i in range(40)
]


def run():
    lat = []
    for q in qs:
        t0 = time.perf_counter()
        e.search(q, 10, namespace=b.NAMESPACE)
        lat.append((time.perf_counter() - t0) * 1000)
    return statistics.median(lat)


run()
before = [run() for _ in range(3)]
for _ in range(3):
    consolidate(e, namespace=b.NAMESPACE, cycles=CYCLES)
run()
after = [run() for _ in range(3)]
links = e.conn.execute(
    "select count(*) from graph_edges where relationship in ('SIMILAR_TO','SHARES_THEME')"
).fetchone()[0]
print(
    "p50 ms before",
    [round(x, 2) for x in before],
    "after",
    [round(x, 2) for x in after],
    "links",
    links,
)
