"""An approximate first stage for large vector indexes: a PCA projection, then exact re-ranking.

The exact search reads every stored vector (100k x 384 float32 is 154 MB, ~20 ms on this
project's machine: memory-bound). Above ``MIN_ROWS`` vectors the index also keeps each vector
projected on the top ``DIMS`` principal components of the stored vectors (a quarter of the
bytes), ranks all rows by the projected dot product, and re-ranks a shortlist of the best
``shortlist`` rows exactly. Scores returned are exact cosines; only which rows reach the
shortlist is approximate.

DESIGN.md allows an approximate index only while its recall against exact stays >= 0.98. So
a projection checks itself when it is fitted: ``CHECK_QUERIES`` probe queries are answered
both ways for ``CHECK_K`` neighbours; the shortlist doubles until the recall reaches
``MIN_RECALL``, and a projection that cannot reach it is not used (the search stays exact).
Half the probes are the normalised midpoints of two random stored vectors (between topics);
the other half stand for short questions, which share little of the stored texts' common
wording: the sum of four stored vectors' departures from their mean, plus half the mean. On
the 1M bench corpus a real query's best, 10th and 100th cosines average 0.62 / 0.58 / 0.54;
a midpoint's 0.85 / 0.81 / 0.78 (far easier to answer), the second kind's 0.62 / 0.56 / 0.52.

Measured on the bench corpus (100k MiniLM vectors, 200 real queries, top 200;
``bench/RESULTS.md``): 96 dimensions with a 2,000-row shortlist gave recall 1.000 in 8 ms
against 21 ms exact; 64 dimensions 0.997, 48 dimensions 0.988.

From ``clusters.MIN_CLUSTERED_ROWS`` rows the projected rows are also grouped into inverted
lists (``memlode.vector.clusters``) and a query ranks only the rows of its nearest lists; the
self-check first doubles how many lists a query probes (from ``PROBES``) until the recall
holds, then, if even all of them do not suffice, the shortlist as before. Lists lose recall on
real queries faster than on the probes, so they must reach ``LISTS_MIN_RECALL`` on them. At
1M bench vectors (1,000 lists; 100 real queries, top 100):

    lists probed          64     128    256    384    512    1000 (all)
    real queries' recall  0.946  0.979  0.994  0.998  0.999  1.000
    probes' recall        0.961  0.992  0.999  1.000  1.000  1.000
    first stage, ms       8      16     24     32     36     69      (wall, load ~8)

so 0.995 on the probes chooses 256, where real queries keep 0.994 (the worst one 0.91).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memlode.search.topk import best_of
from memlode.vector.clusters import MIN_CLUSTERED_ROWS, InvertedLists, fit_lists

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["MIN_RECALL", "MIN_ROWS", "Projection", "fit_projection"]

# Below this many vectors the exact product is a few milliseconds: no projection.
MIN_ROWS = 20_000
# Principal components kept (measured: see the module docstring).
DIMS = 96
# Rows re-ranked exactly: at least this many, and at least SHORTLIST_FACTOR x k.
SHORTLIST = 2_000
SHORTLIST_FACTOR = 10
# The largest shortlist the self-check may grow to before it gives up on the projection.
MAX_SHORTLIST = 16_000
# DESIGN.md: approximate search only while its recall against exact stays above 0.98.
MIN_RECALL = 0.98
CHECK_QUERIES = 64
CHECK_K = 200
# The short-question probes: this many stored vectors' departures from the mean, plus this
# share of the mean (chosen so their cosines match real queries', see the module docstring).
SHORT_QUERY_PARTS = 4
SHORT_QUERY_MEAN = 0.5
# Rows a product of the self-check takes at a time.
CHECK_CHUNK = 65_536
# Rows the principal components are estimated from (enough for a 384 x 384 covariance).
FIT_SAMPLE = 20_000
# Lists a query probes at first; the self-check doubles it until the recall holds.
PROBES = 8
# The recall lists must reach on the probes (see the module docstring).
LISTS_MIN_RECALL = 0.995
_SEED = 20261122  # a fixed sample: the same vectors always give the same projection


@dataclass(slots=True)
class Projection:
    basis: npt.NDArray[np.float32]  # dim x DIMS
    reduced: npt.NDArray[np.float32]  # rows x DIMS: every stored vector, projected
    shortlist: int  # rows re-ranked exactly (from the self-check)
    recall: float  # what the self-check measured at that shortlist
    fitted_rows: int  # rows when fitted (refit once the index has doubled)
    # with lists, ``reduced`` holds the rows list after list (then the appended ones)
    lists: InvertedLists | None = None
    probes: int = 0  # lists a query reads (from the self-check)

    def extend(self, vectors: npt.NDArray[np.float32]) -> None:
        """Project rows appended to the index."""
        import numpy as np

        from memlode.vector.growing import append_rows

        projected = (vectors @ self.basis).astype(np.float32)
        self.reduced = append_rows(self.reduced, projected)
        if self.lists is not None:
            self.lists.extend(projected)

    def candidates(
        self,
        query: npt.NDArray[np.float32],
        k: int,
        allowed: npt.NDArray[np.bool_] | None = None,
    ) -> npt.NDArray[np.intp]:
        """Row numbers of the shortlist for ``query`` (only ``allowed`` rows, when given)."""
        import numpy as np

        # einsum, not BLAS (@), for every product a search makes: OpenBLAS wakes its threads
        # for products this size and they spin after each one, on the cores the BM25 scoring
        # and the model need meanwhile. At 1M rows a search took 62 ms p50 with BLAS's
        # threads and 25 with einsum (bench/RESULTS.md). The full product below lists'
        # threshold is the exception: one large product, where two threads still pay.
        projected = np.einsum("i,ij->j", query, self.basis)
        lists = self.lists
        if lists is None:
            scores = self.reduced @ projected
            rows: npt.NDArray[np.intp] = np.arange(len(scores))
        else:
            places, scores = lists.scores(self.reduced, projected, self.probes)
            rows = lists.rows_of(places)
        if allowed is not None:
            scores = np.where(allowed[rows], scores, -np.inf)
        size = min(len(scores), max(self.shortlist, SHORTLIST_FACTOR * k))
        if size >= len(scores):
            return rows
        found: npt.NDArray[np.intp] = rows[best_of(scores, size)]
        return found


def fit_projection(matrix: npt.NDArray[np.float32]) -> Projection | None:
    """A checked projection of ``matrix`` (rows: L2-normalised vectors), or None when there
    are too few rows or no shortlist up to ``MAX_SHORTLIST`` keeps the recall."""
    import numpy as np

    rows, dim = matrix.shape
    if rows < MIN_ROWS or dim <= DIMS:
        return None
    rng = np.random.default_rng(_SEED)
    sample = matrix[np.sort(rng.choice(rows, min(rows, FIT_SAMPLE), replace=False))]
    centred = sample - sample.mean(axis=0)
    # eigenvectors of the covariance, largest first (eigh: ascending order)
    _, vectors = np.linalg.eigh((centred.T @ centred).astype(np.float64))
    basis = np.ascontiguousarray(vectors[:, ::-1][:, :DIMS].astype(np.float32))
    lists = None
    if rows >= MIN_CLUSTERED_ROWS:
        lists, reduced = fit_lists(matrix, basis)
    else:
        reduced = np.asarray(matrix @ basis, dtype=np.float32)
    projection = Projection(basis, reduced, SHORTLIST, 0, rows)
    probes = _probes(matrix, sample.mean(axis=0), rng)
    exact = _exact_top(matrix, probes, CHECK_K)
    if lists is not None:
        projection.lists = lists
        projection.probes = PROBES
        while projection.probes < len(projection.lists.centres):
            projection.recall = _recall(matrix, projection, probes, exact)
            if projection.recall >= LISTS_MIN_RECALL:
                return projection
            projection.probes *= 2
        projection.probes = len(projection.lists.centres)  # every list: the whole projection
    while projection.shortlist <= MAX_SHORTLIST:
        projection.recall = _recall(matrix, projection, probes, exact)
        if projection.recall >= MIN_RECALL:
            return projection
        projection.shortlist *= 2
    return None


def _probes(
    matrix: npt.NDArray[np.float32], mean: npt.NDArray[np.float32], rng: np.random.Generator
) -> npt.NDArray[np.float32]:
    """Midpoints of two stored vectors, and short-question stand-ins (module docstring)."""
    import numpy as np

    half = CHECK_QUERIES // 2
    pairs = rng.choice(len(matrix), (half, 2))
    mids = matrix[pairs[:, 0]] + matrix[pairs[:, 1]]
    groups = rng.choice(len(matrix), (CHECK_QUERIES - half, SHORT_QUERY_PARTS))
    apart = (matrix[groups] - mean).sum(axis=1) + SHORT_QUERY_MEAN * mean
    probes = np.concatenate([mids, apart])
    norms = np.linalg.norm(probes, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.asarray(probes / norms, dtype=np.float32)


def _exact_top(
    matrix: npt.NDArray[np.float32], queries: npt.NDArray[np.float32], k: int
) -> list[set[int]]:
    """The exact top ``k`` rows of each query: one product for all queries a chunk of rows,
    each query's best so far kept (all the scores at once were 256 MB at 1M rows, and the
    partial sort's row numbers twice that)."""
    import numpy as np

    k = min(k, len(matrix))
    best_rows = [np.zeros(0, dtype=np.intp) for _ in queries]
    best_scores = [np.zeros(0, dtype=np.float32) for _ in queries]
    for start in range(0, len(matrix), CHECK_CHUNK):
        scores = matrix[start : start + CHECK_CHUNK] @ queries.T
        here = np.arange(start, start + len(scores))
        for j in range(len(queries)):
            rows = np.concatenate([best_rows[j], here])
            values = np.concatenate([best_scores[j], scores[:, j]])
            if len(values) > k:
                keep = best_of(values, k)
                rows, values = rows[keep], values[keep]
            best_rows[j], best_scores[j] = rows, values
    return [set(rows.tolist()) for rows in best_rows]


def _recall(
    matrix: npt.NDArray[np.float32],
    projection: Projection,
    queries: npt.NDArray[np.float32],
    exact: list[set[int]],
) -> float:
    import numpy as np

    found = 0
    total = 0
    for query, truth in zip(queries, exact, strict=True):
        short = projection.candidates(query, CHECK_K)
        scores = matrix[short] @ query
        k = min(CHECK_K, len(short))
        best = short[np.argpartition(-scores, k - 1)[:k]]
        found += len(truth & set(best.tolist()))
        total += len(truth)
    return found / total if total else 1.0
