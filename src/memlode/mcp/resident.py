"""``memlode mcp`` hosts its store's resident (``memlode.resident``) while it runs.

The server already has what the resident needs - a process that lives as long as the session,
one embedder (one model), the shared vector index, a background embedder - so it serves the
store's resident socket on a thread instead of leaving that to a second process: the hooks'
recall, ``memlode search`` and the old ``vector_search`` question are answered here.

There is never more than one resident per store: if another process (a resident started by the
SessionStart hook, another ``memlode mcp``) holds the store's lock, this server waits in standby
and takes over when that one exits. A hosted resident does not idle out and refuses ``stop``
(it ends with the server). ``[resident] autostart = false`` (``MEMLODE_RESIDENT_AUTOSTART=0``)
turns hosting off.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.config import Settings

if TYPE_CHECKING:
    from memlode.engine import EngineOpener

__all__ = ["ResidentVectors"]

log = logging.getLogger(__name__)


class ResidentVectors:
    """The MCP server's resident host: ``start`` on the server's start, ``stop`` at its end."""

    def __init__(
        self, settings: Settings, cwd: Path, open_engine: EngineOpener | None = None
    ) -> None:
        self.settings = settings
        self.cwd = cwd
        self.open_engine = open_engine  # the server's (shared embedder); else a plain Engine
        self.server: Any = None  # a memlode.resident ResidentServer once started

    @property
    def path(self) -> Path | None:
        return Path(self.server.socket_path) if self.server is not None else None

    @property
    def hosting(self) -> bool:
        """This process serves the store's resident now (not in standby, not stopped)."""
        return self.server is not None and bool(self.server.lock.locked)

    def start(self) -> bool:
        """Serve the store's resident socket (now, or once its lock is free); False when
        hosting is off."""
        if not self.settings.resident_autostart:
            return False
        from memlode import interfaces

        host_class = interfaces.load("resident-host")  # memlode.resident, by its entry point
        self.server = host_class(
            self.settings,
            idle_seconds=0.0,
            host="mcp",
            open_engine=self.open_engine,
            embed_in_background=False,  # the server's own worker embeds
        )
        self.server.start_in_background(standby=True)
        return True

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
