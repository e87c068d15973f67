"""Rows read from PostgreSQL the way the engine reads SQLite's.

By position and by column name: the engine indexes a ``sqlite3.Row`` both ways (``row[0]``,
``row["id"]``); a ``Row`` here is a tuple (so it compares equal to one) that also answers a
column's name. Every connection of the backend uses ``row_factory``
(``memlode.storage.postgres.connection``).

Vectors as bytes: SQLite stores a vector as little-endian float32 bytes and the engine reads
them so; ``vector_bytes_cursor`` reads pgvector's binary ``vector`` values straight into those
bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, SupportsIndex, overload

if TYPE_CHECKING:
    from psycopg import Connection, Cursor

__all__ = ["Row", "as_vector", "row_factory", "vector_bytes_cursor"]


class Row(tuple[Any, ...]):
    """A tuple whose items are also found by column name (``keys()`` lists them)."""

    __slots__ = ()
    _index: ClassVar[dict[str, int]] = {}

    @overload
    def __getitem__(self, key: SupportsIndex | str) -> Any: ...

    @overload
    def __getitem__(self, key: slice) -> tuple[Any, ...]: ...

    def __getitem__(self, key: SupportsIndex | str | slice) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


@lru_cache(maxsize=256)
def _row_class(names: tuple[str, ...]) -> type[Row]:
    return type("Row", (Row,), {"__slots__": (), "_index": {n: i for i, n in enumerate(names)}})


def row_factory(cursor: Cursor[Any]) -> Callable[[Sequence[Any]], Row]:
    """psycopg's row factory protocol: the maker of rows for the cursor's current result."""
    names = tuple(column.name for column in cursor.description or ())
    cls = _row_class(names)
    return cls


def as_vector(vector: bytes) -> Any:
    """Little-endian float32 bytes as the value of a ``vector`` column (a float32 array, which
    pgvector's dumper writes)."""
    import numpy as np

    return np.frombuffer(vector, dtype="<f4").astype(np.float32)


@lru_cache(maxsize=1)
def _vector_bytes_loader() -> type[Any]:
    """A psycopg loader of pgvector's binary ``vector`` (int16 dim, int16 unused, big-endian
    float32 values) as little-endian float32 bytes."""
    from psycopg.adapt import Loader
    from psycopg.pq import Format

    class VectorBytesLoader(Loader):
        format = Format.BINARY

        def load(self, data: Any) -> bytes:
            import numpy as np

            raw = bytes(data)
            (dim,) = struct.unpack_from(">H", raw)
            return np.frombuffer(raw, dtype=">f4", count=dim, offset=4).astype("<f4").tobytes()

    return VectorBytesLoader


def vector_bytes_cursor(conn: Connection[Any]) -> Cursor[Any]:
    """A cursor of ``conn`` with binary results whose ``vector`` columns come back as
    little-endian float32 bytes (the other columns as usual)."""
    from psycopg.types import TypeInfo

    cur = conn.cursor(binary=True)
    info = TypeInfo.fetch(conn, "vector")
    if info is not None:
        cur.adapters.register_loader(info.oid, _vector_bytes_loader())
    return cur
