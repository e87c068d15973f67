"""Many hooks writing at once: 8 parallel processes x 200 events, no observation lost and no
"database is locked" anywhere.

Each worker process handles its events through ``memlode.hooks.dispatch.run``, opening a fresh
connection per event exactly as a fresh hook process does (interpreter start-up is left out to
keep the test within a minute); a smaller run then starts every hook as its own process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from memlode.engine import Engine

WORKERS = 8
EVENTS_PER_WORKER = 200

WORKER = r"""
import json, sys
from memlode.hooks.dispatch import run

worker, count, cwd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
for j in range(count):
    session = f"session-{worker % 2}"
    base = {"session_id": session, "cwd": cwd}
    if j % 50 == 49:
        event, payload = "stop", {**base, "stop_hook_active": False}
    elif j % 10 == 0:
        event, payload = "prompt", {**base, "prompt": f"worker {worker} question {j}"}
    elif j % 3 == 0:
        path = f"{cwd}/src/shared_{j % 4}.py"
        event, payload = "post-tool", {**base, "tool_name": "Edit",
            "tool_input": {"file_path": path, "old_string": f"a={worker}", "new_string": f"a={j}"},
            "tool_response": {"filePath": path, "structuredPatch": [{"newStart": j, "newLines": 1,
                "lines": [f"-a={worker}", f"+a={j}"]}]}}
    elif j % 3 == 1:
        path = f"{cwd}/src/shared_{j % 4}.py"
        event, payload = "post-tool", {**base, "tool_name": "Read",
            "tool_input": {"file_path": path, "offset": j, "limit": worker + 1}}
    else:
        event, payload = "post-tool", {**base, "tool_name": "Bash",
            "tool_input": {"command": f"echo worker {worker} event {j}"},
            "tool_response": {"stdout": f"worker {worker} event {j}"}}
    out = run(event, json.dumps(payload).encode())
    if out is not None and event != "prompt":
        sys.exit(f"unexpected output for {event}: {out}")
"""


def expected_observations(workers: int, count: int) -> int:
    return sum(1 for _ in range(workers) for j in range(count) if j % 50 != 49)


def test_parallel_hooks_lose_nothing(project: Path, proj_engine: Engine, memlode_home: Path):
    env = {**os.environ, "MEMLODE_HOOKS_INJECT": "0"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(i), str(EVENTS_PER_WORKER), str(project)],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(WORKERS)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
        assert out == b""
    log = memlode_home / "hooks.log"
    assert not log.exists(), log.read_text()
    memories = proj_engine.list_memories(sources=["hook"], limit=None)
    observations = [m for m in memories if "session-summary" not in m.tags]
    assert len(observations) == expected_observations(WORKERS, EVENTS_PER_WORKER)
    summaries = [m for m in memories if "session-summary" in m.tags]
    assert len(summaries) == 2  # one per session, refreshed in place
    evolved = proj_engine.conn.execute(
        "SELECT count(*) FROM graph_edges WHERE relationship = 'EVOLVED_INTO'"
    ).fetchone()[0]
    assert evolved > 0


def test_parallel_hook_processes(hook, project: Path, proj_engine: Engine, memlode_home: Path):
    def one(n: int) -> Any:
        payload = {
            "session_id": f"p-{n % 3}",
            "cwd": str(project),
            "tool_name": "Bash",
            "tool_input": {"command": f"echo process {n}"},
            "tool_response": {"stdout": f"process {n}"},
        }
        return hook("post-tool", json.dumps(payload))

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        results = list(pool.map(one, range(WORKERS * 5)))
    assert {(r.returncode, r.stdout, r.stderr) for r in results} == {(0, "", "")}
    assert not (memlode_home / "hooks.log").exists()
    assert len(proj_engine.list_memories(sources=["hook"], limit=None)) == WORKERS * 5
