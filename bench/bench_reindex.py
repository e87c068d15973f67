"""Re-indexing one edited file: the named-file re-index against a full incremental run, and
the time from the PostToolUse hook to the new name being findable through the resident.

    .venv/bin/python bench/bench_reindex.py [ROOT ...] [--runs 40] [--e2e-runs 10]

Each ROOT (default: this repository's ``src/`` and, when fetched, ``.cache/realcode/flask``,
``python bench/realcode.py flask``) is copied to a temporary folder and indexed once. Then,
interleaved so that machine noise hits both alike, each run appends a new function to one of
ten mid-sized files of the copy (a different one each run) and re-indexes it:

- ``reindex``: ``memlode.code.reindex.reindex_paths`` with the one path (what the resident and
  ``memlode watch --code`` run per edit);
- ``index_project``: a full incremental ``index_project`` of the root (walks every folder,
  finds the one changed file), as ``memlode index`` ran before;
- ``graph refresh``: what follows once per burst, centrality and the session map
  (``engine.code.fresh.refresh_graphs``), after the ``reindex`` run.

Neither run computes centrality itself (``memlode index`` leaves it to the refresh too).

The end-to-end part (``--e2e-runs``, on the first ROOT) starts a real resident on a temporary
home, and per run renames the appended function on disk, runs the PostToolUse hook with the
Edit payload as Claude Code sends it, and measures from the hook's exit until the new name is
in the store (``code_symbols``, polled every 5 ms) and until ``memlode symbols NEW --json``
first lists it (whole CLI processes, back to back: a coarse clock, ~0.5 s per call).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memlode.code.indexer import index_project
from memlode.code.reindex import reindex_paths
from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.code import refresh_graphs
from memlode.resident_client.client import ask

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FILES_EDITED = 10  # edits rotate over this many mid-sized files


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def mid_sized(root: Path) -> list[Path]:
    """``FILES_EDITED`` Python files around the median size (a typical edited module)."""
    files = sorted(
        (p for p in root.rglob("*.py") if "test" not in p.parts), key=lambda p: p.stat().st_size
    )
    middle = len(files) // 2
    return files[max(0, middle - FILES_EDITED // 2) : middle + FILES_EDITED // 2]


def in_process(source: Path, runs: int, work: Path) -> dict[str, object]:
    root = work / source.name
    shutil.copytree(source, root)
    home = work / f"home-{source.name}"
    settings = Settings.load({"home": str(home), "namespace": "bench", "embed_provider": "none"})
    with Engine(settings) as engine:
        started = time.perf_counter()
        first = index_project(engine.db, root, "bench", centrality=False)
        full_s = time.perf_counter() - started
        refresh_graphs(engine, ["bench"])
        targets = mid_sized(root)
        reindex_ms: list[float] = []
        project_ms: list[float] = []
        graph_ms: list[float] = []
        for i in range(runs):
            for kind in (
                ("reindex", "index_project") if i % 2 == 0 else ("index_project", "reindex")
            ):
                path = targets[i % len(targets)]
                with path.open("a") as fh:
                    fh.write(f"\n\ndef bench_added_{kind}_{i}():\n    return {i}\n")
                started = time.perf_counter()
                if kind == "reindex":
                    reindex_paths(engine.db, [path])
                    reindex_ms.append((time.perf_counter() - started) * 1000)
                    started = time.perf_counter()
                    refresh_graphs(engine, ["bench"])
                    graph_ms.append((time.perf_counter() - started) * 1000)
                else:
                    index_project(engine.db, root, "bench", workers=1, centrality=False)
                    project_ms.append((time.perf_counter() - started) * 1000)
    return {
        "root": str(source),
        "files": first.files,
        "symbols": first.symbols,
        "first_index_s": round(full_s, 2),
        "reindex": reindex_ms,
        "index_project": project_ms,
        "graph refresh": graph_ms,
    }


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in list(env):
        if name.startswith("MEMLODE_"):
            del env[name]
    env.update(
        MEMLODE_HOME=str(home),
        MEMLODE_EMBED_PROVIDER="hash",
        MEMLODE_CONSOLIDATE_EVERY="0",
        MEMLODE_RESIDENT_AUTOSTART="0",
    )
    return env


def _edit_payload(path: Path, old: str, new: str, cwd: Path) -> bytes:
    payload = {
        "session_id": "bench-reindex",
        "cwd": str(cwd),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(path), "old_string": old, "new_string": new},
        "tool_response": {
            "filePath": str(path),
            "oldString": old,
            "newString": new,
            "originalFile": "",
            "structuredPatch": [
                {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                 "lines": [f"-{old}", f"+{new}"]}
            ],
            "userModified": False,
            "replaceAll": False,
        },
    }  # fmt: skip
    return json.dumps(payload).encode()


def end_to_end(source: Path, runs: int, work: Path) -> dict[str, list[float]]:
    project = work / "e2e" / source.name
    shutil.copytree(source, project)
    (project / ".git").mkdir()  # a project root: its own namespace
    home = work / "e2e-home"
    env = _env(home)
    cli = [sys.executable, "-m", "memlode"]
    subprocess.run([*cli, "index"], env=env, cwd=project, check=True, capture_output=True)
    subprocess.run([*cli, "resident"], env=env, cwd=project, check=True, capture_output=True)
    settings = Settings.load({"home": str(home)})
    while not (ask(settings, {"op": "ping"}, 1.0) or {}).get("ready"):
        time.sleep(0.05)
    db = sqlite3.connect(str(settings.database))
    stored_ms: list[float] = []
    cli_ms: list[float] = []
    target = mid_sized(project)[0]
    old = "bench_e2e_start"
    with target.open("a") as fh:
        fh.write(f"\n\ndef {old}():\n    return 0\n")
    subprocess.run([*cli, "index"], env=env, cwd=project, check=True, capture_output=True)
    try:
        for i in range(runs):
            new = f"bench_e2e_renamed_{i}"
            target.write_text(target.read_text().replace(f"def {old}(", f"def {new}("))
            payload = _edit_payload(target, f"def {old}(", f"def {new}(", project)
            hook = [sys.executable, "-m", "memlode.hooks", "post-tool"]
            subprocess.run(hook, input=payload, env=env, cwd=project, check=True)
            after_hook = time.perf_counter()
            while not db.execute("SELECT 1 FROM code_symbols WHERE name = ?", (new,)).fetchone():
                time.sleep(0.005)
            stored_ms.append((time.perf_counter() - after_hook) * 1000)
            while True:
                out = subprocess.run(
                    [*cli, "symbols", new, "--json"], env=env, cwd=project, capture_output=True
                ).stdout
                if any(h["name"] == new for h in json.loads(out or b"[]")):
                    break
            cli_ms.append((time.perf_counter() - after_hook) * 1000)
            old = new
            time.sleep(0.5)  # let the burst's graph refresh finish: each run is its own burst
    finally:
        db.close()
        subprocess.run([*cli, "resident", "stop"], env=env, cwd=project, capture_output=True)
    return {"hook -> in the store": stored_ms, "hook -> `memlode symbols` lists it": cli_ms}


def _row(name: str, values: list[float]) -> str:
    return f"  {name:<38} {pct(values, 0.5):9.1f} {pct(values, 0.95):9.1f} {len(values):6d}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--e2e-runs", type=int, default=10)
    args = parser.parse_args()
    roots = args.roots or [REPO / "src"]
    if not args.roots and (REPO / ".cache/realcode/flask/.complete").exists():
        roots.append(REPO / ".cache/realcode/flask")
    load = os.getloadavg()[0]
    print(
        f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, "
        f"{os.cpu_count()} CPUs, load average {load:.1f}, {args.runs} runs per row"
    )
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for root in roots:
            got = in_process(root.resolve(), args.runs, work)
            print(
                f"\n{got['root']}: {got['files']} files, {got['symbols']} symbols "
                f"(first index {got['first_index_s']} s)"
            )
            print(f"  {'one edited file':<38} {'p50 ms':>9} {'p95 ms':>9} {'runs':>6}")
            for name in ("reindex", "index_project", "graph refresh"):
                values = got[name]
                assert isinstance(values, list)
                print(_row(name, values))
            ratio = statistics.median(got["reindex"]) / statistics.median(got["index_project"])  # type: ignore[arg-type]
            print(f"  reindex / index_project p50: {ratio:.2f}")
        if args.e2e_runs:
            print(f"\nend to end on {roots[0]} (a real resident; {args.e2e_runs} runs)")
            print(f"  {'after the hook exits':<38} {'p50 ms':>9} {'p95 ms':>9} {'runs':>6}")
            for name, values in end_to_end(roots[0].resolve(), args.e2e_runs, work).items():
                print(_row(name, values))


if __name__ == "__main__":
    main()
