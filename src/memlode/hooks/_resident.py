"""The hooks' side of the store's resident process (``memlode.resident``).

- ``recall``: the UserPromptSubmit hook asks the resident for the engine's ranking of the
  prompt (``Engine.search``, the rows of the asking session left out). ``None`` when no
  resident answers within the deadline; the hook then runs its lean BM25
  (``memlode.hooks._recall``).
- ``recalled``: those hits as ``memlode.hooks._recall.Recalled`` objects, for the same
  rendering and gate as the lean path.
- ``ensure_running``: the SessionStart hook starts a detached resident when none holds the
  store's lock (an ``flock`` probe: no connection, no wait); the prompt hook does the same
  when none answers, at most once every ``PROMPT_START_BACKOFF`` seconds, so that a resident
  that exited while idle comes back for the next prompt.
- ``starting`` and ``when_up``: a prompt right after a resident was started (the first
  prompt of ``claude -p "..."``, or one typed at once) waits for it to come up, so that it gets
  the engine's ranking, the one the evaluations measure, rather than the lean BM25.
- ``vector_hits``: the old question (cosines only), still answered; kept for its callers.

Nothing here imports ``json``, ``socket`` or the engine: JSON goes through
``memlode.fastjson``, the socket through ``memlode.resident_client.wire`` (builtin ``_socket``).
"""

from __future__ import annotations

import os

from memlode.fastjson import dumps, loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

    from memlode.hooks._recall import Recalled
    from memlode.hooks.run import Frequencies

__all__ = ["ensure_running", "recall", "recalled", "starting", "vector_hits", "when_up"]

# A resident that did not come up (or exited) is started again by a prompt at most this often;
# SessionStart always tries.
PROMPT_START_BACKOFF = 60.0
# A resident a hook started less than this long ago is still coming up (loading the model and
# the indexes): a prompt waits for it (``[hooks] resident_start_wait_ms``) instead of ranking
# with the lean BM25. Past it, a resident that does not answer in time is busy or gone.
START_GRACE = 30.0
# Before the new process takes the lock, only the stamp says it was started: the pid it holds
# (is that process alive?), or for a stamp without one, its age.
_LOCK_PENDING = 2.0
# How often a prompt knocks while the new resident has not bound its socket yet.
_KNOCK = 0.05
_MAX_PID = 1 << 31
_STAMP = ".started"  # <key>.lock.started: when a hook last started a resident of the store


def _paths(home: str, db: str) -> tuple[str, str]:
    from memlode.resident_client.paths import database_path, socket_path

    database = database_path(home, db or None)
    return database, socket_path(home, database)


def _ask(home: str, db: str, request: dict[str, Any], timeout_ms: int) -> Any:
    """The resident's answer (a dict) or None; never raises, never waits past the deadline."""
    if timeout_ms <= 0:
        return None
    from memlode.resident_client.wire import exchange

    try:
        database, path = _paths(home, db)
        request["db"] = database
        raw = exchange(path, dumps(request).encode("utf-8"), timeout_ms / 1000)
        if raw is None:
            return None
        answer = loads(raw.decode("utf-8", "replace"))
    except (OSError, ValueError):
        return None
    return answer if isinstance(answer, dict) else None


def recall(
    home: str,
    db: str,
    query: str,
    namespace: str,
    session_id: str,
    k: int,
    timeout_ms: int,
) -> list[dict[str, Any]] | None:
    """The resident's hits for ``query`` in the project ``namespace``, best first (rows of
    ``session_id`` left out); None when it gave no usable answer in ``timeout_ms``."""
    request = {
        "op": "recall",
        "query": query[:4000],
        "namespace": namespace,
        "session_id": session_id,
        "k": k,
    }
    answer = _ask(home, db, request, timeout_ms)
    if answer is None or "error" in answer:
        return None
    hits = answer.get("hits")
    if not isinstance(hits, list):
        return None
    out: list[dict[str, Any]] = []
    for hit in hits:
        if (
            isinstance(hit, dict)
            and isinstance(hit.get("id"), str)
            and isinstance(hit.get("content"), str)
            and _number(hit.get("score"))
        ):
            out.append(hit)
    return out


def when_up(home: str, db: str, ask: Callable[[int], T | None], wait_ms: int) -> T | None:
    """``ask(timeout_ms)`` (a ``recall``, a hook's exchange) of a resident that is coming up
    (``starting``), again
    until it answers or ``wait_ms`` pass (it binds its socket first, then answers once its
    engine is warm); None when it did not answer in time, or stopped coming up."""
    import time

    deadline = time.monotonic() + wait_ms / 1000
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        hits = ask(int(left * 1000))
        if hits is not None:
            return hits
        if not starting(home, db):  # it exited, or never took its lock
            return None
        time.sleep(min(_KNOCK, max(0.0, deadline - time.monotonic())))


