"""The one exception tree. Every message says what was wrong and what to do.

MemlodeError
├── InvalidInput            bad arguments from a user or a caller (CLI exit 2, MCP isError)
│   ├── ImportFormatError   a JSONL import line that cannot be read (carries the line number)
│   └── ConfigFileError     config.toml cannot be read or is not TOML (a hook ignores it)
├── NotFound                an id, namespace or session that does not exist
├── StorageError            the database cannot be opened, is not SQLite, or cannot be written
│   └── StoreUnreachable    the store's server cannot be reached now (a retry may succeed)
├── ExportWriteError        an export file cannot be written (nothing of it is left behind)
├── EmbedError              an embedding provider failed (names the provider and the fix)
├── LlmError                the optional language model failed (HTTP error, bad answer, refusal)
└── MissingDependency       an optional part is not installed (names the install command)

``is_unreachable`` tells a failure of the way to the store (retry later) from a failure of the
data (retrying fails again), through any wrapping.

Import-light (no imports): the hooks and ``memlode.config_file`` use it.
"""

from __future__ import annotations

__all__ = [
    "ConfigFileError",
    "EmbedError",
    "ExportWriteError",
    "ImportFormatError",
    "InvalidInput",
    "LlmError",
    "MemlodeError",
    "MissingDependency",
    "NotFound",
    "StorageError",
    "StoreUnreachable",
    "is_unreachable",
]

# The PostgreSQL driver's classes (psycopg, psycopg_pool) of a failed connection, not of bad
# data: OperationalError covers SQLSTATE classes 08 (connection), 53 (resources: a full disk),
# 57 (operator: a server shutting down), 58 (system); InterfaceError a closed or broken
# connection; PoolTimeout (an OperationalError) no connection in time. Named, not imported:
# the driver is never loaded just to classify.
_DRIVER_UNREACHABLE = frozenset({"OperationalError", "InterfaceError"})
_DRIVER_MODULES = frozenset({"psycopg", "psycopg_pool"})


class MemlodeError(Exception):
    """Base of every error memlode raises on purpose."""


class InvalidInput(MemlodeError, ValueError):
    pass


class NotFound(MemlodeError, LookupError):
    pass


class StorageError(MemlodeError):
    pass


class StoreUnreachable(StorageError):
    """The store's server could not be reached (refused, down, restarting, a connection cut):
    the same work may succeed later, so it is retried, never dropped."""


def is_unreachable(exc: BaseException) -> bool:
    """Did ``exc`` come of the way to the store rather than of the data? True for
    ``StoreUnreachable``, the driver's connection errors (by class name, subclasses included)
    and the OS's ``ConnectionError``, found anywhere on the chain of causes and contexts
    (memlode wraps the driver's errors: ``raise StorageError(...) from None`` keeps the
    driver's error as ``__context__``)."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        one = todo.pop()
        if id(one) in seen:
            continue
        seen.add(id(one))
        if isinstance(one, StoreUnreachable | ConnectionError):
            return True
        for cls in type(one).__mro__:
            if cls.__name__ in _DRIVER_UNREACHABLE and cls.__module__.split(".")[0] in (
                _DRIVER_MODULES
            ):
                return True
        todo.extend(e for e in (one.__cause__, one.__context__) if e is not None)
    return False


class ImportFormatError(InvalidInput):
    def __init__(self, line_number: int, reason: str) -> None:
        super().__init__(f"line {line_number}: {reason}")
        self.line_number = line_number
        self.reason = reason


class ConfigFileError(InvalidInput):
    """The config file exists but cannot be read or is not valid TOML (the message says which)."""


class ExportWriteError(MemlodeError):
    """The export file could not be written (nothing of it is left behind)."""


class EmbedError(MemlodeError):
    """An embedding provider failed: unreachable server, refused request, malformed answer,
    unreadable model files. The message names the provider, what happened and what to do."""


class LlmError(MemlodeError):
    """The optional language model (``memlode.llm``) failed: unreachable server, HTTP error,
    an answer that is not its provider's JSON, a refusal. The message names the provider and the
    server, never the key; what was to be compressed keeps its raw text."""


class MissingDependency(MemlodeError, ImportError):
    def __init__(self, what: str, install: str) -> None:
        super().__init__(f"{what} is not installed; install it with: {install}")
        self.what = what
        self.install = install
