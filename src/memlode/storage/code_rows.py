"""The rows of the code tables as the indexer and the readers pass them (``code_files``,
``code_symbols``, ``code_refs``, graph nodes, ``code_packages``); ``memlode.storage.code_repo``
reads and writes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["FileRow", "NodeRow", "PackageRow", "RefRow", "SymbolRow"]


@dataclass(slots=True)
class FileRow:
    namespace: str
    root: str
    path: str
    node_id: str
    language: str
    hash: str
    size: int
    mtime_ns: int
    module: str = ""
    prefix: str = ""
    lines: int = 0
    status: str = "ok"
    id: int = 0


@dataclass(slots=True)
class SymbolRow:
    node_id: str
    name: str
    qualified_name: str
    kind: str
    line_start: int
    line_end: int
    parent: str | None = None
    container: str = ""
    signature: str = ""
    doc: str = ""
    visibility: str = "public"
    properties: dict[str, Any] = field(default_factory=dict)
    name_parts: str = ""
    file_id: int = 0
    path: str = ""  # filled when read back


@dataclass(slots=True)
class RefRow:
    source_id: str
    kind: str
    name: str
    qualifier: str = ""
    alias: str = ""
    line: int = 0
    count: int = 1
    target_id: str | None = None
    target_file: int | None = None
    relationship: str | None = None
    file_id: int = 0
    id: int = 0


@dataclass(slots=True)
class NodeRow:
    id: str
    kind: str
    name: str
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class PackageRow:
    node_id: str
    ecosystem: str
    name: str
    version: str = ""
    provides: list[str] = field(default_factory=list)
    file_id: int = 0
    namespace: str = ""
