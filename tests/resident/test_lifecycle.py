"""The resident process end to end: started by the command and by SessionStart, unique per
store, owner-only, idle exit, crash and restart, a removed store, two stores side by side."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.resident.support import (
    hook,
    lock_of,
    log_of,
    memlode,
    ping,
    request,
    socket_of,
    stop_holder,
    wait_ready,
    wait_until,
)

from memlode.engine import Engine
from memlode.engine.consolidation import AUTO_CYCLES
from memlode.resident_client.lock import held, read_owner
from memlode.storage.values import NewMemory


def session_start(cwd: Path, session: str = "s-1", env: dict[str, str] | None = None) -> None:
    payload = {
        "session_id": session,
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "source": "startup",
        "transcript_path": str(cwd / "t.jsonl"),
    }
    done = hook("session-start", payload, cwd=cwd, env=env)
    assert done.returncode == 0 and done.stderr == ""


def test_the_command_starts_one_resident_owner_only(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    assert memlode("resident", "status", cwd=workdir).returncode == 3  # none yet
    started = memlode("resident", cwd=workdir)
    assert started.returncode == 0, started.stderr
    first = wait_ready(memlode_home)
    assert first["host"] == "resident" and first["db"] == str(filled.db.path.resolve())
    sock = socket_of(memlode_home)
    assert stat.S_ISSOCK(os.stat(sock).st_mode)
    assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(sock)).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(lock_of(memlode_home)).st_mode) == 0o600

    # A second start, by the command or by a foreground process, leaves the first alone.
    again = memlode("resident", cwd=workdir)
    assert again.returncode == 0 and f"pid {first['pid']}" in again.stdout
    foreground = memlode("resident", "--foreground", cwd=workdir, timeout=60)
    assert foreground.returncode == 0 and "already serves" in foreground.stderr
    assert ping(memlode_home)["pid"] == first["pid"]  # type: ignore[index]

    status = memlode("resident", "status", "--json", cwd=workdir)
    assert status.returncode == 0 and '"running": true' in status.stdout
    stopped = memlode("resident", "stop", cwd=workdir)
    assert stopped.returncode == 0 and f"pid {first['pid']}" in stopped.stdout
    assert not held(lock_of(memlode_home))
    assert not os.path.exists(sock)
    assert memlode("resident", "status", cwd=workdir).returncode == 3


def test_session_start_starts_it_and_the_prompt_hook_asks_it(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    session_start(workdir)
    first = wait_ready(memlode_home)
    assert first["answered"] == 0
    # Another SessionStart while it runs starts no second one.
    session_start(workdir, "s-2")
    assert ping(memlode_home)["pid"] == first["pid"]  # type: ignore[index]

    prompt = {
        "session_id": "s-2",
        "cwd": str(workdir),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "why are there postgres connection timeouts with pgbouncer?",
    }
    done = hook("prompt", prompt, cwd=workdir)
    assert done.returncode == 0 and done.stderr == ""
    assert "pgbouncer" in done.stdout
    assert ping(memlode_home)["answered"] >= 1  # type: ignore[index]


def test_two_hooks_at_once_start_one_resident(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    """SessionStart and the next hook back to back (``claude -p``, or a hook that finds a
    backlog) both find the lock free: the second sees the first's resident coming up (the pid
    the stamp names is alive) and starts none."""
    session_start(workdir)
    session_start(workdir, "s-2")
    first = wait_ready(memlode_home)
    stamp = Path(str(lock_of(memlode_home)) + ".started").read_text()
    assert stamp == str(first["pid"])  # the one started is the one that serves
    assert "already serves" not in log_of(memlode_home).read_text()


def test_autostart_off_starts_nothing(workdir: Path, memlode_home: Path, filled: Engine) -> None:
    session_start(workdir, env={"MEMLODE_RESIDENT_AUTOSTART": "0"})
    prompt = {
        "session_id": "s-1",
        "cwd": str(workdir),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "how do we pool postgres connections through pgbouncer?",
    }
    done = hook("prompt", prompt, cwd=workdir, env={"MEMLODE_RESIDENT_AUTOSTART": "0"})
    assert done.returncode == 0 and "pgbouncer" in done.stdout  # the lean path answered
    assert not held(lock_of(memlode_home))
    assert not os.path.exists(socket_of(memlode_home))


def test_idle_exit(workdir: Path, memlode_home: Path, filled: Engine) -> None:
    started = memlode("resident", cwd=workdir, env={"MEMLODE_RESIDENT_IDLE": "1.5"})
    assert started.returncode == 0, started.stderr
    info = wait_ready(memlode_home)
    assert info["idle_exit_seconds"] == 1.5
    assert wait_until(lambda: not held(lock_of(memlode_home)), 30)
    assert not os.path.exists(socket_of(memlode_home))
    log = log_of(memlode_home).read_text()
    assert "idle for 1.5 s" in log


def test_idle_exit_flag_overrides_the_setting(workdir: Path, memlode_home: Path) -> None:
    started = memlode("resident", "--idle-exit", "1", cwd=workdir)
    assert started.returncode == 0, started.stderr
    assert wait_until(lambda: not held(lock_of(memlode_home)), 30)
    bad = memlode("resident", "--idle-exit", "-3", cwd=workdir)
    assert bad.returncode == 2 and not held(lock_of(memlode_home))


def test_crash_then_the_next_session_start_replaces_it(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    session_start(workdir)
    first = wait_ready(memlode_home)
    os.kill(first["pid"], signal.SIGKILL)
    assert wait_until(lambda: not held(lock_of(memlode_home)), 10)
    assert os.path.exists(socket_of(memlode_home))  # the stale socket file stays behind

    # Meanwhile a prompt falls back to the lean path, at once and silently.
    prompt = {
        "session_id": "s-1",
        "cwd": str(workdir),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "how do we pool postgres connections through pgbouncer?",
    }
    done = hook("prompt", prompt, cwd=workdir)
    assert done.returncode == 0 and done.stderr == "" and "pgbouncer" in done.stdout

    session_start(workdir, "s-2")
    second = wait_ready(memlode_home)
    assert second["pid"] != first["pid"]
    owner = read_owner(lock_of(memlode_home))
    assert owner is not None and owner["pid"] == second["pid"]


def _recall_paths(engine: Engine) -> list[str]:
    """Who ranked each stored prompt's recall: "resident" (the engine) or "lean"."""
    rows = engine.list_memories(tags=["prompt"], limit=10)
    return [str(m.metadata.get("recall")) for m in reversed(rows)]


