"""Hooks on a PostgreSQL store hand their events to the store's resident
(``memlode.hooks.handoff``, ``memlode.resident.hook_queue``): real hook processes fed real
payloads, a real resident (``memlode resident``) on the test server, rows read back from
PostgreSQL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from tests.hooks.conftest import HookRunner
from tests.resident.support import stop_holder, wait_until

from memlode.resident_client.paths import database_path, lock_path, socket_path, spool_path
from memlode.resident_client.spool import read_offset
from memlode.storage import open_store

pytestmark = pytest.mark.usefixtures("pg_server")

DRIVER_PACKAGES = ("psycopg", "psycopg_pool", "pgvector", "psycopg_binary")


@pytest.fixture
def pg_env(pg_store_url: str, memlode_home: Path, tmp_path: Path) -> Any:
    """The environment of hooks and residents on the test store; every resident stopped after."""
    memlode_home.mkdir(parents=True, exist_ok=True)
    # a loaded 2-core test machine: give the resident time (the default is 150 ms)
    (memlode_home / "config.toml").write_text("[hooks]\nresident_timeout_ms = 2000\n")
    env = {"MEMLODE_DB": pg_store_url, "MEMLODE_RESIDENT_IDLE": "120"}
    yield env
    for lock in tmp_path.rglob("run/*.lock"):
        stop_holder(lock)


def _rows(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    with open_store(url) as store:
        return list(store.query(sql, params))


def _contents(url: str) -> list[str]:
    return [str(r[0]) for r in _rows(url, "SELECT content FROM memories ORDER BY rowid")]


def _memlode(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``memlode ARGS`` as a user runs it, in ``cwd`` with ``env`` (the store's)."""
    return subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
        timeout=120,
    )


def _start_resident(env: dict[str, str], cwd: Path) -> dict[str, Any]:
    done = _memlode(env, cwd, "resident")
    assert done.returncode == 0, done.stderr
    return _status(env, cwd)


