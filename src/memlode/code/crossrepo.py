"""Links between indexed projects: one project depends on a package another project provides.

Two kinds of evidence: a manifest dependency (the dependency's node ``pkg:<eco>:<name>`` *is*
the other project's package node, so the edge exists as soon as both are indexed), and an
import of a module the other project provides (``import requests`` in a project without a
manifest entry). Import links are recomputed by :func:`link_cross_repo` after every index run;
a project without a manifest is represented by a ``pkg:project:<namespace>`` node.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from memlode.code.lang import spec_for
from memlode.storage import code_graph_rows
from memlode.storage import graph as graph_repo
from memlode.storage.code_repo import CodeRepo, NodeRow, PackageRow
from memlode.storage.db import Database
from memlode.types import Edge, Relationship, format_ts, utcnow

__all__ = ["CrossRepoLink", "cross_repo", "link_cross_repo"]

_MARK = '"cross_repo": true'


@dataclass(frozen=True, slots=True)
class CrossRepoLink:
    source_namespace: str
    source_package: str
    target_namespace: str
    target_package: str
    via: str  # "manifest" or "import"
    modules: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "source_namespace": self.source_namespace,
            "source_package": self.source_package,
            "target_namespace": self.target_namespace,
            "target_package": self.target_package,
            "via": self.via,
            "modules": list(self.modules),
        }


def _provider(packages: list[PackageRow], name: str, namespace: str) -> PackageRow | None:
    for pkg in packages:
        if pkg.namespace == namespace:
            continue
        for provided in pkg.provides:
            if name == provided or (
                pkg.ecosystem in ("go", "maven")
                and name.startswith(provided + ("/" if pkg.ecosystem == "go" else "."))
            ):
                return pkg
    return None


def link_cross_repo(db: Database) -> list[CrossRepoLink]:
    """Recompute import-based links between all indexed namespaces; return every link."""
    repo = CodeRepo(db)
    packages = repo.packages()
    namespaces = code_graph_rows.indexed_namespaces(db.conn)
    found: dict[tuple[str, str], set[str]] = defaultdict(set)  # (namespace, target pkg) -> mods
    for ns in sorted(namespaces):
        rows = code_graph_rows.unresolved_imports(db.conn, ns)
        for language, qualifier in rows:
            if language.startswith("manifest:"):
                continue
            name = spec_for(language).external_package(qualifier)
            if not name:
                continue
            provider = _provider(packages, name, ns)
            if provider is not None:
                found[(ns, provider.node_id)].add(name)
    now = format_ts(utcnow())
    with db.write() as conn:
        code_graph_rows.delete_tagged_depends_on(conn, _MARK)
        for (ns, target), modules in sorted(found.items()):
            own = [p.node_id for p in packages if p.namespace == ns]
            source = own[0] if own else f"pkg:project:{ns}"
            if not own:
                repo.ensure_nodes(conn, ns, [NodeRow(source, "package", ns, {"local": True})])
            props = {"cross_repo": True, "modules": sorted(modules), "via": "import"}
            edge = Edge(source, target, Relationship.DEPENDS_ON, float(len(modules)), props, now)
            graph_repo.add_edge(conn, edge, keep_existing=True)
    return cross_repo(db)


def cross_repo(db: Database) -> list[CrossRepoLink]:
    """Every DEPENDS_ON edge from one project's package to another indexed project's."""
    rows = code_graph_rows.cross_repo_edges(db.conn)
    links: dict[tuple[str, str, str, str], CrossRepoLink] = {}
    for s_ns, source, t_ns, target, props in rows:
        data = json.loads(props or "{}")
        via = "import" if data.get("cross_repo") else "manifest"
        key = (s_ns, source, t_ns, target)
        if key in links and via == "import":
            continue  # the manifest says it already
        links[key] = CrossRepoLink(s_ns, source, t_ns, target, via, tuple(data.get("modules", ())))
    return list(links.values())
