"""Repository contracts: recall's reads: full text, vectors, neighbours, the briefing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from memlode.storage.protocols import Connection

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from contextlib import AbstractContextManager

__all__ = [
    "BriefingRows",
    "RecallGraphRows",
    "RecallRows",
    "TextIndexRows",
    "TextLogRows",
    "TextSearchRows",
    "TurnContextRows",
    "VectorRows",
]


class TextSearchRows(Protocol):
    """Full-text candidates and scores (BM25 over the memories' text index).

    SQLite: ``memlode.storage.fts_match``.
    """

    def store_size(self, conn: Connection) -> int:
        """The largest rowid of ``memories``: a cheap upper bound on its rows."""
        ...

    def memory_count(self, conn: Connection) -> int: ...

    def document_frequency(self, conn: Connection, term: str) -> int:
        """Rows whose FTS columns contain ``term`` (a walk of its doclist, no scoring)."""
        ...

    def choose_expressions(
        self,
        conn: Connection,
        terms: list[str],
        wanted: int,
        budget: int,
        counts_of: Callable[[list[str], int], Mapping[str, int]] | None = None,
    ) -> list[str]:
        """The MATCH expressions whose scored rows, merged, rank like the whole OR query."""
        ...

    def best_scored(
        self,
        conn: Connection,
        expressions: Sequence[str],
        limit: int,
        where: str = "",
        params: Sequence[object] = (),
    ) -> list[tuple[int, float]]:
        """The best ``limit`` (rowid, bm25) over the expressions, a row keeping its best score;
        with ``where`` (a ``memories`` condition, alias ``m``) only rows that satisfy
        it."""
        ...

    def ranks_of(
        self,
        conn: Connection,
        expression: str,
        rowids: Sequence[int],
    ) -> dict[int, float]:
        """The rank (negated bm25) ``expression`` gives each of ``rowids`` that matches it."""
        ...

    def rowids_of(self, conn: Connection, ids: Sequence[str]) -> dict[int, str]:
        """rowid -> id of the memories among ``ids``."""
        ...

    def filtered_ids(
        self,
        conn: Connection,
        rowids: Sequence[int],
        where: str,
        params: Sequence[object],
    ) -> dict[int, str]:
        """rowid -> id of the rows among ``rowids`` that satisfy ``where`` (alias ``m``)."""
        ...

    def phrase_scores(self, conn: Connection, term: str, limit: int) -> list[tuple[int, float]]:
        """(rowid, rank: negated bm25) of up to ``limit`` rows matching ``term``, unordered."""
        ...

    def bm25_rows(
        self,
        conn: Connection,
        expression: str,
        namespaces: tuple[str, str],
        exclude_session: str,
        limit: int,
    ) -> list[Any]:
        """(id, content, memory_type, importance, created_at, tags, bm25) of the best ``limit``
        matches of ``expression`` in ``namespaces`` outside ``exclude_session``, best
        first."""
        ...

    def rows_by_id(
        self,
        conn: Connection,
        ids: Sequence[str],
        namespaces: tuple[str, str],
        exclude_session: str,
    ) -> list[Any]:
        """The same columns as ``bm25_rows`` (score 0.0) for memories found by id."""
        ...

    def session_texts_tagged(
        self,
        conn: Connection,
        session_id: str,
        tags: Sequence[str],
    ) -> list[str]:
        """The contents of the session's memories that carry one of ``tags``."""
        ...


class TextIndexRows(Protocol):
    """The texts and terms a resident text index is built from.

    SQLite: ``memlode.storage.fts_texts``.
    """

    def create_tokenizer(self, conn: Connection, tokenizer: str) -> None:
        """A temporary contentless FTS5 table with ``tokenizer``, and its instance vocabulary."""
        ...

    def tokenize_pieces(self, conn: Connection, pieces: Sequence[str]) -> dict[int, list[str]]:
        """Index of each piece -> its tokens in order (one insert and one read for all)."""
        ...

    def latest_seq(self, conn: Connection) -> int:
        """The change log's latest sequence number (0 when empty)."""
        ...

    def read_snapshot(self, conn: Connection) -> AbstractContextManager[None]:
        """One read transaction: everything read inside it sees the same state of the store."""
        ...

    def store_extent(self, conn: Connection) -> tuple[int, int]:
        """(rows, largest rowid) of ``memories``."""
        ...

    def text_rows(self, conn: Connection) -> Any:
        """(rowid, *TEXT_COLUMNS) of every memory."""
        ...

    def text_rows_of(self, conn: Connection, rowids: Sequence[int]) -> Iterator[tuple[Any, ...]]:
        """(rowid, *TEXT_COLUMNS) of those of ``rowids`` that exist, 500 a query."""
        ...


class TextLogRows(Protocol):
    """The change log a resident text index catches up from.

    SQLite: ``memlode.storage.fts_log``.
    """

    def oldest_seq(self, conn: Connection) -> int | None:
        """The oldest sequence number still in the log (None when it is empty)."""
        ...

    def changed_rowids(self, conn: Connection, after: int, upto: int, limit: int) -> list[int]:
        """Up to ``limit`` distinct rows changed in (``after``, ``upto``]."""
        ...


class RecallRows(Protocol):
    """Rows recall reads to score candidates.

    SQLite: ``memlode.storage.recall_rows``.
    """

    def candidate_rows(self, conn: Connection, ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        """The ``CANDIDATE_COLUMNS`` of those of ``ids`` that exist, 500 ids a query."""
        ...

    def token_states(self, conn: Connection, ids: Sequence[str]) -> list[tuple[str, str, bytes]]:
        """(memory id, model, packed states) of those of ``ids`` that have token states."""
        ...


class RecallGraphRows(Protocol):
    """Graph rows recall reads for its graph signal.

    SQLite: ``memlode.storage.recall_graph``.
    """

    def has_memory_edges(self, conn: Connection, namespace: str | None) -> bool:
        """True when a memory node of ``namespace`` (any, for None) has an outgoing edge."""
        ...

    def linked_memories(
        self,
        conn: Connection,
        seed_ids: Sequence[str],
        skip: Sequence[str] = (),
        limit: int | None = None,
    ) -> list[str]:
        """The memory ids at the other end of the edges touching one of ``seed_ids`` (not of
        ``skip``; the ``limit`` heaviest when given)."""
        ...

    def memory_centrality(
        self,
        conn: Connection,
        ids: Sequence[str],
    ) -> list[tuple[str, float, float, float, int | None]]:
        """(memory id, PageRank, betweenness, degree, cluster) from the centrality cache."""
        ...

    def memory_degrees(
        self, conn: Connection, ids: Sequence[str], skip: Sequence[str] = ()
    ) -> list[tuple[str, int]]:
        """(memory id, number of edges) of each of ``ids`` that has any, edges of the
        relationships in ``skip`` not counted."""
        ...


class TurnContextRows(Protocol):
    """Neighbouring conversation turns of a hit.

    SQLite: ``memlode.storage.turn_context``.
    """

    def refresh_context(self, conn: Connection, session_ids: Iterable[str]) -> int:
        """Recompute the context columns of every conversation memory in these sessions."""
        ...

    def session_orders(self, conn: Connection, session_ids: Iterable[str]) -> dict[str, list[str]]:
        """Memory ids of conversation memories per session, in conversation order."""
        ...


class BriefingRows(Protocol):
    """What the SessionStart briefing reads.

    SQLite: ``memlode.storage.briefing``.
    """

    def type_counts(self, conn: Connection, namespace: str) -> list[Any]:
        """(memory_type, count, latest created_at) of the namespace, most common type first."""
        ...

    def session_count(self, conn: Connection, namespace: str) -> int: ...

    def recent_summaries(
        self,
        conn: Connection,
        namespace: str,
        current_session: str,
        limit: int,
    ) -> list[Any]:
        """(started_at, summary) of the latest other sessions that have a summary."""
        ...

    def key_memories(
        self,
        conn: Connection,
        namespace: str,
        types: Sequence[str],
        capture_source: str,
        limit: int,
        derived_source: str = "",
    ) -> list[Any]: ...

    def open_reflections(
        self,
        conn: Connection,
        namespace: str,
        derived_source: str,
        open_tag: str,
        current_session: str,
        limit: int,
    ) -> list[Any]:
        """(content, created_at) of the latest open reflections no later one stands for."""
        ...

    def recent_edits(
        self,
        conn: Connection,
        namespace: str,
        capture_source: str,
        current_session: str,
        limit: int,
    ) -> list[Any]:
        """(content, created_at) of the latest captured edits of other sessions."""
        ...

    def file_hotspots(self, conn: Connection, namespace: str, days: int, limit: int) -> list[Any]:
        """(file name, edits, reads) of the files most worked on in the last ``days`` days (an
        edit counts three times a read)."""
        ...

    def strong_patterns(
        self,
        conn: Connection,
        namespace: str,
        source: str,
        min_strength: float,
        limit: int,
        skip_kinds: Sequence[str] = (),
    ) -> list[Any]:
        """(content, strength) of the strongest detected patterns of the namespace, not of
        ``skip_kinds``."""
        ...

    def session_map(self, conn: Connection, namespace: str) -> str | None:
        """The repo map kept for the namespace's SessionStart, or None when none was kept."""
        ...

    def keep_session_map(self, conn: Connection, namespace: str, text: str) -> None:
        """Keep ``text`` as the namespace's SessionStart map (inside the caller's write)."""
        ...

    def next_command(
        self, conn: Connection, memory_id: str, like: str, failure_tag: str
    ) -> tuple[str, str] | None:
        """(content, command) of the first later observation in the session whose command
        matches ``like`` and is not tagged ``failure_tag``, or None."""
        ...

    def memory_command(self, conn: Connection, memory_id: str) -> str | None:
        """The command an observation recorded, or None."""
        ...


class VectorRows(Protocol):
    """Vectors read for exact and approximate nearest-neighbour search.

    SQLite: ``memlode.storage.vector_rows``.
    """

    def model_version(self, conn: Connection, model: str) -> int: ...

    def vectors_after(self, conn: Connection, model: str, dim: int, after_rowid: int) -> Any:
        """(rowid, memory_id, vector, namespace) of the model's vectors past ``after_rowid``."""
        ...

    def vector_count(self, conn: Connection, model: str, dim: int) -> int: ...

    def vector_count_and_rowid_sum(self, conn: Connection, model: str, dim: int) -> tuple[int, int]:
        """(rows, sum of their rowids): equal to what a loaded index holds only if nothing but
        appends happened since it loaded."""
        ...

    def known_models(self, conn: Connection) -> list[str]:
        """Every model that has (or had: ``vector_state``) vectors in the store."""
        ...
