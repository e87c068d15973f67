"""Helpers for the resident tests (the fixtures are in conftest.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import CliResult, run_hook

from memlode.config import Settings
from memlode.resident_client.client import ask, database_of
from memlode.resident_client.lock import held, read_owner
from memlode.resident_client.paths import lock_path, log_path, socket_path


def stop_holder(lock: Path) -> None:
    owner = read_owner(str(lock))
    if not held(str(lock)) or owner is None:
        return
    pid = int(owner["pid"])
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        if wait_until(lambda: not held(str(lock)), wait):
            return


def wait_until(condition: Callable[[], object], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


def settings_for(home: Path, db: Path | None = None) -> Settings:
    return Settings.load({"home": str(home), "db_path": str(db) if db else None})


def ping(home: Path, db: Path | None = None) -> dict[str, Any] | None:
    answer = ask(settings_for(home, db), {"op": "ping"}, 2.0)
    return answer if answer is not None and answer.get("ok") is True else None


def request(home: Path, payload: dict[str, Any], db: Path | None = None) -> dict[str, Any] | None:
    """``payload`` as it is (``db`` included only if the test gives one) to the store's socket."""
    from memlode.resident_client.wire import exchange

    settings = settings_for(home, db)
    path = socket_path(str(home), database_of(settings))
    raw = exchange(path, json.dumps(payload).encode(), 10.0)
    return json.loads(raw) if raw is not None else None


def wait_ready(home: Path, db: Path | None = None, timeout: float = 60.0) -> dict[str, Any]:
    """The resident's ping once it has warmed up (fails the test if it never does)."""
    found: dict[str, Any] = {}

    def ready() -> bool:
        answer = ping(home, db)
        if answer is not None and answer.get("ready"):
            found.update(answer)
            return True
        return False

    assert wait_until(ready, timeout), f"no resident answered for {home}"
    return found


def lock_of(home: Path, db: Path | None = None) -> str:
    return lock_path(str(home), database_of(settings_for(home, db)))


def socket_of(home: Path, db: Path | None = None) -> str:
    return socket_path(str(home), database_of(settings_for(home, db)))


def log_of(home: Path, db: Path | None = None) -> Path:
    """The resident's log (in the home's run folder, wherever its socket had to go)."""
    return Path(log_path(str(home), database_of(settings_for(home, db))))


def memlode(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def hook(
    event: str, payload: dict[str, Any], *, cwd: Path, env: dict[str, str] | None = None
) -> CliResult:
    """One hook process as Claude Code runs it."""
    return run_hook(event, payload, cwd=cwd, env=env)


# Memories about a made-up service: enough shared words that the ranking has work to do.
MEMORIES = [
    ("postgres connection pooling goes through pgbouncer in transaction mode", "decision"),
    ("pgbouncer max_client_conn raised to 400 after the load test", "insight"),
    ("the auth service caches session tokens in redis for fifteen minutes", "decision"),
    ("redis eviction policy is allkeys-lru on the cache cluster", "pattern"),
    ("login tokens expire after one hour; refresh tokens after thirty days", "decision"),
    ("the billing worker retries failed invoices three times with backoff", "pattern"),
    ("connection timeouts to postgres were caused by the pool size of ten", "insight"),
    ("we moved the session cache from memcached to redis in March", "decision"),
    ("the search API ranks with BM25 and vectors, weights in config", "context"),
    ("dark mode toggle lives in the settings page component", "context"),
    ("pool exhaustion shows up as 'too many clients' errors in the logs", "insight"),
    ("the ingest pipeline batches rows by 500 before each commit", "pattern"),
]
