"""A month of sessions generated from the shared real ones, consolidated.

The three real Claude Code sessions on the spotter repository (``../shared/data/transcripts/
spotter/sessions``) are replayed through the installed hooks, as the session replay does, but
all into ONE project and ``--rounds`` times over, each time under a new session id: one
person's month of work on one repository, where the same files are read again, the same tests
run again and the same questions asked again across sessions. The store the hooks wrote is
embedded, then consolidated with the default cycles (``memlode consolidate --json``), then
consolidated again (a re-run must change nothing). Printed: rows before and after, summaries,
members demoted, patterns and reflections written (each pattern's sentence), links drawn,
seconds per cycle, and the re-run's changes.

    .venv/bin/python bench/bench_month.py [--rounds 10] [--keep DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memlode.evaluation.replay import _detached_running, _install
from memlode.evaluation.replay_hooks import InstalledHooks, replay_transcript

SESSIONS = Path(__file__).resolve().parents[1] / "../shared/data/transcripts/spotter/sessions"


def _memlode(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlode", *args], env=env, capture_output=True, text=True
    )


def _count(db: Path, sql: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(sql).fetchone()[0])


def replay_month(work: Path, rounds: int) -> tuple[dict[str, str], Path, float]:
    home, fake_home = work / "memlode-home", work / "home"
    fake_home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLODE_", "CLAUDE_"))}
    env.update({"HOME": str(fake_home), "MEMLODE_HOME": str(home)})
    env["MEMLODE_CONSOLIDATE_EVERY"] = "0"  # consolidated below, not by the resident midway
    env["MEMLODE_EMBED_PROVIDER"] = os.environ.get("MEMLODE_EMBED_PROVIDER", "local")
    project = work / "projects" / "spotter"
    project.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=env)
    hooks = InstalledHooks(
        _install(work, env, project), {**env, "CLAUDE_PROJECT_DIR": str(project)}, project
    )
    enc = re.sub(r"[^A-Za-z0-9]", "-", str(project))
    sources = sorted(SESSIONS.resolve().glob("*.jsonl"))
    transcripts = []
    started = time.monotonic()
    for round_ in range(rounds):
        for source in sources:
            session_id = f"{source.stem[:8]}-r{round_:02d}"
            target = fake_home / ".claude" / "projects" / enc / f"{session_id}.jsonl"
            replay_transcript(source, target, hooks, project, session_id=session_id)
            transcripts.append(str(target))
        print(f"round {round_ + 1}/{rounds}: {time.monotonic() - started:.0f} s", file=sys.stderr)
    deadline = time.monotonic() + 300
    while _detached_running(transcripts) and time.monotonic() < deadline:
        time.sleep(0.5)
    _memlode(env, "resident", "stop")
    return env, home / "memlode.db", time.monotonic() - started


def consolidate(env: dict[str, str], db: Path) -> dict[str, Any]:
    embedded = _memlode(env, "embed")
    before = _count(db, "SELECT count(*) FROM memories")
    first = _memlode(env, "consolidate", "-n", "*", "--json")
    if first.returncode != 0:
        raise SystemExit(first.stderr)
    runs = json.loads(first.stdout)
    again = json.loads(_memlode(env, "consolidate", "-n", "*", "--json").stdout)
    patterns = json.loads(_memlode(env, "patterns", "-n", "*", "--limit", "100", "--json").stdout)
    seconds: dict[str, float] = {}
    counts: dict[str, dict[str, int]] = {}
    for run in runs:
        seconds[run["cycle"]] = round(seconds.get(run["cycle"], 0.0) + run["seconds"], 3)
        into = counts.setdefault(run["cycle"], {})
        for key, value in run["counts"].items():
            into[key] = into.get(key, 0) + int(value)
    return {
        "embed": embedded.stdout.strip() or embedded.stderr.strip(),
        "sessions": _count(db, "SELECT count(*) FROM sessions"),
        "rows_before": before,
        "rows_after": _count(db, "SELECT count(*) FROM memories"),
        "by_source_after": dict(
            sqlite3.connect(db).execute("SELECT source, count(*) FROM memories GROUP BY 1")
        ),
        "demoted": _count(db, "SELECT count(*) FROM memory_demotions"),
        "counts": counts,
        "seconds": seconds,
        "rerun_changes": sum(len(r["changes"]) for r in again),
        "patterns": [
            f"[{p['strength']:.2f} {p['kind']}, {p['evidence']} evidence] {p['text']}"
            for p in patterns["patterns"]
        ],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="memlode-month-"))
    env, db, replay_s = replay_month(work, args.rounds)
    result = {"rounds": args.rounds, "replay_seconds": round(replay_s, 1), **consolidate(env, db)}
    result["work"] = str(work)
    print(json.dumps(result, indent=2 if args.json else None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
