"""Symbol vectors for semantic code search: the embedding pass and the query side.

The pass embeds every symbol's enriched text (``memlode.code.symbol_text``) with the configured
embedder, in batches, off the hot path: the store's resident process embeds what ``memlode
index`` leaves pending, a few symbols a round from one plan (:class:`SymbolBacklog`), while
``memlode index --wait`` and ``memlode embed`` run the whole pass themselves. Nothing is
embedded twice: a symbol whose file and neighbours are unchanged is skipped without reading its
file; one whose text is unchanged keeps its vector; a text already embedded for another symbol
lends its vector. Test code is not embedded (a question about behaviour is answered by the code
that behaves; tests stay findable by name).
"""

from __future__ import annotations

import logging
import re
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memlode.code.lang.spec import is_test_path
from memlode.code.symbol_text import body_slice, symbol_text
from memlode.storage import code_symbol_vectors as repo
from memlode.textutil import content_hash

if TYPE_CHECKING:
    from memlode.code.search import SemanticQuery
    from memlode.engine import Engine

__all__ = [
    "SymbolBacklog",
    "SymbolEmbedStats",
    "embed_symbols",
    "pending_report",
    "pending_symbols",
    "semantic_query",
]

log = logging.getLogger(__name__)

DEFAULT_BATCH = 64
# Vectors written per transaction: short transactions leave the database to the hooks.
WRITE_BATCH = 256

# (done, total) of the symbols to embed
Progress = Callable[[int, int], None]
# (source, text, text hash, context hash) of a symbol whose text needs a vector
_Todo = tuple[repo.SymbolSource, str, str, str]


@dataclass(slots=True)
class SymbolEmbedStats:
    model: str | None
    symbols: int = 0  # symbols looked at
    embedded: int = 0  # texts sent to the embedder
    reused: int = 0  # vectors copied from another symbol with the same text
    unchanged: int = 0  # vectors kept
    skipped: int = 0  # test code, not embedded
    removed: int = 0  # vectors of vanished symbols deleted
    left: int = 0  # pending after this pass (a limit was reached)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {k: getattr(self, k) for k in self.__slots__}
        out["seconds"] = round(self.seconds, 3)
        out["symbols_per_second"] = (
            round(self.embedded / self.seconds, 1) if self.embedded and self.seconds else None
        )
        return out


def pending_symbols(engine: Engine) -> int:
    """Symbols without a vector from the current model (0 without an embedder)."""
    embedder = engine.embeddings.embedder
    if embedder is None:
        return 0
    return repo.pending_count(engine.code_db.conn, embedder.name)


def embed_symbols(
    engine: Engine,
    namespace: str | None = None,
    *,
    limit: int | None = None,
    batch_size: int = DEFAULT_BATCH,
    progress: Progress | None = None,
) -> SymbolEmbedStats:
    """Embed what is new or changed among the symbols of ``namespace`` (all with None), at most
    ``limit`` texts; see the module doc."""
    started = time.perf_counter()
    embedder = engine.embeddings.embedder
    stats = SymbolEmbedStats(embedder.name if embedder is not None else None)
    if embedder is None:
        return stats
    todo = _prepare(engine, namespace, embedder.name, stats, limit)
    if progress is not None:
        progress(0, len(todo))
    _embed_texts(engine, todo, batch_size, stats, progress)
    stats.seconds = time.perf_counter() - started
    return stats


def pending_report(engine: Engine) -> dict[str, object]:
    """How far the symbol vectors are: ``symbols`` indexed, ``pending`` (waiting for a vector
    from the current model) and the ``model`` (None, and nothing pending, without an embedder:
    symbol search then runs on text alone). For ``memlode doctor``, the dashboard and ``memlode
    index --json``."""
    embedder = engine.embeddings.embedder if engine.embeddings.enabled else None
    conn = engine.code_db.conn
    return {
        "symbols": repo.symbol_count(conn),
        "pending": repo.pending_count(conn, embedder.name) if embedder is not None else 0,
        "model": embedder.name if embedder is not None else None,
    }


