"""System tools: store-wide counts and a health report (storage, vectors, embedder, graph)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from memlode import __version__
from memlode.mcp.context import ToolContext
from memlode.mcp.models import StatsOut
from memlode.mcp.params import MAX_ID_CHARS, READ_ONLY
from memlode.mcp.render import respond
from memlode.mcp.tools.namespaces import stats_text

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["register"]


def register(server: MCPServer[Any], ctx: ToolContext) -> None:
    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Counts for the whole store (default) or one namespace: memories by type and source, "
            "embedded and pending, graph size, sessions, database size."
        ),
    )
    def memlode_stats(
        namespace: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_ID_CHARS,
                description="'*' (default) for the whole store, or one namespace",
            ),
        ] = "*",
    ) -> Annotated[CallToolResult, StatsOut]:
        out = ctx.run(lambda engine: StatsOut.model_validate(engine.stats(namespace)))
        return respond(out, stats_text(out))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Is memlode working? Storage, vectors (embedded / pending), the embedder, the graph, "
            "and this server's background embedding."
        ),
    )
    def memlode_health() -> Annotated[CallToolResult, dict[str, Any]]:
        def call(engine: Engine) -> dict[str, Any]:
            report = engine.health()
            report.setdefault("version", __version__)
            report.setdefault("namespace", engine.namespace)
            return report

        report = ctx.run(call)
        server_part: dict[str, Any] = {name: probe() for name, probe in ctx.extras.items()}
        report["server"] = server_part
        text = json.dumps(report, indent=2, sort_keys=True, default=str)
        return CallToolResult(
            content=[TextContent(type="text", text=text)],
            structured_content=json.loads(json.dumps(report, default=str)),
        )