def _status(env: dict[str, str], cwd: Path) -> dict[str, Any]:
    done = _memlode(env, cwd, "resident", "status", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    answer = json.loads(done.stdout)
    assert isinstance(answer, dict)
    return answer


def _stop_resident(memlode_home: Path, url: str) -> None:
    lock = Path(lock_path(str(memlode_home), database_path(str(memlode_home), url)))
    stop_holder(lock)


def _spool(memlode_home: Path, url: str) -> Path:
    return Path(spool_path(str(memlode_home), database_path(str(memlode_home), url)))


def test_with_the_resident_up_hooks_store_in_postgresql_and_a_later_prompt_is_answered(
    hook: HookRunner,
    payloads: dict[str, dict[str, Any]],
    pg_env: dict[str, str],
    pg_store_url: str,
    project: Path,
    memlode_home: Path,
) -> None:
    started = _start_resident(pg_env, project)
    assert started["db"] == database_path("", pg_store_url)
    first = hook("session-start", payloads["session-start"], env=pg_env)
    assert (first.returncode, first.stderr) == (0, "")
    edit = hook("post-tool", payloads["post-tool"], env=pg_env)
    assert (edit.returncode, edit.stdout, edit.stderr) == (0, "", "")
    asked = hook("prompt", payloads["prompt"], env=pg_env)
    assert (asked.returncode, asked.stderr) == (0, "")
    assert wait_until(lambda: len(_contents(pg_store_url)) >= 2, 30)
    contents = _contents(pg_store_url)
    assert any("auth.py" in c and "exp=3600" in c for c in contents), contents
    assert "Why does login 401?" in contents
    sessions = _rows(pg_store_url, "SELECT id, source FROM sessions")
    assert [(s[0], s[1]) for s in sessions] == [("8c1f-test", "claude-code")]

    for text, kind in (
        ("The login endpoint returns 401 when the auth token expired.", "insight"),
        ("Deploys go through the staging cluster first.", "decision"),
    ):  # stored by the CLI, from the project (its namespace), on the same server
        done = _memlode(pg_env, project, "store", text, "-t", kind)
        assert done.returncode == 0, done.stderr
    later = dict(payloads["prompt"], session_id="next-session")
    later["prompt"] = "why does the login endpoint give a 401 error?"
    answered = hook("prompt", later, env=pg_env)
    assert (answered.returncode, answered.stderr) == (0, "")
    context = answered.context()["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit"
    assert "returns 401 when the auth token expired" in context["additionalContext"]
    assert "staging cluster" not in context["additionalContext"]
    stored = _rows(
        pg_store_url,
        "SELECT metadata FROM memories WHERE session_id = ? AND content = ?",
        ("next-session", later["prompt"]),
    )
    assert json.loads(stored[0][0])["recall"] == "resident"
    start = _rows(pg_store_url, "SELECT metadata FROM sessions WHERE id = ?", ("8c1f-test",))
    assert json.loads(start[0][0])["start_context"]["chars"] >= 0  # SessionStart was applied
    assert _status(pg_env, project)["hook_queue"] == {
        "applied": 4,
        "skipped": 0,
        "replayed": 0,
        "spool": str(_spool(memlode_home, pg_store_url)),
    }


def test_a_cold_session_start_and_its_first_prompt_wait_for_the_resident_they_started(
    hook: HookRunner,
    payloads: dict[str, dict[str, Any]],
    pg_env: dict[str, str],
    pg_store_url: str,
    project: Path,
    memlode_home: Path,
) -> None:
    """``claude -p "..."`` on a team store with no resident running: SessionStart starts one and
    waits for it to come up (``[hooks] resident_start_wait_ms``, here its cap: a loaded 2-core
    test machine), so that the session gets the team's decisions; the prompt that fires at once
    is answered too. Before, both printed nothing."""
    for text in (
        "The login endpoint returns 401 when the auth token expired.",
        "Deploys go through the staging cluster first.",
        "Invoices are rendered to PDF by the billing worker.",
    ):
        done = _memlode(pg_env, project, "store", text, "-t", "decision")
        assert done.returncode == 0, done.stderr
    on = {**pg_env, "MEMLODE_RESIDENT_AUTOSTART": "1"}
    (memlode_home / "config.toml").write_text(
        "[hooks]\nresident_timeout_ms = 150\nresident_start_wait_ms = 4000\n"
    )
    started = hook("session-start", payloads["session-start"], env=on)
    assert (started.returncode, started.stderr) == (0, "")
    assert started.stdout, (memlode_home / "hook-timings.log").read_text()
    briefing = started.context()["hookSpecificOutput"]["additionalContext"]
    assert "Deploys go through the staging cluster first." in briefing
    asked = dict(payloads["prompt"], prompt="why does the login endpoint give a 401 error?")
    answered = hook("prompt", asked, env=on)
    assert (answered.returncode, answered.stderr) == (0, "")
    timings = (memlode_home / "hook-timings.log").read_text()
    rows = _rows(
        pg_store_url, "SELECT metadata FROM memories WHERE content = ?", (asked["prompt"],)
    )
    assert answered.stdout, (timings, rows)
    context = answered.context()["hookSpecificOutput"]["additionalContext"]
    assert "returns 401 when the auth token expired" in context


def test_with_no_resident_hooks_spool_and_a_resident_replays_them_once(
    hook: HookRunner,
    payloads: dict[str, dict[str, Any]],
    read_payload: Any,
    pg_env: dict[str, str],
    pg_store_url: str,
    project: Path,
    memlode_home: Path,
) -> None:
    # the URL with a password (the test server trusts its user, whatever the password)
    pg_env = {**pg_env, "MEMLODE_DB": pg_store_url.replace("postgres@", "postgres:s3cret@", 1)}
    events = [
        ("post-tool", read_payload(str(project / "src" / "app.py"))),
        ("post-tool", payloads["post-tool"]),
        ("prompt", payloads["prompt"]),
        ("stop", payloads["stop"]),
    ]
    for event, payload in events:
        done = hook(event, payload, env=pg_env)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    spool = _spool(memlode_home, pg_store_url)
    lines = [json.loads(line) for line in spool.read_bytes().splitlines()]
    assert [line["event"] for line in lines] == [e for e, _ in events]
    assert oct(spool.stat().st_mode & 0o777) == "0o600"
    assert b"s3cret" not in spool.read_bytes()
    assert _contents(pg_store_url) == []  # nothing reached the store yet

    status = _start_resident(pg_env, project)
    assert wait_until(lambda: _status(pg_env, project)["hook_queue"]["applied"] == 4, 30)
    assert status["hook_queue"]["skipped"] == 0
    contents = _contents(pg_store_url)
    assert "Why does login 401?" in contents
    assert any("exp=3600" in c for c in contents)
    assert any("app.py" in c for c in contents)
    ended = _rows(pg_store_url, "SELECT ended_at, summary FROM sessions")
    assert len(ended) == 1 and ended[0][0] is not None  # the Stop applied after the others
    assert wait_until(lambda: spool.stat().st_size == 0, 10)  # emptied once applied

    _stop_resident(memlode_home, pg_store_url)  # the replay again: a new resident
    again = _start_resident(pg_env, project)
    assert again["pid"] != status["pid"]
    assert wait_until(lambda: _status(pg_env, project)["ready"], 60)
    assert _status(pg_env, project)["hook_queue"]["applied"] == 0
    assert _contents(pg_store_url) == contents


def test_a_line_spooled_again_after_a_crash_is_applied_from_the_recorded_offset(
    hook: HookRunner,
    payloads: dict[str, dict[str, Any]],
    pg_env: dict[str, str],
    pg_store_url: str,
    project: Path,
    memlode_home: Path,
) -> None:
    """The offset, not the dedup, keeps a line from being applied twice: the prompt's stored
    row would dedup, its access count would not."""
    done = hook("prompt", payloads["prompt"], env=pg_env)
    assert done.returncode == 0
    spool = _spool(memlode_home, pg_store_url)
    kept = spool.read_bytes()
    _start_resident(pg_env, project)
    assert wait_until(lambda: _status(pg_env, project)["hook_queue"]["applied"] == 1, 30)
    _stop_resident(memlode_home, pg_store_url)
    # the resident died between its offset and emptying the spool: the line is still there
    spool.write_bytes(kept)
    Path(str(spool) + ".offset").write_text(str(len(kept)))
    _start_resident(pg_env, project)
    assert wait_until(lambda: _status(pg_env, project)["ready"], 60)
    assert _status(pg_env, project)["hook_queue"]["applied"] == 0
    assert read_offset(str(spool)) in (0, len(kept))


def test_a_hook_on_postgresql_never_imports_the_driver(
    pg_env: dict[str, str], payloads: dict[str, dict[str, Any]], project: Path, memlode_home: Path
) -> None:
    code = (
        "import sys, json\n"
        "from memlode.hooks.dispatch import run\n"
        "out = {}\n"
        "for event in ('session-start', 'post-tool', 'prompt', 'stop'):\n"
        "    out[event] = run(event, sys.argv[1 + len(out)].encode())\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {DRIVER_PACKAGES!r})\n"
        "print(json.dumps({'bad': bad, 'out': out}))\n"
    )
    args = [json.dumps(payloads[e]) for e in ("session-start", "post-tool", "prompt", "stop")]
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, **pg_env},
        timeout=120,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result == {"bad": [], "out": dict.fromkeys(result["out"])}
    assert len(result["out"]) == 4
    lines = _spool(memlode_home, pg_env["MEMLODE_DB"]).read_bytes().splitlines()
    assert len(lines) == 4  # every event handed on


def test_a_hook_prints_nothing_when_the_resident_breaks_off_its_answer(
    hook: HookRunner,
    payloads: dict[str, dict[str, Any]],
    pg_env: dict[str, str],
    project: Path,
    memlode_home: Path,
) -> None:
    """A listener at the resident's socket that reads the request, writes half an answer and
    dies (what a resident killed mid-answer leaves): the hook exits 0 with empty stdout."""
    database = database_path(str(memlode_home), pg_env["MEMLODE_DB"])
    path = socket_path(str(memlode_home), database)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    script = (
        "import socket, sys, os\n"
        "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600)\n"
        "s.listen(8); print('up', flush=True)\n"
        "for answer in sys.argv[2:]:\n"
        "    c, _ = s.accept(); c.recv(1 << 20); c.sendall(answer.encode()); c.close()\n"
    )
    answers = ['{"ok": true, "output": "{\\"hookSpec', "not json at all\n", '["a list"]\n']
    with subprocess.Popen(
        [sys.executable, "-c", script, path, *answers], stdout=subprocess.PIPE, text=True
    ) as peer:
        assert peer.stdout is not None and peer.stdout.readline().strip() == "up"
        for _ in answers:
            done = hook("prompt", payloads["prompt"], env=pg_env)
            assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        assert peer.wait(30) == 0  # every answer was asked for
    lines = _spool(memlode_home, pg_env["MEMLODE_DB"]).read_bytes().splitlines()
    assert len(lines) == len(answers)  # spooled all the same: a resident applies them later


def test_hooks_never_fail_when_the_resident_is_killed_and_nothing_is_lost(
    hook: HookRunner,
    payloads: dict[str, dict[str, Any]],
    pg_env: dict[str, str],
    pg_store_url: str,
    project: Path,
    memlode_home: Path,
) -> None:
    status = _start_resident(pg_env, project)
    assert wait_until(lambda: _status(pg_env, project)["ready"], 60)
    results: list[Any] = []
    prompts = [f"remember that the deploy of service number {i} uses blue green" for i in range(8)]

    def one(text: str) -> None:
        results.append(hook("prompt", dict(payloads["prompt"], prompt=text), env=pg_env))

    threads = [threading.Thread(target=one, args=(p,)) for p in prompts]
    for number, thread in enumerate(threads):
        thread.start()
        if number == 3:
            os.kill(int(status["pid"]), signal.SIGKILL)
    for thread in threads:
        thread.join(120)
    assert len(results) == len(prompts)
    for done in results:
        assert (done.returncode, done.stderr) == (0, "")
        if done.stdout:  # an answer from before the kill: the JSON the event allows
            assert done.context()["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    _start_resident(pg_env, project)
    expected = {p for p in prompts}
    assert wait_until(lambda: expected <= set(_contents(pg_store_url)), 60)
    assert len([c for c in _contents(pg_store_url) if c in expected]) == len(prompts)
