"""PostgreSQL's SQL for what it spells differently from SQLite: ``PostgresDialect``.

``memlode.storage.sql.Dialect`` is SQLite's; this subclass overrides each of its methods and
flags, one method per construct, so a repository module asks ``dialect_of(conn)`` and never
which backend it is. ``PgConnection.dialect`` (``adapter``) is ``POSTGRESQL``. This module
imports ``memlode.storage.sql`` and this package's own modules, never the reverse:
``storage.sql`` does not know it exists, and a SQLite process never loads it.

Besides fragments, what only the server has: a vector bound as a pgvector value after its
dimension's HNSW index is made (``vectors``), read back through a binary cursor
(``PgConnection.vector_cursor``), and the texts of the store read in one REPEATABLE READ
snapshot through a server-side cursor, tokenised by SQLite's FTS5 in a database of the
process's own (``text_reads``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from memlode.storage.postgres import text_reads
from memlode.storage.postgres.rows import as_vector
from memlode.storage.postgres.vectors import vector_values
from memlode.storage.sql import Dialect

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memlode.storage.sql import Connection

__all__ = ["POSTGRESQL", "PostgresDialect"]


class PostgresDialect(Dialect):
    """PostgreSQL's fragment for each construct of ``Dialect``, and its flags: no code tables
    (each machine's code index is a SQLite file), no FTS5 (``text_vector`` and the in-process
    index instead), on a server, every value of its column's type."""

    __slots__ = ()

    name: ClassVar[str] = "postgresql"
    has_code_tables: ClassVar[bool] = False
    has_fts5: ClassVar[bool] = False
    on_server: ClassVar[bool] = True
    typed: ClassVar[bool] = True

    def data_version(self) -> str:
        """The oldest transaction still running or to come: it moves on with every commit on
        the server, so it may change with nothing of ours."""
        return "SELECT CAST(pg_snapshot_xmin(pg_current_snapshot()) AS text)"

    def journal_mode(self) -> str:
        """No journal mode: the backend's name stands in it."""
        return "SELECT CAST('postgresql' AS text)"

    def quick_check(self) -> str:
        """No ``PRAGMA quick_check``: the server checks its own pages, and an answer says the
        store answered."""
        return "SELECT CAST('ok' AS text)"

    def text_index_rows(self) -> str:
        """Every memory is in the text index (``text_vector``, a generated column)."""
        return "SELECT count(*) FROM memories"

    def json_param(self) -> str:
        return "CAST(? AS jsonb)"

    def json_has(self, column: str) -> str:
        return f"{column} @> jsonb_build_array(CAST(? AS text))"

    def json_lacks(self, column: str) -> str:
        return f"NOT ({self.json_has(column)})"

    def json_text(self, column: str, key: str) -> str:
        return f"({column} ->> '{key}')"

    def json_patch(self, column: str) -> str:
        """SQLite's ``json_patch`` as a function of the schema (migrations)."""
        return f"memlode_json_patch({column}, CAST(? AS jsonb))"

    def greatest(self, *exprs: str) -> str:
        return f"greatest({', '.join(exprs)})"

    def least(self, *exprs: str) -> str:
        return f"least({', '.join(exprs)})"

    def position(self, haystack: str, needle: str) -> str:
        return f"strpos({haystack}, {needle})"

    def like(self) -> str:
        return "ILIKE"

    def json_set_key(self, column: str) -> str:
        return f"jsonb_set({column}, ARRAY[CAST(? AS text)], CAST(? AS jsonb), true)"

    def json_number(self, column: str, key: str) -> str:
        """NULL too when the value is not a number."""
        return (
            f"(CASE WHEN jsonb_typeof({column} -> '{key}') = 'number'"
            f" THEN ({column} ->> '{key}')::double precision END)"
        )

    def json_has_any(self, column: str, count: int) -> str:
        marks = ", ".join("?" * count)
        return (
            f"EXISTS (SELECT 1 FROM jsonb_array_elements_text({column}) AS e (value)"
            f" WHERE e.value IN ({marks}))"
        )

    def json_has_any_quick(
        self, column: str, values: tuple[str, ...]
    ) -> tuple[str, tuple[str, ...]]:
        """No text search of the JSON: ``json_has_any``, which does not err."""
        return self.json_has_any(column, len(values)), values

    def last_char(self, expr: str) -> str:
        return f"right({expr}, 1)"

    def json_type(self, column: str) -> str:
        return f"jsonb_typeof({column})"

    def days_ago(self) -> str:
        return (
            "to_char((now() AT TIME ZONE 'utc') - make_interval(days => CAST(? AS integer)),"
            ' \'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\')'
        )

    def table_names(self) -> str:
        return "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"

    def renumber_rowid(self, table: str) -> str:
        """The identity column's next value."""
        return "DEFAULT"

    def by_rowid(self, table: str) -> str:
        """The planner has statistics: the table as it is."""
        return table

    def vector_param(self, vector: bytes) -> Any:
        return as_vector(vector)

    def bind_vectors(
        self, conn: Connection, rows: Sequence[tuple[Any, ...]]
    ) -> Sequence[tuple[Any, ...]]:
        """pgvector's values, a new dimension's HNSW index made first (``vectors``)."""
        return vector_values(conn, rows)

    def vector_reader(self, conn: Connection) -> Any:
        """pgvector's binary cursor (``PgConnection.vector_cursor``; select no JSON column)."""
        return conn.vector_cursor()

    def vector_cursor(self, conn: Connection) -> Any:
        return conn.vector_cursor()

    def tokenizer(self, conn: Connection) -> Any:
        """An in-memory SQLite database of this process's, per connection."""
        return text_reads.tokenizer_db(conn)

    def snapshot(self, conn: Connection) -> Any:
        """A REPEATABLE READ, READ ONLY transaction."""
        return text_reads.read_snapshot(conn)

    def text_rows(self, conn: Connection, sql: str) -> Any:
        """Through a server-side cursor inside a ``snapshot``."""
        return text_reads.streamed_rows(conn, sql)


POSTGRESQL = PostgresDialect()
