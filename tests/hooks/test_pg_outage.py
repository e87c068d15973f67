"""A team store's server goes away and comes back (issue #35): hook events wait in the spool,
are retried and applied exactly once; a resident killed while it applies loses and repeats
nothing; the spool holds no secret and refuses, bounded, with one warning.

Real parts: a PostgreSQL server of this module's own (``bench/pg_server.py``; stopped and
started again with its data, so the session's shared server is never interrupted), real hook
processes fed Claude Code payloads, a real resident (``memlode resident``)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import started_pg_server
from tests.hooks.conftest import HookRunner
from tests.hooks.test_pg_handoff import _start_resident, _status, _stop_resident
from tests.resident.support import stop_holder, wait_until

from memlode.resident_client import spool
from memlode.resident_client.lock import held
from memlode.resident_client.paths import database_path, lock_path, spool_path
from memlode.storage import open_store

GITHUB_TOKEN = "ghp_" + "Zq8kR2mW7xL4nV9bT1cY6hJ3sD5fG0aE8uPq"  # a token's shape, not a token
PASSWORD = "plum-orchard-" + "7731"


@pytest.fixture(scope="module")
def own_server() -> Iterator[Any]:
    """A server this module may stop, of its own (not the session's)."""
    yield from started_pg_server()


@pytest.fixture
def outage(own_server: Any, memlode_home: Path, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of hooks and residents on a fresh store of the module's server."""
    memlode_home.mkdir(parents=True, exist_ok=True)
    (memlode_home / "config.toml").write_text("[hooks]\nresident_timeout_ms = 2000\n")
    url = str(own_server.url(schema=own_server.new_schema()))
    with open_store(url):
        pass  # migrated
    yield {"MEMLODE_DB": url, "MEMLODE_RESIDENT_IDLE": "120"}
    with contextlib.suppress(subprocess.CalledProcessError):  # it runs
        own_server.resume()  # a test that failed mid-outage
    for lock in tmp_path.rglob("run/*.lock"):
        stop_holder(lock)


def _spool(home: Path, url: str) -> str:
    return spool_path(str(home), database_path(str(home), url))


def _rows(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    with open_store(url) as store:
        return list(store.query(sql, params))


def _prompt(payloads: dict[str, dict[str, Any]], text: str) -> dict[str, Any]:
    return dict(payloads["prompt"], prompt=text)


def _bash(payloads: dict[str, dict[str, Any]], command: str, output: str) -> dict[str, Any]:
    return {
        **{k: payloads["post-tool"][k] for k in ("session_id", "transcript_path", "cwd")},
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_use_id": "toolu_bash",
        "tool_input": {"command": command, "description": "run it"},
        "tool_response": {"stdout": output, "stderr": "", "interrupted": False},
    }


def _fire_many(env: dict[str, str], project: Path, events: list[tuple[str, dict[str, Any]]]) -> Any:
    """Many events through the hooks' real entry (``memlode.hooks.dispatch.run``) in one
    process: a long spool quickly. What each printed."""
    code = (
        "import sys, json\n"
        "from memlode.hooks.dispatch import run\n"
        "events = json.loads(sys.stdin.read())\n"
        "print(json.dumps([run(e, json.dumps(p).encode()) for e, p in events]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(events),
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, **env, "MEMLODE_RESIDENT_AUTOSTART": "0"},
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout)


def _queue(env: dict[str, str], project: Path) -> dict[str, Any]:
    """The resident's hook queue counts ({} when its status is an error: the first request
    after an outage may meet the engine's broken connection, which it then drops)."""
    queue = _status(env, project).get("hook_queue")
    return queue if isinstance(queue, dict) else {}


def _doctor(env: dict[str, str], project: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "memlode", "doctor", "--json"],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, **env},
        timeout=120,
    )
    report = json.loads(done.stdout)
    assert isinstance(report, dict), done.stderr
    return report


