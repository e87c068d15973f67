"""Migration 0010: a project's namespace is its repository's identity, not its folder's name.

Folder-name namespaces are re-keyed to ``<name>-<hash of the identity>`` using the paths their
rows recorded (``memlode.storage.namespace_rekey``), which needs the file system (each root's
``.git/config``), hence Python rather than SQL. Runs in the migration's transaction: all of it
or none of it.
"""

from __future__ import annotations

import sqlite3


def migrate(conn: sqlite3.Connection) -> None:
    from memlode.storage.namespace_rekey import rekey_legacy
    from memlode.types import format_ts, utcnow

    rekey_legacy(conn, format_ts(utcnow()))
