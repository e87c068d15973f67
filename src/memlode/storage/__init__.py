"""L1 storage: the SQLite connection, numbered migrations and the repositories over them.

``Database`` and ``connect`` load on first use, so that the hooks can import the import-light
``memlode.storage.scrub`` (the redaction every write goes through) without the connection
machinery and its imports.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memlode.storage.db import Database, connect

__all__ = ["Database", "connect"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from memlode.storage import db

        return getattr(db, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
