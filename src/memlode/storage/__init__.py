"""L1 storage: the SQLite connection, numbered migrations and the repositories over them."""

from memlode.storage.db import Database, connect

__all__ = ["Database", "connect"]
