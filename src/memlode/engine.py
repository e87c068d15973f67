"""The engine: every operation a user names, composed from the storage and search layers.

Every interface (CLI, MCP, hooks, dashboard) calls these methods and nothing below them, so the
same request gives the same answer everywhere.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode import reports, validate
from memlode.config import Settings, normalise_weights
from memlode.embedding import EmbeddingService
from memlode.errors import InvalidInput, NotFound, StorageError
from memlode.owner_only import secure_home
from memlode.project import detect_namespace, is_identity_key
from memlode.search.fts import TermFrequencies
from memlode.search.hybrid import RecallParams, recall
from memlode.storage import graph as graph_repo
from memlode.storage import memories as memory_repo
from memlode.storage import namespaces as namespace_repo
from memlode.storage import sessions as session_repo
from memlode.storage.context import CONVERSATION_SOURCES, refresh_context
from memlode.storage.db import Database
from memlode.storage.memories import GLOBAL_NAMESPACE, PROMPT_TAG, MemoryFilter, NewMemory
from memlode.storage.store_settings import delete_setting, get_setting, put_setting
from memlode.types import (
    Edge,
    Memory,
    MemoryType,
    Relationship,
    SearchHit,
    Session,
    utcnow,
)

if TYPE_CHECKING:
    from memlode.search.text_index import TextIndex

__all__ = ["ALL_NAMESPACES", "Engine", "SearchHit", "StoreResult"]

# Sentinel for "every namespace" in list/search/stats filters.
ALL_NAMESPACES = "*"
# Rows a search embeds first when hooks left some without vectors: bounded so that a search
# never stalls on a large backlog (``memlode embed`` or the MCP server work that off).
SEARCH_CATCH_UP = 64
WEIGHTS_KEY = "weights"  # store_settings: the ranking weights set at run time


@dataclass(slots=True, frozen=True)
class StoreResult:
    id: str
    created: bool  # False: the same content was already stored; id is the existing one


class Engine:
    """One open store plus the settings it was opened with."""

    def __init__(self, settings: Settings, *, cwd: Path | None = None) -> None:
        self.settings = settings
        self.db = Database(settings.database)
        secure_home(settings.home)  # owner-only home and files (issue 16 item 5)
        if settings.namespace is not None:
            self.namespace = settings.namespace
        else:
            self.namespace = detect_namespace(cwd or Path.cwd())
        self.embeddings = EmbeddingService(settings, self.db)
        self.term_frequencies = TermFrequencies()  # BM25's candidate choice (search/fts.py)
        self._text_index: TextIndex | None = None  # BM25 in memory (search/text_index.py)

    def close(self) -> None:
        if self._text_index is not None:
            self._text_index.close()
        self.embeddings.close()
        self.db.close()

    @property
    def text_index(self) -> TextIndex:
        """The in-memory copy of the FTS index this engine's searches use once it is built."""
        if self._text_index is None:
            from memlode.search.text_index import TextIndex

            self._text_index = TextIndex.shared(self.db.path)  # one copy per process
        return self._text_index

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    # ---- namespaces -------------------------------------------------------------------------

    def resolve_namespace(self, namespace: str | None) -> str | None:
        """None -> the current project; '*' -> every namespace (returned as None); a name ->
        ``namespace_key(name)``."""
        if namespace is None:
            return self.namespace
        if namespace == ALL_NAMESPACES:
            return None
        return self.namespace_key(namespace.strip())

    def namespace_key(self, name: str) -> str:
        """The namespace a user means by ``name``: the namespace of that name if the store has
        one, else the one project key whose readable name it is (``app`` -> ``app-1a2b3c4d``),
        else ``name`` itself (a new namespace). Two projects called ``name``: InvalidInput."""
        if not name or name == self.namespace or is_identity_key(name):
            return name
        if namespace_repo.exists(self.conn, name):
            return name
        keys = namespace_repo.keys_named(self.conn, name)
        if len(keys) > 1:
            raise InvalidInput(
                f"namespace {name!r} is ambiguous: {len(keys)} projects are called {name!r} "
                f"({', '.join(keys)}); give one of those keys"
            )
        return keys[0] if keys else name

    # ---- memories ---------------------------------------------------------------------------

    def store(
        self,
        content: str,
        memory_type: MemoryType | str = MemoryType.CONTEXT,
        importance: float = 0.5,
        confidence: float = 1.0,
        tags: Sequence[str] | str | None = None,
        namespace: str | None = None,
        metadata: dict[str, Any] | str | None = None,
        *,
        source: str = "memory",
        session_id: str | None = None,
        created_at: str | None = None,
    ) -> StoreResult:
        new = self.new_memory(
            content,
            memory_type,
            importance,
            confidence,
            tags,
            namespace,
            metadata,
            source=source,
            session_id=session_id,
            created_at=created_at,
        )
        return self.store_many([new])[0]

    def new_memory(
        self,
        content: str,
        memory_type: MemoryType | str = MemoryType.CONTEXT,
        importance: float = 0.5,
        confidence: float = 1.0,
        tags: Sequence[str] | str | None = None,
        namespace: str | None = None,
        metadata: dict[str, Any] | str | None = None,
        *,
        source: str = "memory",
        session_id: str | None = None,
        created_at: str | None = None,
    ) -> NewMemory:
        """Validate a memory to store (used by ``store`` and by batch ingesters)."""
        ns = self.resolve_namespace(namespace)
        if ns is None:
            raise InvalidInput("store into one namespace, not '*'")
        return NewMemory(
            content=validate.content(content),
            memory_type=validate.memory_type(memory_type),
            importance=validate.unit_interval(importance, "importance"),
            confidence=validate.unit_interval(confidence, "confidence"),
            tags=validate.tags(list(tags) if isinstance(tags, tuple) else tags),
            metadata=validate.metadata(metadata),
            namespace=ns,
            source=source,
            session_id=session_id,
            created_at=validate.timestamp(created_at, "created_at") if created_at else None,
        )

    def store_many(self, items: Sequence[NewMemory]) -> list[StoreResult]:
        """Store validated memories in one transaction (dedup applies to each)."""
        results: list[StoreResult] = []
        with self.db.write() as conn:
            sessions: set[str] = set()
            for item in items:
                memory_id, created = memory_repo.insert(conn, item)
                results.append(StoreResult(memory_id, created))
                if created and item.session_id and item.source in CONVERSATION_SOURCES:
                    sessions.add(item.session_id)
            if sessions:
                refresh_context(conn, sessions)
        return results

    def get(self, memory_id: str, *, touch: bool = True) -> Memory:
        if touch and self.db.writable:
            with contextlib.suppress(StorageError), self.db.write() as conn:
                memory_repo.touch(conn, [memory_id])  # a full disk: read without counting
        memory = memory_repo.fetch(self.conn, memory_id)
        if memory is None:
            raise NotFound(f"no memory with id {memory_id!r}")
        return memory

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        memory_type: MemoryType | str | None = None,
        importance: float | None = None,
        confidence: float | None = None,
        tags: Sequence[str] | str | None = None,
        metadata: dict[str, Any] | str | None = None,
    ) -> Memory:
        changes: dict[str, Any] = {}
        if content is not None:
            changes["content"] = validate.content(content)
        if memory_type is not None:
            changes["memory_type"] = validate.memory_type(memory_type)
        if importance is not None:
            changes["importance"] = validate.unit_interval(importance, "importance")
        if confidence is not None:
            changes["confidence"] = validate.unit_interval(confidence, "confidence")
        if tags is not None:
            changes["tags"] = validate.tags(list(tags) if isinstance(tags, tuple) else tags)
        if metadata is not None:
            changes["metadata"] = validate.metadata(metadata)
        if not changes:
            raise InvalidInput("nothing to update; give at least one field to change")
        with self.db.write() as conn:
            current = memory_repo.fetch(conn, memory_id)
            if current is None:
                raise NotFound(f"no memory with id {memory_id!r}")
            if "content" in changes:
                dup = memory_repo.find_duplicate(
                    conn, current.namespace, current.source, changes["content"]
                )
                if dup is not None and dup != memory_id:
                    raise InvalidInput(f"memory {dup} already has that content in this namespace")
            memory_repo.update(conn, memory_id, changes)
            if "content" in changes:  # the old vector no longer describes the text
                memory_repo.drop_vectors(conn, [memory_id])
        return self.get(memory_id, touch=False)

    def delete(self, memory_id: str) -> None:
        with self.db.write() as conn:
            found = memory_repo.fetch(conn, memory_id)
            if found is None or memory_repo.delete(conn, [memory_id]) == 0:
                raise NotFound(f"no memory with id {memory_id!r}")
            if found.session_id and found.source in CONVERSATION_SOURCES:
                refresh_context(conn, [found.session_id])

    def list_memories(
        self,
        *,
        namespace: str | None = None,
        memory_types: Sequence[MemoryType | str] | str | None = None,
        tags: Sequence[str] | str | None = None,
        sources: Sequence[str] = (),
        session_id: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = 50,
        offset: int = 0,
    ) -> list[Memory]:
        flt = self.filter(namespace, memory_types, tags, sources, session_id, since, until)
        if limit is not None:
            limit = validate.whole_number(limit, "limit", 1)
        offset = validate.whole_number(offset, "offset", 0)
        return memory_repo.select(self.conn, flt, limit=limit, offset=offset)

    def filter(
        self,
        namespace: str | None = None,
        memory_types: Sequence[MemoryType | str] | str | None = None,
        tags: Sequence[str] | str | None = None,
        sources: Sequence[str] = (),
        session_id: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> MemoryFilter:
        return MemoryFilter(
            namespace=self.resolve_namespace(namespace),
            memory_types=validate.memory_types(
                list(memory_types) if isinstance(memory_types, tuple) else memory_types
            ),
            tags=validate.tags(list(tags) if isinstance(tags, tuple) else tags),
            sources=[s.strip() for s in sources if s.strip()],
            session_id=session_id,
            since=validate.timestamp(since, "since") if since else None,
            until=validate.timestamp(until, "until") if until else None,
        )

    # ---- search -----------------------------------------------------------------------------

    def search(
        self,
        query: str,
        k: int = 10,
        *,
        namespace: str | None = None,
        memory_types: Sequence[MemoryType | str] | str | None = None,
        tags: Sequence[str] | str | None = None,
        sources: Sequence[str] = (),
        explain: bool = False,
        exclude_session: str | None = None,
    ) -> list[SearchHit]:
        """Hybrid recall (see ``memlode.search.hybrid``); ``explain`` is accepted for symmetry
        with the interfaces, every hit always carries its signal contributions.
        ``exclude_session`` leaves out that session's rows (the prompt hook's own session).

        A read: it writes nothing. Rows stored without a vector yet are found by their words;
        a one-shot caller with no long-lived process beside it calls ``catch_up`` first."""
        del explain
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query is empty; give words to search for")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1 or k > 1000:
            raise InvalidInput("k must be a whole number between 1 and 1000")
        flt = self.filter(namespace, memory_types, tags, sources)
        # A stored prompt is not an answer: left out unless asked for by its tag.
        flt.exclude_prompts = PROMPT_TAG not in flt.tags
        # A project reads its own namespace and the global one (not other projects').
        if flt.namespace is not None and flt.namespace != GLOBAL_NAMESPACE:
            flt.also_namespaces = (GLOBAL_NAMESPACE,)
        flt.exclude_session_id = exclude_session or None
        params = self.recall_params()
        text_index = self.text_index
        postings = text_index.scorer(self.conn)
        vectors = self.embeddings.nearest(
            query, params.vector_candidates(k), flt.namespaces() or None, bm25=postings is None
        )
        scores = text_index.scores(self.conn, postings, query) if postings is not None else None
        hits = recall(
            self.conn,
            query,
            flt,
            k,
            params,
            now=utcnow(),
            vectors=vectors,
            frequencies=self.term_frequencies,
            text_scores=scores,
        )
        asked = " ".join(query.split()).casefold() if flt.exclude_prompts else None
        return [
            SearchHit(h.memory, h.score, h.signals)
            for h in hits
            if " ".join(h.memory.content.split()).casefold() != asked  # the query is no answer
        ]

    def catch_up(self, limit: int = SEARCH_CATCH_UP) -> int:
        """Embed up to ``limit`` rows stored without a vector (no token states: those are
        filled in the background), so that a one-shot search sees them by meaning too; 0
        without an embedder, on a read-only store, or when the disk is full."""
        if limit <= 0 or not self.db.writable:
            return 0
        with contextlib.suppress(StorageError):  # a full disk: search what is stored
            return self.embeddings.embed_pending(limit=limit, states=False)
        return 0

    def recall_params(self) -> RecallParams:
        return RecallParams(weights=self.get_weights())

    def get_weights(self) -> dict[str, float]:
        """Effective signal weights: set at run time (stored) > config/env > defaults."""
        stored = get_setting(self.conn, WEIGHTS_KEY)
        if stored is not None:
            try:
                return normalise_weights(json.loads(stored))
            except (InvalidInput, ValueError, TypeError):
                pass  # a damaged setting falls back to the configured weights
        return self.settings.effective_weights

    def set_weights(self, weights: dict[str, float], *, merge: bool = True) -> dict[str, float]:
        """Store new weights (merged over the current ones unless ``merge`` is False)."""
        if not isinstance(weights, dict) or not weights:
            raise InvalidInput('give weights as {"signal": number}, e.g. {"bm25": 0.4}')
        try:
            numbers = {str(k): float(v) for k, v in weights.items()}
        except (TypeError, ValueError):
            raise InvalidInput("every weight must be a number") from None
        base = self.get_weights() if merge else {}
        effective = normalise_weights({**base, **numbers})
        with self.db.write() as conn:
            put_setting(conn, WEIGHTS_KEY, json.dumps(effective))
        return effective

    def reset_weights(self) -> dict[str, float]:
        with self.db.write() as conn:
            delete_setting(conn, WEIGHTS_KEY)
        return self.get_weights()

    def describe_config(self) -> dict[str, Any]:
        """The settings that decide a ranking (recorded with every evaluation)."""
        return {
            "embed_provider": self.settings.embed_provider,
            "embed_model": self.embeddings.model_name(),
            "recall": self.recall_params().describe(),
        }

    def embed_pending(
        self,
        limit: int | None = None,
        batch_size: int = 64,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        return self.embeddings.embed_pending(limit, batch_size, progress)

    def pending_embeddings(self) -> int:
        return self.embeddings.pending()

    def pending_token_states(self) -> int:
        return self.embeddings.pending_states()

    def health(self) -> dict[str, Any]:
        """What works and what does not: storage, embedder, vectors, graph, pending rows."""
        return reports.health(self.conn, self.db.path, self.settings, self.embeddings)

    def recall_with_expansion(
        self,
        query: str,
        k: int = 10,
        *,
        depth: int = 1,
        namespace: str | None = None,
        memory_types: Sequence[MemoryType | str] | str | None = None,
        tags: Sequence[str] | str | None = None,
        sources: Sequence[str] = (),
    ) -> list[dict[str, Any]]:
        """Hits plus the memories linked to them, up to ``depth`` hops, each once."""
        from memlode.graph_ops import expand_hits

        if depth < 0 or depth > 5:
            raise InvalidInput("depth must be between 0 and 5")
        hits = self.search(
            query, k, namespace=namespace, memory_types=memory_types, tags=tags, sources=sources
        )
        return expand_hits(self, hits, depth)

    # ---- graph ------------------------------------------------------------------------------

    def associate(
        self,
        source_id: str,
        target_id: str,
        relationship: Relationship | str = Relationship.RELATES_TO,
        weight: float = 1.0,
        properties: dict[str, Any] | str | None = None,
    ) -> Edge:
        rel = validate.relationship(relationship)
        props = validate.metadata(properties)
        try:
            weight = float(weight)
        except (TypeError, ValueError):
            raise InvalidInput(f"weight must be a number, got {weight!r}") from None
        if source_id == target_id:
            raise InvalidInput("a memory cannot be associated with itself")
        with self.db.write() as conn:
            for memory_id in (source_id, target_id):
                memory = memory_repo.fetch(conn, memory_id)
                if memory is None:
                    raise NotFound(f"no memory with id {memory_id!r}")
                graph_repo.ensure_memory_node(conn, memory.id, memory.content, memory.namespace)
            edge = Edge(source_id, target_id, rel, weight, props)
            graph_repo.add_edge(conn, edge)
        return edge

    def neighbors(
        self,
        memory_id: str,
        relationships: Sequence[Relationship | str] = (),
        direction: str = "both",
    ) -> list[dict[str, Any]]:
        if direction not in ("in", "out", "both"):
            raise InvalidInput("direction must be in, out or both")
        if memory_repo.fetch(self.conn, memory_id) is None:
            raise NotFound(f"no memory with id {memory_id!r}")
        rels = [validate.relationship(r) for r in relationships]
        found = graph_repo.neighbors(self.conn, memory_id, rels, direction)
        memories = memory_repo.fetch_many(self.conn, [n.memory_id for n in found if n.memory_id])
        out: list[dict[str, Any]] = []
        for n in found:
            item: dict[str, Any] = {
                "node_id": n.node_id,
                "kind": n.kind,
                "name": n.name,
                "relationship": n.relationship,
                "direction": n.direction,
                "weight": n.weight,
            }
            if n.memory_id and n.memory_id in memories:
                item["memory"] = memories[n.memory_id].to_dict()
            out.append(item)
        return out

    # ---- sessions ---------------------------------------------------------------------------

    def start_session(
        self,
        session_id: str | None = None,
        *,
        namespace: str | None = None,
        source: str = "cli",
        metadata: dict[str, Any] | None = None,
    ) -> Session:
        ns = self.resolve_namespace(namespace) or ""
        with self.db.write() as conn:
            session, _ = session_repo.start(
                conn, session_id or str(uuid.uuid4()), ns, source, metadata
            )
        return session

    def end_session(self, session_id: str, summary: str | None = None) -> Session:
        with self.db.write() as conn:
            if not session_repo.end(conn, session_id, summary):
                raise NotFound(f"no session with id {session_id!r}")
            session = session_repo.fetch(conn, session_id)
        assert session is not None
        return session

    def sessions(self, *, namespace: str | None = None, limit: int = 50) -> list[Session]:
        return session_repo.list_sessions(self.conn, self.resolve_namespace(namespace), limit)

    # ---- stats and namespaces ---------------------------------------------------------------

    def stats(self, namespace: str | None = ALL_NAMESPACES) -> dict[str, Any]:
        """Counts for one namespace (``*``: all): memories by type and source, vectors, graph,
        sessions, the database's size."""
        return reports.stats(self.conn, self.db.path, self.resolve_namespace(namespace))

    def namespaces(self) -> list[dict[str, Any]]:
        """Every namespace with its readable name, counts and time span; ``current`` marks this
        project's."""
        found = namespace_repo.listing(self.conn)
        for item in found:
            item["current"] = item["namespace"] == self.namespace
        return found

    def existing_namespace(self, namespace: str) -> str:
        """``namespace_key(namespace)``, which must hold something (else NotFound)."""
        if namespace.strip() == ALL_NAMESPACES:
            raise InvalidInput("one namespace at a time, not '*'")
        key = self.namespace_key(namespace.strip())
        if not namespace_repo.exists(self.conn, key):
            raise NotFound(f"no namespace {namespace.strip()!r}")
        return key

    def delete_namespace(self, namespace: str) -> int:
        """Delete exactly one namespace (a readable name must name one project) and everything
        in it; return the number of memories deleted."""
        key = self.existing_namespace(namespace)  # not '*': one namespace at a time
        with self.db.write() as conn:
            return namespace_repo.delete(conn, key)

    def move_namespace(self, old: str, new: str | None = None) -> dict[str, Any]:
        """Move everything in namespace ``old`` into ``new`` (default: this project's): for rows
        kept under a folder name by migration 0010, or two namespaces that are one project."""
        source = self.existing_namespace(old)
        target = self.namespace_key(new.strip()) if new is not None else self.namespace
        if not target or target == ALL_NAMESPACES:
            raise InvalidInput("move into one namespace: run inside the project, or give --to NAME")
        if target == source:
            raise InvalidInput(f"{source!r} is already that namespace")
        with self.db.write() as conn:
            report = namespace_repo.move(conn, source, target)
            namespace_repo.forget_legacy(conn, source)
        return {"from": source, "to": target, **report.to_dict()}

    def keep_namespace(self, name: str) -> bool:
        """Keep a folder-name namespace that migration 0010 left rows in as it is: drop its
        note, so that ``memlode doctor`` stops warning. False if there was none."""
        with self.db.write() as conn:
            return namespace_repo.forget_legacy(conn, name.strip(), keep=True)
