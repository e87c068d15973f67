"""Hook wall time per event, as whole processes, against a same-run baseline (issue 36's method).

Each sample is one fresh interpreter fed one real-shaped payload on stdin, started with the
command ``memlode init`` registers (``python -c HOOK_CODE <event>``, as its argv: the shell the
assistant runs it through is left out of both sides). The baseline is the same interpreter
doing the least a capturing hook must do: ``python -c`` that opens a copy of the hook's store
with the same pragmas (busy_timeout, WAL, synchronous=NORMAL, foreign keys), inserts one memory
row shaped like a stored one (every column of the newest row the PostToolUse hook stored in the
warm-up, with a new id, hash and time) and commits. Every hook sample is paired with a baseline
sample run just before or just after it (alternating), and each event's ratio is its p50 over
the p50 of its own paired baselines; the pairs are taken in a new random order each round, so
that machine noise hits hooks and baselines alike. The table also gives CPU time, which noise
disturbs less.

Hooks end with ``os._exit`` and so skip the WAL checkpoint that closing the last connection
runs; ``baseline-noclose`` shows the baseline doing the same.

Targets: PostToolUse p50 <= 1.1 (issue 36); Stop p50 and p95 <= 1.25, UserPromptSubmit and
SessionStart p50 and p95 <= 1.5 (issue 5).

With ``--pg`` (the test server of bench/pg_server.py, started and deleted here) or ``--db URL``
(a server of yours; a schema is made in it and dropped) the hooks run on a PostgreSQL store
filled the same way, with its resident up (``memlode resident``, the deterministic ``hash``
embedder so that no model competes for the CPU): each hook spools its event and hands it to
the resident (``memlode.hooks.handoff``). The baseline is the same bare SQLite insert, in the
same run. Rows ``*-spool`` are the same hooks on a second PostgreSQL store that no resident
serves (autostart off): they only append to the spool.

With ``--clients`` the rows also hold the other assistants' hooks, each fed a payload its real
CLI sent (tests/clients/payloads/<client>/, read as data) through the command ``memlode init
--client X`` installs (``python -c HOOK_CODE <event> <client>``: the client's adapter, then the
same handler), and ``shared:prompt``: the prompt hook as a team's committed files run it (the
``memlode-hook`` console script of this interpreter's environment, fed the prompt row's payload).

    .venv/bin/python bench/bench_hooks.py [--runs 40] [--memories 3000] [--pg | --db URL]
        [--clients]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memlode.hook_events import HOOK_CODE

# The baseline: ``ROW`` is the stored row's columns (``stored_shape``), given a new id, hash and
# time; its content gets the id so that no two rows are equal.
BASELINE = """
import sqlite3, sys, os
ROW = %r
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA busy_timeout=5000")
conn.execute("PRAGMA journal_mode=WAL")
conn.execute("PRAGMA synchronous=NORMAL")
conn.execute("PRAGMA foreign_keys=ON")
conn.execute("BEGIN IMMEDIATE")
key = os.urandom(16).hex()
row = dict(ROW, id=key, content_hash=key, content=ROW["content"] + " " + key)
row["created_at"] = row["updated_at"] = "2026-01-01T00:00:00.000000Z"
names = ", ".join(row)
conn.execute(
    "INSERT INTO memories (" + names + ") VALUES (" + ", ".join("?" * len(row)) + ")",
    tuple(row.values()),
)
conn.execute("COMMIT")
if len(sys.argv) > 2:  # the variant that skips the close-time WAL checkpoint, as hooks do
    os._exit(0)
