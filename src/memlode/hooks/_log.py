"""The hook error log: ``$MEMLODE_HOME/hooks.log``, bounded in size.

Hooks must print nothing, so failures go here (and nowhere else). When the file passes
``MAX_BYTES`` it is rotated to ``hooks.log.1`` (one old file kept). No ``logging`` import: a hook
writes at most a line or two.
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
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        try:
            if os.path.getsize(path) > MAX_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        text = " ".join(message.split())[:_MAX_LINE]
        with open(path, "a", encoding="utf-8", errors="replace") as fh:
            fh.write(f"{stamp} pid={os.getpid()} {event}: {text}\n")
    except Exception:
        pass
