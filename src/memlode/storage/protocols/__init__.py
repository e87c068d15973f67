"""The repository contracts a storage backend implements, one module per area.

``memory`` (memories, capture, vectors, settings, namespaces, counts), ``sessions`` (sessions,
the hooks' capture state, transcript ingest), ``search`` (recall's reads), ``graph``, ``code``,
``docs``, ``consolidation`` and ``maintenance``.

They were written from the SQLite modules and are kept in step both ways: mypy checks each
SQLite module against its Protocol where ``memlode.storage.backend`` binds it, and
``tests/storage/test_protocols.py`` checks that every public function of a bound module that
takes a connection is in its Protocol. ``Connection`` and ``Row`` are the backend's own types.
"""

from typing import Any

__all__ = ["Connection", "Row"]

Connection = Any  # sqlite3.Connection on SQLite
Row = Any  # a row read by position (sqlite3.Row on SQLite)
