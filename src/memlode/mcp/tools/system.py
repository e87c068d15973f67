"""System tools: store-wide counts and a health report (storage, vectors, embedder, graph)."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field

from memlode import __version__
from memlode.mcp.models import StatsOut
from memlode.mcp.params import MAX_ID_CHARS, READ_ONLY
from memlode.mcp.tooling import ToolCall, mcp_tool
from memlode.mcp.tools.namespaces import stats_text

__all__ = ["memlode_health", "memlode_stats"]


@mcp_tool(
    READ_ONLY,
    "Counts for the whole store (default) or one namespace: memories by type and source, "
    "embedded and pending, graph size, sessions, database size.",
    text=stats_text,
)
def memlode_stats(
    call: ToolCall,
    namespace: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_ID_CHARS,
            description="'*' (default) for the whole store, or one namespace",
        ),
    ] = "*",
) -> StatsOut:
    return StatsOut.model_validate(call.engine.stats(namespace))


@mcp_tool(
    READ_ONLY,
    "Is memlode working? Storage, vectors (embedded / pending), the embedder, the graph, "
    "and this server's background embedding.",
    text=lambda report: json.dumps(report, indent=2, sort_keys=True, default=str),
)
def memlode_health(call: ToolCall) -> dict[str, Any]:
    report = call.engine.health()
    report.setdefault("version", __version__)
    report.setdefault("namespace", call.engine.namespace)
    report["server"] = {name: probe() for name, probe in call.extras.items()}
    # JSON-able all the way down (the text shows the same values)
    result: dict[str, Any] = json.loads(json.dumps(report, default=str))
    return result
