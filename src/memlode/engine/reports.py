"""Reports on a store: counts per namespace and a health check (the namespaces themselves:
``memlode.storage.namespaces.listing``).

What ``memlode stats`` (with the language model's usage today), ``memlode doctor``, the MCP
``namespace_stats`` / ``memlode_health`` tools and the dashboard show. L3 beside the engine,
which calls these with its connection; they only read.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from memlode.config import Settings
from memlode.storage.compression import usage_on
from memlode.storage.store_stats import database_state, namespace_counts
from memlode.types import format_ts, utcnow

if TYPE_CHECKING:
    from memlode.engine.embedding import EmbeddingService
    from memlode.storage.sql import Connection
    from memlode.storage.store import Store

__all__ = ["health", "llm_usage", "stats"]


def stats(conn: Connection, db: Store, ns: str | None) -> dict[str, Any]:
    """Counts for namespace ``ns`` (None: every namespace)."""
    counts = namespace_counts(conn, ns)
    return {
        "namespace": "*" if ns is None else ns,
        "memories": counts["memories"],
        "by_type": counts["by_type"],
        "by_source": counts["by_source"],
        "embedded": counts["embedded"],
        "pending_embeddings": counts["memories"] - counts["embedded"],
        "graph_nodes": counts["graph_nodes"],
        "graph_edges": counts["graph_edges"],
        "sessions": counts["sessions"],
        "last_memory_at": counts["last_memory_at"],
        "database": db.display,
        "database_bytes": db.size_bytes(),
    }


def llm_usage(conn: Connection, settings: Settings) -> dict[str, Any]:
    """The optional language model: which, and what it used today (UTC) of its daily budget
    (every provider and namespace together: the budget is the store's)."""
    day = format_ts(utcnow())[:10]
    requests, failures, used_in, used_out = usage_on(conn, day)
    model = settings.llm_model
    if model is None and settings.llm_provider != "none":
        from memlode.llm import DEFAULT_MODELS

        model = DEFAULT_MODELS[settings.llm_provider]
    return {
        "provider": settings.llm_provider,
        "model": model,
        "day": day,
        "tokens_today": used_in + used_out,
        "input_tokens_today": used_in,
        "output_tokens_today": used_out,
        "requests_today": requests,
        "failures_today": failures,
        "daily_tokens": settings.llm_daily_tokens,
    }


def health(
    conn: Connection, db: Store, settings: Settings, embeddings: EmbeddingService
) -> dict[str, Any]:
    """What works and what does not: storage, embedder, vectors, graph, pending rows."""
    state = database_state(conn)
    embedder = embeddings.embedder
    index = embeddings.index if embedder is not None else None
    return {
        "storage": {
            "database": db.display,
            "backend": db.dialect.name,
            "bytes": db.size_bytes(),
            "sqlite_version": sqlite3.sqlite_version,
            "journal_mode": state["journal_mode"],
            "schema_version": state["schema_version"],
            "fts_rows": state["fts_rows"],
            "ok": state["ok"],
        },
        "embedder": {
            "provider": settings.embed_provider,
            "model": embedder.name if embedder is not None else None,
            "dim": embedder.dim if embedder is not None else None,
            "available": embedder is not None,
            "error": embeddings.error,
        },
        "vectors": {
            "indexed": len(index) if index is not None else 0,
            "models": embeddings.models_in_store(),
        },
        "graph": {"nodes": state["nodes"], "edges": state["edges"]},
        "pending_embeddings": embeddings.pending(),
        "pending_token_states": embeddings.pending_states(),
    }
