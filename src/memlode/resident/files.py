"""What the resident server checks on its files and its socket's peers: a file's identity (a
database replaced under it, its socket file removed), ``config.toml``'s stamp (changed), the
peer's user, and one request line read within ``MAX_REQUEST_BYTES``."""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path

from memlode.resident.protocol import MAX_REQUEST_BYTES

__all__ = ["identity", "read_line", "same_user", "stamp"]

log = logging.getLogger("memlode.resident.server")


def identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)  # stat only: the database file is never opened here
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)


def same_user(conn: socket.socket) -> bool:
    """False for a peer of another user (Linux credentials; elsewhere the 0600 socket file in a
    0700 folder is the guard)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None or not hasattr(os, "getuid"):
        return True
    import struct

    try:
        raw = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return True
    _pid, uid, _gid = struct.unpack("3i", raw)
    if uid != os.getuid():
        log.warning("resident: refused a connection from uid %d", uid)
        return False
    return True


def read_line(conn: socket.socket) -> bytes:
    data = b""
    while b"\n" not in data and len(data) <= MAX_REQUEST_BYTES:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0][:MAX_REQUEST_BYTES]
