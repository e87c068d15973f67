"""Inverted lists over projected vectors: which rows a query needs to look at, at 1M rows.

The projection (``memlode.vector.projection``) made the first stage a quarter of the bytes of
an exact product, but it still reads every row: at 1M rows that is 384 MB and a 1M-way
partial sort a query, ~40 ms on this project's 2-core machine. Inverted lists cut it to a
few percent of the rows: k-means groups the projected rows into ``clusters(rows)`` lists
(about the square root of the rows), a query ranks the lists' centres and reads only the rows
of its best ``probes`` lists. The rows are stored list after list (``order`` says which row
each place holds), so a list is one contiguous slice. Rows appended after the fit form a tail
with the list each was assigned to; a probed list's tail rows are read with it.

How many lists a query probes is not guessed: the projection's self-check (recall against
exact >= 0.98 on probe queries) doubles ``probes`` until it holds, so clustered data needs few
and unclustered data ends up reading everything, as before. This is the IVF index of the
vector-search literature (Jegou et al., "Product quantization for nearest neighbor search",
2011, without the quantization), in numpy.

L2: numpy only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["MIN_CLUSTERED_ROWS", "InvertedLists", "cluster_count", "fit_lists"]

# Below this many rows reading every projected row costs a few milliseconds: no lists.
MIN_CLUSTERED_ROWS = 200_000
# k-means: the centres are learnt on a sample of this many rows per list (at most
# FIT_SAMPLE rows) in KMEANS_ROUNDS Lloyd rounds; enough for lists that only route queries.
SAMPLE_PER_LIST = 40
FIT_SAMPLE = 80_000
KMEANS_ROUNDS = 12
# Rows assigned to their list per product while the lists are filled (bounds the scratch to
# ASSIGN_CHUNK x lists floats).
ASSIGN_CHUNK = 16_384
_SEED = 20261124


def cluster_count(rows: int) -> int:
    """Lists for ``rows`` rows: about sqrt(rows), so that a list and the centres cost alike."""
    return max(16, min(4096, round(math.sqrt(rows))))


@dataclass(slots=True)
class InvertedLists:
    """``centres`` (lists x dims) of the projected rows; ``order[bounds[c]:bounds[c+1]]`` are
    the row numbers of list ``c``, stored in that order in the projection's ``reduced``;
    ``tail`` is the list of each row appended after the fit (rows ``len(order)`` onward)."""

    centres: npt.NDArray[np.float32]
    order: npt.NDArray[np.int32]
    bounds: npt.NDArray[np.int64]
    tail: npt.NDArray[np.int32]

    def assign(self, reduced: npt.NDArray[np.float32]) -> npt.NDArray[np.int32]:
        """The list of each row: its nearest centre (Euclidean, as k-means assigned them)."""
        import numpy as np

        half_norms = 0.5 * np.einsum("ij,ij->i", self.centres, self.centres)
        out = np.empty(len(reduced), dtype=np.int32)
        for start in range(0, len(reduced), ASSIGN_CHUNK):
            block = reduced[start : start + ASSIGN_CHUNK] @ self.centres.T - half_norms
            out[start : start + len(block)] = np.argmax(block, axis=1)
        return out

    def extend(self, reduced: npt.NDArray[np.float32]) -> None:
        """Rows appended to the index (their projections), added to the tail."""
        import numpy as np

        self.tail = np.concatenate([self.tail, self.assign(reduced)])

    def rows_of(self, positions: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
        """Row numbers of places in ``reduced`` (the tail's places are its rows)."""
        import numpy as np

        fitted = len(self.order)
        inside = positions < fitted
        if inside.all():
            found: npt.NDArray[np.intp] = self.order[positions].astype(np.intp)
            return found
        return np.where(inside, self.order[np.minimum(positions, fitted - 1)], positions)

    def scores(
        self,
        reduced: npt.NDArray[np.float32],
        query: npt.NDArray[np.float32],
        probes: int,
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]:
        """(places in ``reduced``, projected scores) of the rows of the ``probes`` lists whose
        centres score best for ``query`` (projected): a product per list, no copy of rows."""
        import numpy as np

        lists = len(self.centres)
        if probes >= lists:
            return np.arange(len(reduced)), reduced @ query
        near = np.einsum("ij,j->i", self.centres, query)  # not BLAS: projection.py says why
        best = np.argpartition(-near, probes - 1)[:probes]
        best.sort()  # lists in storage order: the reads go forward through memory
        starts, ends = self.bounds[best], self.bounds[best + 1]
        places = [np.arange(a, b) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        parts = [
            np.einsum("ij,j->i", reduced[a:b], query)
            for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
        ]
        fitted = len(self.order)
        if len(self.tail):
            extra = fitted + np.flatnonzero(np.isin(self.tail, best))
            places.append(extra)
            parts.append(np.einsum("ij,j->i", reduced[extra], query))
        if not places:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
        return np.concatenate(places), np.concatenate(parts)


def fit_lists(
    matrix: npt.NDArray[np.float32], basis: npt.NDArray[np.float32]
) -> tuple[InvertedLists, npt.NDArray[np.float32]]:
    """Inverted lists of the rows of ``matrix`` projected on ``basis``, and those projected
    rows stored list after list (the projection keeps that copy instead of the row-ordered
    one). Rows are projected a chunk at a time, so no row-ordered copy is ever held: at 1M
    rows the fit's peak is the result (384 MB) instead of twice it."""
    import numpy as np

    rows = len(matrix)
    lists = cluster_count(rows)
    rng = np.random.default_rng(_SEED)
    size = min(rows, FIT_SAMPLE, SAMPLE_PER_LIST * lists)
    sample = matrix[np.sort(rng.choice(rows, size, replace=False))] @ basis
    centres = sample[rng.choice(len(sample), lists, replace=False)].copy()
    found = InvertedLists(
        centres, np.zeros(0, np.int32), np.zeros(1, np.int64), np.zeros(0, np.int32)
    )
    for _ in range(KMEANS_ROUNDS):
        assigned = found.assign(sample)
        counts = np.bincount(assigned, minlength=lists)
        # per-list sums, a column at a time: the same float64 additions in the same order as
        # np.add.at(sums, assigned, sample), about ten times faster
        sums = np.stack(
            [
                np.bincount(assigned, weights=sample[:, j], minlength=lists)
                for j in range(sample.shape[1])
            ],
            axis=1,
        )
        empty = counts == 0
        centres[~empty] = (sums[~empty] / counts[~empty, None]).astype(np.float32)
        # an empty list restarts at a random sample row
        centres[empty] = sample[rng.choice(len(sample), int(empty.sum()))]
        found.centres = centres
    assigned = np.concatenate(
        [
            found.assign(matrix[start : start + ASSIGN_CHUNK] @ basis)
            for start in range(0, rows, ASSIGN_CHUNK)
        ]
    )
    order = np.argsort(assigned, kind="stable").astype(np.int32)
    bounds = np.zeros(lists + 1, dtype=np.int64)
    np.cumsum(np.bincount(assigned, minlength=lists), out=bounds[1:])
    found.order, found.bounds = order, bounds
    reduced = np.empty((rows, basis.shape[1]), dtype=np.float32)
    for start in range(0, rows, ASSIGN_CHUNK):
        reduced[start : start + ASSIGN_CHUNK] = matrix[order[start : start + ASSIGN_CHUNK]] @ basis
    return found, reduced
