"""The tool registry: every module of ``memlode.mcp.tools`` declares its own tools.

Adding a capability's tools is a one-file change: drop ``tools/<area>.py`` into the package
with module-level functions declared by ``mcp_tool`` / ``mcp_resource`` / ``mcp_prompt``
(``memlode.mcp.tooling``); they are registered in module name order, then in the order they
are written. A module whose optional dependencies are missing raises ``MissingDependency``
when imported and is skipped with a warning; the rest keep working.

(Entry points were considered for third-party tools and left out: scanning installed
distributions costs a few hundred milliseconds of server start.)
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from typing import Any

from mcp.server.mcpserver import MCPServer

from memlode.errors import MissingDependency
from memlode.mcp import tools as tools_package
from memlode.mcp.context import ToolContext
from memlode.mcp.tooling import McpPrompt, McpResource, McpTool, bind

__all__ = ["declarations", "register_all", "tool_modules"]

log = logging.getLogger(__name__)


def tool_modules() -> list[str]:
    """Names of the modules that declare tools, in name order."""
    return sorted(
        f"{tools_package.__name__}.{info.name}"
        for info in pkgutil.iter_modules(tools_package.__path__)
        if not info.name.startswith("_")
    )


def declarations(module_name: str) -> list[McpTool | McpResource | McpPrompt]:
    """The tools, resources and prompts a module declares, in the order written."""
    module = importlib.import_module(module_name)
    return [
        value
        for value in vars(module).values()
        if isinstance(value, McpTool | McpResource | McpPrompt)
        and value.fn.__module__ == module.__name__  # not one imported from another module
    ]


def register_all(
    server: MCPServer[Any], ctx: ToolContext, modules: list[str] | None = None
) -> list[str]:
    """Register every declaration of each tool module; the names of the modules registered."""
    done: list[str] = []
    for name in tool_modules() if modules is None else modules:
        try:
            declared = declarations(name)
        except MissingDependency as exc:
            log.warning("MCP tools of %s are not available: %s", name, exc)
            continue
        for item in declared:
            bind(server, ctx, item)
        done.append(name)
    return done