class SymbolBacklog:
    """The symbols waiting for a vector, planned once and worked off a few at a time: what the
    background embedder (``memlode.engine.embed_worker``) keeps between its rounds.

    A plan reads every symbol of the store (and the files of those whose text must be made
    again), which takes about as long as embedding a few dozen texts on a large store; planned
    for every round of a few symbols, it would cost more than the embedding. So it is made
    again only when the code index moved (a file indexed, changed or dropped: the generation of
    ``storage.code_symbol_vectors.code_generation``, read before planning, so that a change
    made while planning is seen next round) or the model changed, and only when something is
    pending then (a count)."""

    def __init__(self) -> None:
        self._mark: tuple[str, int] | None = None
        self._todo: list[_Todo] = []

    @property
    def waiting(self) -> int:
        """Texts planned and not embedded yet."""
        return len(self._todo)

    def embed(self, engine: Engine, limit: int) -> int:
        """Embed up to ``limit`` of the planned texts (planning first when the code or the
        model moved); how many were embedded."""
        embedder = engine.embeddings.embedder
        if embedder is None:
            return 0
        conn = engine.code_db.conn
        mark = (embedder.name, repo.code_generation(conn))
        if mark != self._mark:
            self._mark = mark
            self._todo = []
            if repo.pending_count(conn, embedder.name):
                self._todo = _prepare(engine, None, embedder.name, SymbolEmbedStats(None), None)
        batch, self._todo = self._todo[:limit], self._todo[limit:]
        stats = SymbolEmbedStats(embedder.name)
        _embed_texts(engine, batch, max(1, limit), stats, None)
        return stats.embedded


def _prepare(
    engine: Engine,
    namespace: str | None,
    model: str,
    stats: SymbolEmbedStats,
    limit: int | None,
) -> list[_Todo]:
    """Plan (``_plan``), write what needs no embedder (placeholders of test code, vectors kept
    for a new version of their file, vectors lent by an equal text), drop the vectors of
    vanished symbols after a whole plan, and return the texts left to embed (at most
    ``limit``)."""
    plan = _plan(engine, namespace, model, stats, limit)
    lent = repo.vectors_by_text_hash(engine.code_db.conn, model, (h for _, _, h, _ in plan.todo))
    reuse = [item for item in plan.todo if item[2] in lent]
    todo = [item for item in plan.todo if item[2] not in lent]
    if limit is not None and len(todo) > limit:
        stats.left = len(todo) - limit
        todo = todo[:limit]
    if plan.stopped:
        stats.left = max(stats.left, 1)  # more symbols wait beyond the ones planned
    with engine.code_db.write() as wconn:
        repo.write_vectors(wconn, plan.skipped)
        repo.keep_vectors(wconn, plan.keep)
        repo.write_vectors(
            wconn,
            [
                (s.node_id, model, s.namespace, t, h, s.file_hash, c, *lent[h])
                for s, t, h, c in reuse
            ],
        )
        if stats.left == 0:
            stats.removed = repo.delete_vanished(wconn, model, namespace)
    stats.reused = len(reuse)
    return todo


def _embed_texts(
    engine: Engine,
    todo: Sequence[_Todo],
    batch_size: int,
    stats: SymbolEmbedStats,
    progress: Progress | None,
) -> None:
    """Embed ``todo`` in batches, writing WRITE_BATCH vectors per transaction."""
    embedder = engine.embeddings.embedder
    if embedder is None or not todo:
        return
    model = embedder.name
    pending: list[repo.VectorRow] = []
    for i in range(0, len(todo), batch_size):
        batch = todo[i : i + batch_size]
        vectors = embedder.embed([text for _, text, _, _ in batch])
        pending.extend(
            (s.node_id, model, s.namespace, t, h, s.file_hash, c, embedder.dim,
             vectors[j].astype("<f4").tobytes())
            for j, (s, t, h, c) in enumerate(batch)
        )  # fmt: skip
        stats.embedded += len(batch)
        if len(pending) >= WRITE_BATCH or i + batch_size >= len(todo):
            with engine.code_db.write() as wconn:
                repo.write_vectors(wconn, pending)
            pending = []
        if progress is not None:
            progress(stats.embedded, len(todo))


@dataclass(slots=True)
class _Plan:
    keep: list[tuple[str, str, str, str]]  # (file_hash, context_hash, node_id, model)
    skipped: list[repo.VectorRow]  # test code
    todo: list[_Todo]
    stopped: bool = False  # planning stopped at the limit: symbols after it were not looked at


