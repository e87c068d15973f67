"""Serve a store's resident in this process until it is stopped or idles out: the
``memlode.interfaces`` entry point ``resident`` that ``memlode resident --foreground`` runs
(and that a detached start runs, by ``memlode.resident_client.launch``).

A detached resident has no terminal: its log (and, through ``sys.stderr``, any traceback) goes
to ``log_file``, cut back to nothing once it has grown past ``MAX_LOG_BYTES``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys

from memlode.config import Settings
from memlode.resident.server import ResidentServer

__all__ = ["MAX_LOG_BYTES", "serve"]

log = logging.getLogger("memlode.resident")

# A detached resident's log is cut back to nothing when it has grown past this at a start.
MAX_LOG_BYTES = 1 << 20


def serve(settings: Settings, idle_seconds: float, log_file: str | None = None) -> str:
    """Serve until stopped; why it stopped (or that another resident already serves)."""
    if log_file:
        _log_to(log_file)
    server = ResidentServer(settings, idle_seconds=idle_seconds)
    if not server.acquire():
        reason = f"a resident process already serves {server.database}"
        log.info("exit: %s", reason)
        return reason

    def ask_to_stop(signum: int, _frame: object) -> None:
        server.exit_reason = f"signal {signal.Signals(signum).name}"
        server.stop(timeout=0)

    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), ask_to_stop)
    # hold no project folder open (a detached resident inherits the hook's directory)
    with contextlib.suppress(OSError):
        os.chdir(settings.home)
    reason = server.run()
    log.info("exit: %s", reason)
    return reason


def _log_to(path: str) -> None:
    try:
        if os.path.getsize(path) > MAX_LOG_BYTES:
            os.truncate(path, 0)
    except OSError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    stream = os.fdopen(fd, "a", encoding="utf-8", buffering=1)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)
    sys.stderr = stream  # a detached process's stderr is /dev/null: tracebacks go here too