def starting(home: str, db: str) -> bool:
    """True while a resident a hook started (``ensure_running``) less than ``START_GRACE``
    seconds ago may still be coming up: a process holds the store's lock, or the start is too
    recent for it to have taken it (the process started is alive). Never raises."""
    try:
        from memlode.resident_client.lock import held
        from memlode.resident_client.paths import lock_path

        database, _socket_path = _paths(home, db)
        lock = lock_path(home, database)
        age, pid = _started(lock)
        if not 0 <= age < START_GRACE:
            return False
        return held(lock) or (age < _LOCK_PENDING if pid is None else _alive(pid))
    except OSError:
        return False


def _started(lock: str) -> tuple[float, int | None]:
    """How long ago a hook last started the store's resident, and the pid it started (None
    when the stamp holds none). OSError when no hook ever did."""
    import time

    with open(lock + _STAMP, "rb") as stamp:
        age = time.time() - os.fstat(stamp.fileno()).st_mtime
        text = stamp.read(32).strip()
    pid = int(text) if text.isdigit() and len(text) <= 10 else 0
    return age, pid if 1 < pid < _MAX_PID else None  # a stamp not written by a hook: no pid


def _alive(pid: int) -> bool:
    """Is the process ``pid`` running? A child of this process that exited is reaped here (a
    resident this hook started, which found the lock taken or failed to start)."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass  # not this process's child
    except OSError:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass  # another user's process: it exists
    try:  # an exited process that its parent has not reaped (no reaping init in a container)
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read(512).rpartition(b")")[2].split()[:1] != [b"Z"]
    except OSError:
        return True  # no /proc: it exists


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def recalled(
    conn: sqlite3.Connection,
    hits: list[dict[str, Any]],
    prompt: str,
    limit: int,
    session_id: str = "",
    *,
    frequencies: Frequencies | None = None,
    project: str = "",
) -> list[Recalled]:
    """The resident's hits (the engine's ranking, best first) through the same gate and
    selection as the lean path (``memlode.hooks._recall.choose``) for a prompt of the
    ``project`` namespace, at most ``limit``.

    Stored prompts and consolidation summaries are left out (``_recall.NOT_INJECTED``); each
    hit's raw ``cosine`` is its
    vector evidence.
    """
    from memlode.hooks import _recall

    candidates: list[tuple[Recalled, float]] = []
    for hit in hits:
        tags = hit.get("tags")
        tags = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
        if not _recall.injectable(tags) or not isinstance(hit.get("content"), str):
            continue
        signals = hit.get("signals")
        signals = (
            {str(k): float(v) for k, v in signals.items() if _number(v)}
            if isinstance(signals, dict)
            else {}
        )
        score = hit.get("score")
        rank = (
            float(score) if isinstance(score, int | float) and not isinstance(score, bool) else 0.0
        )
        candidates.append(
            (
                _recall.Recalled(
                    str(hit.get("id")),
                    hit["content"],
                    str(hit.get("memory_type") or "context"),
                    str(hit.get("created_at") or ""),
                    rank,
                    source=str(hit.get("source") or ""),
                    tags=tuple(tags),
                    signals=signals,
                ),
                signals.get("cosine", 0.0),
            )
        )
    return _recall.choose(
        conn,
        prompt,
        candidates,
        limit,
        rerank=False,
        session_id=session_id,
        frequencies=frequencies,
        project=project,
    )


def vector_hits(
    home: str, query: str, namespace: str, k: int, timeout_ms: int, db: str = ""
) -> dict[str, float]:
    """``{memory_id: cosine}`` from the resident, or ``{}`` (never raises, never waits longer
    than ``timeout_ms``)."""
    request = {"op": "vector_search", "query": query[:4000], "namespace": namespace, "k": k}
    answer = _ask(home, db, request, timeout_ms)
    hits = answer.get("hits") if isinstance(answer, dict) else None
    out: dict[str, float] = {}
    if isinstance(hits, list):
        for hit in hits:
            if isinstance(hit, dict) and isinstance(hit.get("id"), str):
                score = hit.get("score")
                if isinstance(score, int | float) and not isinstance(score, bool):
                    out[hit["id"]] = float(score)
    return out


def ensure_running(home: str, db: str, *, backoff: float = 0.0) -> bool:
    """Start the store's resident, detached, unless a process holds its lock, one a hook
    started is still coming up (``starting``: a prompt right after SessionStart, both finding
    the lock free), or a hook started one less than ``backoff`` seconds ago. True when one was
    started. Never raises."""
    try:
        from memlode.resident_client.lock import held
        from memlode.resident_client.paths import lock_path

        database, _socket_path = _paths(home, db)
        lock = lock_path(home, database)
        if held(lock):
            return False
        stamp = lock + _STAMP
        try:
            age, pid = _started(lock)
            if 0 <= age < backoff or (0 <= age < START_GRACE and pid and _alive(pid)):
                return False  # tried lately, or the one started is still coming up
        except OSError:
            pass
        from memlode.config_file import is_server_url
        from memlode.resident_client.launch import start_detached

        # a server's URL as given (its password too): the identity has none
        pid = start_detached(home, database, location=db if is_server_url(db) else None)
        fd = os.open(stamp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, str(pid).encode())
        finally:
            os.close(fd)
        os.utime(stamp)
        return True
    except OSError:
        return False
