"""Code-intelligence benchmark: index a folder, re-index it unchanged, build the repo map.

    python bench/bench_code.py DIR [--exclude PATTERN ...] [--tokens 1024]
        [--aider /tmp/aider-venv/bin/python] [--ctags] [--focus FILE ...] [--json]

Prints files, symbols, references, and seconds for: a cold index into a fresh store (walk,
parse, store, resolve, graph edges and centrality), an unchanged re-index, and the repo map.
With ``--aider`` (an interpreter that has aider-chat installed) it runs aider's repo map on the
same files, cold (tag cache deleted) and warm (a new process, cache kept), and prints the
ratios; ``--ctags`` times universal-ctags on the same files. The map is built twice in
processes with different hash seeds to show that it is deterministic.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

_MAP_SNIPPET = """
import json, sys, time
from memlode.storage.db import Database
from memlode.code.repomap import repo_map
db = Database(sys.argv[1])
started = time.perf_counter()
m = repo_map(db, sys.argv[2], tokens=int(sys.argv[3]), focus=sys.argv[4:])
print(json.dumps({"seconds": time.perf_counter() - started,
                  "files": [f.path for f in m.files], "text": m.text}))
"""


def _run_json(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, object]:
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed:\n{proc.stderr[-2000:]}")
    data: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    data["wall"] = wall
    return data


def _fmt(value: float) -> str:
    return f"{value:.3f}"


def _loads(values: object) -> str:
    return " ".join(f"{v:.2f}" for v in values) if isinstance(values, tuple) else ""


def _first(paths: object, count: int = 12) -> str:
    return ", ".join(str(p) for p in paths[:count]) if isinstance(paths, list) else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--exclude", action="append", default=[], help="gitignore pattern")
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--focus", action="append", default=[])
    parser.add_argument("--aider", help="python interpreter with aider-chat installed")
    parser.add_argument("--ctags", action="store_true")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--keep", type=Path, help="keep the store here instead of a temp dir")
    parser.add_argument(
        "--repeat", type=int, default=1,
        help="cold runs of memlode and aider, interleaved; the fastest of each is compared",
    )  # fmt: skip
    args = parser.parse_args()

    from memlode.code.indexer import index_project
    from memlode.code.repomap import repo_map
    from memlode.code.walk import walk_project
    from memlode.storage.db import Database

    root = args.root.resolve()
    # other jobs on the machine skew the timings: the load average goes with the figures
    results: dict[str, object] = {"root": str(root), "load_before": os.getloadavg()}
    tmp = Path(tempfile.mkdtemp(prefix="memlode-bench-"))
    db_path = args.keep or tmp / "bench.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    namespace = "bench"
    files = [f.path for f in walk_project(root, args.exclude)]
    listing = tmp / "files.txt"
    listing.write_text("\n".join(files))
    base = [str(args.aider), str(HERE / "aider_map.py"), str(root), "--tokens", str(args.tokens)]
    try:
        # cold runs alternate between memlode and aider, so that both see the same machine
        cold_runs: list[float] = []
        aider_colds: list[dict[str, object]] = []
        for turn in range(args.repeat):
            if turn:  # extra memlode runs go to scratch stores
                with Database(tmp / f"scratch-{turn}.db") as sdb:
                    run = index_project(sdb, root, namespace, exclude=args.exclude,
                                        workers=args.workers)  # fmt: skip
                cold_runs.append(run.seconds)
            if args.aider:
                aider_colds.append(_run_json([*base, "--cold", "--files", str(listing)]))
        db = Database(db_path)
        cold = index_project(db, root, namespace, exclude=args.exclude, workers=args.workers)
        cold_runs.append(cold.seconds)
        warm = index_project(db, root, namespace, exclude=args.exclude, workers=args.workers)
        lines = db.one(
            "SELECT coalesce(sum(lines), 0) FROM code_files WHERE namespace = ?", (namespace,)
        )
        started = time.perf_counter()
        the_map = repo_map(db, namespace, tokens=args.tokens, focus=args.focus)
        map_seconds = time.perf_counter() - started
        db.close()
        results.update(
            files=cold.files,
            lines=int(lines[0]) if lines else 0,
            symbols=cold.symbols,
            references=cold.references,
            resolved=cold.resolved,
            packages=cold.packages,
            skipped=cold.skipped,
            index_seconds=min(cold_runs),
            index_runs=cold_runs,
            index_phases=cold.phases,
            reindex_seconds=warm.seconds,
            map_seconds=map_seconds,
            map_files=[f.path for f in the_map.files],
            map_tokens=the_map.tokens,
        )
        # the map in two fresh processes with different hash seeds
        texts = []
        for seed in ("1", "2"):
            env = {**os.environ, "PYTHONHASHSEED": seed}
            cmd = [sys.executable, "-c", _MAP_SNIPPET, str(db_path), namespace]
            out = _run_json([*cmd, str(args.tokens), *args.focus], env)
            texts.append(out["text"])
            results["map_seconds_new_process"] = out["seconds"]
            results["map_wall_new_process"] = out["wall"]
        results["map_deterministic"] = texts[0] == texts[1] == the_map.text

        if args.aider:
            aider_cold = min(aider_colds, key=lambda run: float(str(run["seconds"])))
            aider_warm = _run_json([*base, "--files", str(listing)])
            aider_again = _run_json(
                [*base, "--files", str(listing)], {**os.environ, "PYTHONHASHSEED": "7"}
            )
            results.update(
                aider_cold_seconds=aider_cold["seconds"],
                aider_cold_runs=[run["seconds"] for run in aider_colds],
                aider_warm_seconds=aider_warm["seconds"],
                aider_files=aider_warm["files"],
                aider_deterministic=aider_warm["map"] == aider_again["map"],
                index_vs_aider_cold=min(cold_runs) / float(str(aider_cold["seconds"])),
                map_vs_aider_warm=map_seconds / float(str(aider_warm["seconds"])),
            )
            shutil.rmtree(root / ".aider.tags.cache.v4", ignore_errors=True)
        if args.ctags and shutil.which("ctags"):
            started = time.perf_counter()
            subprocess.run(
                ["ctags", "-f", str(tmp / "tags"), *files], cwd=root, check=True,
                capture_output=True,
            )  # fmt: skip
            results["ctags_seconds"] = time.perf_counter() - started
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    results["load_after"] = os.getloadavg()

    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"root        {root}")
    before, after = results["load_before"], results["load_after"]
    print(f"load        {_loads(before)} before, {_loads(after)} after (1, 5, 15 min)")
    skipped = results["skipped"]
    print(f"files       {results['files']}  ({results['lines']} lines, {skipped} skipped)")
    print(f"symbols     {results['symbols']}")
    print(f"references  {results['references']} ({results['resolved']} resolved)")
    runs = " ".join(_fmt(s) for s in cold_runs)
    phases = json.dumps({k: round(v, 3) for k, v in cold.phases.items()})
    print(f"index       {_fmt(min(cold_runs))} s cold (runs: {runs})  {phases}")
    print(f"re-index    {_fmt(warm.seconds)} s unchanged")
    print(
        f"map         {_fmt(map_seconds)} s ({results['map_tokens']} tokens),"
        f" {_fmt(float(str(results['map_seconds_new_process'])))} s in a new process,"
        f" deterministic: {results['map_deterministic']}"
    )
    print(f"map files   {_first(results['map_files'])}")
    if args.aider:
        print(
            f"aider       {_fmt(float(str(results['aider_cold_seconds'])))} s cold,"
            f" {_fmt(float(str(results['aider_warm_seconds'])))} s warm,"
            f" deterministic: {results['aider_deterministic']}"
        )
        print(f"aider files {_first(results['aider_files'])}")
        print(
            f"ratios      index/aider-cold {results['index_vs_aider_cold']:.2f}"
            f"   map/aider-warm {results['map_vs_aider_warm']:.2f}"
        )
    if "ctags_seconds" in results:
        print(f"ctags       {_fmt(float(str(results['ctags_seconds'])))} s (symbols only)")


if __name__ == "__main__":
    main()