conn.close()
"""

# A column a stored row takes from the insert, not from the baseline's copy of it.
GENERATED = ("rowid",)


def stored_shape(db: Path, source: str = "hook") -> dict[str, Any]:
    """Every column of the newest row of ``source`` (the hooks': the warm-up's PostToolUse
    rows)."""
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        # on a PostgreSQL store the hooks stored theirs there: the newest captured row here
        cursor = conn.execute(
            "SELECT * FROM memories WHERE source = ?"
            " ORDER BY session_id = 'bench-session' DESC, created_at DESC LIMIT 1",
            (source,),
        )
        row = cursor.fetchone()
        names = [column[0] for column in cursor.description]
    finally:
        conn.close()
    if row is None:
        raise SystemExit(f"no row of source {source!r} in {db}")
    return {k: v for k, v in zip(names, row, strict=True) if k not in GENERATED}


# event -> (target ratio, whether p95 is held to it too)
TARGETS = {
    "post-tool": (1.1, False),
    "stop": (1.25, True),
    "prompt": (1.5, True),
    "session-start": (1.5, True),
}
SPOOLED = ("post-tool", "prompt")  # measured on a store no resident serves (--pg, --db)
# The words the prompts use; the stored memories draw from these plus a long tail of 5,000
# made-up words with a Zipf-like frequency, so that a query matches a realistic share of rows.
WORDS = [
    *["auth", "token", "expiry", "login", "session", "cache", "retry", "queue", "parser"],
    *["config", "schema", "migration", "index", "vector", "graph", "edge", "node", "handler"],
    *["request", "response", "timeout", "error", "budget", "client", "server"],
]


def _sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def populate(home: Path, project: Path, memories: int, db: str | None = None) -> None:
    """A store that looks used: curated memories, captured observations, past sessions."""
    env = {**os.environ, "MEMLODE_HOME": str(home), "MEMLODE_EMBED_PROVIDER": "none"}
    if db is not None:
        env["MEMLODE_DB"] = db
    script = f"""
import random
from memlode.config import Settings
from memlode.engine import Engine
rng = random.Random(7)
syllables = ["ka", "lo", "mi", "tr", "an", "se", "po", "ur", "ex", "il", "ob", "qu"]
tail = ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(5000)]
words = {WORDS!r} + tail
weights = [1.0 / (rank + 1) for rank in range(len(words))]
rng.shuffle(weights)
from memlode.project import detect_namespace
with Engine(Settings.load({{"namespace": detect_namespace("{project}")}})) as e:
    items = []
    for i in range({memories}):
        text = " ".join(rng.choices(words, weights, k=14)) + f" #{{i}}"
        kind = rng.choice(["decision", "insight", "pattern", "context", "context"])
        source = rng.choice(["memory", "hook"])
        items.append(e.new_memory(text, kind, importance=rng.random(), source=source))
    e.store_many(items)
    for s in range(20):
        e.start_session(f"old-{{s}}", source="claude-code")
        summary = "Session summary (x)\\nPrompts (1): fix the login token\\nEdited (1): auth.py"
        e.end_session(f"old-{{s}}", summary)
