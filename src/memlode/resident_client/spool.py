"""The hook spool of a PostgreSQL store: the hooks' events, one JSON line each, in the order
they happened, for the store's resident to apply (``memlode.resident.hook_queue``).

A hook cannot open a PostgreSQL store (importing the driver costs more than its whole budget),
so on such a store every hook appends its event here first (``append``) and then tells the
resident (``memlode.hooks.handoff``). The resident applies the lines in file order, each once,
and answers the hooks that wait for their output (SessionStart, UserPromptSubmit). Whatever the
resident was doing (starting, down, busy), nothing a hook saw is lost: the line is on disk
before the hook says anything to anyone.

``<home>/run/<key>.spool`` (``paths.spool_path``: one per store, under MEMLODE_HOME, so it
survives a reboot), created 0600 in the 0700 run folder. The hook redacts the payload before it
is appended (``memlode.hooks.handoff``): no secret reaches the disk here either. Beside it:

- ``<key>.spool.offset``: how far the resident has applied;
- ``<key>.spool.full``: present while the spool refused events for being full
  (``max_bytes``); one byte per refused event. The hook logs one warning when it creates it;
  the resident removes it once it has emptied the spool;
- ``<key>.spool.state``: the resident's last apply (``write_state``): whether it failed and
  why, since when, the next retry. ``status`` reads all of it (``memlode doctor``, the
  dashboard).

Durability: each append is ``fsync``ed before the hook says anything (the first line also
syncs the folder), so a line acknowledged survives a crash of the machine too.

Concurrency:

- Appends: one ``write`` of one whole line on an ``O_APPEND`` descriptor, under an exclusive
  ``flock`` of the spool file, so that parallel hooks never interleave (even a line larger than
  the kernel's atomic write size) and never write into a truncation.
- The resident alone reads and advances the offset (a file replaced whole, ``os.replace``), and
  empties the spool only under the same lock, when it has applied every line (the offset is
  reset first: a crash in between applies lines again rather than skip new ones; re-applied
  rows meet the store's dedup).

Import-light (``os``, ``fcntl``): the hooks call ``append``; ``status`` loads ``json``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "APPENDED",
    "FULL",
    "FULL_SUFFIX",
    "OFFSET_SUFFIX",
    "STATE_SUFFIX",
    "append",
    "describe",
    "empty_if_done",
    "for_store",
    "of_settings",
    "problems",
    "read_from",
    "read_offset",
    "read_state",
    "status",
    "suffix",
    "write_offset",
    "write_state",
]

OFFSET_SUFFIX = ".offset"
FULL_SUFFIX = ".full"
STATE_SUFFIX = ".state"
# What ``append`` returns besides the failure (None).
APPENDED = "appended"
FULL = "full"  # refused: the spool holds max_bytes already
FULL_NEW = "full-new"  # refused, and this is the first refusal since the spool had room
# The resident reads at most this much of the spool at a time (it reads again for the rest).
READ_CHUNK = 4 << 20


def append(path: str, line: bytes, max_bytes: int = 0) -> str | None:
    """Append ``line`` (one JSON object; a newline is added) to the spool at ``path`` and
    ``fsync`` it. ``APPENDED``; ``FULL``/``FULL_NEW`` when the spool already holds
    ``max_bytes`` (0: no bound) and the line is refused (``FULL_NEW``: the first refusal, which
    the caller logs); None when it could not be written (the caller logs it). Never raises."""
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
            return None
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if max_bytes and size + len(data) > max_bytes and size > 0:
            return _refuse(path)
        view = memoryview(data)
        while view:  # a regular file takes it whole; a short write (a full disk) is continued
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
        if size == 0:  # a new (or emptied) file: its entry in the folder too
            _sync_dir(os.path.dirname(path))
        return APPENDED
    except OSError:
        return None
    finally:
        os.close(fd)  # releases the lock


def _refuse(path: str) -> str | None:
    """Count one refused event in ``<spool>.full``; ``FULL_NEW`` when this created it."""
    try:
        fd = os.open(path + FULL_SUFFIX, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o600)
        new = True
    except FileExistsError:
        try:
            fd = os.open(path + FULL_SUFFIX, os.O_WRONLY | os.O_APPEND)
        except OSError:
            return FULL
        new = False
    except OSError:
        return FULL
    try:
        os.write(fd, b"x")
    except OSError:
        pass
    finally:
        os.close(fd)
    return FULL_NEW if new else FULL


def _sync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_offset(path: str) -> int:
    """How far the resident has applied the spool at ``path`` (0 when it never has)."""
    try:
        with open(path + OFFSET_SUFFIX, "rb") as fh:
            return max(0, int(fh.read(40).strip() or b"0"))
    except (OSError, ValueError):
        return 0


def write_offset(path: str, offset: int) -> None:
    """Record ``offset`` (a new file put in place whole: never half a number)."""
    _replace(path + OFFSET_SUFFIX, str(offset).encode("ascii"))


def _replace(target: str, data: bytes) -> None:
    temporary = f"{target}.{os.getpid()}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(temporary, target)


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
    import contextlib
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.fstat(fd).st_size != offset or offset == 0:
            return False
        # Room again, said before the lines go: ``status`` reads without the lock, and must not
        # see an empty spool that still counts refused events (a crash before the truncation
        # leaves a full spool without the marker: the next refusal makes it again).
        with contextlib.suppress(OSError):
            os.unlink(path + FULL_SUFFIX)
        write_offset(path, 0)  # before the truncation: a crash then re-applies, never skips
        os.ftruncate(fd, 0)
        os.fsync(fd)
        return True
    finally:
        os.close(fd)


def write_state(path: str, state: dict[str, Any]) -> None:
    """Record the resident's last apply (``failed``, ``error``, ``since``, ``retry_at``: epoch
    seconds) for ``status``; never raises."""
    import contextlib
    import json

    with contextlib.suppress(OSError):
        _replace(path + STATE_SUFFIX, json.dumps(state).encode("utf-8"))


def read_state(path: str) -> dict[str, Any]:
    """What ``write_state`` recorded ({} when nothing)."""
    import json

    try:
        with open(path + STATE_SUFFIX, "rb") as fh:
            value = json.loads(fh.read(1 << 16))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def status(path: str, now: float | None = None) -> dict[str, Any]:
    """The backlog of the spool at ``path``: ``lines`` and ``bytes`` waiting, the age of the
    oldest in seconds (``oldest_age_s``, None when none wait), ``refused`` (events refused for
    a full spool since it last had room), and the resident's ``last_apply`` (``read_state``)."""
    import json
    import time

    offset = read_offset(path)
    lines = 0
    waiting = 0
    oldest: float | None = None
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < offset:
                offset = 0
            waiting = size - offset
            fh.seek(offset)
            first = fh.readline()
            if first.endswith(b"\n"):
                lines = 1
                try:
                    began = json.loads(first).get("t")
                except (ValueError, AttributeError):
                    began = None
                if isinstance(began, int | float):
                    oldest = max(0.0, (time.time() if now is None else now) - began)
            while chunk := fh.read(READ_CHUNK):
                lines += chunk.count(b"\n")
    except FileNotFoundError:
        pass
    try:
        refused = os.stat(path + FULL_SUFFIX).st_size
    except OSError:
        refused = 0
    return {
        "path": path,
        "lines": lines,
        "bytes": waiting,
        "oldest_age_s": None if oldest is None else round(oldest, 1),
        "refused": refused,
        "last_apply": read_state(path),
    }


