"""Scoring weights of recall: read them, set them (normalised to sum 1, persisted)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from memlode.config import DEFAULT_WEIGHTS
from memlode.mcp.context import ToolContext
from memlode.mcp.models import WeightsOut
from memlode.mcp.params import IDEMPOTENT_WRITE, READ_ONLY
from memlode.mcp.render import respond

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["register"]


def _weights_text(weights: dict[str, float]) -> str:
    return "\n".join(f"{name:<12} {value:.4f}" for name, value in weights.items())


def register(server: MCPServer[Any], ctx: ToolContext) -> None:
    signals = ", ".join(DEFAULT_WEIGHTS)

    @server.tool(
        annotations=READ_ONLY,
        description=f"The weights recall gives each signal ({signals}); they sum to 1.",
    )
    def get_scoring_weights() -> Annotated[CallToolResult, WeightsOut]:
        out = ctx.run(lambda engine: WeightsOut(weights=engine.get_weights()))
        return respond(out, "scoring weights:\n" + _weights_text(out.weights))

    @server.tool(
        annotations=IDEMPOTENT_WRITE,
        description=(
            f"Change how recall ranks: relative weights for the signals ({signals}). With "
            "merge=true (default) unnamed signals keep their current weight; with merge=false "
            "they become 0. The result is normalised to sum 1, saved, and returned."
        ),
    )
    def set_scoring_weights(
        weights: Annotated[
            dict[str, Annotated[float, Field(ge=0.0, le=1000.0)]],
            Field(
                min_length=1,
                max_length=len(DEFAULT_WEIGHTS),
                description='Signal name -> relative weight, e.g. {"bm25": 0.3, "vector": 0.3}',
            ),
        ],
        merge: Annotated[
            bool, Field(description="Keep the current weight of signals not named")
        ] = True,
    ) -> Annotated[CallToolResult, WeightsOut]:
        def call(engine: Engine) -> WeightsOut:
            return WeightsOut(weights=engine.set_weights(dict(weights), merge=merge))

        out = ctx.run(call)
        return respond(out, "scoring weights now:\n" + _weights_text(out.weights))
