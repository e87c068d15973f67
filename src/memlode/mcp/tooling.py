"""The one shape of an MCP tool, resource and prompt: a module-level function and its text.

A tool is a function in ``mcp/tools/<area>.py``, declared with :func:`mcp_tool`::

    @mcp_tool(READ_ONLY, "Read one memory in full, by id.", text=memory_out_text)
    def get_memory(call: ToolCall, memory_id: MemoryId) -> MemoryOut:
        return MemoryOut.of(call.engine.get(memory_id))

- *call*: the first parameter is the :class:`ToolCall`, the engine held for this call plus
  what the server knows (its folder, its project, its status probes); the other parameters
  are the tool's arguments, and their annotations are its input schema;
- *shape*: the return annotation is the output schema, a model of what the engine returns
  (or the engine's own dataclass, as for code symbols), validated by the SDK;
- *respond*: ``text`` renders the result for clients that show a model only text; every
  result carries both.

:func:`bind` turns a declaration into the SDK's tool: it runs the function under
``ToolContext.run`` (engine errors become ``isError`` results the model can act on; a tool's
``not_found`` hint is added to "not found" errors; writes wake the background embedder).
Resources (:func:`mcp_resource`) and prompts (:func:`mcp_prompt`) are declared the same way
and return text. ``{project}`` in a description is replaced by the server's project.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

from memlode.errors import NotFound

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from memlode.engine import Engine
    from memlode.mcp.context import ToolContext

__all__ = [
    "McpPrompt",
    "McpResource",
    "McpTool",
    "ToolCall",
    "bind",
    "mcp_prompt",
    "mcp_resource",
    "mcp_tool",
    "respond",
]


@dataclass(frozen=True)
class ToolCall:
    """What a tool function is handed: the engine, held for the call, and the server's facts."""

    engine: Engine
    cwd: Path
    project: str  # the server's namespace, or "(no project)"
    extras: dict[str, Callable[[], object]] = field(default_factory=dict)

    def shown_namespace(self, namespace: str | None) -> str:
        """The namespace a read covers, as results show it ('*' for every namespace)."""
        resolved = self.engine.resolve_namespace(namespace)
        return "*" if resolved is None else resolved


@dataclass(frozen=True)
class McpTool:
    fn: Callable[..., Any]
    text: Callable[[Any], str]
    annotations: ToolAnnotations
    description: str
    writes: bool
    not_found: str | None
    # the answer from another process before this one opens its engine (None: answer here)
    elsewhere: Callable[[ToolContext, dict[str, Any]], Any] | None = None

    @property
    def name(self) -> str:
        return self.fn.__name__


@dataclass(frozen=True)
class McpResource:
    fn: Callable[..., str]
    uri: str
    name: str
    title: str
    description: str
    mime_type: str


@dataclass(frozen=True)
class McpPrompt:
    fn: Callable[..., str]
    name: str
    title: str
    description: str


def mcp_tool(
    annotations: ToolAnnotations,
    description: str,
    *,
    text: Callable[[Any], str],
    writes: bool = False,
    not_found: str | None = None,
    elsewhere: Callable[[ToolContext, dict[str, Any]], Any] | None = None,
) -> Callable[[Callable[..., Any]], McpTool]:
    """Declare a tool (see the module doc); ``writes``: it changes the store; ``elsewhere``:
    its result from another process given the call's arguments, or None to run it here. Every
    tool runs on either store (issue #21)."""

    def declare(fn: Callable[..., Any]) -> McpTool:
        return McpTool(fn, text, annotations, description, writes, not_found, elsewhere)

    return declare


def mcp_resource(
    uri: str, *, name: str, title: str, description: str, mime_type: str = "text/plain"
) -> Callable[[Callable[..., str]], McpResource]:
    def declare(fn: Callable[..., str]) -> McpResource:
        return McpResource(fn, uri, name, title, description, mime_type)

    return declare


def mcp_prompt(
    *, name: str, title: str, description: str
) -> Callable[[Callable[..., str]], McpPrompt]:
    def declare(fn: Callable[..., str]) -> McpPrompt:
        return McpPrompt(fn, name, title, description)

    return declare


def respond(result: BaseModel | dict[str, Any], text: str) -> CallToolResult:
    """A result with both the structured content and its text."""
    structured = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured
    )


def bind(
    server: MCPServer[Any], ctx: ToolContext, declared: McpTool | McpResource | McpPrompt
) -> None:
    """Register one declaration with the SDK server."""
    if isinstance(declared, McpTool):
        _bind_tool(server, ctx, declared)
    elif isinstance(declared, McpResource):
        server.resource(
            declared.uri,
            name=declared.name,
            title=declared.title,
            description=declared.description,
            mime_type=declared.mime_type,
        )(_handler(declared.fn, ctx, lambda call, _: ctx.read_resource(call)))
    else:
        server.prompt(name=declared.name, title=declared.title, description=declared.description)(
            _handler(declared.fn, ctx, lambda call, _: ctx.run(call))
        )


def _bind_tool(server: MCPServer[Any], ctx: ToolContext, tool: McpTool) -> None:
    def run(call: Callable[[Engine], Any], arguments: dict[str, Any]) -> CallToolResult:
        if tool.elsewhere is not None:
            answered = tool.elsewhere(ctx, arguments)
            if answered is not None:
                return respond(answered, tool.text(answered))

        def guarded(engine: Engine) -> Any:
            try:
                return call(engine)
            except NotFound as exc:
                if tool.not_found is None:
                    raise
                raise ToolError(f"{exc}. {tool.not_found}") from exc

        result = ctx.run(guarded, writes=tool.writes)
        return respond(result, tool.text(result))

    server.add_tool(
        _handler(tool.fn, ctx, run, returns=CallToolResult),
        name=tool.name,
        description=tool.description.replace("{project}", ctx.namespace_label),
        annotations=tool.annotations,
    )


def _handler(
    fn: Callable[..., Any],
    ctx: ToolContext,
    run: Callable[[Callable[[Engine], Any], dict[str, Any]], Any],
    *,
    returns: type | None = None,
) -> Callable[..., Any]:
    """A function with ``fn``'s signature minus its ``ToolCall``, calling ``fn`` through ``run``
    (given the call's arguments too; the SDK reads the signature: the arguments' annotations
    are the input schema)."""
    hints = typing.get_type_hints(fn, include_extras=True)
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in list(inspect.signature(fn).parameters.values())[1:]
    ]
    result: Any = hints.get("return", Any)
    if returns is not None:
        result = Annotated[returns, result]

    def handler(**kwargs: Any) -> Any:
        def call(engine: Engine) -> Any:
            return fn(ToolCall(engine, ctx.cwd, ctx.namespace_label, ctx.extras), **kwargs)

        return run(call, kwargs)

    handler.__name__ = handler.__qualname__ = fn.__name__
    handler.__doc__ = fn.__doc__
    handler.__module__ = fn.__module__
    handler.__signature__ = inspect.Signature(params, return_annotation=result)  # type: ignore[attr-defined]
    handler.__annotations__ = {p.name: p.annotation for p in params} | {"return": result}
    return handler
