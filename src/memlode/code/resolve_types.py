"""What the resolver works with: a symbol and a file as it sees them, the target a reference
resolves to, and how a symbol's container is named (``memlode.code.resolve`` re-exports them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from memlode.code.lang import spec_for
from memlode.code.model import Reference, Symbol
from memlode.types import NodeKind

__all__ = ["FileInfo", "SymbolInfo", "Target", "container_of", "symbol_info"]


@dataclass(slots=True)
class SymbolInfo:
    node_id: str
    name: str
    qualified: str
    kind: NodeKind
    path: str
    parent: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict)
    container: str = ""  # qualified name of what holds it (class, module, package, file)


@dataclass(slots=True)
class FileInfo:
    path: str
    language: str
    module: str
    node_id: str
    prefix: str  # the qualified-name prefix of the file's top-level symbols, without separator
    imports: list[Reference] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Target:
    node_id: str
    path: str  # the file the target lives in


def container_of(qualified: str, name: str, prefix: str, sep: str) -> str:
    """What holds a symbol: its class (or other parent), else its file's module prefix."""
    if qualified == prefix + name:
        return prefix.rstrip(".:")
    tail = sep + name
    if qualified.endswith(tail):
        return qualified[: -len(tail)]
    return prefix.rstrip(".:")


def symbol_info(sym: Symbol, path: str, prefix: str, language: str, node_id: str) -> SymbolInfo:
    sep = spec_for(language).member_sep
    return SymbolInfo(
        node_id=node_id,
        name=sym.name,
        qualified=sym.qualified,
        kind=sym.kind,
        path=path,
        parent=sym.parent,
        properties=sym.properties,
        container=container_of(sym.qualified, sym.name, prefix, sep),
    )
