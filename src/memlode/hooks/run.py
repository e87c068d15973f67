"""One hook invocation (``HookRun``): its event, payload and settings, the project namespace
and session it belongs to, and the store, opened on first use. Shared by every handler
(``memlode.hooks.handlers``, ``memlode.hooks.prompt``).
"""

from __future__ import annotations

import os

from memlode.storage import fastpath
from memlode.storage.capture import HOOK_SOURCE

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from memlode.hook_settings import HookSettings

__all__ = ["SESSION_SOURCE", "SOURCE", "HookRun"]

SOURCE = HOOK_SOURCE  # memories.source of everything the hooks capture
SESSION_SOURCE = "claude-code"  # sessions.source


class HookRun:
    """One hook invocation: its settings, payload and (lazily) the database."""

    def __init__(self, event: str, payload: dict[str, Any], settings: HookSettings) -> None:
        self.event = event
        self.payload = payload
        self.settings = settings
        self._conn: sqlite3.Connection | None = None
        self._namespace: str | None = None

    def text(self, key: str, limit: int = 100_000) -> str:
        value = self.payload.get(key)
        return value[:limit] if isinstance(value, str) else ""

    @property
    def session_id(self) -> str:
        return self.text("session_id", 200).strip() or "unknown-session"

    @property
    def cwd(self) -> str:
        cwd = self.text("cwd", 4096) or os.environ.get("CLAUDE_PROJECT_DIR", "")
        if not cwd or not os.path.isabs(cwd):
            try:
                cwd = os.getcwd()
            except OSError:
                cwd = ""
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
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = fastpath.open_db(self.settings.db_path)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def base_metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "hook": self.payload.get("hook_event_name") or self.event,
            "source": SESSION_SOURCE,
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
