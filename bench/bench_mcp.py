"""MCP server latency: start to first answered ``tools/list``, and ``recall_memory`` round trips.

Start-up is what a client waits for when it launches ``memlode mcp`` (Claude Code does on every
session): the time from spawning the process to the answer of the first ``tools/list``, through
the SDK's real stdio client (so it includes ``initialize``). Each run is a fresh process on a
home an earlier start has used (as an assistant restarts it; the first start on a fresh home
is shown apart), and each is paired with a start of a minimal one-tool server written with the
same SDK (``MINIMAL_SERVER``), alternating which goes first, so the ratio of the two compares
like with like on a machine whose speed drifts. The import share is measured separately: a process
that only imports and builds what ``memlode mcp`` does before it serves, next to a bare
interpreter.

The first ``recall_memory`` after ``tools/list`` is what an assistant's first question waits
for: a fresh server over a store of N memories, timed from the ``tools/list`` answer to the
recall's answer (the client sends the call at once), without and with the store's resident
already up in another process (``memlode resident``, as the SessionStart hook starts it).

Round trips are ``recall_memory`` calls on one warm server over a store of N memories, with the
deterministic embedder by default (``--embed local`` for the real model), after the background
embedder has caught up. Then every part of the server that embeds is made to embed (a tool
call, the background embedder after a store, the resident socket a hook asks) and the server's
resident memory (VmRSS, Linux) is read: with ``--embed local`` it shows how many copies of the
model the process holds.

    python bench/bench_mcp.py                  # 10 starts, 200 recalls over 2,000 memories
    python bench/bench_mcp.py --starts 20 --memories 10000 --json
    python bench/bench_mcp.py --starts 30 --first-recall-memories 10000 --only start
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memlode import __version__
from memlode.config import Settings
from memlode.engine import Engine

_VOCABULARY = """
auth token session cache redis postgres migration schema index query deploy release rollback
flag staging traffic balancer retry timeout queue worker cron backup restore logging metrics
tracing alert budget latency pool lock
"""
WORDS = _VOCABULARY.split()
# A one-tool server on the same SDK: the floor memlode's start is compared with.
MINIMAL_SERVER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer("minimal")


@server.tool()
def echo(text: str) -> str:
    \"\"\"Return the text.\"\"\"
    return text


server.run()
"""
# Seconds given to a resident after its first ping to open its engine and load its embedder
# (it warms up on a thread once it serves; ~1-2 s with the local model on this machine).
RESIDENT_WARM_UP = 5.0
QUERIES = [
    "how do we refresh auth tokens",
    "postgres migration rollback",
    "redis cache timeout",
    "deploy release flag",
    "queue worker retry",
]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": round(statistics.median(values) * 1000, 1),
        "p90_ms": round(_percentile(values, 0.9) * 1000, 1),
        "p95_ms": round(_percentile(values, 0.95) * 1000, 1),
        "min_ms": round(min(values) * 1000, 1),
        "max_ms": round(max(values) * 1000, 1),
    }


def _env(home: Path, embed: str, **extra: str) -> dict[str, str]:
    env = {"MEMLODE_HOME": str(home), "MEMLODE_EMBED_PROVIDER": embed, **extra}
    if "PYTHONPATH" in os.environ:  # to measure another checkout's code with this venv
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def _params(home: Path, project: Path, embed: str, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "memlode", "mcp"],
        env=_env(home, embed, **env),
        cwd=str(project),
    )


def _minimal_params(project: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-c", MINIMAL_SERVER], env={}, cwd=str(project)
    )


def _server_rss_mb() -> float | None:
    """VmRSS of this process's ``memlode mcp`` child (Linux /proc), in MB."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and b"mcp" in cmdline:
            for line in (stat.parent / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    return None


async def _every_embedder_used(session: ClientSession, home: Path, db: str) -> float | None:
    """Make the tools, the background embedder and the resident socket each embed, then read
    the server's resident memory."""
    from memlode.hooks._resident import vector_hits

    stored = await session.call_tool(
        "store_memory", {"content": "the resident socket answers hooks", "memory_type": "context"}
    )
    assert not stored.is_error, stored.content
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the socket appears once the server has started it
        if vector_hits(str(home), "resident socket", "proj", 5, 2000, db):
            break
        await anyio.sleep(0.2)
    await anyio.sleep(3)  # the background embedder's round after the store
    return _server_rss_mb()


