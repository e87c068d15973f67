"""The hook spool of a PostgreSQL store: the hooks' events, one JSON line each, in the order
they happened, for the store's resident to apply (``memlode.resident.hook_queue``).

A hook cannot open a PostgreSQL store (importing the driver costs more than its whole budget),
so on such a store every hook appends its event here first (``append``) and then tells the
resident (``memlode.hooks.handoff``). The resident applies the lines in file order, each once,
and answers the hooks that wait for their output (SessionStart, UserPromptSubmit). Whatever the
resident was doing (starting, down, busy), nothing a hook saw is lost: the line is on disk
before the hook says anything to anyone.

``<home>/run/<key>.spool`` (``paths.spool_path``: one per store), created 0600 in the 0700 run
folder, since a payload may quote what a tool saw before redaction (which happens where the row
is written). Beside it, ``<key>.spool.offset`` holds how far the resident has applied.

Concurrency:

- Appends: one ``write`` of one whole line on an ``O_APPEND`` descriptor, under an exclusive
  ``flock`` of the spool file, so that parallel hooks never interleave (even a line larger than
  the kernel's atomic write size) and never write into a truncation.
- The resident alone reads and advances the offset (a file replaced whole, ``os.replace``), and
  empties the spool only under the same lock, when it has applied every line (the offset is
  reset first: a crash in between applies lines again rather than skip new ones; re-applied
  rows meet the store's dedup).

Import-light (``os``, ``fcntl``): the hooks call ``append``.
"""

from __future__ import annotations

import os

__all__ = ["OFFSET_SUFFIX", "append", "empty_if_done", "read_from", "read_offset", "write_offset"]

OFFSET_SUFFIX = ".offset"
# The resident reads at most this much of the spool at a time (it reads again for the rest).
READ_CHUNK = 4 << 20


def append(path: str, line: bytes) -> bool:
    """Append ``line`` (one JSON object; a newline is added) to the spool at ``path``. True
    once it is written; False when it could not be (the caller logs it). Never raises."""
    import fcntl

    data = line.replace(b"\n", b" ").replace(b"\r", b" ") + b"\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except FileNotFoundError:  # no run folder yet
        from memlode.owner_only import make_private_dir

        try:
            make_private_dir(os.path.dirname(path))
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return False
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        view = memoryview(data)
        while view:  # a regular file takes it whole; a short write (a full disk) is continued
            written = os.write(fd, view)
            view = view[written:]
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # releases the lock


def read_offset(path: str) -> int:
    """How far the resident has applied the spool at ``path`` (0 when it never has)."""
    try:
        with open(path + OFFSET_SUFFIX, "rb") as fh:
            return max(0, int(fh.read(40).strip() or b"0"))
    except (OSError, ValueError):
        return 0


def write_offset(path: str, offset: int) -> None:
    """Record ``offset`` (a new file put in place whole: never half a number)."""
    temporary = f"{path}{OFFSET_SUFFIX}.{os.getpid()}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, str(offset).encode("ascii"))
    finally:
        os.close(fd)
    os.replace(temporary, path + OFFSET_SUFFIX)


def read_from(path: str, offset: int) -> list[tuple[int, bytes]]:
    """The whole lines after ``offset``: (the offset just past each line, its text), at most
    about ``READ_CHUNK`` bytes of them. A spool shorter than ``offset`` (emptied by a crashed
    resident after the offset was reset) reads from its start."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < offset:
                offset = 0
            fh.seek(offset)
            data = fh.read(READ_CHUNK)
            while data and not data.endswith(b"\n") and len(data) < size - offset:
                more = fh.read(READ_CHUNK)  # one line longer than the chunk: read it whole
                if not more:
                    break
                data += more
    except FileNotFoundError:
        return []
    out: list[tuple[int, bytes]] = []
    position = offset
    for text in data.split(b"\n")[:-1]:  # the last piece is a partial line, or empty
        position += len(text) + 1
        out.append((position, text))
    return out


def empty_if_done(path: str, offset: int) -> bool:
    """Empty the spool when ``offset`` is its end (every line applied), under the appenders'
    lock; True when it was emptied (the offset is then 0)."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.fstat(fd).st_size != offset or offset == 0:
            return False
        write_offset(path, 0)  # first: a crash before the truncation re-applies, never skips
        os.ftruncate(fd, 0)
        return True
    finally:
        os.close(fd)
