"""One request, one answer over a unix socket, within a hard deadline.

Shared by the hooks (``memlode.hooks._resident``) and the CLI (``memlode.resident_client.client``).
It uses the builtin ``_socket`` module, not ``socket``: the latter imports ``enum`` and
``selectors`` (~10 ms), a fifth of a hook's budget. The caller encodes and decodes the JSON
(the hooks with ``memlode.fastjson``, the CLI with ``json``).

Import-light (``os``, ``time``, ``_socket``).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAX_ANSWER_BYTES", "exchange", "notify"]

MAX_ANSWER_BYTES = 16 << 20  # a search of k=1000 long memories stays well under this


def _ours(path: str) -> bool:
    """True for a socket file of this user's in a folder only this user can enter: an answer
    from anyone else's socket (a planted ``/tmp/memlode-<uid>``) would be injected into the
    assistant's context."""
    try:
        sock = os.lstat(path)
        folder = os.lstat(os.path.dirname(path) or ".")
    except OSError:
        return False
    uid = os.getuid() if hasattr(os, "getuid") else sock.st_uid
    return (
        sock.st_mode & 0o170000 == 0o140000  # S_IFSOCK
        and sock.st_uid == uid
        and folder.st_mode & 0o170000 == 0o040000  # S_IFDIR
        and folder.st_uid == uid
        and not folder.st_mode & 0o077
    )


def _connect(path: str, timeout: float) -> Any:
    """A connected ``_socket.socket`` to ``path`` (the caller closes it), or None."""
    if timeout <= 0 or not _ours(path):
        return None
    try:
        import _socket
    except ImportError:  # pragma: no cover - every CPython has it
        return None
    family = getattr(_socket, "AF_UNIX", None)
    if family is None:
        return None
    try:
        sock = _socket.socket(family, _socket.SOCK_STREAM)
    except OSError:
        return None
    try:
        sock.settimeout(timeout)
        sock.connect(path)
    except OSError:  # refused (a stale socket), timed out
        sock.close()
        return None
    return sock


def notify(path: str, request: bytes, timeout: float) -> bool:
    """Send ``request`` (one line) to the socket at ``path`` and hang up without waiting for an
    answer; True when it was sent (someone listens). Never raises."""
    sock = _connect(path, timeout)
    if sock is None:
        return False
    try:
        sock.sendall(request.rstrip(b"\n") + b"\n")
        return True
    except OSError:
        return False
    finally:
        sock.close()


def exchange(path: str, request: bytes, timeout: float) -> bytes | None:
    """Send ``request`` (one line, newline added) to the socket at ``path`` and return the
    answer's first line; None when nobody listens, the deadline passes or the answer breaks
    off. Never raises for socket trouble, never waits longer than ``timeout`` seconds.
    Only a socket of this user's, in a private folder, is asked."""
    deadline = time.monotonic() + timeout
    sock = _connect(path, timeout)
    if sock is None:
        return None
    try:
        sock.sendall(request.rstrip(b"\n") + b"\n")
        chunks: list[bytes] = []
        size = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            sock.settimeout(remaining)
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if b"\n" in chunk or size > MAX_ANSWER_BYTES:
                break
    except OSError:  # refused (a stale socket), timed out, reset
        return None
    finally:
        sock.close()
    data = b"".join(chunks)
    if b"\n" not in data:
        return None  # cut off: not an answer
    return data.split(b"\n", 1)[0]