def test_events_fired_while_the_server_is_away_are_applied_once_when_it_is_back(
    hook: HookRunner,
    payloads: dict[str, dict[str, Any]],
    outage: dict[str, str],
    own_server: Any,
    project: Path,
    memlode_home: Path,
) -> None:
    url = outage["MEMLODE_DB"]
    _start_resident(outage, project)
    assert wait_until(lambda: _status(outage, project)["ready"], 60)
    first = _prompt(payloads, "before the outage: deploys use blue green")
    before = hook("prompt", first, env=outage)
    assert (before.returncode, before.stderr) == (0, "")
    assert wait_until(lambda: _status(outage, project)["hook_queue"]["applied"] == 1, 30)

    own_server.halt()
    fired: list[str] = []
    for number in range(4):
        text = f"during the outage, prompt number {number} about the billing service"
        done = hook("prompt", _prompt(payloads, text), env=outage)
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
        fired.append(text)
        command = f"make check-billing-{number}"
        ran = hook("post-tool", _bash(payloads, command, f"check {number} passed"), env=outage)
        assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
    path = _spool(memlode_home, url)
    assert wait_until(lambda: spool.status(path)["last_apply"].get("failed") is True, 30)
    waiting = spool.status(path)
    assert waiting["lines"] == 8 and waiting["bytes"] > 0
    assert waiting["oldest_age_s"] is not None and waiting["oldest_age_s"] >= 0
    assert waiting["last_apply"]["error"]
    shown = _doctor(outage, project)["hook_spool"]
    assert shown["lines"] == 8 and shown["last_apply"]["failed"] is True
    ids = [json.loads(line)["id"] for line in Path(path).read_bytes().splitlines()[-8:]]

    own_server.resume()
    nudge = hook("post-tool", _bash(payloads, "make check-billing-after", "ok"), env=outage)
    assert nudge.returncode == 0
    assert wait_until(lambda: _queue(outage, project).get("applied") == 10, 60)
    queue = _queue(outage, project)
    assert (queue["skipped"], queue["replayed"]) == (0, 0)
    contents = [str(r[0]) for r in _rows(url, "SELECT content FROM memories")]
    for text in fired:
        assert contents.count(text) == 1, text
    commands = [c for c in contents if "make check-billing-" in c]
    assert len(commands) == 5, commands
    applied = {str(r[0]) for r in _rows(url, "SELECT id FROM hook_events_applied")}
    assert set(ids) <= applied and len(applied) == 10
    assert wait_until(lambda: spool.status(path)["lines"] == 0, 10)
    assert spool.status(path)["last_apply"]["failed"] is False
    log = next((memlode_home / "run").glob("*.log")).read_text()
    assert " skipped: " not in log and "the server is away" in log


def test_a_resident_killed_while_it_applies_a_long_spool_loses_and_repeats_nothing(
    payloads: dict[str, dict[str, Any]],
    outage: dict[str, str],
    project: Path,
    memlode_home: Path,
) -> None:
    url = outage["MEMLODE_DB"]
    texts = [f"remember: queue worker {n} drains the billing topic" for n in range(40)]
    events: list[tuple[str, dict[str, Any]]] = []
    for number, text in enumerate(texts):
        events.append(("prompt", _prompt(payloads, text)))
        events.append(("post-tool", _bash(payloads, f"pytest -k worker_{number}", "1 passed")))
    printed = _fire_many(outage, project, events)
    assert printed == [None] * len(events)
    path = _spool(memlode_home, url)
    kept = Path(path).read_bytes()
    assert len(kept.splitlines()) == len(events)

    first = _start_resident(outage, project)
    assert wait_until(lambda: len(_rows(url, "SELECT id FROM hook_events_applied")) >= 10, 60)
    os.kill(int(first["pid"]), signal.SIGKILL)  # mid-spool
    partly = len(_rows(url, "SELECT id FROM hook_events_applied"))
    assert partly < len(events), "the resident finished before it was killed"
    print(f"applied before the kill: {partly} of {len(events)}")

    _start_resident(outage, project)
    assert wait_until(lambda: spool.status(path)["lines"] == 0, 120)
    applied = _rows(url, "SELECT id, count(*) FROM hook_events_applied GROUP BY id")
    assert len(applied) == len(events)
    contents = [str(r[0]) for r in _rows(url, "SELECT content FROM memories")]
    for text in texts:
        assert contents.count(text) == 1, text
    snapshot = _tables(url)

    # killed between a line's commit and its offset: every line read again from the start
    _stop_resident(memlode_home, url)
    Path(path).write_bytes(kept)
    spool.write_offset(path, 0)
    _start_resident(outage, project)
    assert wait_until(lambda: _status(outage, project)["hook_queue"]["replayed"] == len(events), 60)
    assert _status(outage, project)["hook_queue"]["applied"] == 0  # no handler ran again
    assert _tables(url) == snapshot


def _tables(url: str) -> dict[str, Any]:
    """What a handler run twice would change: rows, edges, sessions, their times."""
    return {
        "memories": sorted(
            tuple(map(str, r))
            for r in _rows(url, "SELECT id, content, metadata, updated_at FROM memories")
        ),
        "edges": sorted(
            tuple(map(str, r))
            for r in _rows(url, "SELECT source_id, target_id, relationship FROM graph_edges")
        ),
        "sessions": sorted(tuple(map(str, r)) for r in _rows(url, "SELECT * FROM sessions")),
    }


