"""``Engine``: one open store and the operations a user names on it.

Every interface (CLI, MCP, the resident that ranks for the hooks, the dashboard) calls these
methods, so the same request gives the same answer everywhere. The methods validate input and
compose the storage and search layers; the larger operations live beside this module in the
``memlode.engine`` package (weights, links, namespace_ops, supersession)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode import validate
from memlode.config import Settings
from memlode.engine import links, namespace_ops, reports, supersession, weights
from memlode.engine.embedding import EmbeddingService
from memlode.engine.namespace_ops import ALL_NAMESPACES
from memlode.errors import InvalidInput, NotFound, StorageError
from memlode.owner_only import secure_home
from memlode.project import detect_namespace
from memlode.search.fts import TermFrequencies
from memlode.search.hybrid import RecallParams
from memlode.search.pipeline import SearchPipeline
from memlode.storage import code_store, open_store
from memlode.storage import memories as memory_repo
from memlode.storage import sessions as session_repo
from memlode.storage.capture import GLOBAL_NAMESPACE
from memlode.storage.turn_context import CONVERSATION_SOURCES, refresh_context
from memlode.storage.values import PROMPT_TAG, MemoryFilter, NewMemory
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
    from memlode.storage.db import Database
    from memlode.storage.sql import Connection
    from memlode.storage.store import Store

__all__ = ["ALL_NAMESPACES", "Engine", "EngineOpener", "SearchHit", "StoreResult"]

# Rows a search embeds first when hooks left some without vectors: bounded so that a search
# never stalls on a large backlog (``memlode embed`` or the MCP server work that off).
SEARCH_CATCH_UP = 64


# Something that opens an engine on demand (a server's opener shares its embedder).
EngineOpener = Callable[[], "Engine"]


@dataclass(slots=True, frozen=True)
class StoreResult:
    id: str
    created: bool  # False: the same content was already stored; id is the existing one
    # The earlier statements the rules found it replaces (linked as it was stored), so that
    # whoever stored it can see the link and undo a wrong one.
    replaces: tuple[str, ...] = ()


class Engine:
    """One open store plus the settings it was opened with."""

    def __init__(self, settings: Settings, *, cwd: Path | None = None) -> None:
        self.settings = settings
        author = settings.author if settings.db_url is not None else ""  # kept on a server
        self.db: Store = open_store(settings.store, created_by=author)
        secure_home(settings.home)  # owner-only home and files (issue 16 item 5)
        if settings.namespace is not None:
            self.namespace = settings.namespace
        else:
            self.namespace = detect_namespace(cwd or Path.cwd())
        self.embeddings = EmbeddingService(settings, self.db)
        self.term_frequencies = TermFrequencies()  # BM25's candidate choice (search/fts.py)
        self._text_index: TextIndex | None = None  # BM25 in memory (search/text_index.py)
        self._code_db: Database | None = None  # a team store's code index, on this machine

    def close(self) -> None:
        if self._text_index is not None:
            self._text_index.close()
        if self._code_db is not None and self._code_db is not self.db:
            self._code_db.close()
        self.embeddings.close()
        self.db.close()

    @property
    def text_index(self) -> TextIndex:
        """The in-memory copy of the FTS index this engine's searches use once it is built."""
        if self._text_index is None:
            from memlode.search.text_index import TextIndex

            self._text_index = TextIndex.shared(self.db)  # one copy per process
        return self._text_index

    @property
    def code_db(self) -> Database:
        """The code index's store (on PostgreSQL a SQLite file of this machine: code_store)."""
        if self._code_db is None:
            self._code_db = code_store(self.db, self.settings.home)
        return self._code_db

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def conn(self) -> Connection:
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
        """The namespace a user means by ``name`` (``namespace_ops.key``)."""
        return namespace_ops.key(self.conn, name, self.namespace)

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
        fresh = supersession.new_statements(items, [(r.id, r.created) for r in results])
        found = supersession.plan_replacements(self.conn, fresh) if fresh else []
        if not found:
            return results
        with self.db.write() as conn:  # the rules read outside the write lock; only links here
            made = supersession.record(conn, found)
        olds: dict[str, list[str]] = {}
        for rep in made:
            olds.setdefault(rep.new_id, []).append(rep.old_id)
        return [StoreResult(r.id, r.created, tuple(olds.get(r.id, ()))) for r in results]

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
        changes = validate.memory_changes(
            {
                "content": content,
                "memory_type": memory_type,
                "importance": importance,
                "confidence": confidence,
                "tags": tags,
                "metadata": metadata,
            }
        )
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
        stored_by: str | None = None,
    ) -> list[Memory]:
        flt = self.filter(namespace, memory_types, tags, sources, session_id, since, until)
        flt.created_by = validate.stored_by(stored_by, team=self.settings.db_url is not None)
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
        exclude_session: str | None = None,
        stored_by: str | None = None,
    ) -> list[SearchHit]:
        """Hybrid recall (``memlode.search.hybrid``); every hit carries its signal contributions
        (``SearchHit.to_dict(explain)``). ``exclude_session``: not that session's rows. A read:
        rows stored without a vector yet are found by their words; a one-shot caller with no
        long-lived process beside it calls ``catch_up`` first."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query is empty; give words to search for")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1 or k > 1000:
            raise InvalidInput("k must be a whole number between 1 and 1000")
        flt = self.filter(namespace, memory_types, tags, sources)
        flt.created_by = validate.stored_by(stored_by, team=self.settings.db_url is not None)
        # A stored prompt is not an answer: left out unless asked for by its tag.
        flt.exclude_prompts = PROMPT_TAG not in flt.tags
        # A project reads its own namespace and the global one (not other projects').
        if flt.namespace is not None and flt.namespace != GLOBAL_NAMESPACE:
            flt.also_namespaces = (GLOBAL_NAMESPACE,)
        flt.exclude_session_id = exclude_session or None
        pipeline = SearchPipeline(
            self.conn, self.text_index, self.embeddings, self.term_frequencies, self.recall_params()
        )
        hits = pipeline.search(query, flt, k, utcnow())
        asked = " ".join(query.split()).casefold() if flt.exclude_prompts else None
        # a replaced memory says so wherever it is listed (search ranks it below what replaced it)
        return [
            SearchHit(
                h.memory,
                h.score,
                h.signals,
                supersession.fields(h.replaced) if h.replaced is not None else None,
            )
            for h in hits
            if " ".join(h.memory.content.split()).casefold() != asked  # the query is no answer
        ]

    def replacing(self, memory_id: str) -> tuple[list[Memory], list[Memory]]:
        """What ``memory_id`` (a statement just stored) replaces, and what else it may replace:
        the earlier statements linked as replaced by it, oldest first, then those on its subject
        that nothing links (``supersession.same_subject``), nearest first, for whoever stored it
        to judge. Embeds what is pending first, so that the meaning rule has read it."""
        self.catch_up()
        done = supersession.replaced_by_it(self.conn, memory_id)
        maybe = supersession.same_subject(self.conn, memory_id, self.embeddings.cosines)
        rows = memory_repo.fetch_many(self.conn, done + maybe)
        return [rows[i] for i in done if i in rows], [rows[i] for i in maybe if i in rows]

    def replaced(self, ids: Sequence[str]) -> dict[str, dict[str, str]]:
        """Of ``ids``, those a later memory replaced: id -> {"replaced_by", "replaced_at"}."""
        return supersession.replaced(ids, self.conn)

    def mark_replaced(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Memories as dicts (with their ``id``), those a later one replaced marked with
        ``replaced_by`` and ``replaced_at`` (``supersession.marked``)."""
        return supersession.marked(self.conn, items)

    def catch_up(self, limit: int = SEARCH_CATCH_UP) -> int:
        """Embed up to ``limit`` rows stored without a vector (no token states: those are
        filled in the background), so that a one-shot search sees them by meaning too; 0
        without an embedder, on a read-only store, or when the disk is full."""
        if limit <= 0 or not self.db.writable:
            return 0
        with contextlib.suppress(StorageError):  # a full disk: search what is stored
            return self.embeddings.embed_pending(limit=limit, states=False)
        return 0

    def recall_params(self) -> RecallParams:  # every search's: weights and [recall]
        return RecallParams.configured(self.get_weights(), self.settings)

    def get_weights(self) -> dict[str, float]:
        """Effective signal weights: set at run time (stored) > config/env > defaults."""
        return weights.effective(self.conn, self.settings)

    def set_weights(self, changes: dict[str, float], *, merge: bool = True) -> dict[str, float]:
        """Store new weights (merged over the current ones unless ``merge`` is False)."""
        return weights.store(self.db, self.settings, changes, merge=merge)

    def reset_weights(self) -> dict[str, float]:
        return weights.reset(self.db, self.settings)

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
        return reports.health(self.conn, self.db, self.settings, self.embeddings)

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
        from memlode.engine.graph_ops import expand_hits

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
        """Link two memories (both must exist) with a typed, weighted edge."""
        return links.associate(self.db, source_id, target_id, relationship, weight, properties)

    def neighbors(
        self,
        memory_id: str,
        relationships: Sequence[Relationship | str] = (),
        direction: str = "both",
    ) -> list[dict[str, Any]]:
        """The memory's graph neighbours, with the memory each one is (where it is one)."""
        return links.neighbors(self.conn, memory_id, relationships, direction)

    # ---- sessions ---------------------------------------------------------------------------

    def start_session(
        self,
        session_id: str | None = None,
        *,
        namespace: str | None = None,
        source: str = "cli",
        metadata: dict[str, Any] | None = None,
    ) -> Session:
        """Start a session (a new id unless one is given), or resume it."""
        ns = self.resolve_namespace(namespace) or ""
        with self.db.write() as conn:
            return session_repo.start(conn, session_id or str(uuid.uuid4()), ns, source, metadata)[
                0
            ]

    def end_session(self, session_id: str, summary: str | None = None) -> Session:
        with self.db.write() as conn:
            ended = session_repo.end(conn, session_id, summary)
            session = session_repo.fetch(conn, session_id) if ended else None
        if session is None:
            raise NotFound(f"no session with id {session_id!r}")
        return session

    def sessions(self, *, namespace: str | None = None, limit: int = 50) -> list[Session]:
        return session_repo.list_sessions(self.conn, self.resolve_namespace(namespace), limit)

    # ---- stats and namespaces ---------------------------------------------------------------

    def stats(self, namespace: str | None = ALL_NAMESPACES) -> dict[str, Any]:
        """Counts for one namespace (``*``: all): memories by type and source, vectors, graph,
        sessions, the database's size; and the language model's usage today (``llm``)."""
        out = reports.stats(self.conn, self.db, self.resolve_namespace(namespace))
        out["llm"] = reports.llm_usage(self.conn, self.settings)
        return out

    def namespaces(self) -> list[dict[str, Any]]:
        """Every namespace with its readable name, counts and time span; ``current`` marks this
        project's."""
        return namespace_ops.listing(self.conn, self.namespace)

    def existing_namespace(self, namespace: str) -> str:
        """``namespace_key(namespace)``, which must hold something (else NotFound)."""
        return namespace_ops.existing(self.conn, namespace, self.namespace_key)

    def delete_namespace(self, namespace: str) -> int:
        """Delete exactly one namespace (a readable name must name one project) and everything
        in it; return the number of memories deleted."""
        return namespace_ops.delete(self.db, self.existing_namespace(namespace))

    def move_namespace(self, old: str, new: str | None = None) -> dict[str, Any]:
        """Move everything in namespace ``old`` into ``new`` (default: this project's): for rows
        kept under a folder name by migration 0010, or two namespaces that are one project."""
        source = self.existing_namespace(old)
        target = self.namespace_key(new.strip()) if new is not None else self.namespace
        return namespace_ops.move(self.db, source, target)

    def keep_namespace(self, name: str) -> bool:
        """Keep a folder-name namespace that migration 0010 left rows in as it is: drop its
        note, so that ``memlode doctor`` stops warning. False if there was none."""
        return namespace_ops.keep(self.db, name)
