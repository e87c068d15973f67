"""Owner-only files under the memlode home, and the HTTP server's bearer token.

The home (``$MEMLODE_HOME``, default ``~/.memlode``) holds every memory in clear text: the
database and its WAL and shared-memory files, the hook log, the config, the vector mirrors, the
HTTP token. Other local users must read none of it, so the home and the folders memlode makes in
it are 0700 and the files 0600. Files are created with those modes where memlode writes them;
a home or files left looser by an older version (or by a umask) are tightened with ``chmod``
when memlode next opens the store (``secure_home``, ``secure_database``).

Only memlode's own names are tightened: a home pointed at a folder that holds other things
leaves those alone. Folders memlode writes into the user's project keep the user's umask; this
module is only about the home and the database.

Nothing here opens the database, its WAL or its SHM file: ``chmod`` and ``stat`` act on the
path, and closing a descriptor of a database file would drop the process's POSIX locks on it
(see ``memlode.storage.db``). SQLite gives a new WAL or SHM file the database file's mode, so a
database tightened before its first write in WAL mode keeps both private.

L0: stdlib only (``os``, ``stat``, ``secrets``); the hooks import it.
"""

from __future__ import annotations

import os
import stat

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "TOKEN_FILE",
    "http_token",
    "make_private_dir",
    "new_http_token",
    "secure_database",
    "secure_home",
    "tighten",
    "write_private",
]

DIR_MODE = 0o700
FILE_MODE = 0o600
_LOOSE = 0o077  # any group or other permission bit

TOKEN_FILE = "http-token"
# secrets.token_urlsafe(32): 32 random bytes, 43 characters; RFC 6750 bearer token syntax.
TOKEN_BYTES = 32
_MIN_TOKEN_CHARS = 32

# What memlode itself keeps directly in the home; anything else there is not ours to chmod.
_HOME_FILE_PREFIXES = ("memlode.", "hooks.log", "demo.db", "config.toml", TOKEN_FILE)
# Folders memlode keeps in the home; their contents are memlode's too.
_HOME_FOLDERS = ("cache", "models", "global")
# Suffixes SQLite adds to a database's path for its side files.
_SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def tighten(path: str | os.PathLike[str]) -> None:
    """Remove group and other permissions from a file (0600) or folder (0700) of ours.

    Symlinks, sockets and files owned by someone else are left alone; errors are ignored (a
    file that vanished or a read-only file system is not a reason to fail a command).
    """
    try:
        info = os.lstat(path)
        if not info.st_mode & _LOOSE:
            return
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            return
        if stat.S_ISDIR(info.st_mode):
            os.chmod(path, DIR_MODE)
        elif stat.S_ISREG(info.st_mode):
            os.chmod(path, FILE_MODE)
    except OSError:
        pass


def make_private_dir(path: str | os.PathLike[str]) -> None:
    """Create ``path`` (and missing parents) with the last folder 0700, or tighten it."""
    os.makedirs(path, mode=DIR_MODE, exist_ok=True)
    tighten(path)


def secure_home(home: str | os.PathLike[str]) -> None:
    """Tighten the home (if it exists) and memlode's files and folders in it.

    A dozen ``lstat`` calls when everything is already private; never raises. The home itself
    is created where something is first written to it (``make_private_dir``).
    """
    tighten(home)
    try:
        with os.scandir(home) as entries:
            found = [(e.name, e.path) for e in entries]
    except OSError:
        return
    for name, path in found:
        if name in _HOME_FOLDERS:
            tighten(path)
            _tighten_tree(path)
        elif name.startswith(_HOME_FILE_PREFIXES):
            tighten(path)


def _tighten_tree(folder: str) -> None:
    try:
        walker = list(os.walk(folder, followlinks=False))
    except OSError:
        return
    for parent, dirs, files in walker:
        for name in (*dirs, *files):
            tighten(os.path.join(parent, name))


def secure_database(path: str | os.PathLike[str]) -> None:
    """Tighten a database file and its WAL, SHM and journal to 0600 (by path, never opened)."""
    base = os.fspath(path)
    tighten(base)
    for suffix in _SQLITE_SIDE_FILES:
        tighten(base + suffix)


def write_private(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` atomically with ``data`` in a file created 0600 from the start."""
    target = os.fspath(path)
    tmp = f"{target}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, FILE_MODE)  # O_CREAT's mode applies only to a new file
        os.replace(tmp, target)
    except BaseException:
        try:  # noqa: SIM105 - contextlib costs a hook process milliseconds to import
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ---- the HTTP server's bearer token ----------------------------------------------------------


def _token_path(home: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(home), TOKEN_FILE)


def _read_token(path: str) -> str | None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise OSError(f"{path} is not a regular file; remove it and run again")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise OSError(f"{path} belongs to another user; remove it and run again")
    tighten(path)
    with open(path, encoding="ascii", errors="replace") as fh:
        token = fh.read().strip()
    if len(token) < _MIN_TOKEN_CHARS or not token.isascii() or any(c.isspace() for c in token):
        raise OSError(f"{path} does not hold a usable token; run `memlode mcp --new-token`")
    return token


def http_token(home: str | os.PathLike[str]) -> str:
    """The HTTP server's bearer token, generated once and kept in ``<home>/http-token`` (0600).

    Two processes creating it at once agree on one token: each writes its own 0600 file and
    links it into place, and the one that finds the name taken reads the winner's.
    Raises ``OSError`` with a readable message when the file cannot be made or used.
    """
    import secrets

    path = _token_path(home)
    token = _read_token(path)
    if token is not None:
        return token
    make_private_dir(os.fspath(home))
    candidate = secrets.token_urlsafe(TOKEN_BYTES)
    tmp = f"{path}.{os.getpid()}.new"
    write_private(tmp, (candidate + "\n").encode("ascii"))
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp)
    token = _read_token(path)
    if token is None:  # removed between link and read: a caller may simply try again
        raise OSError(f"{path} vanished while it was being created; run again")
    return token


def new_http_token(home: str | os.PathLike[str]) -> str:
    """Replace the HTTP token with a fresh one (clients need the new one); returns it."""
    import secrets

    make_private_dir(os.fspath(home))
    token = secrets.token_urlsafe(TOKEN_BYTES)
    write_private(_token_path(home), (token + "\n").encode("ascii"))
    return token
