"""The PostgreSQL + pgvector storage backend (team memory), in progress (issue #21).

What is here: connections and a pool (``connection``; ``PgDatabase`` is what
``memlode.storage.open_store`` opens for a ``postgresql://`` URL), a connection that runs the
repositories' SQL (``adapter``) and carries PostgreSQL's spelling of what the two backends spell
differently (``dialect``: a subclass of ``memlode.storage.sql.Dialect``), numbered migrations
with their own SQL (``migrations``), what only PostgreSQL has (``vectors``: HNSW per dimension
and vector I/O; ``text_reads``: the texts read in one snapshot), and throw-away stores in
schemas of their own, dropped afterwards (``scratch``: ``memlode eval locomo``'s). There are no
PostgreSQL copies of repositories: each is the one module of ``memlode.storage`` (see
``memlode.storage.sql``), and ``tests/storage/contract`` runs the same tests on both backends.

The engine runs on it for every MCP tool and every command except those declared SQLite-only
where they are declared (``memlode.cli.common.sqlite_only``), which refuse in one line.
The hooks never open it (the driver costs more than a hook's budget): they spool their events
for the store's resident, which applies them (``memlode.hooks.handoff``). A search reads the store's
text into the in-memory BM25 index (``memlode.search.text_index``) on its first query, as there
is no FTS5 index to answer meanwhile; the vector index's mirror lives under
``$MEMLODE_HOME/cache`` keyed by the URL without its password (``connection.store_key``).

Decisions the repositories rest on on PostgreSQL (keep them, or change them in one place):

- The logical model is SQLite's, table for table and column for column, so that a row reads
  back the same: timestamps stay memlode's fixed-width ISO-8601 text; ids, keys and timestamps
  are ``COLLATE "C"`` (byte order, as SQLite compares); tags, metadata and properties are
  jsonb, handed to the engine as JSON text wherever SQLite hands out text; SQLite's implicit
  ``rowid`` is an identity column ``rowid``; vectors go in and out as little-endian float32
  bytes (``rows.vector_bytes_cursor``).
- Dedup is the UNIQUE (namespace, source, content_hash) constraint with ``INSERT ... ON
  CONFLICT``; writers take turns per store (migration 0006, like SQLite's BEGIN IMMEDIATE), which
  keeps the text change log in commit order and rules out lock-order deadlocks.
- A vector column has no fixed dimension; each dimension gets a partial HNSW index (inner
  product on normalised vectors) made with its first vector (``vectors``).
- The text a process indexes is tokenised by SQLite's own FTS5 tokenizer (``text_reads``), so an
  in-process BM25 index ranks the same over both stores; the stored ``text_vector`` (tsvector,
  GIN) is there for server-side candidates, not yet used.
- ``memories.created_by`` is the connection's ``memlode.created_by`` setting (who stores).
- A store is a database or a schema in one (``options=-csearch_path=<schema>,public``); the
  migration lock and the write lock are keyed by the schema, and its migration records are
  looked for in it alone (a new schema ahead of one that holds a store is a store of its own).
- The code index stays in each machine's SQLite store (it is derived from the local checkout
  and re-indexed on every edit), so the code tables are not in this schema.

Nothing here is imported on the SQLite path. This module itself imports only the standard
library; the driver (``psycopg`` 3, ``psycopg_pool``, ``pgvector``) is imported by the modules
that use it, and a missing driver raises ``MissingDependency`` naming the install command
(``connection.require_driver``).
"""

from __future__ import annotations

__all__ = ["INSTALL_HINT"]

INSTALL_HINT = "pip install 'memlode[postgres]'"
