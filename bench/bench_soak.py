"""Soak: every kind of memlode process writing one store at once; count what survives.

For ``--seconds`` (default 60) these run side by side on one fresh store:

- ``--hook-loops`` (8) loops of installed-hook processes (``python -c HOOK_CODE <event>``, one
  process per event, as Claude Code runs them): PostToolUse Bash observations, each with a
  unique marker, a UserPromptSubmit every 10th event and a Stop every 25th (whose detached
  ``memlode ingest transcript`` reads the growing transcript below);
- ``--cli-loops`` (2) loops of ``memlode store`` (unique content, the printed id kept) and
  ``memlode list``;
- one MCP client (the SDK's stdio client on ``memlode mcp``) alternating ``store_memory`` and
  ``recall_memory``;
- a real Claude Code session (../shared/data/transcripts/spotter/sessions) copied line by line
  into a growing transcript, with ``memlode ingest transcript`` run on it in a loop.

Then it waits for the detached ingests, ingests the finished transcript once more, and
reports per writer: writes attempted, acknowledged, present; errors; ``PRAGMA
integrity_check``; and whether the transcript's rows equal a clean ingest of the same file
into a separate store. Exit status 1 if anything acknowledged is missing or integrity fails.

With ``--pg`` the store is a PostgreSQL one (a schema on the test server of bench/pg_server.py,
started and deleted here) served by its resident, and the server is stopped ``--outage-at``
seconds in for ``--outage`` seconds while the loops run, then started again (issue #35). A hook
is acknowledged when it exits 0 (its event spooled); a CLI store or an MCP store_memory only
when it succeeded (during the outage they fail, as they should, and are not acknowledged).
After the loops the spool is waited for; then per writer: acknowledged, present, lost, and
duplicated (a marker or id found in more than one row), and the resident's hook queue counts.

    .venv/bin/python bench/bench_soak.py [--seconds 60] [--hook-loops 8] [--cli-loops 2] [--json]
        [--pg [--outage-at S] [--outage S]]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memlode.cli.claude_cmds import HOOK_CODE

SESSIONS = Path(__file__).resolve().parents[2] / "shared" / "data" / "transcripts" / "spotter"
TRANSCRIPT = SESSIONS / "sessions" / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
ORIGINAL_CWD = "/home/USER/projects/spotter-worktrees/spotter-4te"


class Counts:
    """Per-writer tallies, shared by the loop threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.attempted: dict[str, int] = {}
        self.acked: dict[str, list[str]] = {}
        self.errors: dict[str, list[str]] = {}

    def attempt(self, writer: str) -> None:
        with self.lock:
            self.attempted[writer] = self.attempted.get(writer, 0) + 1

    def ack(self, writer: str, key: str) -> None:
        with self.lock:
            self.acked.setdefault(writer, []).append(key)

    def error(self, writer: str, text: str) -> None:
        with self.lock:
            self.errors.setdefault(writer, []).append(text[:300])


# --pg: the PostgreSQL store every process of the run uses (None: the home's SQLite file)
STORE_URL: list[str] = []


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLODE_")}
    env.update({"MEMLODE_HOME": str(home), "MEMLODE_EMBED_PROVIDER": "hash"})
    if STORE_URL:
        env["MEMLODE_DB"] = STORE_URL[0]
    return env


def hook_loop(
    worker: int, deadline: float, project: Path, transcript: Path, home: Path, counts: Counts
) -> None:
    env = _env(home)
    session = f"soak-session-{worker % 2}"
    base = {"session_id": session, "cwd": str(project), "transcript_path": str(transcript)}
    i = 0
    while time.monotonic() < deadline:
        i += 1
        if i % 25 == 0:
            event, payload = "stop", {**base, "hook_event_name": "Stop", "stop_hook_active": False}
        elif i % 10 == 0:
            event, payload = (
                "prompt",
                {**base, "hook_event_name": "UserPromptSubmit", "prompt": f"why {worker} {i}?"},
            )
        else:
            marker = f"soak-h{worker}-{i}"
            event, payload = (
                "post-tool",
                {
                    **base,
                    "hook_event_name": "PostToolUse",
                    "tool_name": "Bash",
                    "tool_input": {"command": f"echo {marker}"},
                    "tool_response": {"stdout": marker, "stderr": "", "interrupted": False},
                },
            )
            counts.attempt("hooks")
        proc = subprocess.run(
            [sys.executable, "-c", HOOK_CODE, event],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env=env,
            cwd=project,
            timeout=60,
        )
        if proc.returncode != 0:
            counts.error("hooks", proc.stderr.decode(errors="replace"))
        elif event == "post-tool":
            counts.ack("hooks", marker)


