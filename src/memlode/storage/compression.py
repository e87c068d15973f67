"""What the compress cycle reads and keeps: the memories it may hand to the language model,
its records of what it compressed, and the model's usage ledger (``llm_usage``).

Parameters in, plain rows out. The compressed text itself is written through
``storage.memories``; the records are ``consolidation_clusters`` rows of kind ``compress``
(written through ``storage.consolidation.save_cluster``), keyed by the memory's id, with the
hash of the text the memory held after the cycle wrote it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

__all__ = ["compress_candidates", "compress_records", "record_usage", "usage_on"]


def compress_candidates(
    conn: sqlite3.Connection, namespace: str, source: str, tags: Sequence[str]
) -> list[Any]:
    """(id, content, tags, metadata) of ``namespace``'s memories from ``source`` that carry
    any of ``tags``, oldest first."""
    marks = ",".join("?" * len(tags)) or "''"
    return conn.execute(
        "SELECT id, content, tags, metadata FROM memories AS m"
        " WHERE m.namespace = ? AND m.source = ? AND EXISTS"
        f" (SELECT 1 FROM json_each(m.tags) WHERE json_each.value IN ({marks}))"
        " ORDER BY m.created_at, m.rowid",
        (namespace, source, *tags),
    ).fetchall()


def compress_records(conn: sqlite3.Connection, namespace: str, kind: str) -> dict[str, str]:
    """memory id -> hash of the text it held when the cycle last wrote it."""
    return {
        str(key): str(members)
        for key, members in conn.execute(
            "SELECT key, members FROM consolidation_clusters WHERE namespace = ? AND kind = ?",
            (namespace, kind),
        )
    }


def record_usage(
    conn: sqlite3.Connection,
    day: str,
    provider: str,
    model: str,
    input_tokens: int,
    output_tokens: int,
    *,
    failed: bool = False,
) -> None:
    """Add one request (and what it cost) to the day's ledger."""
    conn.execute(
        "INSERT INTO llm_usage (day, provider, model, requests, failures, input_tokens,"
        " output_tokens) VALUES (?, ?, ?, 1, ?, ?, ?) ON CONFLICT (day, provider, model) DO UPDATE"
        " SET requests = requests + 1, failures = failures + excluded.failures,"
        " input_tokens = input_tokens + excluded.input_tokens,"
        " output_tokens = output_tokens + excluded.output_tokens",
        (day, provider, model, int(failed), input_tokens, output_tokens),
    )


def usage_on(conn: sqlite3.Connection, day: str) -> tuple[int, int, int, int]:
    """(requests, failures, input tokens, output tokens) of ``day``, every provider together."""
    row = conn.execute(
        "SELECT coalesce(sum(requests), 0), coalesce(sum(failures), 0),"
        " coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0)"
        " FROM llm_usage WHERE day = ?",
        (day,),
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2]), int(row[3])
