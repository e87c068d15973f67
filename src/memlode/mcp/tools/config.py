"""Scoring weights of recall: read them, set them (normalised to sum 1, persisted)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memlode.config import DEFAULT_WEIGHTS
from memlode.mcp.models import WeightsOut
from memlode.mcp.params import IDEMPOTENT_WRITE, READ_ONLY
from memlode.mcp.tooling import ToolCall, mcp_tool

__all__ = ["get_scoring_weights", "set_scoring_weights"]

_SIGNALS = ", ".join(DEFAULT_WEIGHTS)


def _weights_text(weights: dict[str, float]) -> str:
    return "\n".join(f"{name:<12} {value:.4f}" for name, value in weights.items())


@mcp_tool(
    READ_ONLY,
    f"The weights recall gives each signal ({_SIGNALS}); they sum to 1.",
    text=lambda out: "scoring weights:\n" + _weights_text(out.weights),
)
def get_scoring_weights(call: ToolCall) -> WeightsOut:
    return WeightsOut(weights=call.engine.get_weights())


@mcp_tool(
    IDEMPOTENT_WRITE,
    f"Change how recall ranks: relative weights for the signals ({_SIGNALS}). With "
    "merge=true (default) unnamed signals keep their current weight; with merge=false "
    "they become 0. The result is normalised to sum 1, saved, and returned.",
    text=lambda out: "scoring weights now:\n" + _weights_text(out.weights),
)
def set_scoring_weights(
    call: ToolCall,
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
) -> WeightsOut:
    return WeightsOut(weights=call.engine.set_weights(dict(weights), merge=merge))
