"""Hooks on a PostgreSQL store: the hook hands its event to the store's resident, which runs
the same handler (``memlode.hooks.handlers``) on its own connection.

A hook process cannot open a PostgreSQL store: importing the driver alone costs 0.4-0.9 s, ten
times a hook's budget. So ``hand_off`` (the hook's side, import-light):

1. appends the event to the store's spool (``memlode.resident_client.spool``, fsynced): one
   JSON line with an id, the time, the payload redacted (``memlode.redact.redact_value``: no
   secret a tool saw reaches the disk), the settings the hook resolved, its working directory
   and namespace. From here on nothing is lost, whatever happens next. A spool full
   (``[hooks] spool_max_mb``: the server away for days) refuses the event, and the first
   refusal is logged with what to do;
2. SessionStart and UserPromptSubmit ask the resident to apply the spool up to their line and
   wait for what to print (at most ``SESSION_START_WAIT_MS`` / ``resident_timeout_ms``); one
   that comes while the resident is starting, or finds none and starts it, waits for it up to
   ``[hooks] resident_start_wait_ms`` (its line says so: the resident answers a line while its
   hook still waits), so that a cold session gets the team's context at its start too; every
   other event only tells the resident there is a line (``notify``) and exits;
3. when no resident listens, starts one detached (as on SQLite: ``memlode.hooks._resident``;
   SessionStart and any event that finds older lines waiting at once, other events at most
   once a minute), and exits 0 printing nothing. The resident replays the spool when it starts
   and retries lines the server did not take (``memlode.resident.hook_queue``); the id of each
   line makes applying it twice write nothing twice.

``apply`` is the resident's side (loaded by name, ``memlode.interfaces`` ``hook-runner``): one
spooled line through the event's handler, on the store the resident gives it. A line applied
after its hook stopped waiting prints to no one: it is applied without injection (nothing is
recalled or recorded as shown).
"""

from __future__ import annotations

import os
import time

from memlode.fastjson import dumps, loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memlode.hook_settings import HookSettings
    from memlode.hooks.run import Frequencies, Ranker
    from memlode.storage.store import Store

__all__ = ["SESSION_START_WAIT_MS", "SPOOL_VERSION", "apply", "hand_off"]

SPOOL_VERSION = 1
# How long SessionStart waits for a running resident's context block (a warm one builds it in
# tens of milliseconds). One that is starting, or that this hook starts, is waited for up to
# ``resident_start_wait_ms``: the session's first prompt would wait for it anyway.
SESSION_START_WAIT_MS = 500
# Events whose output the hook prints (the others print nothing, so they never wait).
PRINTING = frozenset({"session-start", "prompt"})
NOTIFY_TIMEOUT = 0.05  # connecting to a listening unix socket takes microseconds


def wait_ms(event: str, settings: HookSettings) -> int:
    if event not in PRINTING or not settings.inject:
        return 0
    if event == "session-start":
        return max(SESSION_START_WAIT_MS, settings.resident_timeout_ms)
    return settings.resident_timeout_ms


def hand_off(
    event: str, raw: bytes, payload: dict[str, Any], settings: HookSettings, client: str
) -> str | None:
    """Spool the event, tell the resident, and return what it says to print (or None)."""
    from memlode.hooks._log import log_line
    from memlode.hooks.run import HookRun
    from memlode.resident_client import spool
    from memlode.resident_client.paths import database_path, socket_path, spool_path

    run = HookRun(
        event, payload, settings, client=client
    )  # resolves the directory and namespace, opens nothing
    database = database_path(settings.home, settings.db_path)
    ident = os.urandom(8).hex()
    wait = wait_ms(event, settings)
    # a SessionStart or prompt that comes while the resident is starting, or finds none and
    # starts it, waits for it (the resident answers a line as long as its hook still waits:
    # its wait_ms)
    start_wait = _start_wait(event, settings) if wait > 0 else 0
    head = {
        "v": SPOOL_VERSION,
        "id": ident,
        "t": time.time(),
        "event": event,
        "client": client,
        "wait_ms": max(wait, start_wait),
        "cwd": run.cwd,
        "namespace": run.namespace,
        # the store's identity, not its URL: a password stays out of the spool
        "settings": {**settings.to_dict(), "db_path": database},
    }
    line = dumps(head)[:-1].encode("utf-8") + b',"payload":' + _redacted(raw, payload) + b"}"
    where = spool_path(settings.home, database)
    written = spool.append(where, line, max_bytes=(settings.spool_max_mb or 0) << 20)
    if written is None:
        log_line(settings.log_path, event, "could not write to the hook spool; event dropped")
        return None
    if written != spool.APPENDED:
        if written == spool.FULL_NEW:
            log_line(
                settings.log_path,
                event,
                f"the hook spool is full ({settings.spool_max_mb} MB waiting for the server): new "
                "events are refused until the server is back (the lines waiting are kept; "
                "`memlode doctor` shows the backlog; [hooks] spool_max_mb raises the bound)",
            )
        return None
    backlog = _backlog(where, len(line) + 1)
    request = dumps({"op": "hook", "db": database, "id": ident, "wait": wait > 0}).encode()
    path = socket_path(settings.home, database)
    if wait > 0:
        from memlode.resident_client.wire import exchange

        answer = exchange(path, request, wait / 1000)
        answered = answer is not None
    else:
        from memlode.resident_client.wire import notify

        answer, answered = None, notify(path, request, NOTIFY_TIMEOUT)
    if not answered and settings.resident_autostart:
        from memlode.hooks._resident import PROMPT_START_BACKOFF, ensure_running

        backoff = 0.0 if event == "session-start" or backlog else PROMPT_START_BACKOFF
        ensure_running(settings.home, settings.db_path, backoff=backoff)
    if not answered and start_wait > 0:
        from memlode.hooks._resident import starting, when_up
        from memlode.resident_client.wire import exchange

        if starting(settings.home, settings.db_path):
            answer = when_up(
                settings.home,
                settings.db_path,
                lambda ms: exchange(path, request, ms / 1000),
                start_wait,
            )
    return _output(answer)


