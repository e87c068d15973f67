"""Top-k selection over large score arrays: the best ``size`` of a million scores without a
million-way partial sort.

L2 helper: numpy only (the vector index's first stage and the in-memory BM25 use it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["at_least", "best_of"]

# A sample of SAMPLE_PER_BEST x size scores sets a threshold meant to let THRESHOLD_MARGIN x
# size of them through.
SAMPLE_PER_BEST = 8
THRESHOLD_MARGIN = 2.0


def at_least(scores: npt.NDArray[Any], size: int) -> npt.NDArray[np.intp] | None:
    """Places (ascending) of every score at least the ``size``-th largest, and perhaps a few
    more - about ``THRESHOLD_MARGIN`` x ``size`` of them; None when the sample's threshold let
    fewer than ``size`` through (the caller then sorts the whole array).

    A partial sort of a million scores costs ~10 ms; a strided sample's partial sort gives the
    threshold instead, and one comparison a score finds the places that pass it.
    """
    import numpy as np

    step = len(scores) // (SAMPLE_PER_BEST * size)
    if step < 2:
        return None
    sample = scores[::step]
    rank = min(len(sample) - 1, int(THRESHOLD_MARGIN * size / step) + 1)
    threshold = np.partition(sample, len(sample) - 1 - rank)[len(sample) - 1 - rank]
    passed = np.flatnonzero(scores >= threshold)
    return passed if len(passed) >= size else None


def best_of(scores: npt.NDArray[Any], size: int) -> npt.NDArray[np.intp]:
    """Places of the ``size`` largest ``scores`` (in no order; ``size < len(scores)``): exact,
    through ``at_least`` when the array is large."""
    import numpy as np

    passed = at_least(scores, size)
    if passed is None:
        return np.argpartition(-scores, size - 1)[:size]
    found: npt.NDArray[np.intp] = passed[np.argpartition(-scores[passed], size - 1)[:size]]
    return found
