"""What ``memlode mcp`` answers to the list requests before its tools are built, and the
binding of each tool on its first call.

Building the SDK's tools (importing every tool module, then one pydantic model per tool for its
arguments and result) took a quarter of a second of ``memlode mcp``'s start, before the first
``tools/list`` was answered. The lists (tools, prompts, resources, resource templates) depend
only on the code, so a server that built them once keeps them in the home
(``cache/mcp-lists-<key>.json``, keyed by memlode's files, the SDK, pydantic, Python and the
project shown in the descriptions). A server that finds them answers the list requests from
them and binds a tool, from its own module, only when it is first called; a prompt or a
resource read binds everything. The answers are the SDK's own, as the SDK built them
(``tests/mcp`` compares a cold and a listed start).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pydantic
from mcp.server.mcpserver import MCPServer
from mcp.types import Prompt, Resource, ResourceTemplate, Tool

import memlode
from memlode.mcp.context import ToolContext

__all__ = ["ListedServer", "Listing", "lists_key", "prune_lists"]

log = logging.getLogger(__name__)

CACHE_FORMAT = 2  # bump when the file's layout changes
# Cached lists kept in the home: one per project and memlode version in use, so a few projects
# across an upgrade fit; older ones are rebuilt (a quarter of a second) if they are needed again.
KEEP_LISTS = 16


def lists_key(label: str) -> str:
    """Changes whenever the lists could: any file of memlode, the SDK, pydantic, Python, or the
    project named in the descriptions (~300 ``stat`` calls, about a millisecond)."""
    import mcp

    digest = hashlib.sha256()
    root = Path(memlode.__file__).parent
    facts = [
        str(CACHE_FORMAT),
        memlode.__version__,
        str(Path(mcp.__file__).parent.stat().st_mtime_ns),
        pydantic.VERSION,
        sys.version,
        label,
        str(root),
    ]
    digest.update("\0".join(facts).encode())
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{stat.st_mtime_ns}:{stat.st_size}\0".encode())
    return digest.hexdigest()[:24]


class Listing:
    """The lists one server answers with, and which of its tools are bound yet."""

    def __init__(self, ctx: ToolContext, path: Path) -> None:
        self.ctx = ctx
        self.path = path
        self.lists: dict[str, Any] | None = None  # as cached: tools, prompts, resources, ...
        self.owners: dict[str, str] = {}  # tool name -> the module that declares it
        self.modules: list[str] = []  # every module registered, tools or not
        self._lock = threading.Lock()
        self._bound: set[str] = set()
        self._all_bound = False
        self._server: MCPServer[Any] | None = None

    @classmethod
    def for_context(cls, ctx: ToolContext) -> Listing:
        cache = ctx.settings.home / "cache"
        return cls(ctx, cache / f"mcp-lists-{lists_key(ctx.namespace_label)}.json")

    def load(self) -> bool:
        """Read the cached lists; False when there are none (or they cannot be read)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.lists = {
                "tools": [Tool.model_validate(x) for x in data["tools"]],
                "prompts": [Prompt.model_validate(x) for x in data["prompts"]],
                "resources": [Resource.model_validate(x) for x in data["resources"]],
                "templates": [ResourceTemplate.model_validate(x) for x in data["templates"]],
            }
            self.owners = dict(data["owners"])
            self.modules = list(data["modules"])
        except FileNotFoundError:
            return False
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.info("MCP lists cache %s not used: %s", self.path, exc)
            return False
        return True

    def attach(self, server: MCPServer[Any]) -> None:
        self._server = server

    def mark_all_bound(self) -> None:
        self._all_bound = True

    def bind_tool(self, name: str) -> None:
        """Bind the tool ``name`` (from its module) unless it is bound or unknown."""
        if self._all_bound or name in self._bound or name not in self.owners:
            return
        from memlode.mcp.registry import declarations
        from memlode.mcp.tooling import McpTool, bind

        with self._lock:
            if name in self._bound or self._all_bound:
                return
            assert self._server is not None
            for item in declarations(self.owners[name]):
                if isinstance(item, McpTool) and item.name == name:
                    bind(self._server, self.ctx, item)
            self._bound.add(name)

    def bind_all(self) -> None:
        """Bind every declaration not bound yet (a prompt or resource is asked for)."""
        if self._all_bound:
            return
        from memlode.mcp.registry import declarations
        from memlode.mcp.tooling import McpTool, bind

        with self._lock:
            if self._all_bound:
                return
            assert self._server is not None
            for module in self.modules:
                for item in declarations(module):
                    if not (isinstance(item, McpTool) and item.name in self._bound):
                        bind(self._server, self.ctx, item)
            self._all_bound = True

    async def save(self, server: ListedServer, modules: list[str]) -> None:
        """Write the lists the server built (it bound everything) for the next start."""
        from memlode.mcp.registry import declarations
        from memlode.mcp.tooling import McpTool

        owners = {
            item.name: module
            for module in modules
            for item in declarations(module)
            if isinstance(item, McpTool)
        }
        lists: dict[str, list[Any]] = {
            "tools": await server.list_tools(),
            "prompts": await server.list_prompts(),
            "resources": await server.list_resources(),
            "templates": await server.list_resource_templates(),
        }
        data: dict[str, Any] = {
            key: [x.model_dump(mode="json", by_alias=True, exclude_unset=True) for x in value]
            for key, value in lists.items()
        }
        data["owners"] = owners
        data["modules"] = modules
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps(data), encoding="utf-8")
            os.replace(partial, self.path)
        except OSError as exc:
            log.info("MCP lists not cached (%s): %s", self.path, exc)
            return
        prune_lists(self.path.parent)


def prune_lists(cache: Path, keep: int = KEEP_LISTS) -> list[Path]:
    """Remove all but the ``keep`` newest cached lists (each memlode upgrade or edit, and each
    project, writes its own); the ones removed."""
    found: list[tuple[float, Path]] = []
    for path in cache.glob("mcp-lists-*"):
        try:
            found.append((path.stat().st_mtime, path))
        except OSError:
            continue  # removed meanwhile by another server
    found.sort(reverse=True)
    removed = []
    for _, path in found[keep:]:
        try:
            path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed


class ListedServer(MCPServer[Any]):
    """The SDK server, answering list requests from a ``Listing`` that has lists."""

    listing: Listing

    async def list_tools(self) -> list[Tool]:
        if self.listing.lists is not None:
            return list(self.listing.lists["tools"])
        return await super().list_tools()

    async def list_prompts(self) -> list[Prompt]:
        if self.listing.lists is not None:
            return list(self.listing.lists["prompts"])
        return await super().list_prompts()

    async def list_resources(self) -> list[Resource]:
        if self.listing.lists is not None:
            return list(self.listing.lists["resources"])
        return await super().list_resources()

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        if self.listing.lists is not None:
            return list(self.listing.lists["templates"])
        return await super().list_resource_templates()

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        self.listing.bind_tool(name)
        return await super().call_tool(name, arguments, context)

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> Any:
        self.listing.bind_all()
        return await super().get_prompt(name, arguments, context)

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        self.listing.bind_all()
        return await super().read_resource(uri, context)
