"""What a process imports on the two paths that run most: the PostToolUse hook and
``memlode search``, as ``python -X importtime`` reports them.

Each sample is a fresh interpreter: the hook command as registered (``HOOK_CODE post-tool``)
fed one Bash PostToolUse payload, and ``python -m memlode search redis`` on a store of one
memory (the hash embedder, no resident). A sample's figures are the sum of its modules' self
times (all, and ``memlode.*``), its module count, and whether ``memlode.redact`` was loaded
(``memlode search`` writes nothing, so it must not be). The table gives p50 over the runs.

``--tree NAME=PATH`` (repeatable) runs the same samples with ``PYTHONPATH=PATH/src``, one tree
after another within each run, so that two checkouts compare in the same minutes (another
checkout: ``git worktree add`` or a clone at another commit). Without it, this checkout.

    .venv/bin/python bench/bench_imports.py [--runs 20] [--tree before=/path --tree after=/path]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HOOK_CODE = "from memlode.hooks.dispatch import main; main(exit_process=True)"
PAYLOAD = {
    "hook_event_name": "PostToolUse",
    "session_id": "bench-imports",
    "tool_name": "Bash",
    "tool_input": {"command": "pytest -q", "description": "run the tests"},
    "tool_response": {"stdout": "3 passed", "stderr": "", "interrupted": False},
}


Sample = tuple[int, int, list[str]]  # self us of all modules, of memlode.*; the module names


def sample(cmd: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> Sample:
    """One process's import figures."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *cmd],
        input=stdin,
        env=env,
        capture_output=True,
        cwd=cwd,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} failed: {proc.stderr.decode()[-400:]}")
    total = mine = 0
    names: list[str] = []
    for line in proc.stderr.decode().splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _, name = line[len("import time:") :].split("|")
        names.append(name.strip())
        total += int(self_us)
        mine += int(self_us) if name.strip().startswith("memlode") else 0
    return total, mine, names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--tree", action="append", default=[], help="NAME=PATH of a checkout")
    args = parser.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree) or {"this": ""}
    home = Path(tempfile.mkdtemp(prefix="memlode-bench-imports-"))
    project = home / "project"
    project.mkdir()
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMLODE_")}
    base.update(
        MEMLODE_HOME=str(home), MEMLODE_EMBED_PROVIDER="hash", MEMLODE_RESIDENT_AUTOSTART="0"
    )
    envs = {
        name: {**base, "PYTHONPATH": str(Path(path) / "src")} if path else base
        for name, path in trees.items()
    }
    store = [sys.executable, "-m", "memlode", "store", "the session cache uses redis"]
    subprocess.run(store, env=next(iter(envs.values())), check=True, capture_output=True)
    payload = json.dumps({**PAYLOAD, "cwd": str(project)}).encode()
    paths = {
        "post-tool hook": (["-c", HOOK_CODE, "post-tool"], payload),
        "memlode search": (["-m", "memlode", "search", "redis"], b""),
    }
    print(
        f"python {sys.version.split()[0]}, {args.runs} runs, load average {os.getloadavg()[0]:.1f}"
    )
    head = f"{'all ms':>7} {'memlode ms':>10} {'modules':>8} {'memlode':>8}"
    print(f"{'path':15} {'tree':8} {head}  redact")
    for label, (cmd, stdin) in paths.items():
        rows: dict[str, list[Sample]] = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, env in envs.items():
                rows[name].append(sample(cmd, stdin, env, project))
        for name, found in rows.items():
            names = found[-1][2]
            print(
                f"{label:15} {name:8} {statistics.median(r[0] for r in found) / 1000:7.1f}"
                f" {statistics.median(r[1] for r in found) / 1000:10.1f} {len(names):8d}"
                f" {sum(n.startswith('memlode') for n in names):8d}"
                f"  {'yes' if 'memlode.redact' in names else 'no'}"
            )


if __name__ == "__main__":
    main()
