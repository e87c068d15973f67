"""Row-appendable float32 matrices: appending a batch costs the batch, not the whole matrix.

A long-lived server embeds new memories in small batches; the vector index (and its projection)
used to ``vstack`` the whole matrix for each one, copying 154 MB at 100k x 384 to add 32 rows.
Rows now go into spare capacity that grows by a quarter when it runs out (amortised O(1) per
row, at most a quarter of the matrix unused); a matrix memory-mapped read-only from the
mirror is copied once, on its first append.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["append_rows"]

# Spare rows added when the capacity runs out, as a share of the rows held (and at least
# _MIN_SPARE): 1.25x keeps the unused tail small on a 154 MB matrix.
_GROWTH = 0.25
_MIN_SPARE = 256


def append_rows(
    matrix: npt.NDArray[np.float32], extra: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """``matrix`` with ``extra`` below it. The result is a view of a buffer with spare rows;
    when ``matrix`` is such a view and the spare rows suffice, nothing is copied but ``extra``.
    ``matrix`` itself still shows its old rows. Append only to the latest result: appending
    to an older view of the same buffer would write over the rows added since."""
    import numpy as np

    rows, more = matrix.shape[0], extra.shape[0]
    base = matrix.base if isinstance(matrix.base, np.ndarray) else None
    fits = (
        base is not None
        and base.flags.writeable
        and base.dtype == matrix.dtype
        and base.ndim == 2
        and base.shape[1] == matrix.shape[1]
        and base.shape[0] >= rows + more
        and matrix.ctypes.data == base.ctypes.data  # the view starts at the buffer's start
        and matrix.flags.c_contiguous
    )
    if not fits:
        capacity = rows + more + max(_MIN_SPARE, int((rows + more) * _GROWTH))
        base = np.empty((capacity, matrix.shape[1]), dtype=matrix.dtype)
        base[:rows] = matrix
    assert base is not None
    base[rows : rows + more] = extra
    out: npt.NDArray[np.float32] = base[: rows + more]
    return out
