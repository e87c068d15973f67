"""Mapping extracts to store rows: node ids, symbol rows, reference rows, package rows."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from memlode.code.languages import spec_for
from memlode.code.manifests import Package, package_id
from memlode.code.model import FileExtract, RefKind
from memlode.code.resolve import Resolver, container_of
from memlode.storage.code_repo import NodeRow, PackageRow, RefRow, SymbolRow
from memlode.textutil import identifier_parts

__all__ = [
    "file_node_id",
    "package_rows",
    "reference_rows",
    "symbol_node_id",
    "symbol_rows",
]


def symbol_node_id(namespace: str, qualified: str) -> str:
    """``sym:<namespace>:<qualified name>``: unique across projects sharing one store."""
    return f"sym:{namespace}:{qualified}"


def file_node_id(root: str, path: str) -> str:
    """``file:<absolute path>``: the id hooks use for the same file."""
    return f"file:{posixpath.join(root, path)}"


def symbol_rows(
    namespace: str, extract: FileExtract, file_id: int, taken: dict[str, int]
) -> list[SymbolRow]:
    """Rows for one file's symbols. ``taken`` (node id -> file id) guards uniqueness: a name
    another file already uses (two ``init`` functions of one Go package) gets ``~<path>``."""
    sep = spec_for(extract.language).member_sep
    rows: list[SymbolRow] = []
    renamed: dict[str, str] = {}
    for sym in extract.symbols:
        node = symbol_node_id(namespace, sym.qualified)
        owner = taken.get(node)
        if owner is not None and owner != file_id:
            node = symbol_node_id(namespace, f"{sym.qualified}~{extract.path}")
            renamed[sym.qualified] = node
        taken[node] = file_id
        parts = identifier_parts(sym.name.lstrip("_#$"))
        rows.append(
            SymbolRow(
                node_id=node,
                name=sym.name,
                qualified_name=sym.qualified,
                kind=str(sym.kind),
                line_start=sym.line,
                line_end=sym.end_line,
                parent=sym.parent,
                container=container_of(sym.qualified, sym.name, extract.prefix, sep),
                signature=sym.signature,
                doc=sym.doc,
                visibility=str(sym.visibility),
                properties=dict(sym.properties),
                name_parts=" ".join(parts),
                file_id=file_id,
                path=extract.path,
            )
        )
    return rows


def symbol_nodes(rows: Iterable[SymbolRow]) -> list[NodeRow]:
    return [
        NodeRow(
            r.node_id,
            r.kind,
            r.name,
            # small on purpose: signature, doc and the rest are in code_symbols
            {"path": r.path, "line": r.line_start, "qualified": r.qualified_name},
        )
        for r in rows
    ]


def reference_rows(
    extract: FileExtract,
    file_id: int,
    file_node: str,
    symbols: list[SymbolRow],
    resolver: Resolver | None = None,
    file_ids: dict[str, int] | None = None,
) -> list[RefRow]:
    """Reference rows of a file; resolved when a ``resolver`` (and the path -> file id map)
    is given, else left for ``linking``. CONTAINS edges come from the symbols themselves."""
    node_of = {s.qualified_name: s.node_id for s in symbols}
    rows: list[RefRow] = []
    for ref in extract.references:
        source = node_of.get(ref.source, file_node) if ref.source else file_node
        rel = ref.kind.relationship
        target = resolver.resolve(extract.path, ref) if resolver is not None else None
        rows.append(
            RefRow(
                source_id=source,
                kind=str(ref.kind),
                name=ref.name,
                qualifier=ref.qualifier,
                alias=ref.alias,
                line=ref.line,
                count=ref.count,
                target_id=target.node_id if target is not None else None,
                target_file=(file_ids or {}).get(target.path) if target is not None else None,
                relationship=str(rel) if rel is not None else None,
                file_id=file_id,
            )
        )
    return rows


def package_rows(
    package: Package, file_id: int, provides: Iterable[str]
) -> tuple[PackageRow, list[NodeRow], list[RefRow]]:
    """The package a manifest declares, the nodes of its dependencies, its DEPENDS_ON rows."""
    row = PackageRow(
        node_id=package.node_id,
        ecosystem=package.ecosystem,
        name=package.name,
        version=package.version,
        provides=sorted({*package.provides, *provides}),
        file_id=file_id,
    )
    deps: list[NodeRow] = []
    refs: list[RefRow] = []
    for dep in package.dependencies:
        node = package_id(package.ecosystem, dep.name)
        deps.append(NodeRow(node, "package", dep.name, {"ecosystem": package.ecosystem}))
        refs.append(
            RefRow(
                source_id=package.node_id,
                kind=str(RefKind.DEPEND),
                name=dep.name,
                qualifier=dep.spec,
                alias=dep.scope,
                target_id=node,
                relationship="DEPENDS_ON",
                file_id=file_id,
            )
        )
    return row, deps, refs
