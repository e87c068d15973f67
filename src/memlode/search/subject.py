"""Whether two stated memories alike by their vectors differ in what they say beyond what the
project's statements all share: the cosine of their vectors less the mean of the namespace's
stated memories (once it has ``CENTRED_MIN_STATEMENTS`` of them), below ``CENTRED_FLOOR``.
Search's same-subject step (``hybrid._later_first``) asks it; the reasons and figures are at
``CENTRED_FLOOR`` in ``memlode.storage.supersession``.

The mean is kept per index and namespace until the index changes (a resident serves many
prompts from one index).
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING

from memlode.storage.supersession import CENTRED_FLOOR, CENTRED_MIN_STATEMENTS, stated_ids

if TYPE_CHECKING:
    from sqlite3 import Connection

    import numpy as np
    import numpy.typing as npt

    from memlode.vector.index import VectorIndex

__all__ = ["centre", "unrelated"]

_LOCK = threading.Lock()
# index -> namespace -> (the index's state when the mean was taken, the mean or None)
_CENTRES: weakref.WeakKeyDictionary[
    VectorIndex, dict[str, tuple[tuple[int, int, int], npt.NDArray[np.float32] | None]]
] = weakref.WeakKeyDictionary()


def centre(conn: Connection, index: VectorIndex, namespace: str) -> npt.NDArray[np.float32] | None:
    """The mean vector of ``namespace``'s stated memories, or None with fewer than
    ``CENTRED_MIN_STATEMENTS`` of them in the index."""
    state = (index.version, len(index), index.max_rowid)
    with _LOCK:
        kept = _CENTRES.get(index, {}).get(namespace)
    if kept is not None and kept[0] == state:
        return kept[1]
    mean = index.mean_of(stated_ids(conn, namespace), CENTRED_MIN_STATEMENTS)
    with _LOCK:
        _CENTRES.setdefault(index, {})[namespace] = (state, mean)
    return mean


def unrelated(
    conn: Connection,
    index: VectorIndex,
    vector: npt.NDArray[np.float32],
    other: str,
    namespace: str,
) -> bool:
    """Whether ``vector`` (a stated memory of ``namespace``) and the memory ``other`` are
    below ``CENTRED_FLOOR`` once what the namespace's statements share is taken out of both
    (False without enough statements to tell)."""
    mean = centre(conn, index, namespace)
    if mean is None:
        return False
    return index.centred_similarities(vector, [other], mean)[0] < CENTRED_FLOOR
