"""Rows that cannot be read as memlode reads them, found for ``memlode doctor --repair``.

Two kinds, treated differently:

- derived rows (a vector whose blob is not ``dim`` float32 values, token states whose size is
  not a whole number of tokens, a vector of another size than its model's others): they can be
  made again, so repair deletes them and ``memlode embed`` fills them in; left in place, one bad
  vector makes every vector search fail to reshape the matrix;
- stored rows (a memory whose text is not UTF-8, tags that are not a JSON list of strings,
  metadata that is not a JSON object; graph and session JSON): these are the user's data and
  are never changed, only reported with their ids, so that they can be fixed or exported.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BadRow",
    "bad_embeddings",
    "bad_token_states",
    "delete_embeddings",
    "delete_token_states",
    "unreadable_json",
    "unreadable_memories",
]

# Rows read at a time when every row has to be looked at in Python.
_BATCH = 2_000


@dataclass(frozen=True, slots=True)
class BadRow:
    table: str
    id: str
    problem: str

    def to_dict(self) -> dict[str, str]:
        return {"table": self.table, "id": self.id, "problem": self.problem}


def bad_embeddings(conn: sqlite3.Connection) -> list[BadRow]:
    """Vectors whose blob is not ``dim`` float32 values, or whose ``dim`` differs from the one
    most of their model's vectors have (the vector index reads one size per model)."""
    out = [
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
    usual = dict(
        conn.execute(
            "SELECT model, dim FROM (SELECT model, dim, count(*) AS n FROM memory_embeddings"
            " GROUP BY model, dim ORDER BY n DESC, dim) GROUP BY model"
        ).fetchall()
    )
    for model, dim in usual.items():
        for (memory_id,) in conn.execute(
            "SELECT memory_id FROM memory_embeddings WHERE model = ? AND dim != ?"
            " ORDER BY memory_id",
            (model, dim),
        ):
            if memory_id not in seen:
                out.append(BadRow("memory_embeddings", str(memory_id), f"not {dim} dimensions"))
    return out


def bad_token_states(conn: sqlite3.Connection) -> list[BadRow]:
    """Token states that are not a whole number of tokens of their vector's dimension, or that
    belong to no vector of their model."""
    return [
        BadRow("memory_tokens", str(r[0]), r[1])
        for r in conn.execute(
            "SELECT t.memory_id, CASE WHEN e.memory_id IS NULL THEN 'no vector of its model'"
            " ELSE 'states of ' || length(t.states) || ' bytes for ' || e.dim || ' dimensions'"
            " END FROM memory_tokens t LEFT JOIN memory_embeddings e"
            " ON e.memory_id = t.memory_id AND e.model = t.model"
            " WHERE e.memory_id IS NULL OR typeof(t.states) != 'blob' OR e.dim <= 0"
            " OR length(t.states) = 0 OR length(t.states) % ((e.dim + 7) / 8) != 0"
            " ORDER BY t.memory_id"
        )
    ]


def delete_embeddings(conn: sqlite3.Connection, ids: list[str]) -> int:
    """Delete vectors (and, by trigger, their token states); they are made again by embed."""
    return sum(
        conn.execute("DELETE FROM memory_embeddings WHERE memory_id = ?", (i,)).rowcount
        for i in ids
    )


def delete_token_states(conn: sqlite3.Connection, ids: list[str]) -> int:
    return sum(
        conn.execute("DELETE FROM memory_tokens WHERE memory_id = ?", (i,)).rowcount for i in ids
    )


def _text(raw: Any) -> str | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return raw
    try:
        return bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return None


def _rows(conn: sqlite3.Connection, sql: str) -> Iterator[tuple[Any, ...]]:
    cursor = conn.execute(sql)
    while batch := cursor.fetchmany(_BATCH):
        yield from batch


def unreadable_memories(conn: sqlite3.Connection) -> list[BadRow]:
    """Memories whose content is not UTF-8, whose tags are not a JSON list of strings, or whose
    metadata is not a JSON object (read as bytes: a row Python cannot decode is found, not
    raised)."""
    out: list[BadRow] = []
    for memory_id, content, tags, metadata in _rows(
        conn,
        "SELECT CAST(id AS BLOB), CAST(content AS BLOB), CAST(tags AS BLOB),"
        " CAST(metadata AS BLOB) FROM memories ORDER BY rowid",
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


def unreadable_json(conn: sqlite3.Connection) -> list[BadRow]:
    """Graph and session rows whose JSON column is not a JSON object."""
    out: list[BadRow] = []
    for table, key, column in _JSON_COLUMNS:
        for (ident,) in _rows(
            conn,
            f"SELECT CAST({key} AS BLOB) FROM {table}"
            f" WHERE CASE WHEN json_valid({column}) THEN json_type({column}) != 'object'"
            " ELSE 1 END",
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
