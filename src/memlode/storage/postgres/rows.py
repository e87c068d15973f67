"""Rows read from PostgreSQL the way the engine reads SQLite's: by position and by column name.

The engine indexes a ``sqlite3.Row`` both ways (``row[0]``, ``row["id"]``); a ``Row`` here is a
tuple (so it compares equal to one) that also answers a column's name. Every connection of the
backend uses ``row_factory`` (``memlode.storage.postgres.connection``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, SupportsIndex, overload

if TYPE_CHECKING:
    from psycopg import Cursor

__all__ = ["Row", "row_factory"]


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
