"""The records code intelligence produces: symbols, references and one file's extract.

Plain data, no tree-sitter: the indexer, the resolver and the store exchange these, and a hook
may import them without loading a grammar.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from memlode.types import NodeKind, Relationship

__all__ = [
    "CodeHit",
    "FileExtract",
    "RefKind",
    "Reference",
    "Symbol",
    "SymbolHit",
    "Visibility",
]


class RefKind(enum.StrEnum):
    """What a reference does; ``USE`` (a type named in a signature) ranks but makes no edge."""

    CALL = "call"
    IMPORT = "import"
    INHERIT = "inherit"
    EXTEND = "extend"
    IMPLEMENT = "implement"
    USE = "use"
    DEPEND = "depend"  # a manifest's dependency on a package

    @property
    def relationship(self) -> Relationship | None:
        return _EDGE_OF.get(self)


_EDGE_OF = {
    RefKind.CALL: Relationship.CALLS,
    RefKind.IMPORT: Relationship.IMPORTS,
    RefKind.INHERIT: Relationship.INHERITS,
    RefKind.EXTEND: Relationship.EXTENDS,
    RefKind.IMPLEMENT: Relationship.IMPLEMENTS,
    RefKind.DEPEND: Relationship.DEPENDS_ON,
}


class Visibility(enum.StrEnum):
    PUBLIC = "public"
    PROTECTED = "protected"
    INTERNAL = "internal"  # package-private (Java), pub(crate) (Rust), file-static (C)
    PRIVATE = "private"


@dataclass(slots=True)
class Symbol:
    """One definition. ``qualified`` is unique within a project; ``parent`` is its container."""

    name: str
    kind: NodeKind
    qualified: str
    line: int  # 1-based, first line of the definition
    end_line: int
    parent: str | None = None  # qualified name of the enclosing symbol, None at file level
    signature: str = ""
    doc: str = ""
    visibility: Visibility = Visibility.PUBLIC
    properties: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Reference:
    """A use of a name, from ``source`` (a symbol's qualified name, None = the file itself).

    ``qualifier`` is what the name was reached through: a receiver (``self``, ``os.path``), a
    module (for imports), or empty. ``alias`` is the local name an import binds.
    """

    kind: RefKind
    name: str
    source: str | None
    line: int
    qualifier: str = ""
    alias: str = ""
    count: int = 1

    @property
    def key(self) -> tuple[str | None, str, str, str, str]:
        return (self.source, str(self.kind), self.name, self.qualifier, self.alias)


@dataclass(slots=True)
class FileExtract:
    """Everything one file yields. ``module`` is the key other files import it by."""

    path: str  # relative to the project root, '/' separated
    language: str
    module: str
    lines: int
    prefix: str = ""  # what precedes a top-level symbol's name in its qualified name
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    errors: int = 0  # syntax error nodes tree-sitter recovered from


def _field_docs(schema: dict[str, Any], cls: type[Any]) -> None:
    """Describe a dataclass in its JSON schema by its ``SCHEMA_DOC`` and ``FIELD_DOCS`` (not
    its docstring, which is for developers). Pydantic calls this when the class is part of a
    schema; nothing here imports pydantic."""
    schema["description"] = cls.SCHEMA_DOC
    properties = schema.get("properties", {})
    for name, text in cls.FIELD_DOCS.items():
        if name in properties:
            properties[name]["description"] = text


@dataclass(frozen=True, slots=True)
class SymbolHit:
    """One ranked definition. Interfaces show it as it is: the MCP tools' output schema is
    derived from this class, with ``FIELD_DOCS`` as the field descriptions."""

    SCHEMA_DOC: ClassVar[str] = "A definition, best first"
    FIELD_DOCS: ClassVar[dict[str, str]] = {
        "node_id": "Pass it to get_symbol_info, get_impact, get_dependencies",
        "path": "File, relative to the indexed root",
        "signals": "With explain: what each ranking signal added to the score",
    }
    __pydantic_config__: ClassVar[dict[str, Any]] = {"json_schema_extra": _field_docs}

    node_id: str
    name: str
    qualified_name: str
    kind: str
    path: str
    line: int
    end_line: int
    signature: str
    doc: str
    visibility: str
    score: float
    pagerank: float
    # with explain: each signal's contribution to ``score`` before the kind factors, and the
    # factor applied (memlode.code.search)
    signals: dict[str, float] | None = None

    def to_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class CodeHit(SymbolHit):
    """A symbol hit with its definition's source text (what ``search_code`` in
    ``memlode.engine.code`` returns, as dicts)."""

    SCHEMA_DOC: ClassVar[str] = "A definition with its source text, best first"
    FIELD_DOCS: ClassVar[dict[str, str]] = {
        **SymbolHit.FIELD_DOCS,
        "code": "The definition's source text",
        "code_truncated": "True: only the first lines are shown",
    }

    code: str = ""
    code_truncated: bool = False
