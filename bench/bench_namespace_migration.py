"""Migration 0010 on a large old store: how long re-keying folder-name namespaces takes.

Builds a store at schema 9 (before project identities) whose namespace ``app`` holds the rows
of two repositories both called ``app`` (hook sessions with their cwd, observations with their
file, transcript turns with their cwd, CLI memories with no path) plus a one-project namespace,
then opens it the way any memlode command does and times the upgrade; reports what moved.

    .venv/bin/python bench/bench_namespace_migration.py [--memories 200000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

from memlode.storage.db import connect
from memlode.storage.migrations import MIGRATIONS, split_statements

NOW = "2026-11-01T00:00:00.000000Z"


def old_store(path: Path, roots: list[Path], memories: int) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL)"
    )
    conn.execute("BEGIN")
    for version, name, script in MIGRATIONS:
        if version >= 10:
            break
        for statement in split_statements(script):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, name, NOW))
    sessions = 201  # a multiple of the roots: session k is in roots[k % 3]
    for s in range(sessions):
        root = roots[s % len(roots)]
        conn.execute(
            "INSERT INTO sessions (id, namespace, source, started_at, metadata)"
            " VALUES (?, ?, 'claude-code', ?, ?)",
            (f"s{s}", root.name, NOW, json.dumps({"cwd": str(root / "src")})),
        )
    rows = []
    for i in range(memories):
        root = roots[i % len(roots)]
        kind = i % 10
        if kind < 6:  # a hook observation, in one of its root's sessions
            own = (i // len(roots)) % (sessions // len(roots)) * len(roots) + i % len(roots)
            meta, session = {"file": f"{root}/src/m{i % 97}.py", "tool": "Edit"}, f"s{own}"
        elif kind < 9:  # a transcript turn
            meta, session = {"cwd": str(root), "kind": "turn", "turn": i}, None
        else:  # stored from the CLI: no path
            meta, session = {}, None
        content = f"memory {i} about module m{i % 97} in {root.parent.name}"
        rows.append((f"id{i}", content, f"h{i}", root.name, json.dumps(meta), session, NOW, NOW))
        if len(rows) == 10_000:
            conn.executemany(
                "INSERT INTO memories (id, content, content_hash, namespace, metadata,"
                " session_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            rows = []
    if rows:
        conn.executemany(
            "INSERT INTO memories (id, content, content_hash, namespace, metadata, session_id,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    conn.execute("COMMIT")
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=200_000)
    parser.add_argument("--keep", type=Path, default=None, help="build under this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        roots = [base / "one" / "app", base / "two" / "app", base / "solo"]
        for root in roots:
            root.mkdir(parents=True, exist_ok=True)
            if not (root / ".git").exists():
                subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run(
            ["git", "-C", str(roots[0]), "remote", "add", "origin", "git@example.com:a/app.git"],
            check=False,
            capture_output=True,
        )
        db = base / "old.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        started = time.perf_counter()
        old_store(db, roots, args.memories)
        built = time.perf_counter() - started
        started = time.perf_counter()
        conn = connect(db)  # what every memlode command does first: applies 0010 (and later)
        upgraded = time.perf_counter() - started
        by_ns = conn.execute(
            "SELECT namespace, count(*) FROM memories GROUP BY namespace ORDER BY 2 DESC"
        ).fetchall()
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        conn.close()
        size = sum(os.path.getsize(f"{db}{s}") for s in ("", "-wal") if os.path.exists(f"{db}{s}"))
        print(
            f"{args.memories} memories ({size / 1e6:.0f} MB), 201 sessions, 3 roots:"
            f" built in {built:.1f} s, upgraded (migrations 10+) in {upgraded:.2f} s,"
            f" integrity {integrity}"
        )
        for namespace, count in by_ns:
            print(f"  {namespace:<20} {count}")


if __name__ == "__main__":
    main()
