"""Kill trials: memlode commands killed with SIGKILL at random moments, then run again.

Workloads, each a real ``memlode`` subprocess over its own store:

- ``index``: index a copy of memlode's own source into an empty store;
- ``reindex``: re-index it after 12 files changed and 3 were deleted (incremental run);
- ``ingest``: ingest generated Claude Code transcripts (8 sessions);
- ``import``: import the JSONL export of the ingested store;
- ``embed``: embed the imported store (the deterministic ``hash`` embedder);
- ``window``: ``index`` again, killed the moment its progress bar (stderr on a terminal) names
  the centrality step: after the index commit, before centrality (the window issue 16 found).

A clean run of each gives the reference. A trial restores the workload's starting store, starts
the command, kills it with SIGKILL after a random delay up to the clean run's duration, checks
``PRAGMA integrity_check``, runs the command again to completion and compares the store's
tables with the reference: every content column of memories, sessions, transcripts, code
files, symbols, references, graph nodes and edges, cached centrality, embeddings and the
session map (timestamps and surrogate ids left out; memory ids, random per run, compared
through the memory's namespace, source and content hash). After an index run centrality must
cover every code node. FTS5's own integrity check runs on the memories index.

    python bench/bench_kill.py                       # 120 trials over all workloads
    python bench/bench_kill.py --trials 20 --workloads index,reindex --seed 7

The test tests/e2e/safety/test_kill_trials.py runs the same trials a few times (it loads this file).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kill_inputs import NAMESPACE, copy_code, mutate_code, write_transcripts

WORKLOADS = ("index", "reindex", "ingest", "import", "embed", "window")
TRIALS = 120
SEED = 20261124

# Per table: columns left out of the comparison (timestamps of the run, surrogate ids, and the
# counters a run bumps). Everything else must match the clean run exactly.
VOLATILE: dict[str, set[str]] = {
    "memories": {"id", "updated_at", "last_accessed_at", "access_count"},
    "sessions": set(),
    "graph_nodes": {"created_at", "updated_at"},
    "graph_edges": {"id", "created_at"},
    "graph_centrality": {"computed_at"},
    "code_files": {"id", "indexed_at"},
    "code_symbols": {"id", "file_id"},
    "code_refs": {"id", "file_id", "target_file"},
    "code_packages": {"file_id"},
    "transcript_files": {"ingested_at"},
    "transcript_units": set(),
    "transcript_chunks": set(),
    "memory_embeddings": {"created_at"},
    "memory_tokens": set(),
}
# centrality is compared to this many significant digits: the same graph gives the same
# numbers, but igraph may sum in another order when rows come back in another order
FLOAT_DIGITS = 9


# ---- the store ----------------------------------------------------------------------------------


def _read(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def integrity(db: Path) -> str:
    # read-write, as the next command opens it: a process killed mid-write can leave a WAL
    # whose shared-memory index must be rebuilt first, which a read-only connection cannot do
    # ("attempt to write a readonly database", seen once in CI after a killed ingest)
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
    return "; ".join(str(r[0]) for r in rows)


def fts_ok(db: Path) -> bool:
    with closing(sqlite3.connect(db)) as conn:
        try:
            conn.execute(
                "INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)"
            )
        except sqlite3.DatabaseError:
            return False
    return True


def snapshot(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every compared table as a sorted list of rows (memory ids replaced by their keys)."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    with closing(_read(db)) as conn:
        keys = {
            r[0]: f"mem:{r[1]}/{r[2]}/{r[3]}"
            for r in conn.execute("SELECT id, namespace, source, content_hash FROM memories")
        }
        for table, skip in VOLATILE.items():
            columns = [
                r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] not in skip
            ]
            if not columns:
                continue
            rows = conn.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
            out[table] = sorted((tuple(_plain(v, keys) for v in row) for row in rows), key=repr)
        out["session_maps"] = conn.execute(
            "SELECT key, value FROM store_settings WHERE key LIKE 'session_map:%' ORDER BY key"
        ).fetchall()
    return out


def _plain(value: Any, keys: dict[str, str]) -> Any:
    if isinstance(value, float):
        return float(f"{value:.{FLOAT_DIGITS}g}")
    if isinstance(value, str):
        return keys.get(value, value)
    return value


def differences(got: dict[str, list[Any]], want: dict[str, list[Any]]) -> list[str]:
    out = []
    for table in sorted(set(got) | set(want)):
        a, b = got.get(table, []), want.get(table, [])
        if a != b:
            extra = len(set(map(repr, a)) - set(map(repr, b)))
            missing = len(set(map(repr, b)) - set(map(repr, a)))
            out.append(f"{table}: {len(a)} rows vs {len(b)} ({missing} missing, {extra} extra)")
    return out


def centrality_gaps(db: Path) -> int:
    """Code nodes without a centrality row (a trial's store holds one project)."""
    with closing(_read(db)) as conn:
        row = conn.execute(
            "SELECT count(*) - count(c.node_id) FROM graph_nodes n"
            " LEFT JOIN graph_centrality c ON c.node_id = n.id WHERE n.kind != 'memory'"
        ).fetchone()
    return int(row[0])


def clone_store(source: Path, home: Path) -> None:
    """A copy of a (closed) store into a fresh home, through SQLite's backup API."""
    home.mkdir(parents=True, exist_ok=True)
    with (
        closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as src,
        closing(sqlite3.connect(home / "memlode.db")) as dst,
    ):
        src.backup(dst)


# ---- workloads ----------------------------------------------------------------------------------


@dataclass
class Workload:
    name: str
    args: list[str]
    start: Path | None  # the store each run starts from (None: an empty home)
    reference: dict[str, list[Any]] = field(default_factory=dict)
    seconds: float = 0.0  # the clean run's wall time


def memlode_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLODE_")}
    env.update({"MEMLODE_HOME": str(home), "MEMLODE_EMBED_PROVIDER": "hash"})
    # no resident: `memlode index` then embeds its symbols itself, so that a run's end state
    # is the command's own (a resident would embed them later, at a moment of its choosing)
    env["MEMLODE_RESIDENT_AUTOSTART"] = "0"
    return env


def run(args: list[str], home: Path, *, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        env=memlode_env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _checked(args: list[str], home: Path) -> None:
    done = run(args, home)
    if done.returncode != 0:
        raise RuntimeError(f"memlode {' '.join(args)} failed: {done.stderr.strip()}")


def prepare(
    work: Path,
    names: tuple[str, ...] = WORKLOADS,
    *,
    code_folders: tuple[str, ...] = (),
    sessions: int = 8,
    turns: int = 24,
) -> dict[str, Workload]:
    """Inputs, starting stores and clean references of the named workloads, under ``work``:
    the code is memlode's own source (only ``code_folders`` of it when given), the transcripts
    ``sessions`` generated sessions of ``turns`` turns."""
    project = copy_code(work / "project", code_folders)
    out: dict[str, Workload] = {}
    index = ["index", str(project), "-n", NAMESPACE]
    if "reindex" in names:
        seed = work / "seed-reindex"
        _checked(index, seed)
        out["reindex"] = Workload("reindex", index, seed / "memlode.db")
    mutate_code(project)
    if {"index", "window"} & set(names):
        out["index"] = Workload("index", index, None)
    need_ingest = {"ingest", "import", "embed"} & set(names)
    if need_ingest:
        paths = write_transcripts(work / "transcripts", sessions=sessions, turns=turns)
        ingest = ["ingest", "transcript", *map(str, paths), "-n", NAMESPACE]
        out["ingest"] = Workload("ingest", ingest, None)
        exported = work / "export.jsonl"
        seed = work / "seed-import"
        _checked(ingest, seed)
        _checked(["export", "-n", "*", str(exported)], seed)
        out["import"] = Workload("import", ["import", str(exported)], None)
        imported = work / "seed-embed"
        _checked(["import", str(exported)], imported)
        out["embed"] = Workload("embed", ["embed"], imported / "memlode.db")
    for name in list(out):
        if name not in names and not (name == "index" and "window" in names):
            del out[name]
    for workload in out.values():
        home = work / f"reference-{workload.name}"
        _start(workload, home)
        began = time.perf_counter()
        _checked(workload.args, home)
        workload.seconds = time.perf_counter() - began
        workload.reference = snapshot(home / "memlode.db")
    return out


def _start(workload: Workload, home: Path) -> None:
    if home.exists():
        shutil.rmtree(home)
    if workload.start is None:
        home.mkdir(parents=True)
    else:
        clone_store(workload.start, home)


# ---- trials -------------------------------------------------------------------------------------


@dataclass
class Trial:
    workload: str
    delay: float
    killed: bool  # False: it finished before the kill
    integrity: str
    differences: list[str]
    centrality_gaps: int
    fts_ok: bool

    @property
    def ok(self) -> bool:
        return (
            self.integrity == "ok"
            and not self.differences
            and not self.centrality_gaps
            and self.fts_ok
        )


def kill_at(args: list[str], home: Path, delay: float) -> bool:
    """Start ``memlode args``, SIGKILL it after ``delay`` s; True when the kill landed."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlode", *args],
        env=memlode_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return True


def kill_at_centrality(args: list[str], home: Path, _delay: float = 0.0) -> bool:
    """Run ``memlode args`` with stderr on a terminal (so it shows its progress bars) and kill
    it the moment the centrality bar appears; True when the kill landed there."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlode", *args],
        env=memlode_env(home),
        stdout=subprocess.DEVNULL,
        stderr=follower,
    )
    os.close(follower)
    seen = b""
    try:
        while b"centrality" not in seen:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the process ended and closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        running = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        os.close(leader)
    return running and b"centrality" in seen


