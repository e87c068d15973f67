"""The lock that makes a store's resident unique: ``flock`` on ``<home>/run/<key>.lock``.

The lock is taken on a file of its own, never on the database or its WAL/SHM: closing any
descriptor of the database would drop the process's POSIX locks on it (see
``memlode.storage.db``), and ``flock`` locks are a separate kind anyway. The kernel releases a
``flock`` when its holder dies, so a resident killed with ``kill -9`` leaves no stale lock: the
next one takes it, finds the old socket file, and replaces it.

While it holds the lock, the resident writes one JSON line into the file (pid, database,
socket, start time) for ``memlode resident status`` to read; the lock, not that text, decides.

Import-light (``os``, ``fcntl``): the SessionStart hook probes the lock.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ResidentLock", "held", "read_owner"]

# A probe (a hook asking whether a resident runs) holds the lock for microseconds; a starting
# resident that meets one tries again this many times, this far apart.
ACQUIRE_ATTEMPTS = 20
ACQUIRE_PAUSE = 0.025


def _open(path: str) -> int:
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, 0o600)


def held(path: str) -> bool:
    """True when a live process holds the lock (a resident runs or is starting).

    Takes a shared lock for an instant: a resident holds an exclusive one. A missing run folder
    means nobody ever ran (False); any other failure to probe is reported as held, so that a
    caller never starts residents it cannot account for.
    """
    import fcntl

    try:
        fd = _open(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return True
    finally:
        os.close(fd)  # closing the descriptor releases a lock taken through it
    return False


def read_owner(path: str) -> dict[str, Any] | None:
    """What the holder wrote into the lock file, if it parses (None otherwise)."""
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(4096)
        value = json.loads(text) if text.strip() else None
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


class ResidentLock:
    """An exclusive ``flock`` held for the life of the resident."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def locked(self) -> bool:
        return self._fd is not None

    def acquire(self, attempts: int = ACQUIRE_ATTEMPTS, pause: float = ACQUIRE_PAUSE) -> bool:
        """Take the lock; False when another process holds it (after ``attempts`` tries)."""
        import fcntl

        if self._fd is not None:
            return True
        fd = _open(self.path)
        for attempt in range(max(1, attempts)):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if attempt + 1 < attempts:
                    time.sleep(pause)
                continue
            except OSError:
                os.close(fd)
                raise
            self._fd = fd
            return True
        os.close(fd)
        return False

    def write_owner(self, info: dict[str, Any]) -> None:
        """Replace the file's text with ``info`` (one JSON line)."""
        import json

        if self._fd is None:
            raise RuntimeError("write_owner without the lock")
        data = (json.dumps(info, sort_keys=True) + "\n").encode("utf-8")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def release(self) -> None:
        """Clear the owner text and let go (the file stays: removing it would race a taker)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:  # noqa: SIM105 - contextlib costs a hook process milliseconds to import
            os.ftruncate(fd, 0)
        except OSError:
            pass
        os.close(fd)