"""
    subprocess.run([sys.executable, "-c", script], env=env, check=True, cwd=project)


def payloads(project: Path, rng: random.Random, i: int) -> dict[str, dict[str, Any]]:
    file_path = str(project / "src" / f"mod_{i % 25}.py")
    base = {
        "session_id": "bench-session",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
    }
    tools = [
        {
            "tool_name": "Read",
            "tool_input": {"file_path": file_path},
            "tool_response": {
                "type": "text",
                "file": {
                    "filePath": file_path,
                    "content": "def handler():\n    pass\n" * 200 + f"# {i}\n",
                    "numLines": 401,
                    "startLine": 1,
                    "totalLines": 401,
                },
            },
        },
        {
            "tool_name": "Edit",
            "tool_input": {
                "file_path": file_path,
                "old_string": f"exp={i}",
                "new_string": f"exp={i * 60}",
            },
            "tool_response": {
                "filePath": file_path,
                "oldString": f"exp={i}",
                "newString": f"exp={i * 60}",
                "originalFile": "x = 1\n" * 2000,
                "structuredPatch": [
                    {
                        "oldStart": 9,
                        "oldLines": 3,
                        "newStart": 9,
                        "newLines": 3,
                        "lines": [" def login():", f"-    exp={i}", f"+    exp={i * 60}", " "],
                    }
                ],
                "userModified": False,
                "replaceAll": False,
            },
        },
        {
            "tool_name": "Bash",
            "tool_input": {"command": f"pytest -q tests/test_{i}.py", "description": "run"},
            "tool_response": {
                "stdout": "." * 300 + f"\n{i} passed",
                "stderr": "",
                "interrupted": False,
            },
        },
        {
            "tool_name": "Grep",
            "tool_input": {"pattern": f"exp_{i}", "path": str(project)},
            "tool_response": {
                "mode": "files_with_matches",
                "numFiles": 2,
                "filenames": [file_path],
            },
        },
    ]
    return {
        "post-tool": {**base, "hook_event_name": "PostToolUse", **tools[i % len(tools)]},
        "prompt": {
            **base,
            "hook_event_name": "UserPromptSubmit",
            "prompt": f"why does the login token expiry break the session cache? ({i})",
        },
        "session-start": {
            **base,
            "hook_event_name": "SessionStart",
            "source": "startup",
            "model": "claude-sonnet-4-6",
        },
        "stop": {
            **base,
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "Fixed: " + _sentence(rng),
        },
    }


CPU: dict[str, list[float]] = {}


# client rows: (client, memlode event) -> the recorded payload (tests/clients/payloads)
CLIENT_PAYLOADS = {
    ("codex", "prompt"): "codex/session2-02-prompt.json",
    ("codex", "post-tool"): "codex/session1-04-post-tool-bash.json",
    ("gemini", "prompt"): "gemini/session2-02-prompt.json",
    ("gemini", "post-tool"): "gemini/session1-08-post-tool-run-shell-command.json",
    ("opencode", "prompt"): "opencode/chat.message.json",
    ("opencode", "post-tool"): "opencode/tool.execute.after.bash-exit-0.json",
}
PAYLOADS = Path(__file__).resolve().parents[1] / "tests" / "clients" / "payloads"


def client_rows(project: Path) -> dict[str, tuple[list[str], bytes]]:
    """Row name -> (command, payload) for the other clients and the shared command."""
    rows: dict[str, tuple[list[str], bytes]] = {}
    for (client, event), name in CLIENT_PAYLOADS.items():
        data = json.loads((PAYLOADS / name).read_text(encoding="utf-8"))
        data["cwd"] = str(project)
        data.pop("transcript_path", None)  # the recorded run's file is gone
        rows[f"{client}:{event}"] = (
            [sys.executable, "-c", HOOK_CODE, event, client],
            json.dumps(data).encode(),
        )
    # the console script `memlode init --scope project` writes; fed the prompt row's payload
    script = Path(sys.executable).with_name("memlode-hook")
    rows["shared:prompt"] = ([str(script), "prompt"], b"")
    return rows


def timed(cmd: list[str], stdin: bytes, env: dict[str, str], cwd: Path, key: str = "") -> float:
    """Wall milliseconds of one process; its CPU milliseconds go to ``CPU[key]``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, env=env, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0 or proc.stderr:
        raise SystemExit(f"{cmd} failed: {proc.stderr.decode()[:500]}")
    if key:
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        CPU.setdefault(key, []).append(cpu * 1000)
    return elapsed * 1000


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--memories", type=int, default=3000)
    parser.add_argument("--pg", action="store_true", help="hooks on the test PostgreSQL server")
    parser.add_argument("--db", metavar="URL", help="hooks on this PostgreSQL server (a schema)")
    parser.add_argument(
        "--clients",
        action="store_true",
        help="also time Codex, Gemini and OpenCode payloads and the shared `memlode hook`",
    )
    parser.add_argument(
        "--git",
        action="store_true",
        help="make the project a git repository with an origin remote (namespace detection"
        " then reads .git/config on every event)",
    )
    args = parser.parse_args()
    if args.pg or args.db:
        with postgres(args.db) as urls:
            measure(args, urls)
    else:
        measure(args, None)


