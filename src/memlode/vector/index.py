"""Exact vector search over a float32 matrix rebuilt from SQLite when stale.

The source of truth is ``memory_embeddings``; this index is derived. It is held in memory by a
long-lived process and mirrored to the store's cache folder (``vector/mirror.py``) so that a
fresh process memory-maps it instead of decoding 100k BLOBs. Staleness is one query: the per-model
change counter that triggers keep in ``vector_state``. Inserts since the last load are appended
(into spare capacity: ``vector/growing.py``); deletions or updates trigger a full rebuild. An
append is told from anything else by the count *and* the sum of the embedding rowids: a row
re-embedded from another model is updated in place (an old rowid), and with one of this
model's rows deleted meanwhile the count looks like nothing happened, but the sum does not.
Nor is it an append when nothing came after the index's last row (a row updated in place), or
when that row now holds another memory: SQLite gives the rowids of deleted newest rows to the
next inserts, so "delete the newest memory, store another" (or change its text, which
re-embeds it) keeps the count and the sum, and the index kept the deleted vector and never
saw the new one.

The mirror is rewritten after a rebuild, and after appends only once they add up to
``MIRROR_EVERY`` rows or ``MIRROR_SHARE`` of the index: a server embedding 32 rows at a time
used to write the whole 154 MB matrix (100k rows) for each batch. A process that finds an older
mirror maps it and appends the rows added since, when the count and rowid sum say that is all
that changed; otherwise it rebuilds.

Search is exact below ``projection.MIN_ROWS`` vectors: one matrix-vector product. Above it, a
PCA projection shortlists rows for the exact product (``memlode.vector.projection``): at 100k x
384 that is 8 ms instead of 21, and the projection checks its recall against exact (>= 0.98,
as DESIGN.md requires) when it is fitted, or is not used. Its matrices are mirrored with the
vectors.

Memory (issue 16, the 1M-memory benchmark in ``bench/bench_scale.py``): the matrix is the
largest thing a server holds (1M x 384 float32 is 1.5 GB), so one process holds it once.
``VectorIndex.shared`` gives every engine of a process on the same database and model the same
index (the MCP server has one for its tools and one for the hooks' socket); a lock makes its
refresh and searches take turns. A rebuild reads the rows in chunks into a matrix of the
right size (reading them all first held every BLOB twice more: 4.5 GB at its peak at 1M), and
the rows' namespaces are kept as small integer codes, not a string a row.
"""

from __future__ import annotations

import hashlib
import logging
import math
import sqlite3
import threading
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memlode.storage import vector_rows
from memlode.storage.derived import COPY_MARGIN
from memlode.vector.growing import append_rows
from memlode.vector.mirror import Mirror, MirroredState
from memlode.vector.projection import MIN_ROWS, Projection, fit_projection

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["VectorIndex"]

log = logging.getLogger(__name__)

# Appended rows that make the mirror worth rewriting: at least this many, or this share of the
# index (a fresh process appends the rest from SQLite, which costs about what they took to add).
MIRROR_EVERY = 2_000
MIRROR_SHARE = 0.05
# Rows a rebuild decodes at a time (1.5 KB each at 384 dims).
_REBUILD_CHUNK = 10_000

# One index per (database, model, dim, mirror folder) in a process, while someone holds it.
_SHARED: weakref.WeakValueDictionary[tuple[str, str, int, str], VectorIndex] = (
    weakref.WeakValueDictionary()
)
_SHARED_LOCK = threading.Lock()


def _model_version(conn: sqlite3.Connection, model: str) -> int:
    return vector_rows.model_version(conn, model)


