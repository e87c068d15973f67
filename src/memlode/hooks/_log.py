"""The hook error log: ``$MEMLODE_HOME/hooks.log``, bounded in size.

Hooks must print nothing, so failures go here (and nowhere else). When the file passes
``MAX_BYTES`` it is rotated to ``hooks.log.1`` (one old file kept). No ``logging`` import: a hook
writes at most a line or two. The log may quote what a tool saw, so it is owner-only like the
rest of the home: created 0600 in a home created 0700 (``memlode.owner_only``).
"""

from __future__ import annotations

import os
import time

__all__ = ["MAX_BYTES", "log_line"]

MAX_BYTES = 256 * 1024
_MAX_LINE = 2000


def log_line(path: str, event: str, message: str) -> None:
    """Append one line; never raises."""
    try:
        os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
        try:
            if os.path.getsize(path) > MAX_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        from memlode.redact import redact  # an error may quote what the hook was storing

        text = redact(" ".join(message[: 8 * _MAX_LINE].split()))[:_MAX_LINE]
        line = f"{stamp} pid={os.getpid()} {event}: {text}\n"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8", errors="replace"))
        finally:
            os.close(fd)
    except Exception:
        pass