@contextlib.contextmanager
def postgres(url: str | None) -> Iterator[tuple[str, str]]:
    """Two empty stores (schemas) on the test server or on ``url``'s: (served, unserved)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench import pg_server

    server = None if url else pg_server.start()
    base = server.url() if server is not None else str(url)
    schemas = ["bench_" + os.urandom(4).hex() for _ in range(2)]

    def in_schema(schema: str) -> str:
        if server is not None:
            return str(server.url(schema=schema))
        sep = "&" if "?" in base else "?"
        return f"{base}{sep}options=-csearch_path%3D{schema}%2Cpublic"

    import psycopg

    try:
        with psycopg.connect(base, autocommit=True) as conn:
            for schema in schemas:
                conn.execute(f'CREATE SCHEMA "{schema}"')
        yield in_schema(schemas[0]), in_schema(schemas[1])
        with psycopg.connect(base, autocommit=True) as conn:
            for schema in schemas:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    finally:
        if server is not None:
            server.stop()


def measure(args: argparse.Namespace, urls: tuple[str, str] | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        project = Path(tmp) / "proj"
        (project / "src").mkdir(parents=True)
        (project / "pyproject.toml").write_text("[project]\nname='proj'\n")
        if args.git:
            (project / ".git").mkdir()
            (project / ".git" / "config").write_text(
                '[core]\n\tbare = false\n[remote "origin"]\n'
                "\turl = git@github.com:example/proj.git\n"
                "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
            )
        populate(home, project, args.memories)
        if urls is not None:
            populate(home, project, args.memories, urls[0])
        # The baseline writes to its own copy of the store, so that neither side pays for the
        # other's WAL checkpoints.
        db = Path(tmp) / "baseline" / "memlode.db"
        db.parent.mkdir()
        shutil.copyfile(home / "memlode.db", db)
        env = {**os.environ, "MEMLODE_HOME": str(home)}
        env.pop("MEMLODE_EMBED_PROVIDER", None)
        # Installed packages have their bytecode compiled; let the warm-up runs write it.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        rng = random.Random(1)
        envs = {event: env for event in TARGETS}
        if urls is not None:  # the hooks' store is the served one; *-spool rows the other
            env = {**env, "MEMLODE_DB": urls[0], "MEMLODE_RESIDENT_AUTOSTART": "0"}
            envs = {event: env for event in TARGETS}
            envs.update({f"{e}-spool": {**env, "MEMLODE_DB": urls[1]} for e in SPOOLED})
            start_resident(env, project)
        times: dict[str, list[float]] = {
            "baseline": [],
            "baseline-noclose": [],
            **{k: [] for k in envs},
        }
        extra = client_rows(project) if args.clients else {}
        times.update({name: [] for name in extra})
        # what `memlode init` installs (memlode.hook_events.HOOK_CODE)
        hook = [sys.executable, "-c", HOOK_CODE]
        for warm in range(3):  # warm the page cache and .pyc files
            shaped = payloads(project, rng, -1 - warm)
            for name, event_env in envs.items():
                data = json.dumps(shaped[name.removesuffix("-spool")]).encode()
                timed([*hook, name.removesuffix("-spool")], data, event_env, project)
            for cmd, data in extra.values():
                timed(cmd, data or json.dumps(shaped["prompt"]).encode(), env, project)
        baseline = BASELINE % (stored_shape(home / "memlode.db"),)
        for _ in range(3):
            timed([sys.executable, "-c", baseline, str(db)], b"", env, project)

        def sample(event: str, shaped: dict[str, dict[str, Any]]) -> float:
            if event == "baseline":
                cmd = [sys.executable, "-c", baseline, str(db)]
                return timed(cmd, b"", env, project, event)
            if event == "baseline-noclose":
                cmd = [sys.executable, "-c", baseline, str(db), "noclose"]
                return timed(cmd, b"", env, project, event)
            if event in extra:
                cmd, data = extra[event]
                data = data or json.dumps(shaped["prompt"]).encode()
                return timed(cmd, data, env, project, event)
            name = event.removesuffix("-spool")
            data = json.dumps(shaped[name]).encode()
            return timed([*hook, name], data, envs[event], project, event)

        # each sample of a row is paired with a baseline sample, before it or after it in turn
        paired: dict[str, list[float]] = {k: [] for k in times if k != "baseline"}
        for i in range(args.runs):
            order = list(paired)
            rng.shuffle(order)
            shaped = payloads(project, rng, i)
            for j, event in enumerate(order):
                base_first = (i + j) % 2 == 0
                if base_first:
                    paired[event].append(sample("baseline", shaped))
                times[event].append(sample(event, shaped))
                if not base_first:
                    paired[event].append(sample("baseline", shaped))
                times["baseline"].append(paired[event][-1])
        if urls is not None:
            stop_resident(env, project)
        report(times, paired, args)
        if urls is not None:
            answered(urls[0], args.runs)


def answered(url: str, runs: int) -> None:
    """How many timed prompts the resident ranked while their hook waited (the others were
    applied later, without injection)."""
    from memlode.storage import open_store

    with open_store(url) as store:
        rows = store.query(
            "SELECT metadata FROM memories WHERE session_id = 'bench-session' AND content LIKE ?",
            ("why does the login token expiry%",),
        )
    ranked = sum(1 for (meta,) in rows if json.loads(meta).get("recall") == "resident")
    print(f"prompts ranked by the resident while the hook waited: {ranked} of {len(rows)}")


def start_resident(env: dict[str, str], project: Path) -> None:
    """The store's resident, warm, never idling out, with the ``hash`` embedder."""
    env = {**env, "MEMLODE_EMBED_PROVIDER": "hash", "MEMLODE_RESIDENT_IDLE": "0"}
    memlode = [sys.executable, "-m", "memlode", "resident"]
    subprocess.run(memlode, env=env, cwd=project, check=True, capture_output=True)
    for _ in range(600):
        done = subprocess.run(
            [*memlode, "status", "--json"], env=env, cwd=project, text=True, capture_output=True
        )
        if done.returncode == 0 and json.loads(done.stdout).get("ready"):
            return
        time.sleep(0.1)
    raise SystemExit("the resident did not get ready")