def _project(root: Path) -> Path:
    project = root / "proj"
    project.mkdir(parents=True, exist_ok=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    return project


async def _one_start(params: StdioServerParameters) -> float:
    with open(os.devnull, "w") as devnull:
        started = time.perf_counter()
        async with (
            stdio_client(params, errlog=devnull) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            return time.perf_counter() - started


def bench_start(runs: int, embed: str) -> dict[str, Any]:
    """``memlode mcp`` and the minimal server, started in pairs (the order alternates), on one
    home whose lists an untimed first start has kept, as an assistant restarts it."""
    memlode: list[float] = []
    minimal: list[float] = []
    with tempfile.TemporaryDirectory(prefix="memlode-bench-mcp-") as tmp:
        root = Path(tmp)
        project = _project(root)
        ours_params = _params(root / "home", project, embed)
        cold = anyio.run(_one_start, ours_params)
        pair = [(memlode, ours_params), (minimal, _minimal_params(project))]
        for run in range(runs):
            for target, params in pair if run % 2 == 0 else pair[::-1]:
                target.append(anyio.run(_one_start, params))
    ours, floor = _summary(memlode), _summary(minimal)
    return {
        "memlode": ours,
        "minimal_server": floor,
        "ratio_p50": round(ours["p50_ms"] / floor["p50_ms"], 3),
        "ratio_p95": round(ours["p95_ms"] / floor["p95_ms"], 3),
        "first_start_on_a_fresh_home_ms": round(cold * 1000, 1),
    }


def bench_imports(runs: int) -> dict[str, Any]:
    """A process that imports what ``memlode mcp`` needs before it serves and builds the server,
    then exits, on a temporary home. ``build_server`` alone never serves, so it never keeps the
    lists (``memlode.mcp.listing``): this is the cost of a first start, tools built."""
    code = (
        "import memlode.cli, memlode.cli.mcp_cmds\n"
        "from memlode.config import Settings\n"
        "from memlode.mcp.server import build_server\n"
        "build_server(Settings.load({}), embed_in_background=False)\n"
    )
    bare: list[float] = []
    full: list[float] = []
    with tempfile.TemporaryDirectory(prefix="memlode-bench-mcp-") as tmp:
        env = {**os.environ, "MEMLODE_HOME": tmp}
        for _ in range(runs):
            for target, script in ((bare, "pass"), (full, code)):
                started = time.perf_counter()
                subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=tmp)
                target.append(time.perf_counter() - started)
    return {"bare_interpreter": _summary(bare), "build_server": _summary(full)}


def _fill(home: Path, project: Path, count: int, embed: str) -> None:
    settings = Settings.load({"home": str(home), "embed_provider": embed})
    with Engine(settings, cwd=project) as engine:
        items = []
        for i in range(count):
            words = [WORDS[(i * 7 + j * 13) % len(WORDS)] for j in range(12)]
            text = f"memory {i}: " + " ".join(words)
            items.append(engine.new_memory(text, tags=[WORDS[i % len(WORDS)]]))
        engine.store_many(items)
        engine.embed_pending()


async def _recalls(home: Path, project: Path, embed: str, calls: int) -> dict[str, Any]:
    with open(os.devnull, "w") as devnull:
        async with (
            stdio_client(_params(home, project, embed), errlog=devnull) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            first_started = time.perf_counter()
            first = await session.call_tool("recall_memory", {"query": QUERIES[0], "k": 10})
            first_time = time.perf_counter() - first_started
            assert not first.is_error, first.content
            times: list[float] = []
            for i in range(calls):
                started = time.perf_counter()
                result = await session.call_tool(
                    "recall_memory", {"query": QUERIES[i % len(QUERIES)], "k": 10}
                )
                times.append(time.perf_counter() - started)
                assert not result.is_error, result.content
            db = str(home / "memlode.db")
            return {
                "first_call_ms": round(first_time * 1000, 1),
                "warm": _summary(times),
                "server_rss_mb": await _every_embedder_used(session, home, db),
            }


async def _first_recall(params: StdioServerParameters, after: float) -> tuple[float, float]:
    """Seconds from spawn to the ``tools/list`` answer, and from the first recall (sent
    ``after`` seconds later, as a client whose model answers first would) to its answer."""
    with open(os.devnull, "w") as devnull:
        started = time.perf_counter()
        async with (
            stdio_client(params, errlog=devnull) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            listed = time.perf_counter()
            await anyio.sleep(after)
            asked = time.perf_counter()
            result = await session.call_tool("recall_memory", {"query": QUERIES[0], "k": 10})
            answered = time.perf_counter()
            assert not result.is_error, result.content
            assert result.structured_content and result.structured_content["hits"]
            return listed - started, answered - asked


def _resident(home: Path, project: Path, embed: str) -> subprocess.Popen[bytes]:
    """``memlode resident`` in the foreground, once its socket answers and it has warmed up."""
    from memlode.resident_client.client import ping

    process = subprocess.Popen(
        [sys.executable, "-m", "memlode", "resident", "--foreground"],
        env={**os.environ, **_env(home, embed)},
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    settings = Settings.load({"home": str(home), "embed_provider": embed})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if ping(settings) is not None:
            time.sleep(RESIDENT_WARM_UP)
            return process
        time.sleep(0.2)
    process.kill()
    raise RuntimeError("the resident did not answer within 60 s")


def bench_first_recall(
    memories: int, runs: int, embed: str, afters: tuple[float, ...] = (0.0, 1.0)
) -> dict[str, Any]:
    """The first ``recall_memory`` after ``tools/list``, fresh server each run, without and
    with a resident already serving the store; sent at once, and a second later."""
    out: dict[str, Any] = {"memories": memories, "embed": embed}
    with tempfile.TemporaryDirectory(prefix="memlode-bench-mcp-") as tmp:
        root = Path(tmp)
        project = _project(root)
        home = root / "home"
        _fill(home, project, memories, embed)
        for label, resident_up in (("no_resident", False), ("resident_up", True)):
            resident = _resident(home, project, embed) if resident_up else None
            try:
                for after in afters:
                    starts: list[float] = []
                    recalls: list[float] = []
                    for _ in range(runs):
                        # Without a resident: the server must not start one of its own either,
                        # or the next run would find it up.
                        env = {} if resident_up else {"MEMLODE_RESIDENT_AUTOSTART": "0"}
                        params = _params(home, project, embed, **env)
                        start, recall = anyio.run(_first_recall, params, after)
                        starts.append(start)
                        recalls.append(recall)
                    out[label if after == 0 else f"{label}_after_{after:g}s"] = {
                        "start_to_tools_list": _summary(starts),
                        "first_recall": _summary(recalls),
                    }
            finally:
                if resident is not None:
                    resident.terminate()
                    resident.wait(30)
    return out


def bench_recall(memories: int, calls: int, embed: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memlode-bench-mcp-") as tmp:
        root = Path(tmp)
        project = _project(root)
        _fill(root / "home", project, memories, embed)
        out: dict[str, Any] = anyio.run(_recalls, root / "home", project, embed, calls)
        out["memories"] = memories
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=10, help="server starts to time")
    parser.add_argument("--memories", type=int, default=2000, help="store size for recall")
    parser.add_argument("--calls", type=int, default=200, help="recall_memory calls to time")
    parser.add_argument("--embed", default="hash", help="embed provider (hash, local, none)")
    parser.add_argument(
        "--first-recall-memories",
        type=int,
        default=10_000,
        help="store size for the first recall after tools/list",
    )
    parser.add_argument(
        "--first-recall-runs", type=int, default=5, help="fresh servers per first-recall case"
    )
    parser.add_argument(
        "--only", choices=["start", "all"], default="all", help="start: skip the warm recalls"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()

    results: dict[str, Any] = {
        "memlode": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "embed": args.embed,
        "start_to_tools_list": bench_start(args.starts, args.embed),
        "imports": bench_imports(max(3, args.starts // 2)),
        "first_recall": bench_first_recall(
            args.first_recall_memories, args.first_recall_runs, args.embed
        ),
    }
    if args.only == "all":
        results["recall_memory"] = bench_recall(args.memories, args.calls, args.embed)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    _print(results)


def _print(results: dict[str, Any]) -> None:
    start = results["start_to_tools_list"]
    imports = results["imports"]
    print(f"memlode {results['memlode']}  python {results['python']}  {results['platform']}")
    print(f"embedder: {results['embed']}")
    for label, key in (("memlode mcp", "memlode"), ("minimal server", "minimal_server")):
        one = start[key]
        print(
            f"start -> first tools/list answered, {label}: p50 {one['p50_ms']} ms, "
            f"p95 {one['p95_ms']} ms (n={one['n']}, min {one['min_ms']} ms)"
        )
    print(f"  ratio memlode / minimal: p50 {start['ratio_p50']}x, p95 {start['ratio_p95']}x")
    print(f"  (untimed first start on a fresh home: {start['first_start_on_a_fresh_home_ms']} ms)")
    print(
        f"  imports: bare interpreter p50 {imports['bare_interpreter']['p50_ms']} ms, "
        f"imports + build_server, tools built (a first start) p50 "
        f"{imports['build_server']['p50_ms']} ms"
    )
    first = results["first_recall"]
    for label in [name for name in first if name not in ("memories", "embed")]:
        case = first[label]
        print(
            f"first recall_memory after tools/list, {first['memories']} memories, {label}: "
            f"p50 {case['first_recall']['p50_ms']} ms, p95 {case['first_recall']['p95_ms']} ms "
            f"(n={case['first_recall']['n']}; start -> tools/list p50 "
            f"{case['start_to_tools_list']['p50_ms']} ms)"
        )
    if "recall_memory" not in results:
        return
    recall = results["recall_memory"]
    warm = recall["warm"]
    print(
        f"recall_memory round trip over {recall['memories']} memories (k=10): "
        f"p50 {warm['p50_ms']} ms, p90 {warm['p90_ms']} ms (n={warm['n']}); "
        f"first call {recall['first_call_ms']} ms"
    )
    print(
        "server resident memory after the tools, the background embedder and the resident"
        f" socket have each embedded: {recall['server_rss_mb']} MB"
    )


if __name__ == "__main__":
    main()
