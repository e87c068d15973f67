"""The resident process: one-shot `memlode search` and the prompt hook with it up and down.

    .venv/bin/python bench/bench_resident.py [--memories 10000] [--runs 30]
        [--embed hash|local] [--vector-cache DIR] [--keep DIR] [--timeout-ms 150]
        [--start-wait-ms 3000] [--cold-starts 5]

Builds a store of ``--memories`` rows of ``bench/corpus.py`` (embedded with ``--embed``; with
``local`` and ``--vector-cache DIR`` the corpus vectors come from bench_recall.py's cache), and a
copy of it made with SQLite's backup API (``--keep DIR`` keeps the built store for the next
run). The store gets a resident (``memlode resident``); the copy never has one, so the same
commands on it run the cold path. Then, interleaved so that machine noise hits all rows alike,
each a whole process as a user or Claude Code starts it:

- ``search up`` / ``search down``: ``memlode search QUERY`` (the corpus's queries) on the store
  (answered by the resident) and on the copy (in-process: model, vectors and BM25 loaded);
- ``version``: ``memlode --version``, the CLI's floor (interpreter, click, memlode.cli);
- ``prompt up`` / ``prompt lean``: the UserPromptSubmit hook as ``memlode init`` installs it, on
  the store (the resident's recall) and on the copy (the lean BM25; autostart off);
- ``baseline``: bench_hooks.py's baseline (open a copy of the store with the hook pragmas,
  insert one row, commit, close), the reference of its targets (<= 1.5 for UserPromptSubmit).

Prints p50/p95 per row and the ratios, the resident's start-to-ready time, and how many of the
"up" runs the resident really answered (its request count). Then ``--cold-starts`` times, with
no resident running: the SessionStart hook (which starts one) and the prompt hook back to back,
as ``claude -p "..."`` fires them: the prompt's time and whether the resident ranked it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hooks import BASELINE, stored_shape
from corpus import corpus, queries
from memlode.cli.claude_cmds import HOOK_CODE
from memlode.config import Settings
from memlode.engine import Engine
from memlode.project import detect_namespace
from memlode.resident_client.client import ask


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def memlode_command() -> list[str]:
    """The installed console script next to the interpreter (what a user types), else -m."""
    script = Path(sys.executable).with_name("memlode")
    return [str(script)] if script.exists() else [sys.executable, "-m", "memlode"]


def build_store(home: Path, project: Path, n: int, embed: str, cache: Path | None) -> None:
    settings = Settings.load(
        {"home": str(home), "namespace": detect_namespace(project), "embed_provider": embed}
    )
    with Engine(settings) as engine:
        if cache is not None:
            from bench_recall import build

            build(engine, n, vector_cache=cache)
        else:
            items = corpus(n)
            for i in range(0, n, 2000):
                engine.store_many(
                    [engine.new_memory(t, k, tags=g) for t, k, g in items[i : i + 2000]]
                )
            engine.embed_pending(batch_size=128)


def copy_store(source: Path, target: Path) -> None:
    """A consistent copy through SQLite's online backup API (the file is never read directly)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(str(source))
    dst = sqlite3.connect(str(target))
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def timed(cmd: list[str], env: dict[str, str], cwd: Path, stdin: bytes = b"") -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, env=env, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or proc.stderr:
        raise SystemExit(f"{cmd[:4]} failed: {proc.stderr.decode()[:500]}")
    return elapsed * 1000


def prompt_payload(project: Path, text: str, i: int) -> bytes:
    return json.dumps(
        {
            "session_id": f"bench-{i % 3}",
            "transcript_path": str(project / "t.jsonl"),
            "cwd": str(project),
            "hook_event_name": "UserPromptSubmit",
            "prompt": text,
        }
    ).encode()


