"""The hook error log: ``$MEMLODE_HOME/hooks.log``, and the hook timing log:
``$MEMLODE_HOME/hook-timings.log`` (one line per hook run: when, the event, the milliseconds
memlode spent from reading the payload to its answer, the client that ran it; the dashboard's
Health page and ``doctor``'s "last hook seen" read it).
Both bounded in size.

Hooks must print nothing, so failures go here (and nowhere else). When the file passes
``MAX_BYTES`` it is rotated to ``hooks.log.1`` (one old file kept). No ``logging`` import: a hook
writes at most a line or two. The log may quote what a tool saw, so it is owner-only like the
rest of the home: created 0600 in a home created 0700 (``memlode.owner_only``).
"""

from __future__ import annotations

import os
import time

__all__ = ["MAX_BYTES", "keep_bounded", "log_line", "timing_line"]

MAX_BYTES = 256 * 1024
_MAX_LINE = 2000


def log_line(path: str, event: str, message: str) -> None:
    """Append one line; never raises."""
    try:
        os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
        _rotate(path)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        from memlode.redact import redact  # an error may quote what the hook was storing

        text = redact(" ".join(message[: 8 * _MAX_LINE].split()))[:_MAX_LINE]
        line = f"{stamp} pid={os.getpid()} {event}: {text}\n"
        _append(path, line)
    except Exception:
        pass


def timing_line(path: str, event: str, milliseconds: float, client: str) -> None:
    """Append one hook run's time (its home exists once the hook has opened its store);
    never raises. One short write with O_APPEND, so parallel hooks never interleave a line."""
    try:
        _rotate(path)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        _append(path, f"{stamp} {event} {milliseconds:.1f} {client}\n")
    except Exception:
        pass


def keep_bounded(path: str) -> None:
    """Rotate ``path`` if it passed ``MAX_BYTES``, before another process appends to it (the
    detached transcript ingest writes its errors there); never raises."""
    _rotate(path)


def _rotate(path: str) -> None:
    try:
        if os.path.getsize(path) > MAX_BYTES:
            os.replace(path, path + ".1")  # one old file kept
    except OSError:
        pass


def _append(path: str, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode("utf-8", errors="replace"))
    finally:
        os.close(fd)
