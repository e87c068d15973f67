"""What the compress cycle reads and keeps: the memories it may hand to the language model,
its records of what it compressed, and the model's usage ledger (``llm_usage``).

Parameters in, plain rows out. The compressed text itself is written through
``storage.memories``; the records are ``consolidation_clusters`` rows of kind ``compress``
(written through ``storage.consolidation.save_cluster``), keyed by the memory's id, with the
hash of the text the memory held after the cycle wrote it. Serves both backends
(``memlode.storage.sql``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memlode.storage.sql import Connection

__all__ = ["compress_candidates", "compress_records", "record_usage", "usage_on"]


def compress_candidates(
    conn: Connection, namespace: str, source: str, tags: Sequence[str]
) -> list[Any]:
    """(id, content, tags, metadata) of ``namespace``'s memories from ``source`` that carry
    any of ``tags``, oldest first."""
    wanted = list(tags) or [""]  # none: IN (''), which only an empty tag matches
    has_tag = dialect_of(conn).json_has_any("m.tags", len(wanted))
    rows: list[Any] = conn.execute(
        "SELECT id, content, tags, metadata FROM memories AS m"
        f" WHERE m.namespace = ? AND m.source = ? AND {has_tag}"
        " ORDER BY m.created_at, m.rowid",
        (namespace, source, *wanted),
    ).fetchall()
    return rows


def compress_records(conn: Connection, namespace: str, kind: str) -> dict[str, str]:
    """memory id -> hash of the text it held when the cycle last wrote it."""
    return {
        str(key): str(members)
        for key, members in conn.execute(
            "SELECT key, members FROM consolidation_clusters WHERE namespace = ? AND kind = ?",
            (namespace, kind),
        )
    }


def record_usage(
    conn: Connection,
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
        " SET requests = llm_usage.requests + 1,"
        " failures = llm_usage.failures + excluded.failures,"
        " input_tokens = llm_usage.input_tokens + excluded.input_tokens,"
        " output_tokens = llm_usage.output_tokens + excluded.output_tokens",
        (day, provider, model, int(failed), input_tokens, output_tokens),
    )


def usage_on(conn: Connection, day: str) -> tuple[int, int, int, int]:
    """(requests, failures, input tokens, output tokens) of ``day``, every provider together."""
    row = conn.execute(
        "SELECT coalesce(sum(requests), 0), coalesce(sum(failures), 0),"
        " coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0)"
        " FROM llm_usage WHERE day = ?",
        (day,),
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2]), int(row[3])
