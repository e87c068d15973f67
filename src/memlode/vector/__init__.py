"""L2 vectors: exact nearest-neighbour search over the stored embeddings of one model."""

from memlode.vector.index import VectorIndex

__all__ = ["VectorIndex"]