def cli_loop(worker: int, deadline: float, project: Path, home: Path, counts: Counts) -> None:
    env = _env(home)
    i = 0
    while time.monotonic() < deadline:
        i += 1
        counts.attempt("cli")
        store = subprocess.run(
            [sys.executable, "-m", "memlode", "store", f"soak-c{worker}-{i} checkpoint note"],
            capture_output=True,
            text=True,
            env=env,
            cwd=project,
            timeout=60,
        )
        if store.returncode == 0:
            counts.ack("cli", store.stdout.strip())
        else:
            counts.error("cli", store.stderr)
        listing = subprocess.run(
            [sys.executable, "-m", "memlode", "list", "--limit", "5"],
            capture_output=True,
            text=True,
            env=env,
            cwd=project,
            timeout=60,
        )
        if listing.returncode != 0:
            counts.error("cli-list", listing.stderr)


def transcript_loop(
    deadline: float,
    source_lines: list[str],
    transcript: Path,
    project: Path,
    home: Path,
    counts: Counts,
) -> None:
    """Append the session's lines over the run and ingest the growing file in a loop."""
    env = _env(home)
    total = len(source_lines)
    start = time.monotonic()
    span = max(deadline - start, 1.0)
    written = 0
    with transcript.open("a", encoding="utf-8") as out:
        while time.monotonic() < deadline or written < total:
            due = (
                total
                if time.monotonic() >= deadline
                else int(total * (time.monotonic() - start) / span)
            )
            if due > written:
                out.writelines(source_lines[written:due])
                out.flush()
                written = due
            if time.monotonic() >= deadline:
                break
            counts.attempt("ingest")
            proc = subprocess.run(
                [sys.executable, "-m", "memlode", "ingest", "transcript", str(transcript)],
                capture_output=True,
                text=True,
                env=env,
                cwd=project,
                timeout=120,
            )
            if proc.returncode != 0:
                counts.error("ingest", proc.stderr)


async def mcp_loop(deadline: float, project: Path, home: Path, counts: Counts) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memlode", "mcp"], env=_env(home), cwd=str(project)
    )
    with (home.parent / "mcp-stderr.log").open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            i = 0
            while time.monotonic() < deadline:
                i += 1
                counts.attempt("mcp")
                result = await session.call_tool(
                    "store_memory", {"content": f"soak-m{i} the server's note on checkpoints"}
                )
                if result.is_error or not result.structured_content:
                    counts.error("mcp", str(result.content)[:300])
                else:
                    counts.ack("mcp", result.structured_content["id"])
                recall = await session.call_tool("recall_memory", {"query": "checkpoint note"})
                if recall.is_error:
                    counts.error("mcp-recall", str(recall.content)[:300])


def _ingesters_running(transcript: Path) -> bool:
    needle = str(transcript).encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"ingest" in cmdline and needle in cmdline:
            return True
    return False


def read_store(db: Path) -> tuple[str, set[str], list[str]]:
    """Integrity, ids and contents; a corrupt store reads as far as SQLite lets it."""
    conn = sqlite3.connect(db)
    ids: set[str] = set()
    contents: list[str] = []
    try:
        integrity = "; ".join(r[0] for r in conn.execute("PRAGMA integrity_check"))
        for memory_id, content in conn.execute("SELECT id, content FROM memories"):
            ids.add(memory_id)
            contents.append(content)
    except sqlite3.DatabaseError as exc:
        integrity = f"error: {exc}"
    finally:
        conn.close()
    return integrity[:300], ids, contents


def transcript_rows(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT content_hash FROM memories WHERE source = 'transcript' ORDER BY content_hash"
        )
        return [r[0] for r in rows]
    except sqlite3.DatabaseError:
        return []
    finally:
        conn.close()


def read_pg(url: str) -> tuple[str, list[str], list[str], list[str]]:
    """A PostgreSQL store's ids, contents and transcript rows' hashes (no integrity pragma)."""
    from memlode.storage import open_store

    with open_store(url) as store:
        rows = store.query("SELECT id, content, source, content_hash FROM memories")
    ids = [str(r[0]) for r in rows]
    contents = [str(r[1]) for r in rows]
    transcript = sorted(str(r[3]) for r in rows if r[2] == "transcript")
    return "n/a (PostgreSQL)", ids, contents, transcript


