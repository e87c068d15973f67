"""What the compress cycle reads and keeps, on PostgreSQL (the counterpart of
``memlode.storage.compression``; Protocol ``CompressionRows``): the memories it may hand to the
language model (tags and metadata as JSON text), its records, and the model's usage ledger."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    import psycopg

__all__ = ["compress_candidates", "compress_records", "record_usage", "usage_on"]


def compress_candidates(
    conn: psycopg.Connection[Any], namespace: str, source: str, tags: Sequence[str]
) -> list[Any]:
    """(id, content, tags, metadata) of ``namespace``'s memories from ``source`` that carry
    any of ``tags``, oldest first."""
    return conn.execute(
        "SELECT id, content, tags::text AS tags, metadata::text AS metadata FROM memories AS m"
        " WHERE m.namespace = %s AND m.source = %s AND m.tags ?| %s"
        " ORDER BY m.created_at, m.rowid",
        # no tags: SQLite's IN ('') finds a tag that is the empty string
        (namespace, source, list(tags) or [""]),
    ).fetchall()


def compress_records(conn: psycopg.Connection[Any], namespace: str, kind: str) -> dict[str, str]:
    """memory id -> hash of the text it held when the cycle last wrote it."""
    rows = conn.execute(
        "SELECT key, members FROM consolidation_clusters WHERE namespace = %s AND kind = %s",
        (namespace, kind),
    ).fetchall()
    return {str(key): str(members) for key, members in rows}


def record_usage(
    conn: psycopg.Connection[Any],
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
        " output_tokens) VALUES (%s, %s, %s, 1, %s, %s, %s)"
        " ON CONFLICT (day, provider, model) DO UPDATE"
        " SET requests = llm_usage.requests + 1,"
        " failures = llm_usage.failures + excluded.failures,"
        " input_tokens = llm_usage.input_tokens + excluded.input_tokens,"
        " output_tokens = llm_usage.output_tokens + excluded.output_tokens",
        (day, provider, model, int(failed), input_tokens, output_tokens),
    )


def usage_on(conn: psycopg.Connection[Any], day: str) -> tuple[int, int, int, int]:
    """(requests, failures, input tokens, output tokens) of ``day``, every provider together."""
    row = conn.execute(
        "SELECT coalesce(sum(requests), 0), coalesce(sum(failures), 0),"
        " coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0)"
        " FROM llm_usage WHERE day = %s",
        (day,),
    ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2]), int(row[3])
