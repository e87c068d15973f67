"""Page loads of the dashboard (``memlode viz``) on a 10k-memory store, and the graph at 5,000
nodes, in a real headless Chromium (Debian's ``/usr/bin/chromium`` through Playwright).

The store (a temporary home, hash embedder unless ``--embed``): ``--memories`` synthetic
memories of the 7 types and 4 sources, 60 sessions with summaries and prompts, memory nodes
linked by random typed edges so that the graph has more than 5,000 nodes, and memlode's own
``src/`` indexed as the code. Then one ``memlode viz --port 0`` subprocess serves it.

A page load is a fresh navigation (about:blank first) to ``URL#/page``, timed in the browser:
``performance.now()`` when the page marked itself drawn (its data fetched and rendered), which
counts from the navigation's start. Beside it, at p50: when the page's HTML had arrived
(``html``), the load event (``load ev``: HTML, CSS and scripts) and when the last of the
page's /api/ answers had arrived (``data in``); ready minus data in is the browser's own work
(parsing, drawing). The graph's first
load (layout computed) is reported apart from the warm ones (layout cached until the graph
changes); at 5,000 nodes, time to first draw and the time of one full redraw (a pan frame).

    python bench/bench_viz.py                    # 10k memories, 15 loads a page
    python bench/bench_viz.py --memories 2000 --loads 5 --json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from memlode import __version__
from memlode.config import Settings
from memlode.engine import Engine
from memlode.storage import graph as graph_repo
from memlode.types import Edge, Relationship

SEED = 20261128
CHROMIUM = "/usr/bin/chromium"
PAGES = ("search", "memories", "graph", "embeddings", "sessions", "code", "health")
# The search page is loaded with a query in its URL: its load includes the search.
ROUTES = {"search": "search/sqlite%20wal%20timeout%20checkpoint"}
TYPES = ["decision", "pattern", "preference", "style", "habit", "insight", "context"]
SOURCES = ["memory", "hook", "transcript", "doc"]
WORDS = (
    "storage index migration session hook transcript repo map cache vector graph config retry "
    "exporter dashboard tokenizer scheduler auth middleware payment upload limiter sqlite wal "
    "timeout busy checkpoint query ranking signal embedding model batch queue worker thread "
    "lock deadlock refactor rename test fixture deploy release branch merge review"
).split()
RELS = [
    Relationship.RELATES_TO,
    Relationship.LEADS_TO,
    Relationship.SIMILAR_TO,
    Relationship.EVOLVED_INTO,
    Relationship.SHARES_THEME,
]
URL_LINE = re.compile(r"memlode viz: (http://127\.0\.0\.1:\d+/\?token=\S+)")


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30))).capitalize() + "."


def build_store(home: Path, project: Path, n: int, edges: int) -> dict[str, Any]:
    rng = random.Random(SEED)
    started = time.perf_counter()
    with Engine(Settings.load({"home": str(home), "namespace": "bench"})) as engine:
        sessions = []
        for s in range(60):
            sid = f"bench-session-{s:02d}"
            engine.start_session(sid, source="claude-code")
            sessions.append(sid)
        batch = []
        for i in range(n):
            sid = sessions[i % 60] if i % 3 == 0 else None
            prompt = sid is not None and i % 9 == 0
            batch.append(
                engine.new_memory(
                    sentence(rng),
                    TYPES[i % len(TYPES)],
                    round(rng.random(), 2),
                    tags=["prompt"] if prompt else [rng.choice(WORDS)],
                    source="hook" if prompt else SOURCES[i % len(SOURCES)],
                    session_id=sid,
                )
            )
        ids = [r.id for r in engine.store_many(batch)]
        for sid in sessions:
            engine.end_session(sid, "Worked on " + " ".join(rng.sample(WORDS, 6)) + ".")
        with engine.db.write() as conn:
            for memory_id in ids:
                graph_repo.ensure_memory_node(conn, memory_id, memory_id[:8], "bench")
            for _ in range(edges):
                a, b = rng.sample(ids, 2)
                graph_repo.add_edge(conn, Edge(a, b, rng.choice(RELS), 0.5), keep_existing=True)
        stored = time.perf_counter() - started
        embedded = engine.embed_pending()
    return {
        "memories": len(ids),
        "store_s": round(stored, 1),
        "embedded": embedded,
        "build_s": round(time.perf_counter() - started, 1),
    }


def memlode(env: dict[str, str], cwd: Path, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout


def start_server(env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlode", "viz", "--port", "0"],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()))  # type: ignore[union-attr]
    reader.start()
    reader.join(60)
    match = URL_LINE.search(line[0]) if line else None
    if match is None:
        proc.kill()
        raise SystemExit(f"memlode viz printed no URL: {line}")
    return proc, match.group(1)


def load(page: Any, url: str, route: str) -> dict[str, float]:
    page.goto("about:blank")
    page.goto(f"{url}#/{route}")
    page.wait_for_selector(f"body[data-ready={route.split('/')[0]}]", timeout=120_000)
    return page.evaluate(
        "() => ({ready: window.memlodeReadyAt, load: performance.getEntriesByType('navigation')[0]"
        ".loadEventEnd, draw: window.memlodeGraphFirstDraw || null,"
        " html: performance.getEntriesByType('navigation')[0].responseEnd,"
        " api: performance.getEntriesByType('resource')"
        ".filter(e => e.name.includes('/api/') && e.responseEnd <= window.memlodeReadyAt)"
        ".reduce((a, e) => Math.max(a, e.responseEnd) , 0)})"
    )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--edges", type=int, default=15_000)
    parser.add_argument("--loads", type=int, default=15)
    parser.add_argument("--embed", default="hash", help="embedding provider (default hash)")
    parser.add_argument("--home", help="keep the store in this home (reused when it exists)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(args.home or Path(tmp) / "home"), root
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLODE_")}
        env.update(
            MEMLODE_HOME=str(home),
            MEMLODE_EMBED_PROVIDER=args.embed,
            MEMLODE_NAMESPACE="bench",
            MEMLODE_RESIDENT_AUTOSTART="0",
        )
        os.environ.update(env)
        if (home / "memlode.db").exists():  # --home of an earlier run: its store as it is
            built: dict[str, Any] = {"reused": str(home)}
        else:
            built = build_store(home, project, args.memories, args.edges)
            started = time.perf_counter()
            memlode(env, project, "index", str(root / "src"), "-n", "bench", "--no-embed")
            built["code_index_s"] = round(time.perf_counter() - started, 1)
        proc, url = start_server(env, project)
        results: dict[str, Any] = {}
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(url)  # the token becomes a cookie
                cold = load(page, url, "graph/5000")
                results["graph5000_cold"] = cold
                for route in PAGES:
                    runs = [load(page, url, ROUTES.get(route, route)) for _ in range(args.loads)]
                    ready = [r["ready"] for r in runs]
                    results[route] = {
                        "ready_p50": pct(ready, 0.5),
                        "ready_p95": pct(ready, 0.95),
                        "load_p50": pct([r["load"] for r in runs], 0.5),
                        "html_p50": pct([r["html"] for r in runs], 0.5),
                        "data_p50": pct([r["api"] for r in runs], 0.5),
                    }
                runs = [load(page, url, "graph/5000") for _ in range(args.loads)]
                frame = page.evaluate(
                    "() => { const g = window.memlodeGraph, t = performance.now();"
                    " for (let i = 0; i < 20; i++) { g.ox += 1; g.draw(); }"
                    " return {ms: (performance.now() - t) / 20, nodes: g.nodes.length,"
                    " edges: g.edges.length}; }"
                )
                results["graph5000"] = {
                    "first_draw_p50": pct([r["draw"] for r in runs], 0.5),
                    "first_draw_p95": pct([r["draw"] for r in runs], 0.95),
                    "ready_p50": pct([r["ready"] for r in runs], 0.5),
                    "redraw_ms": round(frame["ms"], 1),
                    "nodes": frame["nodes"],
                    "edges": frame["edges"],
                }
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)
            if proc.stdout is not None:
                proc.stdout.close()
    report = {
        "memlode": __version__,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "embed": args.embed,
        "store": built,
        "loads_per_page": args.loads,
        "pages_ms": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"store: {built}")
    print(
        f"{'page':<12} {'p50 ms':>8} {'p95 ms':>8} {'html p50':>9} {'load ev':>8} "
        f"{'data in p50':>12}"
    )
    for route in PAGES:
        r = results[route]
        print(
            f"{route:<12} {r['ready_p50']:>8} {r['ready_p95']:>8} {r['html_p50']:>9} "
            f"{r['load_p50']:>8} {r['data_p50']:>12}"
        )
    g = results["graph5000"]
    print(
        f"graph 5,000: first draw p50 {g['first_draw_p50']} ms, p95 {g['first_draw_p95']} ms "
        f"(cold, layout computed: {round(results['graph5000_cold']['draw'], 1)} ms); "
        f"redraw {g['redraw_ms']} ms; {g['nodes']} nodes, {g['edges']} edges"
    )


if __name__ == "__main__":
    main()
