"""memlode's MCP entry in Claude Code's config files: stdio or HTTP, project, user or local scope.

``init`` registers a stdio server (``python -m memlode mcp``) in ``.mcp.json`` or, for the user
scope, ``~/.claude.json``. ``init --http`` registers memlode's HTTP server (``memlode mcp
--http``) as ``{"type": "http", "url": ..., "headers": {"Authorization": "Bearer <token>"}}``.
The token is a secret, so by default that entry goes to Claude Code's *local* scope
(``~/.claude.json``, under the project's path: private to you and this project), never into the
project's ``.mcp.json`` that a team commits; any file that holds it is written 0600.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MCP_NAME",
    "Change",
    "drop_local",
    "http_entry",
    "http_url",
    "in_local_scope",
    "is_our_entry",
    "register",
    "stdio_entry",
]

# A change to a JSON config file: its data in, the data to write out.
Change = Callable[[dict[str, Any]], dict[str, Any]]

MCP_NAME = "memlode"
# Where `memlode mcp --http` serves by default (memlode.mcp.server; not imported: start time).
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
HTTP_PATH = "/mcp"


def stdio_entry(python: str, env: dict[str, str]) -> dict[str, Any]:
    """``python -m memlode mcp`` with the environment that pins it to this store."""
    entry: dict[str, Any] = {"type": "stdio", "command": python, "args": ["-m", "memlode", "mcp"]}
    if env:
        entry["env"] = dict(env)
    return entry


def http_url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{HTTP_PATH}"


def http_entry(url: str, token: str) -> dict[str, Any]:
    """Claude Code's entry for an HTTP MCP server that needs a bearer token."""
    return {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"}}


def is_our_entry(entry: object) -> bool:
    """True for an entry ``init`` wrote (stdio: it runs memlode; HTTP: our path and token)."""
    if not isinstance(entry, dict):
        return False
    if entry.get("type") == "http":  # ours: the token header init writes, on our MCP path
        url = str(entry.get("url") or "")
        headers = entry.get("headers")
        return url.endswith(HTTP_PATH) and isinstance(headers, dict) and "Authorization" in headers
    args = entry.get("args")
    command = str(entry.get("command") or "")
    return "memlode" in command or (isinstance(args, list) and "memlode" in map(str, args))


def in_local_scope(data: dict[str, Any], root: Path, change: Change) -> dict[str, Any]:
    """``change`` applied to Claude Code's local scope for ``root``: ``projects[<root>]`` of
    ``~/.claude.json`` (keyed by the project's absolute path)."""
    out = json.loads(json.dumps(data))
    projects = out.get("projects")
    if not isinstance(projects, dict):
        projects = {}
    entry = projects.get(str(root))
    projects[str(root)] = change(entry if isinstance(entry, dict) else {})
    out["projects"] = projects
    return dict(out)


def register(entry: dict[str, Any]) -> Change:
    """A change that puts ``entry`` in ``mcpServers`` as memlode's server."""

    def change(data: dict[str, Any]) -> dict[str, Any]:
        out = json.loads(json.dumps(data))
        servers = out.get("mcpServers")
        if not isinstance(servers, dict):
            servers = {}
        servers[MCP_NAME] = entry
        out["mcpServers"] = servers
        return dict(out)

    return change


def drop_local(data: dict[str, Any], root: Path, unregister: Change) -> dict[str, Any]:
    """``unregister`` applied to the local scope of ``root``, if ``data`` has one."""
    projects = data.get("projects")
    if not isinstance(projects, dict) or not isinstance(projects.get(str(root)), dict):
        return data
    return in_local_scope(data, root, unregister)