def outage(server: Any, at: float, length: float, log: list[str]) -> None:
    """Stop the server ``at`` seconds from now for ``length`` seconds, then start it again."""
    time.sleep(at)
    began = time.monotonic()
    server.halt()
    log.append(f"server stopped at +{at:.0f} s")
    time.sleep(length)
    server.resume()
    log.append(f"server started again after {time.monotonic() - began:.1f} s")


def wait_for_spool(home: Path, url: str, limit: float) -> dict[str, Any]:
    """Wait until the store's hook spool is applied (at most ``limit`` s); its last status."""
    from memlode.resident_client import spool

    deadline = time.monotonic() + limit
    report = spool.for_store(str(home), url)
    while report["lines"] and time.monotonic() < deadline:
        time.sleep(0.5)
        report = spool.for_store(str(home), url)
    return report


def resident_status(home: Path, project: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "memlode", "resident", "status", "--json"],
        capture_output=True,
        text=True,
        env=_env(home),
        cwd=project,
    )
    try:
        value = json.loads(done.stdout)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def run(
    seconds: float,
    hook_loops: int,
    cli_loops: int,
    server: Any = None,
    outage_at: float = 0.0,
    outage_s: float = 0.0,
) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="memlode-soak-"))
    home, project = tmp / "home", tmp / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    transcript = tmp / "session.jsonl"
    transcript.touch()
    lines = [
        line.replace(ORIGINAL_CWD, str(project))
        for line in TRANSCRIPT.read_text(encoding="utf-8").splitlines(keepends=True)
    ]
    counts = Counts()
    reference_url = ""
    if server is not None:
        STORE_URL[:] = [server.url(schema=server.new_schema())]
        reference_url = server.url(schema=server.new_schema())
    # The store exists (and is migrated) before the writers start, as it would in use.
    subprocess.run(
        [sys.executable, "-m", "memlode", "stats"],
        env=_env(home),
        cwd=project,
        check=True,
        capture_output=True,
    )
    outages: list[str] = []
    if server is not None:  # the store's resident applies the hooks' spool
        subprocess.run(
            [sys.executable, "-m", "memlode", "resident"],
            env={**_env(home), "MEMLODE_RESIDENT_IDLE": str(int(seconds) + 600)},
            cwd=project,
            check=True,
            capture_output=True,
        )
    started = time.monotonic()
    deadline = started + seconds
    if server is not None and outage_s > 0:
        threading.Thread(
            target=outage, args=(server, outage_at, outage_s, outages), daemon=True
        ).start()
    threads = [
        threading.Thread(target=hook_loop, args=(w, deadline, project, transcript, home, counts))
        for w in range(hook_loops)
    ]
    threads += [
        threading.Thread(target=cli_loop, args=(w, deadline, project, home, counts))
        for w in range(cli_loops)
    ]
    threads.append(
        threading.Thread(
            target=transcript_loop, args=(deadline, lines, transcript, project, home, counts)
        )
    )
    for thread in threads:
        thread.start()
    asyncio.run(mcp_loop(deadline, project, home, counts))
    for thread in threads:
        thread.join()
    while _ingesters_running(transcript) and time.monotonic() < deadline + 120:
        time.sleep(0.2)
    final = subprocess.run(
        [sys.executable, "-m", "memlode", "ingest", "transcript", str(transcript)],
        capture_output=True,
        text=True,
        env=_env(home),
        cwd=project,
    )
    if final.returncode != 0:
        counts.error("ingest", final.stderr)
    spool: dict[str, Any] = {}
    queue: dict[str, Any] = {}
    if server is not None:
        spool = wait_for_spool(home, STORE_URL[0], 300)
        queue = resident_status(home, project).get("hook_queue", {})
    elapsed = time.monotonic() - started

    ref_home = tmp / "reference-home"
    ref_env = _env(ref_home)
    if reference_url:
        ref_env["MEMLODE_DB"] = reference_url
    subprocess.run(
        [sys.executable, "-m", "memlode", "ingest", "transcript", str(transcript)],
        capture_output=True,
        env=ref_env,
        cwd=project,
        check=True,
    )
    db = home / "memlode.db"
    if server is not None:
        integrity, id_list, contents, soak_rows = read_pg(STORE_URL[0])
        ref_rows = read_pg(reference_url)[3]
        ids = set(id_list)
        subprocess.run(  # the resident goes with the run
            [sys.executable, "-m", "memlode", "resident", "stop"],
            env=_env(home),
            cwd=project,
            capture_output=True,
        )
    else:
        integrity, ids, contents = read_store(db)
        id_list = list(ids)
        soak_rows, ref_rows = transcript_rows(db), transcript_rows(ref_home / "memlode.db")
    hook_markers = set(counts.acked.get("hooks", []))
    # rows holding each hook marker: an event's observation holds its one marker (a session
    # summary listing several is not a copy of an event)
    marker_rows: dict[str, int] = {}
    for text in contents:
        words = {w.strip("`'\".,:;()") for w in text.split()}
        markers = [w for w in words if w.startswith("soak-h")]
        if len(markers) == 1:
            marker_rows[markers[0]] = marker_rows.get(markers[0], 0) + 1
        for word in markers[1:] if len(markers) > 1 else ():
            marker_rows.setdefault(word, 0)
        if len(markers) > 1:
            marker_rows.setdefault(markers[0], 0)
    present_markers = {m for m, rows in marker_rows.items() if rows}
    id_rows: dict[str, int] = {}
    for key in id_list:
        id_rows[key] = id_rows.get(key, 0) + 1
    writers: dict[str, dict[str, int]] = {}
    for writer in ("hooks", "cli", "mcp"):
        acked = counts.acked.get(writer, [])
        present = (
            len(hook_markers & present_markers)
            if writer == "hooks"
            else sum(1 for key in acked if key in ids)
        )
        duplicated = (
            sum(1 for m in hook_markers if marker_rows.get(m, 0) > 1)
            if writer == "hooks"
            else sum(1 for key in acked if id_rows.get(key, 0) > 1)
        )
        writers[writer] = {
            "attempted": counts.attempted.get(writer, 0),
            "acknowledged": len(acked),
            "present": present,
            "lost": len(acked) - present,
            "duplicated": duplicated,
        }
    return {
        "seconds": round(elapsed, 1),
        "writers": writers,
        "ingest_runs": counts.attempted.get("ingest", 0),
        "transcript_rows": len(soak_rows),
        "transcript_equals_clean_ingest": soak_rows == ref_rows,
        "errors": {k: len(v) for k, v in counts.errors.items()},
        "error_samples": {k: v[:3] for k, v in counts.errors.items()},
        "integrity": integrity,
        "store": STORE_URL[0].split("?")[0] if STORE_URL else str(db),
        "outage": outages,
        "spool_left": {k: spool[k] for k in ("lines", "refused")} if spool else None,
        "hook_queue": {k: v for k, v in queue.items() if k != "spool"},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--hook-loops", type=int, default=8)
    parser.add_argument("--cli-loops", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pg", action="store_true", help="a PostgreSQL store, with an outage")
    parser.add_argument("--outage-at", type=float, default=None, help="s in (default: 1/3)")
    parser.add_argument("--outage", type=float, default=8.0, help="s the server is down")
    args = parser.parse_args()
    if not TRANSCRIPT.is_file():
        print(f"bench_soak: {TRANSCRIPT} is missing (../shared/data)", file=sys.stderr)
        return 1
    if args.pg:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from bench import pg_server

        server = pg_server.start()
        try:
            at = args.seconds / 3 if args.outage_at is None else args.outage_at
            report = run(args.seconds, args.hook_loops, args.cli_loops, server, at, args.outage)
        finally:
            server.stop()
    else:
        report = run(args.seconds, args.hook_loops, args.cli_loops)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"soak: {report['seconds']} s, store {report['store']}")
        for line in report["outage"]:
            print(f"outage: {line}")
        print(f"{'writer':8} {'attempted':>9} {'acked':>7} {'present':>8} {'lost':>5} {'dup':>5}")
        for name, row in report["writers"].items():
            print(
                f"{name:8} {row['attempted']:>9} {row['acknowledged']:>7} {row['present']:>8}"
                f" {row['lost']:>5} {row['duplicated']:>5}"
            )
        if report["hook_queue"]:
            print(f"hook queue: {report['hook_queue']}; spool left: {report['spool_left']}")
        print(
            f"transcript: {report['ingest_runs']} ingest runs, {report['transcript_rows']} rows,"
            f" equal to a clean ingest: {report['transcript_equals_clean_ingest']}"
        )
        print(f"errors: {report['errors'] or 'none'}")
        for name, samples in report["error_samples"].items():
            for sample in samples:
                print(f"  {name}: {sample.strip().splitlines()[-1] if sample.strip() else ''}")
        print(f"integrity_check: {report['integrity']}")
    lost = sum(row["lost"] + row["duplicated"] for row in report["writers"].values())
    integrity_ok = report["integrity"] in ("ok", "n/a (PostgreSQL)")
    ok = lost == 0 and integrity_ok and report["transcript_equals_clean_ingest"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
