"""Where a store's resident keeps its socket, lock and log.

Everything derives from the store's identity (``database_path``): the resolved database path
of a SQLite store, or a PostgreSQL store's URL without its password (``server_identity``), so
two stores side by side (two homes, two ``--db`` files in one home, two servers or schemas) each
get their own resident and never answer for the other:

    <home>/run/<key>.lock    the flock that makes the resident unique (memlode.resident_client.lock)
    <home>/run/<key>.sock    the unix socket, owner only (0600 in a 0700 folder)
    <home>/run/<key>.log     what a detached resident logs
    <home>/run/<key>.spool   a PostgreSQL store's hook events for its resident to apply
                             (memlode.resident_client.spool)

``key`` is the first 12 hex digits of the SHA-1 of the store's identity.

A unix socket's path is limited (108 bytes on Linux, 104 on macOS, including the final NUL).
When ``<home>/run/<key>.sock`` is longer than ``MAX_SOCKET_PATH``, the socket goes to a private
folder of the user's instead, ``/tmp/memlode-<uid>`` (0700, refused unless it is a real folder
owned by this user with no access for anyone else). It does not depend on the environment, so
every process of the user finds the same path.

Import-light (``os`` and the builtin ``_sha1``; no URL parser): the hooks call it.
"""

from __future__ import annotations

import os

from memlode.config_file import is_server_url

__all__ = [
    "MAX_SOCKET_PATH",
    "RUN_FOLDER",
    "database_path",
    "lock_path",
    "log_path",
    "private_dir_ok",
    "resident_key",
    "run_dir",
    "server_identity",
    "socket_path",
    "spool_path",
]

RUN_FOLDER = "run"
# sockaddr_un.sun_path is 104 bytes on macOS and the BSDs, 108 on Linux; keep one for the NUL.
MAX_SOCKET_PATH = 103
KEY_CHARS = 12


def database_path(home: str, db: str | None = None) -> str:
    """The store's identity: the resolved database path (``db``, ``~`` expanded, or
    ``<home>/memlode.db``), or for a PostgreSQL URL ``server_identity(db)``."""
    if db and is_server_url(db):
        return server_identity(db)
    raw = os.path.expanduser(db) if db else os.path.join(os.path.expanduser(home), "memlode.db")
    return os.path.realpath(os.path.abspath(raw))


def server_identity(url: str) -> str:
    """A PostgreSQL URL as the name of its resident: trimmed, ``postgresql://`` however the
    scheme was spelt, without the password (in the userinfo or a ``password=`` parameter).

    Told without a URL parser (a hook cannot afford ``urllib``'s ``re``). Two spellings of one
    store that differ otherwise (host order, a default port written out) name two residents;
    each serves the store correctly, and ``memlode.storage.postgres.connection.store_key`` (the
    driver's parser) still keys the caches alike.
    """
    text = url.strip()
    scheme, _, rest = text.partition("://")
    scheme = "postgresql" if scheme.lower() in ("postgresql", "postgres") else scheme
    authority, slash, tail = rest.partition("/")
    userinfo, at, hostport = authority.rpartition("@")
    if at:
        authority = userinfo.partition(":")[0] + "@" + hostport
    path, question, query = tail.partition("?")
    if question:
        kept = [p for p in query.split("&") if not p.lower().startswith("password=")]
        query = "&".join(kept)
        question = "?" if query else ""
    return f"{scheme}://{authority}{slash}{path}{question}{query}"


def resident_key(database: str) -> str:
    """The store's key: SHA-1 of its identity (``database_path``), 12 hex digits."""
    try:  # the builtin module: hashlib would load OpenSSL (~15 ms in a hook)
        sha1 = __import__("_sha1").sha1
    except ImportError:  # pragma: no cover - CPython builds have it
        from hashlib import sha1
    name = database if is_server_url(database) else os.path.realpath(os.path.abspath(database))
    data = name.encode("utf-8", "surrogateescape")
    return str(sha1(data).hexdigest())[:KEY_CHARS]


def run_dir(home: str) -> str:
    return os.path.join(os.path.expanduser(home), RUN_FOLDER)


def lock_path(home: str, database: str) -> str:
    return os.path.join(run_dir(home), resident_key(database) + ".lock")


def log_path(home: str, database: str) -> str:
    return os.path.join(run_dir(home), resident_key(database) + ".log")


def spool_path(home: str, database: str) -> str:
    return os.path.join(run_dir(home), resident_key(database) + ".spool")


def socket_path(home: str, database: str) -> str:
    """The socket of the store's resident (it may not exist: nobody is listening)."""
    name = resident_key(database) + ".sock"
    path = os.path.join(run_dir(home), name)
    if len(path.encode("utf-8", "surrogateescape")) <= MAX_SOCKET_PATH:
        return path
    return os.path.join(_short_dir(), name)


def _short_dir() -> str:
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join("/tmp", f"memlode-{uid}")


def private_dir_ok(path: str) -> bool:
    """True when ``path`` is a real folder of this user's that nobody else can enter."""
    import stat

    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_mode & 0o077:
        return False
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()
