"""The one exception tree. Every message says what was wrong and what to do.

MemlodeError
├── InvalidInput        bad arguments from a user or a caller (CLI exit 2, MCP isError)
├── NotFound            an id, namespace or session that does not exist
├── StorageError        the database cannot be opened, is not SQLite, or cannot be written
├── ImportFormatError   a JSONL import line that cannot be read (carries the line number)
└── MissingDependency   an optional part is not installed (names the install command)
"""

from __future__ import annotations

__all__ = [
    "ImportFormatError",
    "InvalidInput",
    "MemlodeError",
    "MissingDependency",
    "NotFound",
    "StorageError",
]


class MemlodeError(Exception):
    """Base of every error memlode raises on purpose."""


class InvalidInput(MemlodeError, ValueError):
    pass


class NotFound(MemlodeError, LookupError):
    pass


class StorageError(MemlodeError):
    pass


class ImportFormatError(InvalidInput):
    def __init__(self, line_number: int, reason: str) -> None:
        super().__init__(f"line {line_number}: {reason}")
        self.line_number = line_number
        self.reason = reason


class MissingDependency(MemlodeError, ImportError):
    def __init__(self, what: str, install: str) -> None:
        super().__init__(f"{what} is not installed; install it with: {install}")
        self.what = what
        self.install = install
