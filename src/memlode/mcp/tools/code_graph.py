"""Graph questions about the code: the shortest dependency chain between two symbols or files,
the connected and strongly connected components (dependency cycles), and the dependency
layers. Thin adapters over :mod:`memlode.engine.code.graph`, the functions behind
``memlode graph path``, ``graph components`` and ``graph layers``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from memlode.mcp.params import MAX_ID_CHARS, READ_ONLY
from memlode.mcp.tooling import ToolCall, mcp_tool
from memlode.mcp.tools._code_schema import OneNamespace

__all__ = ["get_components", "get_layers", "get_path"]

NOT_FOUND = "search_symbols finds symbols; index_codebase indexes a project."
Ref = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="A symbol (name, qualified name, node id) or an indexed file path",
    ),
]
Level = Annotated[
    Literal["file", "symbol"],
    Field(description="file: symbols' edges lifted to their files; symbol: as they are"),
]


class NodeOut(BaseModel):
    node_id: str
    name: str
    kind: str
    path: str
    line: int
    via: str | None = Field(default=None, description="The edge from the step before")


class PathOut(BaseModel):
    namespace: str
    source: str
    target: str
    reachable: bool
    hops: int
    path: list[NodeOut]


class GroupOut(BaseModel):
    size: int
    members: list[NodeOut] = Field(description="Its members (the first 50)")


class ComponentsOut(BaseModel):
    namespace: str
    level: str
    strong: bool
    total: int
    components: list[GroupOut]


class LayerOut(BaseModel):
    layer: int
    size: int
    members: list[NodeOut]


class LayersOut(BaseModel):
    namespace: str
    level: str
    total: int
    layers: list[LayerOut]


def _label(node: NodeOut) -> str:
    return node.path if node.kind == "file" else f"{node.name} ({node.path}:{node.line})"


def _path_text(out: PathOut) -> str:
    if not out.reachable:
        return f"no path from {out.source} to {out.target}"
    steps = [("" if n.via is None else f"-{n.via}-> ") + _label(n) for n in out.path]
    return f"{out.hops} hop(s):\n" + "\n".join(f"  {s}" for s in steps)


@mcp_tool(
    READ_ONLY,
    "The shortest chain of dependencies from one symbol or file to another (calls, imports, "
    "inheritance, containment), each hop with the edge it follows; undirected=true also "
    "follows edges backwards (how two pieces relate, not how one uses the other).",
    text=_path_text,
    not_found=NOT_FOUND,
)
def get_path(
    call: ToolCall,
    source: Ref,
    target: Ref,
    undirected: Annotated[bool, Field(description="Follow edges both ways")] = False,
    namespace: OneNamespace = None,
) -> PathOut:
    from memlode.engine import code

    found = code.path(call.engine, source, target, undirected=undirected, namespace=namespace)
    return PathOut.model_validate(found)


def _components_text(out: ComponentsOut) -> str:
    what = "dependency cycles" if out.strong else "components"
    lines = [f"{out.total} {what} of {out.level}s"]
    for group in out.components:
        lines.append(f"  {group.size}: " + ", ".join(_label(m) for m in group.members))
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "Connected components of the code's dependency graph, largest first; strong=true gives "
    "the strongly connected ones of two or more members: the dependency cycles.",
    text=_components_text,
    not_found=NOT_FOUND,
)
def get_components(
    call: ToolCall,
    strong: Annotated[bool, Field(description="Only dependency cycles")] = False,
    level: Level = "file",
    limit: Annotated[int, Field(ge=1, le=1000, description="How many components")] = 20,
    namespace: OneNamespace = None,
) -> ComponentsOut:
    from memlode.engine import code

    found = code.components(
        call.engine, strong=strong, level=level, limit=limit, namespace=namespace
    )
    return ComponentsOut.model_validate(found)


def _layers_text(out: LayersOut) -> str:
    return (
        "\n".join(
            f"layer {layer.layer} ({layer.size}): " + ", ".join(_label(m) for m in layer.members)
            for layer in out.layers
        )
        or "no code"
    )


@mcp_tool(
    READ_ONLY,
    "Dependency layers of the code: layer 0 uses no other code of the project, each next "
    "layer only the layers below it (a cycle shares one layer). Where to start reading, and "
    "what a change low down reaches.",
    text=_layers_text,
    not_found=NOT_FOUND,
)
def get_layers(
    call: ToolCall,
    level: Level = "file",
    limit: Annotated[int, Field(ge=1, le=1000, description="Members listed per layer")] = 50,
    namespace: OneNamespace = None,
) -> LayersOut:
    from memlode.engine import code

    found = code.layers(call.engine, level=level, limit=limit, namespace=namespace)
    return LayersOut.model_validate(found)
