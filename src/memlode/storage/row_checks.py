"""Rows that cannot be read as memlode reads them, found for ``memlode doctor --repair``.

Two kinds, treated differently:

- derived rows (a vector whose blob is not ``dim`` float32 values, token states whose size is
  not a whole number of tokens, a vector of another size than its model's others): they can be
  made again, so repair deletes them and ``memlode embed`` fills them in; left in place, one bad
  vector makes every vector search fail to reshape the matrix;
- stored rows (a memory whose text is not UTF-8, tags that are not a JSON list of strings,
  metadata that is not a JSON object; graph and session JSON): these are the user's data and
  are never changed, only reported with their ids, so that they can be fixed or exported.

Serves SQLite and PostgreSQL alike. PostgreSQL rules out much of what SQLite must look for
(``Dialect.typed``): its text is always UTF-8, its jsonb always valid JSON, a vector always
``dim`` values; what is left there is the rest (a vector of another size than its model's
others, token states, JSON of the wrong shape).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = [
    "BadRow",
    "bad_embeddings",
    "bad_token_states",
    "delete_embeddings",
    "delete_token_states",
    "unreadable_json",
    "unreadable_memories",
]

# Rows read at a time when every row has to be looked at in Python; ids deleted a statement.
_BATCH = 2_000
_CHUNK = 500


@dataclass(frozen=True, slots=True)
class BadRow:
    table: str
    id: str
    problem: str

    def to_dict(self) -> dict[str, str]:
        return {"table": self.table, "id": self.id, "problem": self.problem}


def bad_embeddings(conn: Connection) -> list[BadRow]:
    """Vectors whose blob is not ``dim`` float32 values, or whose ``dim`` differs from the one
    most of their model's vectors have (the vector index reads one size per model)."""
    out: list[BadRow] = []
    if not dialect_of(conn).typed:  # else a vector has its ``dim`` values, and ``dim`` > 0
        out += [
            BadRow("memory_embeddings", str(r[0]), r[1])
            for r in conn.execute(
                "SELECT memory_id, CASE WHEN typeof(vector) != 'blob' THEN 'vector is not a blob'"
                " WHEN dim <= 0 THEN 'dimension ' || dim"
                " ELSE 'vector of ' || length(vector) || ' bytes for ' || dim || ' dimensions' END"
                " FROM memory_embeddings"
                " WHERE typeof(vector) != 'blob' OR dim <= 0 OR length(vector) != dim * 4"
                " ORDER BY memory_id"
            )
        ]
    seen = {b.id for b in out}
    usual: dict[str, int] = {}
    for model, dim in conn.execute(  # the most common dim of each model comes first
        "SELECT model, dim FROM memory_embeddings GROUP BY model, dim"
        " ORDER BY model, count(*) DESC, dim"
    ):
        usual.setdefault(model, dim)
    for model, dim in usual.items():
        for (memory_id,) in conn.execute(
            "SELECT memory_id FROM memory_embeddings WHERE model = ? AND dim != ?"
            " ORDER BY memory_id",
            (model, dim),
        ):
            if memory_id not in seen:
                out.append(BadRow("memory_embeddings", str(memory_id), f"not {dim} dimensions"))
    return out


def bad_token_states(conn: Connection) -> list[BadRow]:
    """Token states that are not a whole number of tokens of their vector's dimension, or that
    belong to no vector of their model."""
    return [
        BadRow("memory_tokens", str(r[0]), r[1])
        for r in conn.execute(
            "SELECT t.memory_id, CASE WHEN e.memory_id IS NULL THEN 'no vector of its model'"
            " ELSE 'states of ' || length(t.states) || ' bytes for ' || e.dim || ' dimensions'"
            " END FROM memory_tokens t LEFT JOIN memory_embeddings e"
            " ON e.memory_id = t.memory_id AND e.model = t.model"
            " WHERE e.memory_id IS NULL OR e.dim <= 0"
            + ("" if dialect_of(conn).typed else " OR typeof(t.states) != 'blob'")
            + " OR length(t.states) = 0 OR length(t.states) % ((e.dim + 7) / 8) != 0"
            " ORDER BY t.memory_id"
        )
    ]


def _delete(conn: Connection, table: str, ids: list[str]) -> int:
    deleted = 0
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        deleted += conn.execute(f"DELETE FROM {table} WHERE memory_id IN ({marks})", chunk).rowcount
    return deleted


def delete_embeddings(conn: Connection, ids: list[str]) -> int:
    """Delete vectors (and, by trigger, their token states); they are made again by embed."""
    return _delete(conn, "memory_embeddings", ids)


def delete_token_states(conn: Connection, ids: list[str]) -> int:
    return _delete(conn, "memory_tokens", ids)


def _text(raw: Any) -> str | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return raw
    if isinstance(raw, int):  # an integer key, as PostgreSQL hands it
        return str(raw)
    try:
        return bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return None


def _bytes(typed: bool, column: str) -> str:
    """``column`` as the bytes it holds, which on SQLite may be any (as is on PostgreSQL)."""
    return column if typed else f"CAST({column} AS BLOB)"


def _rows(conn: Connection, sql: str) -> Iterator[tuple[Any, ...]]:
    cursor = conn.execute(sql)
    while batch := cursor.fetchmany(_BATCH):
        yield from batch


def unreadable_memories(conn: Connection) -> list[BadRow]:
    """Memories whose content is not UTF-8, whose tags are not a JSON list of strings, or whose
    metadata is not a JSON object (read as bytes: a row Python cannot decode is found, not
    raised)."""
    typed = dialect_of(conn).typed
    text = "''" if typed else _bytes(typed, "content")  # PostgreSQL's is UTF-8: not read
    out: list[BadRow] = []
    for memory_id, content, tags, metadata in _rows(
        conn,
        f"SELECT {_bytes(typed, 'id')}, {text}, {_bytes(typed, 'tags')},"
        f" {_bytes(typed, 'metadata')} FROM memories ORDER BY rowid",
    ):
        ident = _text(memory_id)
        name = ident if ident is not None else repr(bytes(memory_id))
        problems = []
        if ident is None:
            problems.append("id is not UTF-8")
        if _text(content) is None:
            problems.append("content is not UTF-8")
        if not _is_json(_text(tags), list, str):
            problems.append("tags are not a JSON list of strings")
        if not _is_json(_text(metadata), dict):
            problems.append("metadata is not a JSON object")
        out += [BadRow("memories", name, p) for p in problems]
    return out


def _is_json(text: str | None, kind: type, items: type | None = None) -> bool:
    if text is None:
        return False
    try:
        value = json.loads(text)
    except ValueError:
        return False
    if not isinstance(value, kind):
        return False
    return items is None or (isinstance(value, list) and all(isinstance(v, items) for v in value))


# (table, id column, JSON column): JSON objects that other code parses
_JSON_COLUMNS = (
    ("graph_nodes", "id", "properties"),
    ("graph_edges", "id", "properties"),
    ("sessions", "id", "metadata"),
)


def unreadable_json(conn: Connection) -> list[BadRow]:
    """Graph and session rows whose JSON column is not a JSON object."""
    out: list[BadRow] = []
    d = dialect_of(conn)
    for table, key, column in _JSON_COLUMNS:
        for (ident,) in _rows(
            conn,
            f"SELECT {_bytes(d.typed, key)} FROM {table}"
            f" WHERE coalesce({d.json_type(column)}, '') != 'object'",
        ):
            text = _text(ident)
            out.append(
                BadRow(
                    table,
                    text if text is not None else repr(ident),
                    f"{column} is not a JSON object",
                )
            )
    return out