def trial(
    workload: Workload,
    home: Path,
    delay: float,
    kill: Callable[[list[str], Path, float], bool] = kill_at,
) -> Trial:
    _start(workload, home)
    killed = kill(workload.args, home, delay)
    db = home / "memlode.db"
    state = integrity(db) if db.exists() else "ok"
    _checked(workload.args, home)
    gaps = centrality_gaps(db) if workload.name in ("index", "reindex") else 0
    return Trial(
        workload.name,
        delay,
        killed,
        state,
        differences(snapshot(db), workload.reference),
        gaps,
        fts_ok(db),
    )


def delays(rng: random.Random, workload: Workload, count: int) -> Iterator[float]:
    """Kill moments spread over the clean run's duration, leaving out the first twentieth
    (interpreter start-up, where a kill tells nothing) and the last fifth (a run on a quieter
    machine may be over by then)."""
    for _ in range(count):
        yield rng.uniform(0.05, 0.8) * workload.seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=TRIALS, help="trials in all")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    opts = parser.parse_args(argv)
    names = tuple(n.strip() for n in opts.workloads.split(",") if n.strip())
    unknown = set(names) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workloads: {', '.join(sorted(unknown))}")
    rng = random.Random(opts.seed)
    began = time.perf_counter()
    results: dict[str, list[Trial]] = {}
    with tempfile.TemporaryDirectory(prefix="memlode-kill-") as tmp:
        work = Path(tmp)
        workloads = prepare(work, names)
        per = max(1, opts.trials // len(names))
        for name in names:
            workload = workloads["index" if name == "window" else name]
            kill = kill_at_centrality if name == "window" else kill_at
            results[name] = []
            for i, delay in enumerate(delays(rng, workload, per)):
                result = trial(workload, work / f"trial-{name}-{i}", delay, kill)
                results[name].append(result)
                shutil.rmtree(work / f"trial-{name}-{i}")
                if not result.ok:
                    print(f"FAILED {name} after {delay:.3f} s: {result}", file=sys.stderr)
        clean = {n: round(workloads["index" if n == "window" else n].seconds, 3) for n in names}
    figures = _figures(results, clean, time.perf_counter() - began, opts.seed)
    if opts.json:
        print(json.dumps(figures, indent=2))
    else:
        _print(figures)
    return 0 if figures["failures"] == 0 else 1


def _figures(
    results: dict[str, list[Trial]], clean: dict[str, float], seconds: float, seed: int
) -> dict[str, Any]:
    rows = {}
    for name, trials in results.items():
        rows[name] = {
            "trials": len(trials),
            "killed": sum(t.killed for t in trials),
            "integrity_failures": sum(t.integrity != "ok" for t in trials),
            "rerun_mismatches": sum(bool(t.differences) for t in trials),
            "empty_centrality": sum(t.centrality_gaps > 0 for t in trials),
            "fts_failures": sum(not t.fts_ok for t in trials),
            "clean_run_seconds": clean[name],
        }
    every = [t for trials in results.values() for t in trials]
    return {
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version}",
        "seed": seed,
        "workloads": rows,
        "trials": len(every),
        "killed": sum(t.killed for t in every),
        "failures": sum(not t.ok for t in every),
        "seconds": round(seconds, 1),
    }


def _print(figures: dict[str, Any]) -> None:
    print(f"kill trials on {figures['machine']} (seed {figures['seed']})")
    print(
        f"{'workload':<9} {'trials':>6} {'killed':>6} {'integrity':>9} {'mismatch':>8}"
        f" {'no-centr':>8} {'fts':>4} {'clean s':>7}"
    )
    for name, row in figures["workloads"].items():
        print(
            f"{name:<9} {row['trials']:>6} {row['killed']:>6} {row['integrity_failures']:>9}"
            f" {row['rerun_mismatches']:>8} {row['empty_centrality']:>8} {row['fts_failures']:>4}"
            f" {row['clean_run_seconds']:>7.2f}"
        )
    print(
        f"total: {figures['trials']} trials, {figures['killed']} killed mid-run,"
        f" {figures['failures']} failures, {figures['seconds']} s"
    )


if __name__ == "__main__":
    sys.exit(main())