def test_a_prompt_restarts_a_resident_that_went_away(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    """No SessionStart started one (it exited while idle): the first prompt that finds none
    starts it and waits for it to come up, so the engine ranks that prompt too."""
    prompt = {
        "session_id": "s-1",
        "cwd": str(workdir),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "how do we pool postgres connections through pgbouncer?",
    }
    done = hook("prompt", prompt, cwd=workdir)
    assert done.returncode == 0 and "pgbouncer" in done.stdout
    assert ping(memlode_home)["answered"] == 1  # type: ignore[index]
    assert _recall_paths(filled) == ["resident"]


def test_the_first_prompt_after_session_start_is_ranked_by_the_resident(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    """``claude -p "..."`` fires SessionStart and the prompt back to back: the prompt waits for
    the resident SessionStart just started (the engine's ranking, the one the evaluations
    measure) instead of ranking with the lean BM25. With the wait off it ranks lean at once:
    the resident that SessionStart started is held (SIGSTOP) until two seconds after, so that
    it cannot have come up first on an idle machine (the fresh-clone CI of 58a9815 lost that
    race), while a prompt that waited for it, as with the default 3 s, would be ranked by it."""
    prompt = {
        "session_id": "s-1",
        "cwd": str(workdir),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "why were there postgres connection timeouts?",
    }
    session_start(workdir)
    done = hook("prompt", prompt, cwd=workdir)
    assert done.returncode == 0 and done.stderr == "" and "pool size of ten" in done.stdout
    assert ping(memlode_home)["answered"] == 1  # type: ignore[index]
    assert _recall_paths(filled) == ["resident"]

    memlode("resident", "stop", cwd=workdir)
    (memlode_home / "config.toml").write_text("[hooks]\nresident_start_wait_ms = 0\n")
    session_start(workdir, "s-2")
    # the hook that started it stamps its pid beside the lock (memlode.hooks._resident)
    stamp = Path(lock_of(memlode_home) + ".started").read_text().strip()
    assert stamp.isdigit(), stamp
    pid = int(stamp)
    os.kill(pid, signal.SIGSTOP)
    resume = threading.Timer(2.0, os.kill, (pid, signal.SIGCONT))
    resume.start()
    try:
        again = {**prompt, "session_id": "s-2", "prompt": "what caused the postgres timeouts?"}
        assert hook("prompt", again, cwd=workdir).returncode == 0
    finally:
        resume.join()
    assert _recall_paths(filled) == ["resident", "lean"]


def test_a_stalled_resident_costs_the_prompt_only_its_deadline(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    memlode("resident", cwd=workdir)
    info = wait_ready(memlode_home)
    os.kill(info["pid"], signal.SIGSTOP)
    try:
        prompt = {
            "session_id": "s-1",
            "cwd": str(workdir),
            "hook_event_name": "UserPromptSubmit",
            "prompt": "how do we pool postgres connections through pgbouncer?",
        }
        done = hook("prompt", prompt, cwd=workdir)
        assert done.returncode == 0 and done.stderr == "" and "pgbouncer" in done.stdout
    finally:
        os.kill(info["pid"], signal.SIGCONT)
    assert ping(memlode_home) is not None  # it goes on serving afterwards


def test_status_and_stop_reach_a_resident_too_busy_to_answer(
    workdir: Path, memlode_home: Path
) -> None:
    """A resident that holds the lock but does not answer in time (stalled here): `resident
    status` says it runs and does not answer, and `resident stop` sends it SIGTERM and it
    stops; before, both said that none served, and it went on running."""
    memlode("resident", cwd=workdir)
    info = wait_ready(memlode_home)
    os.kill(info["pid"], signal.SIGSTOP)
    try:  # status says it runs, though it does not answer (before: "no resident", exit 3)
        shown = memlode("resident", "status", "--json", cwd=workdir)
    except BaseException:
        os.kill(info["pid"], signal.SIGCONT)
        raise
    assert shown.returncode == 0, shown.stdout + shown.stderr
    answer = json.loads(shown.stdout)
    assert (answer["running"], answer["answering"], answer["pid"]) == (True, False, info["pid"])
    stopping = _spawn(workdir, "resident", "stop")
    try:
        # the stop request goes unanswered for its second; then the signal waits in the queue
        assert wait_until(lambda: stopping.poll() is not None or _signalled(info["pid"]), 30)
    finally:
        os.kill(info["pid"], signal.SIGCONT)
    out, err = stopping.communicate(timeout=60)
    assert (stopping.returncode, err) == (0, ""), out
    assert out.strip() == f"resident stopped (pid {info['pid']})"
    assert not held(lock_of(memlode_home))


def _spawn(cwd: Path, *args: str) -> subprocess.Popen[str]:
    """``memlode ARGS`` started in ``cwd``, its output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "memlode", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _signalled(pid: int) -> bool:
    """A signal other than SIGCONT waits for the stopped process ``pid``."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            fields = dict(line.split(":", 1) for line in fh if ":" in line)
    except OSError:
        return False
    pending = int(fields.get("ShdPnd", "0"), 16) | int(fields.get("SigPnd", "0"), 16)
    return bool(pending & ~(1 << (signal.SIGCONT - 1)))


def test_a_removed_store_stops_its_resident(workdir: Path, tmp_path: Path) -> None:
    db = tmp_path / "elsewhere" / "store.db"
    db.parent.mkdir()
    assert memlode("--db", str(db), "store", "a note", cwd=workdir).returncode == 0
    assert memlode("--db", str(db), "resident", cwd=workdir).returncode == 0
    home = Path(os.environ["MEMLODE_HOME"])
    wait_ready(home, db)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    assert wait_until(lambda: not held(lock_of(home, db)), 30)
    log = log_of(home, db).read_text()
    # removed, or replaced when a thread of the resident opened the path again meanwhile
    assert "database file was removed" in log or "database file was replaced" in log


def test_two_stores_side_by_side(workdir: Path, tmp_path: Path) -> None:
    """Two homes, and two --db files in one home: each store its own resident, no cross
    answers, and a request for another store's database is refused."""
    home_a, home_b = tmp_path / "home-a", tmp_path / "home-b"
    db_c = tmp_path / "c.db"
    stores = [
        ({"MEMLODE_HOME": str(home_a)}, [], "alpha pgbouncer pooling note"),
        ({"MEMLODE_HOME": str(home_b)}, [], "beta pgbouncer pooling note"),
        ({"MEMLODE_HOME": str(home_a)}, ["--db", str(db_c)], "gamma pgbouncer pooling note"),
    ]
    for env, flags, text in stores:
        assert memlode(*flags, "store", text, cwd=workdir, env=env).returncode == 0
        assert memlode(*flags, "resident", cwd=workdir, env=env).returncode == 0
    infos = [
        wait_ready(home_a),
        wait_ready(home_b),
        wait_ready(home_a, db_c),
    ]
    assert len({i["pid"] for i in infos}) == 3
    assert len({i["socket"] for i in infos}) == 3
    for (env, flags, text), info in zip(stores, infos, strict=True):
        found = memlode(*flags, "search", "pgbouncer pooling", "--json", cwd=workdir, env=env)
        assert found.returncode == 0, found.stderr
        assert text in found.stdout
        assert sum(t in found.stdout for _e, _f, t in stores) == 1
        assert ping(Path(env["MEMLODE_HOME"]), Path(flags[1]) if flags else None)["answered"] >= 1  # type: ignore[index]
        del info

    # Store A's socket asked about store B's database: refused, nothing of either leaks.
    other = request(
        home_a,
        {"op": "recall", "db": infos[1]["db"], "query": "pgbouncer pooling", "namespace": ""},
    )
    assert other is not None and other["code"] == "other-db" and other["hits"] == []
    nodb = request(home_a, {"op": "recall", "query": "pgbouncer pooling"})
    assert nodb is not None and nodb["code"] == "bad-request" and nodb["hits"] == []


def test_a_long_home_puts_the_socket_in_a_private_short_folder(
    workdir: Path, tmp_path: Path
) -> None:
    home = tmp_path / ("h" * 60) / ("o" * 60)
    env = {"MEMLODE_HOME": str(home)}
    assert memlode("store", "a note about pgbouncer", cwd=workdir, env=env).returncode == 0
    assert memlode("resident", cwd=workdir, env=env).returncode == 0, "no start"
    info = wait_ready(home)
    assert info["socket"].startswith(f"/tmp/memlode-{os.getuid()}/")
    folder = os.path.dirname(info["socket"])
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    found = memlode("search", "pgbouncer", cwd=workdir, env=env)
    assert "a note about pgbouncer" in found.stdout
    assert memlode("resident", "stop", cwd=workdir, env=env).returncode == 0
    assert not os.path.exists(info["socket"])


@pytest.mark.parametrize(
    "payload, code",
    [
        (b"not json", "bad-request"),
        (b"[1, 2]", "bad-request"),
        (b'{"op": "explode"}', "unknown-op"),
    ],
)
def test_bad_requests_get_errors_and_the_resident_goes_on(
    workdir: Path, memlode_home: Path, payload: bytes, code: str
) -> None:
    from memlode.resident_client.wire import exchange

    memlode("resident", cwd=workdir)
    wait_ready(memlode_home)
    raw = exchange(socket_of(memlode_home), payload, 5.0)
    assert raw is not None and f'"code": "{code}"'.encode() in raw
    assert ping(memlode_home) is not None


@pytest.fixture
def short_home(memlode_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home with a path short enough for the socket to live in its own run folder: a test
    that opens that folder to others must not touch the folder other tests share in /tmp."""
    home = Path(tempfile.mkdtemp(prefix="ml", dir="/tmp"))
    monkeypatch.setenv("MEMLODE_HOME", str(home))
    try:
        yield home
    finally:
        for lock in home.rglob("run/*.lock"):
            stop_holder(lock)
        shutil.rmtree(home, ignore_errors=True)


def test_clients_ask_only_a_socket_in_a_private_folder(
    short_home: Path, workdir: Path, filled: Engine
) -> None:
    from memlode.hooks._resident import recall

    memlode_home = short_home
    assert socket_of(memlode_home).startswith(str(memlode_home))  # not the shared folder
    assert memlode("resident", cwd=workdir).returncode == 0
    wait_ready(memlode_home)
    db = str(filled.db.path)
    query = "pgbouncer pooling"
    assert recall(str(memlode_home), db, query, filled.namespace, "s", 4, 5000)
    folder = os.path.dirname(socket_of(memlode_home))
    os.chmod(folder, 0o755)  # anyone could have put a socket here
    try:
        assert recall(str(memlode_home), db, query, filled.namespace, "s", 4, 5000) is None
        assert ping(memlode_home) is None
        found = memlode("search", query, cwd=workdir)  # searched in-process instead
        assert found.returncode == 0 and "pgbouncer" in found.stdout
    finally:
        os.chmod(folder, 0o700)
    info = ping(memlode_home)
    assert info is not None and info["answered"] == 1  # only the first recall reached it


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_foreground_resident_stops_cleanly_on_a_signal(
    workdir: Path, memlode_home: Path, sig: signal.Signals
) -> None:
    proc = _spawn(workdir, "resident", "--foreground")
    try:
        info = wait_ready(memlode_home)
        assert info["pid"] == proc.pid
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out == "" and "Traceback" not in err
    assert not os.path.exists(info["socket"]) and not held(lock_of(memlode_home))


def test_a_changed_config_file_retires_the_resident(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    assert memlode("resident", cwd=workdir).returncode == 0
    first = wait_ready(memlode_home)
    (memlode_home / "config.toml").write_text("[weights]\nbm25 = 0.5\nvector = 0.5\n")
    assert wait_until(lambda: not held(lock_of(memlode_home)), 30)
    log = log_of(memlode_home).read_text()
    assert "config.toml changed" in log
    assert memlode("resident", cwd=workdir).returncode == 0
    assert wait_ready(memlode_home)["pid"] != first["pid"]


def test_the_resident_consolidates_when_due(
    workdir: Path, memlode_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store with repeated observations and no consolidation yet: a resident started on it
    consolidates it soon after it is up (on its own thread), and logs the runs."""
    import sqlite3

    from memlode.config import Settings
    from memlode.storage import memories

    engine = Engine(Settings.load({}), cwd=workdir)
    try:
        with engine.db.write() as conn:
            for n in range(4):
                new = NewMemory(
                    f"$ npm test\n[stdout]\nrun {n}: 12 passing",
                    tags=["command", "tool:Bash"],
                    metadata={"command": "npm test"},
                    namespace=engine.namespace,
                    source="hook",
                    session_id="s1",
                )
                memories.insert(conn, new)
        db = engine.db.path
    finally:
        engine.close()
    monkeypatch.setenv("MEMLODE_CONSOLIDATE_EVERY", "24")
    assert memlode("resident", cwd=workdir).returncode == 0
    wait_ready(memlode_home)

    def finished() -> list[tuple[str, str]]:
        with sqlite3.connect(db) as conn:
            return conn.execute(
                "SELECT kind, namespace FROM consolidation_log WHERE finished_at IS NOT NULL"
            ).fetchall()

    # each cycle logs as it finishes: wait for the whole run
    assert wait_until(lambda: len(finished()) >= len(AUTO_CYCLES), timeout=30)
    assert {kind for kind, _ in finished()} == set(AUTO_CYCLES)  # decay runs when asked
    assert "decay" not in AUTO_CYCLES
    with sqlite3.connect(db) as conn:
        [summary] = conn.execute(
            "SELECT content FROM memories WHERE source = 'consolidation'"
        ).fetchall()
    assert summary[0].startswith("Ran `npm test` 4 times")


def test_store_names_what_a_statement_may_replace_when_the_resident_runs(
    workdir: Path, memlode_home: Path
) -> None:
    """``memlode store`` asks the resident (it has the model) what the new statement replaces
    and may replace; without one it names only what the wording rules linked."""
    kong = memlode(
        "store", "-t", "decision", "Kong fronts every public API route of the shop.", cwd=workdir
    ).stdout.strip()
    memlode("store", "-t", "decision", "The checkout page is rendered on the server.", cwd=workdir)
    alone = memlode(
        "store", "-t", "decision", "Envoy fronts every public API route, as a note.", cwd=workdir
    )
    assert alone.returncode == 0 and alone.stderr == ""  # no resident: nothing to compare with
    memlode("resident", cwd=workdir)
    wait_ready(memlode_home)
    text = "Traefik fronts every public API route of the shop, with its rate limits."
    done = memlode("store", "-t", "decision", text, "--json", cwd=workdir)
    said = json.loads(done.stdout)
    assert said["replaces"] == [] and said["may_replace"][0] == kong
    plain = memlode("store", "-t", "decision", "Caddy fronts every public API route.", cwd=workdir)
    new = plain.stdout.strip()
    lines = plain.stderr.strip().splitlines()
    assert lines and all(line.startswith("may replace ") for line in lines)
    command = lines[0].split("(if so: ", 1)[1].rstrip(")")
    assert command.startswith("memlode supersede ") and command.endswith(f" {new}")
    assert memlode(*command.split()[1:], cwd=workdir).returncode == 0  # it links them
    refused = request(memlode_home, {"op": "replacing", "db": ping(memlode_home)["db"]})  # type: ignore[index]
    assert refused is not None and refused["code"] == "bad-request"