def stop_resident(env: dict[str, str], project: Path) -> None:
    memlode = [sys.executable, "-m", "memlode", "resident", "stop"]
    subprocess.run(memlode, env=env, cwd=project, check=False, capture_output=True)


def report(
    times: dict[str, list[float]], paired: dict[str, list[float]], args: argparse.Namespace
) -> None:
    cpu_base = statistics.median(CPU["baseline"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    store = "PostgreSQL with its resident up" if args.pg or args.db else "SQLite"
    print(
        f"hooks on {store}; python {sys.version.split()[0]}, {args.runs} runs per row,"
        f" {args.memories} memories,"
        f"{' git project,' if args.git else ''}"
        f" {os.cpu_count()} CPUs, load average {load:.1f}"
    )
    head = f"{'event':<17}{'p50 ms':>8}{'p95 ms':>8}{'base ms':>8}{'p50 x':>7}{'p95 x':>7}"
    print(head + f"{'cpu ms':>8}{'cpu x':>7}{'target':>8}")
    for event, samples in times.items():
        base = paired.get(event, samples)
        p50, p95 = pct(samples, 0.5), pct(samples, 0.95)
        r50, r95 = p50 / pct(base, 0.5), p95 / pct(base, 0.95)
        cpu = statistics.median(CPU[event])
        target, with_p95 = TARGETS.get(event.removesuffix("-spool").split(":")[-1], (None, False))
        verdict = ""
        if target is not None:
            held = max(r50, r95) if with_p95 else r50
            verdict = f"{target:>6.2f} " + ("ok" if held <= target else "OVER")
        print(
            f"{event:<17}{p50:>8.1f}{p95:>8.1f}{pct(base, 0.5):>8.1f}{r50:>7.2f}{r95:>7.2f}"
            f"{cpu:>8.1f}{cpu / cpu_base:>7.2f} {verdict}"
        )
    print(
        "x = ratio to the row's own paired baseline samples (base ms: their p50; open a copy of"
        " the store with the same pragmas, insert one row shaped like the hook's, commit,"
        " close); cpu x against every baseline sample; baseline-noclose skips the close-time"
        " WAL checkpoint as the hooks do. Targets: p50 (post-tool), p50 and p95 (the others)."
    )


if __name__ == "__main__":
    main()
