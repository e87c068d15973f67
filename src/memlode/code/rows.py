"""Mapping extracts to store rows: node ids, symbol rows, reference rows, package rows."""

from __future__ import annotations

import posixpath
from collections.abc import Container, Iterable, Mapping
from functools import lru_cache

from memlode.code.lang import spec_for
from memlode.code.manifests import Package, package_id
from memlode.code.model import FileExtract, RefKind
from memlode.code.resolve import Resolver, container_of
from memlode.storage.code_repo import NodeRow, PackageRow, RefRow, SymbolRow
from memlode.textutil import identifier_parts

__all__ = [
    "code_edges",
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
    prefix, path = extract.prefix, extract.path
    rows: list[SymbolRow] = []
    for sym in extract.symbols:
        qualified, name = sym.qualified, sym.name
        node = f"sym:{namespace}:{qualified}"  # symbol_node_id, inlined: once per symbol
        owner = taken.get(node)
        if owner is not None and owner != file_id:
            node = symbol_node_id(namespace, f"{qualified}~{path}")
        taken[node] = file_id
        rows.append(
            # positional, in field order (this runs for every symbol of a project)
            SymbolRow(
                node, name, qualified, str(sym.kind), sym.line, sym.end_line, sym.parent,
                container_of(qualified, name, prefix, sep), sym.signature, sym.doc,
                str(sym.visibility), dict(sym.properties), _name_parts(name), file_id, path,
            )
        )  # fmt: skip
    return rows


@lru_cache(maxsize=16384)
def _name_parts(name: str) -> str:
    """What ``code_symbols.name_parts`` holds for a name (names repeat: ``__init__``, ``get``)."""
    return " ".join(identifier_parts(name.lstrip("_#$")))


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
    paths = file_ids or {}
    path = extract.path
    rows: list[RefRow] = []
    for ref in extract.references:
        source = node_of.get(ref.source, file_node) if ref.source else file_node
        kind, rel = _KIND_COLUMNS[ref.kind]
        target = resolver.resolve(path, ref) if resolver is not None else None
        rows.append(
            # positional, in field order: this runs once per reference of a project
            RefRow(
                source, kind, ref.name, ref.qualifier, ref.alias, ref.line, ref.count,
                target.node_id if target is not None else None,
                paths.get(target.path) if target is not None else None,
                rel, file_id,
            )
        )  # fmt: skip
    return rows


# a reference kind -> its (kind, relationship) columns
_KIND_COLUMNS = {
    kind: (str(kind), str(kind.relationship) if kind.relationship is not None else None)
    for kind in RefKind
}


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


def code_edges(
    namespace: str,
    refs: Iterable[RefRow],
    symbols: Iterable[SymbolRow],
    file_nodes: Mapping[int, str],
    parents: Container[str],
) -> dict[tuple[str, str, str], float]:
    """The code edges of freshly stored rows, (source, target, relationship) -> weight, as
    ``CodeRepo.rebuild_edges`` and ``rebuild_contains`` derive them from the tables:
    references summed per edge (self references dropped), and CONTAINS from the parent
    symbol's node when ``parents`` holds it, else from the symbol's file."""
    weights: dict[tuple[str, str, str], float] = {}
    get = weights.get
    for r in refs:
        target, rel = r.target_id, r.relationship
        if target is None or rel is None or r.source_id == target:
            continue
        key = (r.source_id, target, rel)
        weights[key] = get(key, 0.0) + r.count
    for s in symbols:
        source = file_nodes[s.file_id]
        if s.parent is not None:
            parent = symbol_node_id(namespace, s.parent)
            if parent in parents:
                source = parent
        weights.setdefault((source, s.node_id, "CONTAINS"), 1.0)
    return weights