def test_the_spool_on_disk_holds_no_secret_a_tool_saw(
    payloads: dict[str, dict[str, Any]],
    outage: dict[str, str],
    project: Path,
    memlode_home: Path,
) -> None:
    url = outage["MEMLODE_DB"]
    config = project / "config.yml"
    edit = dict(payloads["post-tool"])
    edit["tool_input"] = {
        "file_path": str(config),
        "old_string": "password: changeme",
        "new_string": f"password: {PASSWORD}",
    }
    edit["tool_response"] = {
        **payloads["post-tool"]["tool_response"],
        "filePath": str(config),
        "oldString": "password: changeme",
        "newString": f"password: {PASSWORD}",
        "structuredPatch": [
            {
                "oldStart": 1,
                "oldLines": 1,
                "newStart": 1,
                "newLines": 1,
                "lines": ["-password: changeme", f"+password: {PASSWORD}"],
            }
        ],
    }
    events = [
        ("post-tool", _bash(payloads, f"git push https://x:{GITHUB_TOKEN}@github.com/a/b", "ok")),
        ("post-tool", _bash(payloads, f"export GH_TOKEN={GITHUB_TOKEN} && gh pr list", "#12")),
        ("post-tool", edit),
        ("prompt", _prompt(payloads, f"use the token {GITHUB_TOKEN} for the release")),
    ]
    _fire_many(outage, project, events)
    path = _spool(memlode_home, url)
    data = Path(path).read_bytes()
    assert len(data.splitlines()) == len(events)
    assert GITHUB_TOKEN.encode() not in data and PASSWORD.encode() not in data
    assert b"[redacted" in data
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert oct(os.stat(os.path.dirname(path)).st_mode & 0o777) == "0o700"
    # under MEMLODE_HOME (survives a reboot), not a runtime folder
    assert Path(path).is_relative_to(memlode_home)

    _start_resident(outage, project)
    assert wait_until(lambda: spool.status(path)["lines"] == 0, 60)
    stored = " ".join(str(r[0]) for r in _rows(url, "SELECT content FROM memories"))
    assert "config.yml" in stored and "gh pr list" in stored
    assert GITHUB_TOKEN not in stored and PASSWORD not in stored


def test_a_full_spool_refuses_new_events_with_one_warning_and_keeps_the_old_ones(
    payloads: dict[str, dict[str, Any]],
    outage: dict[str, str],
    project: Path,
    memlode_home: Path,
) -> None:
    url = outage["MEMLODE_DB"]
    (memlode_home / "config.toml").write_text("[hooks]\nspool_max_mb = 1\n")
    big = "x" * 300_000  # a tool's long output; 4 of them pass the 1 MB bound
    events = [
        ("post-tool", _bash(payloads, f"cat big-{n}.log", f"line {n}\n{big}")) for n in range(6)
    ]
    _fire_many(outage, project, events)
    path = _spool(memlode_home, url)
    lines = Path(path).read_bytes().splitlines()
    assert len(lines) == 3
    assert [json.loads(line)["payload"]["tool_input"]["command"] for line in lines] == [
        "cat big-0.log",
        "cat big-1.log",
        "cat big-2.log",
    ]
    warnings = [
        line
        for line in (memlode_home / "hooks.log").read_text().splitlines()
        if "hook spool is full" in line
    ]
    assert len(warnings) == 1, warnings
    assert "spool_max_mb" in warnings[0]
    shown = _doctor(outage, project)["hook_spool"]
    assert (shown["lines"], shown["refused"]) == (3, 3)

    _start_resident(outage, project)  # the server is up: the backlog goes, room again
    assert wait_until(lambda: spool.status(path)["lines"] == 0, 60)
    assert spool.status(path)["refused"] == 0
    commands = [str(r[0]) for r in _rows(url, "SELECT content FROM memories")]
    assert sum("cat big-" in c for c in commands) == 3


