"""The PostgreSQL + pgvector storage backend (team memory), in progress (issue #21).

What is here: connections and a pool (``connection``), numbered migrations with their own SQL
(``migrations``), and the repositories ported so far, each a module of the same name as its
SQLite counterpart in ``memlode.storage`` and checked by mypy against the same Protocol
(``repositories``). The engine does not run on it yet: a PostgreSQL URL given as the store is
refused with one sentence (``memlode.config_file.SERVER_NOT_READY``).

Nothing here is imported on the SQLite path. This module itself imports only the standard
library; the driver (``psycopg`` 3, ``psycopg_pool``, ``pgvector``) is imported by the modules
that use it, and a missing driver raises ``MissingDependency`` naming the install command
(``connection.require_driver``).
"""

from __future__ import annotations

__all__ = ["INSTALL_HINT"]

INSTALL_HINT = "pip install 'memlode[postgres]'"
