"""The PostgreSQL + pgvector storage backend (team memory), in progress (issue #21).

What is here: connections and a pool (``connection``), numbered migrations with their own SQL
(``migrations``), and the repositories ported so far, each a module of the same name as its
SQLite counterpart in ``memlode.storage`` and checked by mypy against the same Protocol
(``repositories``). The engine does not run on it yet: nothing selects this backend from a URL.

Nothing here is imported on the SQLite path. This module itself imports only the standard
library, so ``is_postgres_url`` can be asked anywhere; the driver (``psycopg`` 3, ``psycopg_pool``,
``pgvector``) is imported by the modules that use it, and a missing driver raises
``MissingDependency`` naming the install command (``require_driver``).
"""

from __future__ import annotations

__all__ = ["INSTALL_HINT", "is_postgres_url"]

INSTALL_HINT = "pip install 'memlode[postgres]'"


def is_postgres_url(value: str) -> bool:
    """Whether a ``--db``/``MEMLODE_DB`` value names a PostgreSQL server rather than a file."""
    return value.startswith(("postgresql://", "postgres://"))
