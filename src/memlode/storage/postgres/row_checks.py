"""Rows that cannot be read as memlode reads them, on PostgreSQL, for ``memlode doctor
--repair`` (the counterpart of ``memlode.storage.row_checks``; Protocol ``RowCheckRows``).

PostgreSQL rules out much of what SQLite must look for: text is always valid UTF-8, jsonb is
always valid JSON, and a vector's length is its ``dim`` (a CHECK constraint). What is left to
find: vectors of another size than their model's others, token states that are not a whole
number of tokens or have no vector of their model, tags that are not a JSON list of strings,
and metadata or properties that are not JSON objects. Derived rows may be deleted (``embed``
makes them again); stored rows are only reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.row_checks import BadRow

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "bad_embeddings",
    "bad_token_states",
    "delete_embeddings",
    "delete_token_states",
    "unreadable_json",
    "unreadable_memories",
]

# (table, id column, JSON column): JSON objects that other code parses
_JSON_COLUMNS = (
    ("graph_nodes", "id", "properties"),
    ("graph_edges", "id", "properties"),
    ("sessions", "id", "metadata"),
)


def bad_embeddings(conn: psycopg.Connection[Any]) -> list[BadRow]:
    """Vectors whose ``dim`` differs from the one most of their model's vectors have (the
    vector index reads one size per model)."""
    rows = conn.execute(
        "SELECT e.memory_id, u.dim FROM memory_embeddings e JOIN ("
        " SELECT DISTINCT ON (model) model, dim FROM memory_embeddings"
        " GROUP BY model, dim ORDER BY model, count(*) DESC, dim) u ON u.model = e.model"
        " WHERE e.dim <> u.dim ORDER BY e.memory_id"
    ).fetchall()
    return [BadRow("memory_embeddings", str(r[0]), f"not {r[1]} dimensions") for r in rows]


def bad_token_states(conn: psycopg.Connection[Any]) -> list[BadRow]:
    """Token states that are not a whole number of tokens of their vector's dimension, or that
    belong to no vector of their model."""
    rows = conn.execute(
        "SELECT t.memory_id, CASE WHEN e.memory_id IS NULL THEN 'no vector of its model'"
        " ELSE 'states of ' || length(t.states) || ' bytes for ' || e.dim || ' dimensions'"
        " END FROM memory_tokens t LEFT JOIN memory_embeddings e"
        " ON e.memory_id = t.memory_id AND e.model = t.model"
        " WHERE e.memory_id IS NULL OR length(t.states) = 0"
        " OR mod(length(t.states), (e.dim + 7) / 8) <> 0"
        " ORDER BY t.memory_id"
    ).fetchall()
    return [BadRow("memory_tokens", str(r[0]), str(r[1])) for r in rows]


def delete_embeddings(conn: psycopg.Connection[Any], ids: list[str]) -> int:
    """Delete vectors (and, by trigger, their token states); they are made again by embed."""
    if not ids:
        return 0
    return conn.execute(
        "DELETE FROM memory_embeddings WHERE memory_id = ANY(%s)", (list(ids),)
    ).rowcount


def delete_token_states(conn: psycopg.Connection[Any], ids: list[str]) -> int:
    if not ids:
        return 0
    return conn.execute(
        "DELETE FROM memory_tokens WHERE memory_id = ANY(%s)", (list(ids),)
    ).rowcount


def unreadable_memories(conn: psycopg.Connection[Any]) -> list[BadRow]:
    """Memories whose tags are not a JSON list of strings, or whose metadata is not a JSON
    object (content is always UTF-8 here)."""
    rows = conn.execute(
        "SELECT id, jsonb_typeof(tags) <> 'array' OR EXISTS (SELECT 1 FROM"
        " jsonb_array_elements(CASE WHEN jsonb_typeof(tags) = 'array' THEN tags END) v"
        " WHERE jsonb_typeof(v) <> 'string'), jsonb_typeof(metadata) <> 'object'"
        " FROM memories WHERE jsonb_typeof(tags) <> 'array' OR jsonb_typeof(metadata) <> 'object'"
        " OR EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(tags) = 'array'"
        " THEN tags END) v WHERE jsonb_typeof(v) <> 'string') ORDER BY rowid"
    ).fetchall()
    out: list[BadRow] = []
    for memory_id, bad_tags, bad_metadata in rows:
        if bad_tags:
            out.append(BadRow("memories", str(memory_id), "tags are not a JSON list of strings"))
        if bad_metadata:
            out.append(BadRow("memories", str(memory_id), "metadata is not a JSON object"))
    return out


def unreadable_json(conn: psycopg.Connection[Any]) -> list[BadRow]:
    """Graph and session rows whose JSON column is not a JSON object."""
    out: list[BadRow] = []
    for table, key, column in _JSON_COLUMNS:
        rows = conn.execute(
            f"SELECT {key} FROM {table} WHERE jsonb_typeof({column}) <> 'object' ORDER BY {key}"
        ).fetchall()
        out += [BadRow(table, str(r[0]), f"{column} is not a JSON object") for r in rows]
    return out