def _start_wait(event: str, settings: HookSettings) -> int:
    """How long SessionStart or a prompt waits for the store's resident to come up: ``[hooks]
    resident_start_wait_ms`` when one is starting, or when none runs and the hook will start
    it (autostart); else 0 (one that runs answers within its wait or not)."""
    if event not in PRINTING or settings.resident_start_wait_ms <= 0:
        return 0
    from memlode.hooks._resident import starting
    from memlode.resident_client.lock import held
    from memlode.resident_client.paths import database_path, lock_path

    home, db = settings.home, settings.db_path
    if starting(home, db):
        return settings.resident_start_wait_ms
    idle = settings.resident_autostart and not held(lock_path(home, database_path(home, db)))
    return settings.resident_start_wait_ms if idle else 0


def _redacted(raw: bytes, payload: dict[str, Any]) -> bytes:
    """The payload for the spool: as it came when no string in it changes under redaction
    (the common case: no re-encoding), else redacted and dumped again."""
    from memlode.redact import redact_value

    cleaned = redact_value(payload)
    if cleaned == payload:
        return raw.strip()
    return dumps(cleaned).encode("utf-8")


def _backlog(path: str, mine: int) -> bool:
    """Do older lines wait in the spool beside the one just appended (a resident is behind)?"""
    from memlode.resident_client import spool

    try:
        return os.stat(path).st_size - spool.read_offset(path) > mine
    except OSError:
        return False


def _output(answer: bytes | None) -> str | None:
    if answer is None:
        return None
    try:
        value = loads(answer.decode("utf-8", "replace"))
    except ValueError:
        return None
    text = value.get("output") if isinstance(value, dict) else None
    return text if isinstance(text, str) and text else None


def apply(
    store: Store,
    entry: dict[str, Any],
    *,
    ranker: Ranker | None,
    waited: bool,
    frequencies: Frequencies | None = None,
) -> str | None:
    """Run one spooled event's handler on ``store``; what its hook would print. ``waited``:
    its hook still waits for the answer (else nothing is injected). ValueError for a line that
    is not a hook event."""
    from memlode.hook_events import CLIENT_LABELS, DEFAULT_CLIENT, EVENTS
    from memlode.hook_settings import HookSettings
    from memlode.hooks.run import HookRun, handler

    event, payload, values = entry.get("event"), entry.get("payload"), entry.get("settings")
    cwd, namespace = entry.get("cwd"), entry.get("namespace")
    client = entry.get("client", DEFAULT_CLIENT)  # lines spooled before clients were recorded
    if not (
        isinstance(event, str)
        and event in EVENTS
        and client in CLIENT_LABELS
        and isinstance(payload, dict)
        and isinstance(values, dict)
        and isinstance(cwd, str)
        and isinstance(namespace, str)
    ):
        raise ValueError("not a spooled hook event")
    settings = HookSettings.from_dict(values)
    settings.resident_autostart = False  # this is the resident
    if not waited:
        settings.inject = False
    run = HookRun(
        event,
        payload,
        settings,
        store=store,
        cwd=cwd,
        namespace=namespace,
        ranker=ranker,
        frequencies=frequencies,
        client=str(client),
    )
    return handler(event)(run)
