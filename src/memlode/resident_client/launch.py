"""Start a store's resident as a detached process: ``memlode resident --foreground``.

Used by the SessionStart hook (when no resident holds the store's lock) and by ``memlode
resident`` without ``--foreground``. ``posix_spawn`` rather than ``subprocess``: nothing to
import on the hook's hot path, and the parent returns at once. The child runs in a session of
its own (``setsid``: it outlives the hook and the assistant's process group), with stdin,
stdout and stderr on ``/dev/null``; it logs to ``<home>/run/<key>.log``.

If two starters race, both children start; the one that does not get the lock exits at once
(``memlode.resident_client.lock``).

Import-light (``os``, ``sys``).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["start_detached"]


def start_detached(
    home: str,
    database: str,
    environ: Mapping[str, str] | None = None,
    *,
    idle_seconds: float | None = None,
    location: str | None = None,
) -> int:
    """Spawn the resident of ``database`` (whose home is ``home``; ``location``: where the
    resident opens the store, when not at ``database``, e.g. a PostgreSQL URL with its
    password, which the store's identity leaves out); its pid."""
    from memlode.resident_client.paths import log_path, run_dir

    env = dict(os.environ if environ is None else environ)
    env["MEMLODE_HOME"] = home
    env["MEMLODE_DB"] = location or database
    os.makedirs(run_dir(home), mode=0o700, exist_ok=True)
    args = [
        sys.executable,
        "-m",
        "memlode",
        "resident",
        "--foreground",
        "--log-file",
        log_path(home, database),
    ]
    if idle_seconds is not None:
        args += ["--idle-exit", repr(float(idle_seconds))]
    devnull = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    return os.posix_spawn(sys.executable, args, env, file_actions=devnull, setsid=True)