def test_the_mcp_server_serves_again_once_the_server_is_back(
    outage: dict[str, str], own_server: Any, project: Path
) -> None:
    """A tool call during the outage is an isError result (not applied, nothing acknowledged);
    after the server is back the same server process stores again (its engine reconnects)."""
    import asyncio

    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def session_with_outage() -> list[tuple[str, bool]]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "memlode", "mcp"],
            env={**os.environ, **outage},
            cwd=str(project),
        )
        results: list[tuple[str, bool]] = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()

            async def store(text: str) -> None:
                done = await client.call_tool("store_memory", {"content": text})
                results.append((text, bool(done.is_error)))

            await store("before the outage the billing queue is drained nightly")
            own_server.halt()
            await store("during the outage the billing queue is paused")
            own_server.resume()
            for attempt in range(3):  # the first call after may meet the broken connection
                await store(f"after the outage the billing queue resumes, try {attempt}")
                if not results[-1][1]:
                    break
        return results

    results = asyncio.run(session_with_outage())
    assert results[0][1] is False and results[1][1] is True
    assert results[-1][1] is False, results  # stored again, same process
    stored = {str(r[0]) for r in _rows(outage["MEMLODE_DB"], "SELECT content FROM memories")}
    assert {text for text, failed in results if not failed} <= stored
    assert "during the outage the billing queue is paused" not in stored


def test_a_hook_that_finds_a_backlog_and_no_resident_starts_one_at_once(
    hook: HookRunner,
    payloads: dict[str, dict[str, Any]],
    outage: dict[str, str],
    project: Path,
    memlode_home: Path,
) -> None:
    """A resident was started less than a minute ago and is gone (crashed): an event alone
    would not start another for a minute (``PROMPT_START_BACKOFF``), but older lines waiting
    in the spool make the next hook start one now, and it applies them all."""
    url = outage["MEMLODE_DB"]
    texts = [f"the backlog holds note {n} on the ledger service" for n in range(3)]
    _fire_many(outage, project, [("prompt", _prompt(payloads, t)) for t in texts])
    lock = Path(lock_path(str(memlode_home), database_path(str(memlode_home), url)))
    Path(str(lock) + ".started").touch()  # a resident started just now, not running
    started = {**outage, "MEMLODE_RESIDENT_AUTOSTART": "1"}  # as a user has it
    done = hook("post-tool", _bash(payloads, "make ledger-check", "ok"), env=started)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    path = _spool(memlode_home, url)
    assert wait_until(lambda: spool.status(path)["lines"] == 0, 60)
    contents = [str(r[0]) for r in _rows(url, "SELECT content FROM memories")]
    assert all(contents.count(t) == 1 for t in texts), contents


def test_the_dashboard_health_shows_the_spool_backlog(
    payloads: dict[str, dict[str, Any]], outage: dict[str, str], project: Path, memlode_home: Path
) -> None:
    import urllib.request

    from tests.viz.conftest import Store, start_server, stop_server

    _fire_many(outage, project, [("prompt", _prompt(payloads, f"queued {n}")) for n in range(2)])
    env = {**os.environ, **outage, "MEMLODE_RESIDENT_AUTOSTART": "0"}
    server = start_server(Store(memlode_home, project, env))
    try:
        request = urllib.request.Request(
            f"{server.base}/api/health", headers={"cookie": f"memlode_viz={server.token}"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            health = json.loads(response.read())
    finally:
        stop_server(server)
    backlog = health["hook_spool"]
    assert (backlog["lines"], backlog["refused"]) == (2, 0)
    assert backlog["summary"].startswith("2 events wait (")
    assert health["stats"]["memories"] == 0  # still in the spool


def test_a_resident_does_not_idle_out_while_the_server_is_away_with_lines_waiting(
    hook: HookRunner,
    payloads: dict[str, dict[str, Any]],
    outage: dict[str, str],
    own_server: Any,
    project: Path,
    memlode_home: Path,
) -> None:
    """No hook may come to start another resident (the session ended): the one running keeps
    retrying past its idle time, applies the lines once the server is back, then idles out."""
    url = outage["MEMLODE_DB"]
    short = {**outage, "MEMLODE_RESIDENT_IDLE": "2"}
    _start_resident(short, project)
    lock = lock_path(str(memlode_home), database_path(str(memlode_home), url))
    own_server.halt()
    done = hook("post-tool", _bash(payloads, "make audit-ledger", "ok"), env=short)
    assert (done.returncode, done.stderr) == (0, "")
    path = _spool(memlode_home, url)
    assert wait_until(lambda: spool.status(path)["last_apply"].get("failed") is True, 30)
    assert not wait_until(lambda: not held(lock), 6)  # three idle periods: still there
    own_server.resume()
    assert wait_until(lambda: spool.status(path)["lines"] == 0, 60)
    assert wait_until(lambda: not held(lock), 30)  # then it idles out
    contents = [str(r[0]) for r in _rows(url, "SELECT content FROM memories")]
    assert sum("make audit-ledger" in c for c in contents) == 1