class VectorIndex:
    """All vectors of one model, with their memory ids and namespaces."""

    def __init__(
        self, model: str, dim: int, cache_dir: Path | None = None, database: str = ""
    ) -> None:
        self.model = model
        self.dim = dim
        self.cache_dir = cache_dir
        # The mirror is per database *and* model: several databases may share one home.
        self.cache_key = hashlib.sha256(f"{database}\0{model}".encode()).hexdigest()[:16]
        self._mirror = Mirror(cache_dir, self.cache_key, model, dim)
        self.version = -1
        self.max_rowid = 0
        self.rowid_sum = 0  # of the embedding rows held: see the module docstring
        self.mirrored_rows = 0  # rows in the mirror on disk (this process's last write or read)
        self.ids: list[str] = []
        self._matrix: npt.NDArray[np.float32] | None = None
        self._ns_codes: npt.NDArray[np.int32] | None = None
        self._ns_table: dict[str, int] = {}
        self._row_of: dict[str, int] = {}
        self._projection: Projection | None = None
        # rows when a projection was last fitted or refused: the next attempt waits until the
        # index has doubled (a refused fit is not retried on every appended batch)
        self._fit_rows = 0
        # refresh and the searches take turns: engines on several threads may share the index
        self._lock = threading.RLock()

    @classmethod
    def shared(
        cls, model: str, dim: int, cache_dir: Path | None = None, database: str = ""
    ) -> VectorIndex:
        """The process's index of ``database`` and ``model`` (a new one if nobody holds it)."""
        key = (database, model, dim, str(cache_dir))
        with _SHARED_LOCK:
            found = _SHARED.get(key)
            if found is None:
                found = cls(model, dim, cache_dir, database)
                _SHARED[key] = found
            return found

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def namespaces(self) -> list[str]:
        """Each row's namespace (built from the codes the index keeps)."""
        names = {code: ns for ns, code in self._ns_table.items()}
        codes = self._ns_codes if self._ns_codes is not None else ()
        return [names[int(c)] for c in codes]

    # ---- loading ---------------------------------------------------------------------------

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Bring the index up to date with the database (cheap when nothing changed)."""
        with self._lock:
            self._refresh(conn)

    def _refresh(self, conn: sqlite3.Connection) -> None:
        version = _model_version(conn, self.model)
        if version == self.version:
            return
        if self.version < 0 and self._load_cache(version) and self.version == version:
            return
        # A version that went back, or jumped by COPY_MARGIN, is a replaced store (a restore
        # or repair moves it so: storage/derived.py): rebuild, never append to the old rows.
        replaced = not self.version <= version < self.version + COPY_MARGIN
        if self.version >= 0 and not replaced and self._append_new(conn):
            self.version = version
            unsaved = len(self.ids) - self.mirrored_rows
            if unsaved >= min(MIRROR_EVERY, max(1, int(MIRROR_SHARE * len(self.ids)))):
                self._save_cache()
            return
        self._rebuild(conn)
        self.version = version
        self._save_cache()
        self._map_mirror()

    def _map_mirror(self) -> None:
        """After a rebuild, use the mirror just written instead of the copy in memory: the
        page cache holds the file anyway, so the process's own copy was a duplicate (1.9 GB
        at 1M rows), and the mapped pages are the kernel's to drop under pressure. Kept only
        when the files hold these very rows (another process may have written since)."""
        import numpy as np

        if self._matrix is None or self.mirrored_rows != len(self.ids) or not len(self.ids):
            return
        mapped = self._mirror.arrays()
        if mapped is None:
            return
        matrix, reduced = mapped
        projection = self._projection
        probe = [0, len(self.ids) // 2, len(self.ids) - 1]
        same = matrix.shape == self._matrix.shape and all(
            np.array_equal(matrix[i], self._matrix[i]) for i in probe
        )
        if projection is not None:
            same = same and (
                reduced is not None
                and reduced.shape == projection.reduced.shape
                and all(np.array_equal(reduced[i], projection.reduced[i]) for i in probe)
            )
        if not same:
            return
        self._matrix = matrix
        if projection is not None and reduced is not None:
            projection.reduced = reduced

    def _cursor(self, conn: sqlite3.Connection, after_rowid: int) -> sqlite3.Cursor:
        cursor: sqlite3.Cursor = vector_rows.vectors_after(conn, self.model, self.dim, after_rowid)
        return cursor

    def _rows(self, conn: sqlite3.Connection, after_rowid: int) -> list[sqlite3.Row]:
        return self._cursor(conn, after_rowid).fetchall()

    def _rebuild(self, conn: sqlite3.Connection) -> None:
        """Every vector of the model from SQLite, a chunk of rows at a time, into a matrix
        sized by a count first (grown if rows arrive meanwhile)."""
        import numpy as np

        expected = vector_rows.vector_count(conn, self.model, self.dim)
        matrix = np.empty((expected, self.dim), dtype=np.float32)
        ids: list[str] = []
        codes: list[npt.NDArray[np.int32]] = []
        self._ns_table = {}
        self.max_rowid = self.rowid_sum = 0
        cursor = self._cursor(conn, 0)
        while rows := cursor.fetchmany(_REBUILD_CHUNK):
            block = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
            block = block.reshape(len(rows), self.dim)
            first = len(ids)
            if first + len(rows) > len(matrix):
                matrix = append_rows(matrix, block)
            else:
                matrix[first : first + len(rows)] = block
            ids.extend(r[1] for r in rows)
            codes.append(self._codes([r[3] for r in rows]))
            self.max_rowid = int(rows[-1][0])
            self.rowid_sum += sum(int(r[0]) for r in rows)
        self.ids = ids
        self._matrix = matrix[: len(ids)]
        self._ns_codes = np.concatenate(codes) if codes else np.zeros(0, dtype=np.int32)
        self._reindex()
        self._refit()

    def _append_new(self, conn: sqlite3.Connection) -> bool:
        """Append rows inserted since the last load; False when rows were deleted/updated."""
        import numpy as np

        total, rowid_sum = vector_rows.vector_count_and_rowid_sum(conn, self.model, self.dim)
        rows = self._rows(conn, self.max_rowid)
        if not rows:  # the version moved, yet nothing came after the last row: not an append
            return False
        if self.ids and vector_rows.memory_at(conn, self.max_rowid) != self.ids[-1]:
            return False  # the newest rows were deleted and their rowids given to new ones
        added = sum(int(r[0]) for r in rows)
        if (
            len(self.ids) + len(rows) != total
            or self.rowid_sum + added != rowid_sum
            or any(r[1] in self._row_of for r in rows)
        ):
            return False
        if rows:
            extra = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
            extra = extra.reshape(len(rows), self.dim)
            base = self._matrix if self._matrix is not None else np.zeros((0, self.dim), np.float32)
            self._matrix = append_rows(base, extra)
            first = len(self.ids)
            self.ids.extend(r[1] for r in rows)
            self.max_rowid = int(rows[-1][0])
            self.rowid_sum += added
            known = self._ns_codes if self._ns_codes is not None else np.zeros(0, np.int32)
            self._ns_codes = np.concatenate([known, self._codes([r[3] for r in rows])])
            self._reindex(first)
            projection = self._projection
            if projection is not None and len(self.ids) < 2 * projection.fitted_rows:
                projection.extend(extra)
            elif len(self.ids) >= MIN_ROWS and len(self.ids) >= 2 * self._fit_rows:
                self._refit()  # newly large, or doubled since the last fit
        return True

    def _refit(self) -> None:
        assert self._matrix is not None
        if len(self.ids) >= MIN_ROWS:
            self._fit_rows = len(self.ids)
        self._projection = fit_projection(self._matrix)

    def _codes(self, namespaces: Sequence[str]) -> npt.NDArray[np.int32]:
        """The codes of ``namespaces`` in ``_ns_table`` (new names get the next codes)."""
        import numpy as np

        table = self._ns_table
        return np.fromiter(
            (table.setdefault(ns, len(table)) for ns in namespaces),
            dtype=np.int32,
            count=len(namespaces),
        )

    def _reindex(self, first: int = 0) -> None:
        """The id lookup for the rows from ``first`` on (0: all of them, from scratch)."""
        if first == 0:
            self._row_of = {}
        for i in range(first, len(self.ids)):
            self._row_of[self.ids[i]] = i

    # ---- on-disk mirror (vector/mirror.py) ------------------------------------------------

    def _load_cache(self, version: int) -> bool:
        """Map the mirror if it is this index's, at ``version`` or older (then ``refresh``
        appends the rest or rebuilds); ``self.version`` becomes the mirror's."""
        loaded = self._mirror.load(version)
        if loaded is None:
            return False
        self._matrix = loaded.matrix
        self.ids = loaded.ids
        self.max_rowid = loaded.max_rowid
        self.rowid_sum = loaded.rowid_sum
        self.version = loaded.version
        self.mirrored_rows = len(self.ids)
        self._ns_table = {}
        self._ns_codes = self._codes(loaded.namespaces)
        self._reindex()
        self._projection = loaded.projection
        if self._projection is not None:
            self._fit_rows = self._projection.fitted_rows
        else:
            self._refit()
            if self._projection is not None:  # mirror it: the next process maps it instead
                self._save_cache()
        return True

    def _save_cache(self) -> None:
        if self._matrix is None:
            return
        state = MirroredState(
            self._matrix,
            self.ids,
            self.namespaces,
            self.max_rowid,
            self.rowid_sum,
            self.version,
            self._projection,
        )
        if self._mirror.save(state):
            self.mirrored_rows = len(self.ids)

    # ---- search ----------------------------------------------------------------------------

    def vector_of(self, memory_id: str) -> npt.NDArray[np.float32] | None:
        with self._lock:
            row = self._row_of.get(memory_id)
            if row is None or self._matrix is None:
                return None
            vector: npt.NDArray[np.float32] = self._matrix[row]
            return vector

    def search(
        self,
        query: npt.NDArray[np.float32],
        k: int,
        namespace: str | Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``k`` (memory id, cosine) for an L2-normalised query, optionally in one namespace
        or a few."""
        with self._lock:
            return self._search(query, k, namespace)

    def _search(
        self,
        query: npt.NDArray[np.float32],
        k: int,
        namespace: str | Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        import numpy as np

        if self._matrix is None or not self.ids or k <= 0:
            return []
        # einsum, not @: as fast (memory-bound), and it keeps OpenBLAS from waking (and then
        # spinning) its threads, which took a core from the BM25 query running meanwhile.
        q = query.astype(np.float32)
        allowed = None
        if namespace is not None:
            names = (namespace,) if isinstance(namespace, str) else tuple(namespace)
            codes = sorted({c for c in (self._ns_table.get(n) for n in names) if c is not None})
            if not codes:
                return []
            assert self._ns_codes is not None
            if len(self._ns_table) > len(codes):  # else every row is in one of them
                allowed = (
                    self._ns_codes == codes[0]
                    if len(codes) == 1
                    else np.isin(self._ns_codes, np.asarray(codes, dtype=self._ns_codes.dtype))
                )
        projection = self._projection
        if projection is not None and len(self.ids) >= MIN_ROWS:
            rows = projection.candidates(q, k, allowed)
            scores = np.einsum("ij,j->i", self._matrix[rows], q)
            if allowed is not None:
                scores = np.where(allowed[rows], scores, -np.inf)
        else:
            rows = None
            scores = np.einsum("ij,j->i", self._matrix, q)
            if allowed is not None:
                scores = np.where(allowed, scores, -np.inf)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        at = top if rows is None else rows[top]
        return [
            (self.ids[i], float(s))
            for i, s in zip(at.tolist(), scores[top].tolist(), strict=True)
            if math.isfinite(s)
        ]

    def similarities(
        self,
        query: npt.NDArray[np.float32],
        ids: Sequence[str],
        neighbours: Mapping[str, Sequence[str]] | None = None,
        smoothing: float = 0.0,
    ) -> list[float]:
        """Cosine of the query with each memory's vector (0.0 without one), in one product.

        With ``smoothing`` a memory that has ``neighbours`` (its conversation's previous and
        next turn, at most two) is compared as ``v + smoothing * (prev + next)``, normalised.
        """
        with self._lock:
            return self._similarities(query, ids, neighbours, smoothing)

    def _similarities(
        self,
        query: npt.NDArray[np.float32],
        ids: Sequence[str],
        neighbours: Mapping[str, Sequence[str]] | None,
        smoothing: float,
    ) -> list[float]:
        import numpy as np

        if self._matrix is None or not ids:
            return [0.0] * len(ids)
        rows = np.fromiter((self._row_of.get(i, -1) for i in ids), dtype=np.int64, count=len(ids))
        have = rows >= 0
        vectors = self._matrix[rows[have]]
        q = query.astype(np.float32)
        # einsum, not BLAS: see Projection.candidates
        cosines = np.einsum("ij,j->i", vectors, q).astype(np.float64)
        if smoothing > 0 and neighbours:
            present = [i for i, ok in zip(ids, have.tolist(), strict=True) if ok]
            near = [neighbours.get(i, ()) for i in present]
            smoothed = np.fromiter((bool(n) for n in near), dtype=bool, count=len(near))
            if smoothed.any():
                total = vectors.copy()
                for slot in (0, 1):
                    other = np.fromiter(
                        (self._row_of.get(n[slot], -1) if len(n) > slot else -1 for n in near),
                        dtype=np.int64,
                        count=len(near),
                    )
                    found = other >= 0
                    total[found] += smoothing * self._matrix[other[found]]
                norms = np.sqrt(np.einsum("ij,ij->i", total, total)).astype(np.float64)
                norms[norms == 0] = 1.0
                near = np.einsum("ij,j->i", total, q).astype(np.float64)
                cosines = np.where(smoothed, near / norms, cosines)
        out = np.zeros(len(ids), dtype=np.float64)
        out[have] = cosines
        return [float(x) for x in out]

    def mean_of(self, ids: Sequence[str], least: int = 1) -> npt.NDArray[np.float32] | None:
        """The mean of the memories' vectors (None when fewer than ``least`` have one)."""
        with self._lock:
            if self._matrix is None:
                return None
            rows = [r for r in (self._row_of.get(i, -1) for i in ids) if r >= 0]
            if not rows or len(rows) < least:
                return None
            mean: npt.NDArray[np.float32] = self._matrix[rows].mean(axis=0)
            return mean

    def centred_similarities(
        self,
        vector: npt.NDArray[np.float32],
        ids: Sequence[str],
        centre: npt.NDArray[np.float32],
    ) -> list[float]:
        """Cosine of ``vector - centre`` with each memory's vector less ``centre`` (0.0 for a
        memory without one): how alike two vectors are in what they do not share with
        everything around ``centre``."""
        import numpy as np

        with self._lock:
            if self._matrix is None or not ids:
                return [0.0] * len(ids)
            rows = np.fromiter(
                (self._row_of.get(i, -1) for i in ids), dtype=np.int64, count=len(ids)
            )
            have = rows >= 0
            vectors = self._matrix[rows[have]] - centre
        q = vector.astype(np.float32) - centre
        q_norm = float(np.sqrt(np.dot(q, q))) or 1.0
        norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors)).astype(np.float64)
        norms[norms == 0] = 1.0
        out = np.zeros(len(ids), dtype=np.float64)
        out[have] = np.einsum("ij,j->i", vectors, q).astype(np.float64) / norms / q_norm
        return [float(x) for x in out]

    def gram(self, ids: Sequence[str]) -> tuple[npt.NDArray[np.float32], list[bool]] | None:
        """Pairwise cosines of the memories' vectors and which ids have one (None if none)."""
        with self._lock:
            return self._gram(ids)

    def _gram(self, ids: Sequence[str]) -> tuple[npt.NDArray[np.float32], list[bool]] | None:
        import numpy as np

        if self._matrix is None:
            return None
        rows = [self._row_of.get(i, -1) for i in ids]
        have = [r >= 0 for r in rows]
        if not any(have):
            return None
        vectors = np.zeros((len(ids), self.dim), dtype=np.float32)
        vectors[have] = self._matrix[[r for r in rows if r >= 0]]
        matrix: npt.NDArray[np.float32] = np.einsum("ik,jk->ij", vectors, vectors)
        return matrix, have
