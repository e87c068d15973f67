"""The one exception tree. Every message says what was wrong and what to do.

MemlodeError
├── InvalidInput            bad arguments from a user or a caller (CLI exit 2, MCP isError)
│   ├── ImportFormatError   a JSONL import line that cannot be read (carries the line number)
│   └── ConfigFileError     config.toml cannot be read or is not TOML (a hook ignores it)
├── NotFound                an id, namespace or session that does not exist
├── StorageError            the database cannot be opened, is not SQLite, or cannot be written
├── ExportWriteError        an export file cannot be written (nothing of it is left behind)
├── EmbedError              an embedding provider failed (names the provider and the fix)
├── LlmError                the optional language model failed (HTTP error, bad answer, refusal)
└── MissingDependency       an optional part is not installed (names the install command)

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