def answered(settings: Settings) -> int:
    info = ask(settings, {"op": "ping"}, 2.0)
    return int(info["answered"]) if info else -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--embed", default="hash", help="hash (default) or local")
    parser.add_argument("--vector-cache", type=Path, default=None)
    parser.add_argument("--timeout-ms", type=int, default=None, help="hooks.resident_timeout_ms")
    parser.add_argument(
        "--keep", type=Path, default=None, help="keep the built store in DIR and reuse it"
    )
    parser.add_argument(
        "--start-wait-ms", type=int, default=None, help="hooks.resident_start_wait_ms"
    )
    parser.add_argument(
        "--cold-starts",
        type=int,
        default=5,
        help="SessionStart then a prompt, with no resident running, this many times",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home, cold_home = root / "home", root / "cold-home"
        project = root / "proj"
        (project / "src").mkdir(parents=True)
        (project / "pyproject.toml").write_text("[project]\nname='proj'\n")
        start = time.perf_counter()
        kept = args.keep / f"n{args.memories}-{args.embed}" if args.keep else None
        if kept is not None and (kept / "memlode.db").exists():
            home.mkdir()
            copy_store(kept / "memlode.db", home / "memlode.db")
            if (kept / "models").exists():
                shutil.copytree(kept / "models", home / "models")
        else:
            build_store(home, project, args.memories, args.embed, args.vector_cache)
            if kept is not None:
                copy_store(home / "memlode.db", kept / "memlode.db")
                if (home / "models").exists():
                    shutil.copytree(home / "models", kept / "models", dirs_exist_ok=True)
        build_s = time.perf_counter() - start
        copy_store(home / "memlode.db", cold_home / "memlode.db")
        baseline_db = root / "baseline" / "memlode.db"
        copy_store(home / "memlode.db", baseline_db)
        if (home / "models").exists():  # the local model's built graph: cold is not first use
            shutil.copytree(home / "models", cold_home / "models", dirs_exist_ok=True)
        hooks = {"resident_timeout_ms": args.timeout_ms}
        hooks["resident_start_wait_ms"] = args.start_wait_ms
        lines = [f"{k} = {v}\n" for k, v in hooks.items() if v is not None]
        for folder in (home, cold_home):
            if lines:
                (folder / "config.toml").write_text("[hooks]\n" + "".join(lines))

        base_env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLODE_")}
        base_env.pop("PYTHONDONTWRITEBYTECODE", None)
        base_env["MEMLODE_EMBED_PROVIDER"] = args.embed
        up_env = {**base_env, "MEMLODE_HOME": str(home), "MEMLODE_RESIDENT_AUTOSTART": "1"}
        down_env = {
            **base_env,
            "MEMLODE_HOME": str(cold_home),
            "MEMLODE_RESIDENT_AUTOSTART": "0",
        }
        settings = Settings.load({"home": str(home)}, environ=up_env)
        cli = memlode_command()

        start = time.perf_counter()
        subprocess.run([*cli, "resident"], env=up_env, cwd=project, check=True, capture_output=True)
        while not (ask(settings, {"op": "ping"}, 1.0) or {}).get("ready"):
            time.sleep(0.02)
        ready_s = time.perf_counter() - start

        # one row shaped as the store's (its rows are stored memories: no hook ran on it)
        baseline = BASELINE % (stored_shape(baseline_db, "memory"),)
        qs = queries(max(args.runs, 10))
        hook = [sys.executable, "-c", HOOK_CODE, "prompt"]
        rows: dict[str, list[float]] = {
            "version": [],
            "search up": [],
            "search down": [],
            "baseline": [],
            "prompt up": [],
            "prompt lean": [],
        }
        rng = random.Random(3)
        for warm in range(2):  # page cache, .pyc files
            timed([*cli, "--version"], up_env, project)
            timed([*cli, "search", qs[warm]], down_env, project)
            timed([*cli, "search", qs[warm]], up_env, project)
            timed(hook, down_env, project, prompt_payload(project, qs[warm], warm))
        served_before = answered(settings)
        for i in range(args.runs):
            q = qs[i % len(qs)]
            order = list(rows)
            rng.shuffle(order)
            for row in order:
                if row == "version":
                    rows[row].append(timed([*cli, "--version"], up_env, project))
                elif row == "search up":
                    rows[row].append(timed([*cli, "search", q], up_env, project))
                elif row == "search down":
                    rows[row].append(timed([*cli, "search", q], down_env, project))
                elif row == "baseline":
                    cmd = [sys.executable, "-c", baseline, str(baseline_db)]
                    rows[row].append(timed(cmd, up_env, project))
                elif row == "prompt up":
                    payload = prompt_payload(project, q, i)
                    rows[row].append(timed(hook, up_env, project, payload))
                else:
                    payload = prompt_payload(project, q, i)
                    rows[row].append(timed(hook, down_env, project, payload))
        served = answered(settings) - served_before
        subprocess.run([*cli, "resident", "stop"], env=up_env, cwd=project, capture_output=True)
        cold = cold_starts(args.cold_starts, hook, up_env, project, settings, cli, qs)

    report(rows, args, build_s, ready_s, served, cold)


def cold_starts(
    n: int,
    hook: list[str],
    env: dict[str, str],
    project: Path,
    settings: Settings,
    cli: list[str],
    qs: list[str],
) -> dict[str, Any]:
    """``claude -p "..."`` on a store with no resident: SessionStart (which starts one) and the
    prompt hook back to back, ``n`` times. The prompt's time, and whether the resident ranked
    it (it waits up to ``[hooks] resident_start_wait_ms`` for one that is starting)."""
    start_hook = [*hook[:-1], "session-start"]
    times: list[float] = []
    by_resident = 0
    for i in range(n):
        payload = json.loads(prompt_payload(project, qs[i % len(qs)], i))
        begin = {**payload, "hook_event_name": "SessionStart", "source": "startup"}
        begin.pop("prompt")
        timed(start_hook, env, project, json.dumps(begin).encode())
        times.append(timed(hook, env, project, json.dumps(payload).encode()))
        by_resident += answered(settings) >= 1
        subprocess.run([*cli, "resident", "stop"], env=env, cwd=project, capture_output=True)
        time.sleep(0.5)
    return {
        "runs": n,
        "prompt_ms": [round(t, 1) for t in times],
        "ranked_by_the_resident": by_resident,
    }


def report(
    rows: dict[str, list[float]],
    args: argparse.Namespace,
    build_s: float,
    ready_s: float,
    served: int,
    cold: dict[str, Any],
) -> None:
    p50 = {k: pct(v, 0.5) for k, v in rows.items()}
    p95 = {k: pct(v, 0.95) for k, v in rows.items()}
    out: dict[str, Any] = {
        "memories": args.memories,
        "embed": args.embed,
        "runs": args.runs,
        "cpus": os.cpu_count(),
        "load_average": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "build_s": round(build_s, 1),
        "resident_ready_s": round(ready_s, 2),
        "resident_answered": served,
        "expected_answers": 2 * args.runs,
        "cold_starts": cold,
        "p50_ms": {k: round(v, 1) for k, v in p50.items()},
        "p95_ms": {k: round(v, 1) for k, v in p95.items()},
        "mean_ms": {k: round(statistics.fmean(v), 1) for k, v in rows.items()},
        "ratios_p50": {
            "search up / down": round(p50["search up"] / p50["search down"], 3),
            "search up / version": round(p50["search up"] / p50["version"], 3),
            "prompt up / lean": round(p50["prompt up"] / p50["prompt lean"], 3),
            "prompt up / baseline": round(p50["prompt up"] / p50["baseline"], 3),
            "prompt lean / baseline": round(p50["prompt lean"] / p50["baseline"], 3),
        },
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(
        f"{args.memories} memories ({args.embed} embedder), {args.runs} runs per row, "
        f"{out['cpus']} CPUs, load average {out['load_average']}; store built in "
        f"{out['build_s']} s; resident ready {out['resident_ready_s']} s after `memlode resident`"
    )
    print(f"{'row':<14}{'p50 ms':>9}{'p95 ms':>9}")
    for row in rows:
        print(f"{row:<14}{p50[row]:>9.1f}{p95[row]:>9.1f}")
    for name, ratio in out["ratios_p50"].items():
        print(f"{name:<24}{ratio:>7.3f}")
    print(f"resident answered {served} of the {2 * args.runs} 'up' requests")
    if cold["runs"]:
        print(
            f"prompt right after SessionStart started the resident ({cold['runs']} runs): "
            f"{', '.join(f'{t:.0f}' for t in cold['prompt_ms'])} ms; ranked by the resident "
            f"{cold['ranked_by_the_resident']} of {cold['runs']}"
        )


if __name__ == "__main__":
    main()
