"""One hook invocation (``HookRun``): its event, payload and settings, the project namespace
and session it belongs to, and the store, opened on first use. Shared by every handler
(``memlode.hooks.handlers``, ``memlode.hooks.prompt``).

The handlers reach the store only through it: ``conn`` and ``write()``. In a hook process on a
SQLite store they are ``memlode.storage.fastpath``'s; when the resident of a PostgreSQL store
applies a spooled event (``memlode.hooks.handoff.apply``), the run is given the resident's open
store (``store``), the working directory and namespace the hook resolved, ``ranker``, the
resident's own recall (the prompt hook would otherwise ask the resident over its socket), and
``frequencies``, its text index's counts for the prompt gate (a server has no FTS5 index).
"""

from __future__ import annotations

import os

from memlode.hook_events import CLIENT_LABELS, DEFAULT_CLIENT, EVENTS
from memlode.storage import fastpath
from memlode.storage.capture import HOOK_SOURCE

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from contextlib import AbstractContextManager
    from typing import Any

    from memlode.hook_settings import HookSettings
    from memlode.storage.store import Store

    # (query, namespace, session_id, k) -> the hits of memlode.hooks._resident.recall, or None
    Ranker = Callable[[str, str, str, int], "list[dict[str, Any]] | None"]
    # terms -> (rows, {term: rows holding it}), or None: memlode.hooks._recall's idf
    Frequencies = Callable[[list[str]], "tuple[int, dict[str, int]] | None"]

__all__ = ["SOURCE", "HookRun", "handler"]

SOURCE = HOOK_SOURCE  # memories.source of everything the hooks capture


class HookRun:
    """One hook invocation: its settings, payload and (lazily) the database."""

    def __init__(
        self,
        event: str,
        payload: dict[str, Any],
        settings: HookSettings,
        *,
        store: Store | None = None,
        cwd: str | None = None,
        namespace: str | None = None,
        ranker: Ranker | None = None,
        frequencies: Frequencies | None = None,
        client: str = DEFAULT_CLIENT,
    ) -> None:
        self.event = event
        self.client = client
        # what memlode records as the client: memories' metadata "client", sessions.source
        self.label = CLIENT_LABELS.get(client, client)
        self.payload = payload
        self.settings = settings
        self.store = store  # a store opened by someone else (the resident's): not closed here
        self.ranker = ranker
        self.frequencies = frequencies
        self._conn: sqlite3.Connection | None = None
        self._cwd = cwd
        self._namespace: str | None = namespace

    def text(self, key: str, limit: int = 100_000) -> str:
        value = self.payload.get(key)
        return value[:limit] if isinstance(value, str) else ""

    @property
    def session_id(self) -> str:
        return self.text("session_id", 200).strip() or "unknown-session"

    @property
    def cwd(self) -> str:
        if self._cwd is not None:
            return self._cwd
        cwd = self.text("cwd", 4096) or os.environ.get("CLAUDE_PROJECT_DIR", "")
        if not cwd or not os.path.isabs(cwd):
            try:
                cwd = os.getcwd()
            except OSError:
                cwd = ""
        self._cwd = cwd
        return cwd

    @property
    def namespace(self) -> str:
        if self._namespace is None:
            if self.settings.namespace is not None:
                self._namespace = self.settings.namespace
            else:
                from memlode.project import detect_namespace  # import-light (L0)

                self._namespace = detect_namespace(self.cwd) if self.cwd else ""
        return self._namespace

    @property
    def on_server(self) -> bool:
        """The store is on a PostgreSQL server (the resident runs this handler)."""
        if self.store is None:  # a hook's own connection: a SQLite file
            return False
        from memlode.storage.sql import dialect_of

        return dialect_of(self.store.conn).on_server

    @property
    def conn(self) -> sqlite3.Connection:
        if self.store is not None:
            conn: sqlite3.Connection = self.store.conn  # either backend runs the same SQL
            return conn
        if self._conn is None:
            self._conn = fastpath.open_db(self.settings.db_path)
        return self._conn

    def write(self) -> AbstractContextManager[sqlite3.Connection]:
        """One short write transaction on the store (``fastpath.write`` on a hook's own
        connection, the store's ``write()`` on one it was given)."""
        if self.store is not None:
            return self.store.write()
        return fastpath.write(self.conn)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def base_metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "hook": self.payload.get("hook_event_name") or self.event,
            "source": self.label,
            "client": self.label,
            "session_id": self.session_id,
        }
        for key in ("tool_use_id", "prompt_id", "agent_id"):
            value = self.text(key, 200)
            if value:
                meta[key] = value
        return meta

    def session_metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        for key in ("transcript_path", "cwd", "model", "permission_mode"):
            value = self.text(key, 4096)
            if value:
                meta[key] = value
        return meta


def handler(event: str) -> Callable[[HookRun], str | None]:
    """The handler of memlode event ``event``: its module alone is imported (``EVENTS``; the
    builtin import, since the ``importlib`` package is not loaded in a hook process). Here, not
    in ``memlode.hooks.dispatch``, because both the hook process and the resident that runs
    spooled events (``memlode.hooks.handoff``) look handlers up."""
    module, function = EVENTS[event].split(":")
    found: Callable[[HookRun], str | None] = getattr(__import__(module, fromlist=("_",)), function)
    return found
