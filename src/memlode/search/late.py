"""Late interaction: the best candidates re-scored word piece by word piece.

A memory's one vector averages all of its tokens, so a question about "pottery" sees a turn
that mentions pottery among ten other things as only somewhat close. Late interaction
(ColBERT's MaxSim) keeps the model's last-layer vector of each content token instead: every
query token takes its best match among the memory's tokens, and the memory scores the mean of
those matches. memlode uses it as a re-ranking signal for the best ``DEFAULT_LATE_POOL``
candidates, with the embedding model's own token states (no second model).

Storage: a memory's token states are kept as sign bits, ``dim / 8`` bytes a token (48 for
all-MiniLM-L6-v2), at most ``MAX_STATE_TOKENS`` tokens, in ``memory_tokens``. The query's own
states stay float, so a match is the query vector's dot product with the signs (asymmetric
binary). On LoCoMo (``bench/locomo_late_interaction.py``, bench/RESULTS.md) sign bits of the
content tokens rank as well as float16 states of every token (better, in fact: stop words no
longer take best matches among noise), at under a thirtieth of the bytes.

L2: numpy and SQLite only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memlode.storage.recall_rows import token_states

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "DEFAULT_LATE_POOL",
    "DEFAULT_LATE_WEIGHT",
    "MAX_STATE_TOKENS",
    "late_bonus",
    "pack_states",
    "read_states",
    "stored_maxsim",
    "unpack_states",
]

# Share of the best score that the best late-interaction match adds (min-max over the pool),
# and how many of the best candidates are re-scored. LoCoMo turn recall @5 / @10 / @25 with
# weight .2 over the best 60: +0.011 / +0.009 / +0.013 in the research harness (on both halves
# of the data), +0.005 / +0.006 / +0.010 through the product; .15, .3 and the best 100 within
# +-0.004 of it.
DEFAULT_LATE_WEIGHT = 0.2
DEFAULT_LATE_POOL = 60
# Tokens kept per memory: 128 sign-bit tokens of 384 dims are 6 KB. A conversation turn has
# ~15 content tokens (~0.7 KB); a long note keeps its first 128.
MAX_STATE_TOKENS = 128


def pack_states(states: npt.NDArray[np.float32]) -> bytes:
    """The signs of the first ``MAX_STATE_TOKENS`` token vectors, one bit a dimension, each
    token's bits padded to whole bytes."""
    import numpy as np

    rows = np.asarray(states)[:MAX_STATE_TOKENS]
    return bytes(np.packbits(rows > 0, axis=1).tobytes())


def unpack_states(blob: bytes, dim: int) -> npt.NDArray[np.float32]:
    """``pack_states`` back to a ``(tokens, dim)`` matrix of +-1/sqrt(dim): unit vectors with
    the stored signs. A blob whose size is not a whole number of tokens gives no tokens."""
    import numpy as np

    width = (dim + 7) // 8
    if dim < 1 or not blob or len(blob) % width:
        return np.zeros((0, max(dim, 0)), dtype=np.float32)
    bits = np.unpackbits(np.frombuffer(blob, dtype=np.uint8).reshape(-1, width), axis=1)
    signs = bits[:, :dim].astype(np.float32) * 2.0 - 1.0
    signs *= 1.0 / np.sqrt(dim)
    return signs


def read_states(
    conn: sqlite3.Connection, model: str, dim: int, ids: Sequence[str]
) -> dict[str, bytes]:
    """The stored (packed) token states of ``ids`` made by ``model``; memories without any,
    or with a blob that is not a whole number of tokens, are left out."""
    if not ids:
        return {}
    width = (dim + 7) // 8
    rows = token_states(conn, ids)
    return {
        memory_id: bytes(blob)
        for memory_id, made_by, blob in rows
        if made_by == model and blob and len(blob) % width == 0
    }


def stored_maxsim(
    query: npt.NDArray[np.float32], packed: Sequence[bytes], dim: int
) -> npt.NDArray[np.float32]:
    """For each document stored by ``pack_states`` (none empty), its MaxSim with ``query``:
    the mean over the query's tokens of the best dot product with any of the document's
    (sign) tokens. All at once: the bits of every document are unpacked together and, since a
    sign is 2 x bit - 1, the dot products come from the bits directly."""
    import numpy as np

    width = (dim + 7) // 8
    matrix = np.frombuffer(b"".join(packed), dtype=np.uint8).reshape(-1, width)
    bits = np.unpackbits(matrix, axis=1)[:, :dim].astype(np.float32)
    # all document tokens x query tokens; einsum, not BLAS, whose threads spin after a product
    # this size on the cores the rest of the search needs (vector/projection.py)
    dots = np.einsum("ik,jk->ij", bits, query)
    sims = (2.0 * dots - query.sum(axis=1)) * np.float32(1.0 / np.sqrt(dim))
    counts = [len(blob) // width for blob in packed]
    starts = np.cumsum([0, *counts[:-1]])
    out: npt.NDArray[np.float32] = np.maximum.reduceat(sims, starts, axis=0).mean(axis=1)
    return out


def late_bonus(
    conn: sqlite3.Connection,
    scored: Sequence[tuple[str, float]],
    query: npt.NDArray[np.float32],
    model: str,
    weight: float,
    pool: int,
) -> dict[str, float]:
    """What late interaction adds to the best ``pool`` of ``scored`` (id, score) pairs: its
    MaxSim, min-max normalised over the pool, times ``weight`` times the best score. A memory
    in the pool without stored states gets the pool's mean, so that it neither gains nor loses
    for having none yet; with fewer than two states to compare, nothing changes."""
    if weight <= 0 or pool < 1 or not scored or not len(query):
        return {}
    top = sorted(scored, key=lambda item: (-item[1], item[0]))[:pool]
    best = top[0][1]
    if best <= 0:
        return {}
    states = read_states(conn, model, query.shape[1], [i for i, _ in top])
    if len(states) < 2:
        return {}
    known = list(states)
    sims = [float(v) for v in stored_maxsim(query, [states[i] for i in known], query.shape[1])]
    low, high = min(sims), max(sims)
    if high - low <= 1e-9:
        return {}
    norm = {i: (s - low) / (high - low) for i, s in zip(known, sims, strict=True)}
    neutral = sum(norm.values()) / len(norm)
    return {i: weight * best * norm.get(i, neutral) for i, _ in top}