def _plan(
    engine: Engine,
    namespace: str | None,
    model: str,
    stats: SymbolEmbedStats,
    limit: int | None = None,
) -> _Plan:
    """What each symbol needs: nothing (file and neighbours unchanged), a new record of the
    file it stands for (same text), a placeholder (test code) or a vector for its new text.
    With ``limit``, planning stops once that many texts are to be embedded, so that a caller
    going batch by batch (the background embedder) does not read every changed file for each
    batch."""
    conn = engine.code_db.conn
    sources = repo.symbol_sources(conn, namespace)
    stored = repo.stored_vectors(conn, model, namespace)
    callees, callers = _neighbours(repo.call_pairs(conn, namespace))
    members: dict[tuple[str, str], list[str]] = defaultdict(list)
    for src in sources:
        if src.parent:
            members[(src.namespace, src.parent)].append(src.name)
    stats.symbols = len(sources)
    files = _Files()
    plan = _Plan([], [], [])
    for src in sources:
        out_of = sorted(callees.get(src.node_id, ()))
        into = sorted(callers.get(src.node_id, ()))
        held = members.get((src.namespace, src.qualified_name), [])
        context = content_hash("\x1f".join([*out_of, "\x1e", *into, "\x1e", *held]))
        old = stored.get(src.node_id)
        if old is not None and old.file_hash == src.file_hash and old.context_hash == context:
            stats.unchanged += 1
            continue
        if src.kind == "test" or is_test_path(src.path):
            stats.skipped += 1
            plan.skipped.append(
                (src.node_id, model, src.namespace, "", "", src.file_hash, context, 0, b"")
            )
            continue
        text = symbol_text(
            kind=src.kind,
            qualified_name=src.qualified_name,
            signature=src.signature,
            doc=src.doc,
            path=src.path,
            module=src.module,
            callees=out_of,
            callers=into,
            members=held,
            body=body_slice(files.lines(src), src.line_start, src.line_end),
        )
        text_hash = content_hash(text)
        if old is not None and old.dim > 0 and old.text_hash == text_hash:
            stats.unchanged += 1
            plan.keep.append((src.file_hash, context, src.node_id, model))
            continue
        plan.todo.append((src, text, text_hash, context))
        if limit is not None and len(plan.todo) >= limit:
            plan.stopped = True
            break
    return plan


def semantic_query(engine: Engine, query: str, namespace: str | None) -> SemanticQuery | None:
    """The question embedded for symbol search, or None when no symbol of the namespace has a
    vector from the current model (then nothing loads the model)."""
    from memlode.code.search import SemanticQuery, describe

    if not engine.embeddings.enabled:
        return None
    if not repo.has_vectors(engine.code_db.conn, namespace):
        return None
    try:
        vector = engine.embeddings.embed_query(describe(query))
    except Exception as exc:  # a provider that went away: search on text alone
        log.warning("symbol search without vectors: %s", exc)
        return None
    name = engine.embeddings.model_name()
    if vector is None or name is None:
        return None
    return SemanticQuery(vector, name)


def _neighbours(
    pairs: Sequence[tuple[str, str]],
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """callees and callers of each node, as short names (the last two name segments)."""
    callees: dict[str, set[str]] = defaultdict(set)
    callers: dict[str, set[str]] = defaultdict(set)
    for source, target in pairs:
        if source != target:
            callees[source].add(_short(target))
            callers[target].add(_short(source))
    return callees, callers


# The file a qualified name starts with in languages named by path ("lib/x.ts:Name",
# "src/de.rs:Type::method"): not part of the name.
_PATH_HEAD = re.compile(r"^[^:]*[./][^:]*:(?!:)")


def _short(node_id: str) -> str:
    qualified = _PATH_HEAD.sub("", node_id.split(":", 2)[-1])
    tail = qualified.replace("::", ".").rsplit("/", 1)[-1]
    return ".".join(tail.split(".")[-2:])


class _Files:
    """Source lines of indexed files, read once each; a file changed on disk since it was
    indexed gives no lines (its symbols are embedded without a body until the next index)."""

    def __init__(self) -> None:
        self._key: tuple[str, str] | None = None
        self._lines: list[str] = []

    def lines(self, src: repo.SymbolSource) -> list[str]:
        key = (src.root, src.path)
        if key != self._key:  # sources come ordered by file
            self._key = key
            self._lines = []
            path = Path(src.root) / src.path
            try:
                stat = path.stat()
                if stat.st_size == src.size and stat.st_mtime_ns == src.mtime_ns:
                    text = path.read_text("utf-8", errors="replace")
                    self._lines = text.splitlines()
            except OSError:
                pass
        return self._lines
