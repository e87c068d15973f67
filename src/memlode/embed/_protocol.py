"""The embedder seam: the ``Embedder`` protocol every provider implements, and its error.

Everything above ``embed/`` (the engine, the MCP server, ``memlode embed``) talks to this
protocol only, so a provider can be swapped (a local model, an HTTP server, the deterministic
hash embedder in tests) without touching the callers. Nothing here imports numpy at module
level: hooks import the package tree and must stay light.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from memlode.errors import EmbedError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["EmbedError", "Embedder", "TokenEmbedder", "l2_normalise", "token_embedder"]

# Below this norm a row is treated as all zeros and left as it is (dividing would give NaN).
_ZERO_NORM = 1e-12


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors.

    ``name`` identifies the model and is stored with every embedding, so vectors made by
    different models are never compared. ``dim`` is the vector length. ``max_tokens`` is the
    model's input limit in its own tokens (special tokens included); callers split longer texts
    because the provider silently truncates them.

    Not ``runtime_checkable`` on purpose: on Python 3.11 ``isinstance`` would read every
    property, and an HTTP provider's ``dim`` may ask its server.
    """

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Return an ``(len(texts), dim)`` float32 array, row ``i`` for ``texts[i]``, each row
        L2-normalised. Batching is the embedder's business; an empty input gives ``(0, dim)``."""
        ...


class TokenEmbedder(Embedder, Protocol):
    """An embedder that can also hand back per-token vectors from the same pass: for each text,
    a ``(tokens, dim)`` float32 array of unit vectors for its content tokens (what late
    interaction compares, see ``memlode.search.late``). ``token_states`` says whether it can
    (a cache in front of a provider forwards the provider's answer)."""

    @property
    def token_states(self) -> bool: ...

    def embed_with_tokens(
        self, texts: Sequence[str]
    ) -> tuple[npt.NDArray[np.float32], list[npt.NDArray[np.float32]]]: ...


def token_embedder(embedder: Embedder | None) -> TokenEmbedder | None:
    """``embedder`` as a ``TokenEmbedder`` when it can give token states, else None (HTTP
    providers cannot: their servers return one vector per text)."""
    if embedder is not None and getattr(embedder, "token_states", False):
        return embedder  # type: ignore[return-value]
    return None


def l2_normalise(matrix: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Scale each row of ``matrix`` to unit length, as float32; all-zero rows stay zero."""
    import numpy as np

    out = np.array(matrix, dtype=np.float32, copy=True)
    if out.ndim != 2:
        raise ValueError(f"expected a 2-D array of vectors, got shape {out.shape}")
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.maximum(norms, _ZERO_NORM, out=norms)
    out /= norms
    return out
