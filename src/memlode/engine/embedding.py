"""Embedding upkeep: which rows need vectors, filling them in batches, and the vector index.

Embedding never happens in a hook process: hooks store rows without vectors and whatever
long-lived process runs next (the MCP server, ``memlode embed``, a search's bounded catch-up)
fills them here. A row is *pending* when it has no vector from the current model; changing the
model therefore makes every row pending, which ``memlode reembed`` works off.

An embedder that gives token states (the local model, the hash embedder) also stores, from the
same forward pass, the sign bits of each memory's content-token vectors for late interaction
(``memlode.search.late``). Rows embedded before that existed get their states from
``embed_pending`` too, after the rows without vectors (never in a search's catch-up: that
would make every search of an old store pay for a forward pass).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memlode.config import Settings
from memlode.engine.supersession import DETECTED_SOURCES
from memlode.project import readable_name
from memlode.search.recall_params import BOOKKEEPING_EDGES
from memlode.storage import embeddings as vector_repo
from memlode.textutil import content_hash
from memlode.types import format_ts, utcnow

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from memlode.embed import Embedder
    from memlode.search.vector_side import NearestVectors, VectorWorker
    from memlode.storage.store import Store
    from memlode.vector.index import VectorIndex

__all__ = ["EmbeddingService"]

log = logging.getLogger(__name__)

DEFAULT_BATCH = 64
# Relationships prepended to a memory's text before embedding (DESIGN: up to 8).
MAX_ENRICH_RELATIONSHIPS = 8


class EmbeddingService:
    """Owns the embedder (created lazily) and the vector index of one database."""

    def __init__(self, settings: Settings, db: Store) -> None:
        self.settings = settings
        self.db = db
        self._embedder: Embedder | None = None
        self._index: VectorIndex | None = None
        self._loaded = False
        self._worker: VectorWorker | None = None
        self.error: str | None = None
        self._none_pending_at: tuple[object, ...] | None = None  # see ``pending``

    @property
    def enabled(self) -> bool:
        return self.settings.embed_provider != "none"

    @property
    def embedder(self) -> Embedder | None:
        """The embedder, or None when disabled or unavailable (then ``error`` says why)."""
        if not self._loaded:
            self._loaded = True
            if self.enabled:
                from memlode.embed import make_embedder
                from memlode.errors import MemlodeError

                try:
                    self._embedder = make_embedder(self.settings, self.settings.home / "models")
                except MemlodeError as exc:
                    self.error = str(exc)
                    log.warning("embeddings unavailable, using text search only: %s", exc)
        return self._embedder

    def use_embedder(self, embedder: Embedder) -> None:
        """Put ``embedder`` in place of the configured one (a benchmark's vector cache, a test's
        deterministic model): the seam is the ``Embedder`` protocol, nothing else changes."""
        self._embedder = embedder
        self._loaded = True
        self.error = None
        self._index = None

    @property
    def index(self) -> VectorIndex | None:
        embedder = self.embedder
        if embedder is None:
            return None
        if self._index is None:
            from memlode.vector.index import VectorIndex

            self._index = VectorIndex.shared(  # one copy per process (vector/index.py)
                embedder.name,
                embedder.dim,
                self.settings.home / "cache",
                database=self.db.key or "",
            )
        self._index.refresh(self.db.conn)
        return self._index

    def model_name(self) -> str | None:
        embedder = self.embedder
        return embedder.name if embedder is not None else None

    def pending(self) -> int:
        """Rows without a vector from the current model.

        Every embedding row belongs to one memory (primary key, cascading delete), so this is a
        difference of two index counts: milliseconds at 100k rows, where the equivalent
        ``NOT EXISTS`` scan takes ~100 ms (it runs before every search's catch-up). At 1M rows
        the two counts take 160-250 ms, so once nothing is pending they are not taken again
        until a memory's text changes (the FTS change log grows, migration 0007) or the
        model's vectors do (``vector_state``): both are one indexed lookup.
        """
        conn = self.db.conn
        model = self.model_name()
        if model is None:
            return vector_repo.memory_count(conn)
        mark = (model, *vector_repo.change_marks(conn, model))
        if mark == self._none_pending_at:
            return 0
        total = vector_repo.memory_count(conn)
        found = max(total - self._rows_of("memory_embeddings", model), 0)
        self._none_pending_at = mark if found == 0 else None
        return found

    def pending_states(self) -> int:
        """Rows with a vector from the current model but no token states from it (0 when the
        embedder gives none): what ``embed_pending`` fills after the rows without vectors."""
        from memlode.embed import token_embedder

        embedder = token_embedder(self.embedder)
        if embedder is None:
            return 0
        model = embedder.name
        embedded = self._rows_of("memory_embeddings", model)
        return max(embedded - self._rows_of("memory_tokens", model), 0)

    def _rows_of(self, table: str, model: str) -> int:
        """Rows of ``memory_embeddings`` or ``memory_tokens`` made by ``model`` (an index count)."""
        return vector_repo.rows_by_model(self.db.conn, table, model)

    def embed_query(self, text: str) -> npt.NDArray[np.float32] | None:
        embedder = self.embedder
        if embedder is None:
            return None
        vector: npt.NDArray[np.float32] = embedder.embed([text])[0]
        return vector

    def embed_query_states(
        self, text: str
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None] | None:
        """The query's vector and, when the embedder gives them, its token states (one pass)."""
        from memlode.embed import token_embedder

        embedder = self.embedder
        if embedder is None:
            return None
        tokens = token_embedder(embedder)
        if tokens is None:
            return embedder.embed([text])[0], None
        vectors, states = tokens.embed_with_tokens([text])
        return vectors[0], states[0]

    def nearest(
        self, query: str, k: int, namespace: str | Sequence[str] | None, *, bm25: bool = True
    ) -> NearestVectors | None:
        """Start the vector side of a hybrid query (embedding, nearest memories, their BM25
        scores unless ``bm25`` is off) on a worker thread, so that the caller's BM25 query runs
        meanwhile; None when there is no embedder or no vector yet. See
        ``memlode.search.vector_side``."""
        from memlode.search.recall_params import MIN_VECTOR_SIMILARITY
        from memlode.search.vector_side import VectorWorker

        index = self.index  # refreshed here, on the caller's thread and connection
        if index is None or len(index) == 0:
            return None
        if self._worker is None:
            self._worker = VectorWorker(self.db)
        return self._worker.start(
            query, k, namespace, index, self.embed_query_states, MIN_VECTOR_SIMILARITY, bm25=bm25
        )

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def _enriched(self, rows: list[Any]) -> list[str]:
        from memlode.embed import enrich

        relationships = self._relationships([row["id"] for row in rows])
        return [
            enrich(
                row["content"],
                memory_type=row["memory_type"],
                # the project's name, not its key's hash: a rename of the key (a moved
                # namespace) leaves the embedded text as it was
                namespace=readable_name(row["namespace"]) or None,
                tags=json.loads(row["tags"]),
                relationships=relationships.get(row["id"], ()),
            )
            for row in rows
        ]

    def _relationships(self, ids: list[str]) -> dict[str, list[tuple[str, str]]]:
        """Each memory's first ``MAX_ENRICH_RELATIONSHIPS`` edges (by edge id) as
        (relationship, name of the other end), for a whole batch in one query; bookkeeping
        edges (a consolidation summary's ``SUMMARIZES``) and the edges of what consolidation
        derived (a reflection's ``DERIVED_FROM`` its evidence) left out of the other end's
        text, so that consolidating a store changes no member's or evidence's vector (on the
        session replay it did, and cost a prompt)."""
        if not ids:
            return {}
        rows = vector_repo.relationships_of(self.db.conn, ids)
        out: dict[str, list[tuple[str, str]]] = {}
        seen: set[tuple[str, int]] = set()  # an edge from a memory to itself comes twice
        for memory_id, edge_id, relationship, name, derived in rows:
            if relationship in BOOKKEEPING_EDGES or derived:  # say nothing of this text
                continue
            found = out.setdefault(memory_id, [])
            if len(found) < MAX_ENRICH_RELATIONSHIPS and (memory_id, edge_id) not in seen:
                seen.add((memory_id, edge_id))
                found.append((relationship, name))
        return out

    def embed_pending(
        self,
        limit: int | None = None,
        batch_size: int = DEFAULT_BATCH,
        progress: Callable[[int, int], None] | None = None,
        *,
        states: bool = True,
    ) -> int:
        """Embed rows that have no vector from the current model, then (with ``states``) give
        token states to rows embedded without them; returns how many rows were done, at most
        ``limit`` in all."""
        embedder = self.embedder
        if embedder is None:
            return 0
        todo = self.pending()
        backfill = self.pending_states() if states else 0
        if limit is not None:
            todo = min(todo, limit)
            backfill = min(backfill, limit - todo)
        total = todo + backfill
        embedded: list[str] = []
        done = self._embed_rows(
            embedder, todo, batch_size, progress, 0, total, states_only=False, embedded=embedded
        )
        if backfill > 0:
            done += self._embed_rows(
                embedder, backfill, batch_size, progress, done, total, states_only=True
            )
        if embedded:
            self._link_by_meaning(embedded)
        return done

    def cosines(self, memory_id: str, others: list[str]) -> list[float]:
        """The cosine of ``memory_id``'s vector with each of ``others``' (0.0 where a vector
        is missing, or without an embedder)."""
        index = self.index
        vector = index.vector_of(memory_id) if index is not None else None
        if index is None or vector is None:
            return [0.0] * len(others)
        return index.similarities(vector, others)

    def _link_by_meaning(self, ids: list[str]) -> None:
        """Link the statements just embedded to what they replace by the meaning rule
        (``memlode.engine.supersession.plan_by_meaning``), oldest first."""
        from memlode.engine import supersession

        if self.index is None:
            return
        found = supersession.plan_by_meaning(self.db.conn, ids[::-1], self.cosines)
        if found:
            with self.db.write() as conn:
                supersession.record(conn, found)

    def _embed_rows(
        self,
        embedder: Embedder,
        todo: int,
        batch_size: int,
        progress: Callable[[int, int], None] | None,
        before: int,
        total: int,
        *,
        states_only: bool,
        embedded: list[str] | None = None,
    ) -> int:
        """Embed up to ``todo`` rows lacking a vector (or, ``states_only``, having a vector but
        no token states) from the current model, newest first, in batches; the ids of the
        statements embedded (source ``memory``) go into ``embedded``."""
        from memlode.embed import token_embedder
        from memlode.search.late import pack_states

        model = embedder.name
        tokens = token_embedder(embedder)
        done = 0
        # Newest first (rows left pending are usually the latest), resuming below the last
        # batch so that no batch re-scans the rows the previous ones embedded.
        below = -1
        while done < todo:
            take = min(batch_size, todo - done)
            rows = vector_repo.rows_to_embed(
                self.db.conn, model, below, take, states_only=states_only
            )
            if not rows:
                break
            below = int(rows[-1][0])
            texts = self._enriched(rows)
            if tokens is not None:
                vectors, token_rows = tokens.embed_with_tokens(texts)
            else:
                vectors, token_rows = embedder.embed(texts), []
            now = format_ts(utcnow())
            with self.db.write() as conn:
                if not states_only:
                    vector_repo.write_vectors(
                        conn,
                        [
                            (
                                row["id"],
                                model,
                                embedder.dim,
                                vectors[i].astype("<f4").tobytes(),
                                content_hash(texts[i]),
                                now,
                            )
                            for i, row in enumerate(rows)
                        ],
                    )
                if token_rows:
                    vector_repo.write_states(
                        conn,
                        [
                            (row["id"], model, pack_states(token_rows[i]))
                            for i, row in enumerate(rows)
                        ],
                    )
            if embedded is not None:
                embedded.extend(str(row["id"]) for row in rows if row["source"] in DETECTED_SOURCES)
            done += len(rows)
            if progress is not None:
                progress(before + done, total)
        return done

    def drop_other_models(self, *, including_current: bool = False) -> int:
        """Delete vectors made by any model other than the current one (before a re-embed);
        with ``including_current`` every vector goes, so that all are made again."""
        model = self.model_name()
        if model is None:
            return 0
        with self.db.write() as conn:
            return vector_repo.delete_vectors(conn, keep_model=None if including_current else model)

    def models_in_store(self) -> dict[str, int]:
        return vector_repo.models(self.db.conn)