def for_store(home: str, store: str) -> dict[str, Any]:
    """``status`` of the spool of the store ``store`` (its URL or file) in ``home``."""
    from memlode.resident_client.paths import database_path, spool_path

    return status(spool_path(home, database_path(home, store)))


def of_settings(settings: Any) -> dict[str, Any] | None:
    """``for_store`` of a ``memlode.config.Settings``' store; None on a SQLite store (its hooks
    write the file themselves: no spool)."""
    if settings.db_url is None:
        return None
    return for_store(str(settings.home), str(settings.store))


def describe(report: dict[str, Any]) -> str:
    """``status`` in one line: the backlog, the last apply's failure, the refused events."""
    if report["lines"]:
        age = report["oldest_age_s"]
        text = f"{report['lines']} events wait ({report['bytes']} bytes"
        text += f", the oldest {age:.0f} s old)" if age is not None else ")"
    else:
        text = "no event waits"
    last = report["last_apply"]
    if last.get("failed"):
        text += f"; applying fails since {_clock(last.get('since'))}: {last.get('error')}"
    if report["refused"]:
        text += f"; {report['refused']} events refused, the spool is full ([hooks] spool_max_mb)"
    return text


def suffix(report: dict[str, Any] | None) -> str:
    """``describe`` after a store's line (``memlode doctor``); "" without a spool."""
    return "" if report is None else f"; hook spool: {describe(report)}"


def problems(report: dict[str, Any] | None) -> list[str]:
    """What ``memlode doctor`` lists as problems: a failing apply, refused events."""
    if report is not None and (report["last_apply"].get("failed") or report["refused"]):
        return [f"hook spool: {describe(report)}"]
    return []


def _clock(value: object) -> str:
    import time

    if not isinstance(value, int | float):
        return "?"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(value))
