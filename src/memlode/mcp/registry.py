"""The tool registry: every module of ``memlode.mcp.tools`` registers its own tools.

Adding a capability's tools is a one-file change: drop ``tools/<area>.py`` with a
``register(server, ctx)`` function into the package (tools, resources and prompts alike).
Modules are registered in name order; a module whose optional dependencies are missing raises
``MissingDependency`` from ``register`` and is skipped with a warning, the rest keep working.

(Entry points were considered for third-party tools and left out: scanning installed
distributions costs a few hundred milliseconds of server start.)
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from typing import Any, Protocol, cast

from mcp.server.mcpserver import MCPServer

from memlode.errors import MissingDependency
from memlode.mcp import tools as tools_package
from memlode.mcp.context import ToolContext

__all__ = ["register_all", "tool_modules"]

log = logging.getLogger(__name__)


class _ToolModule(Protocol):
    def register(self, server: MCPServer[Any], ctx: ToolContext) -> None: ...


def tool_modules() -> list[str]:
    """Names of the modules that register tools, in name order."""
    return sorted(
        f"{tools_package.__name__}.{info.name}"
        for info in pkgutil.iter_modules(tools_package.__path__)
        if not info.name.startswith("_")
    )


def register_all(
    server: MCPServer[Any], ctx: ToolContext, modules: list[str] | None = None
) -> list[str]:
    """Import each tool module and let it register; the names of those that did."""
    done: list[str] = []
    for name in tool_modules() if modules is None else modules:
        try:
            module = cast(_ToolModule, importlib.import_module(name))
            module.register(server, ctx)
        except MissingDependency as exc:
            log.warning("MCP tools of %s are not available: %s", name, exc)
            continue
        done.append(name)
    return done
