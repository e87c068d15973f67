"""memlode: persistent, local-first memory for AI coding assistants.

The public API, for programs that use memlode as a library::

    from memlode import Engine, Settings

    with Engine(Settings.load()) as engine:
        engine.store("We deploy with blue-green releases", "decision")
        for hit in engine.search("how do we deploy?"):
            print(hit.score, hit.memory.content)

Names load on first use: ``import memlode`` imports nothing else, because every hook process
imports this package first (``memlode.hooks`` needs it to cost nothing).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memlode.config import Settings
    from memlode.engine import ALL_NAMESPACES, Engine, StoreResult
    from memlode.errors import (
        ConfigFileError,
        EmbedError,
        ExportWriteError,
        ImportFormatError,
        InvalidInput,
        LlmError,
        MemlodeError,
        MissingDependency,
        NotFound,
        StorageError,
    )
    from memlode.types import Edge, Memory, MemoryType, Relationship, SearchHit, Session

__version__ = "0.1.0"

_HOMES = {
    "memlode.config": ("Settings",),
    "memlode.engine": ("ALL_NAMESPACES", "Engine", "StoreResult"),
    "memlode.errors": (
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
    ),
    "memlode.types": ("Edge", "Memory", "MemoryType", "Relationship", "SearchHit", "Session"),
}
_WHERE = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "ALL_NAMESPACES",
    "ConfigFileError",
    "Edge",
    "EmbedError",
    "Engine",
    "ExportWriteError",
    "ImportFormatError",
    "InvalidInput",
    "LlmError",
    "MemlodeError",
    "Memory",
    "MemoryType",
    "MissingDependency",
    "NotFound",
    "Relationship",
    "SearchHit",
    "Session",
    "Settings",
    "StorageError",
    "StoreResult",
    "__version__",
]


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'memlode' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
