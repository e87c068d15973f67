"""The assistants memlode wires itself into: where each one keeps its MCP servers and hooks, per
scope, and what memlode's entries look like there. ``memlode.cli.wiring`` plans and writes the
edits; ``doctor`` reads the same table.

Scopes:

- ``local`` (the default): personal settings for this project. Claude Code has them
  (``.claude/settings.local.json``, which it keeps out of git, and the project's entry in
  ``~/.claude.json``); the others keep no per-project personal settings, so memlode goes into
  their user configuration (each project still gets its own memory: namespaces follow the
  repository's identity). Commands there name this interpreter by absolute path: no shim, no
  ``PATH`` lookup on a hook's hot path.
- ``project``: the files a team commits (``.claude/settings.json``, ``.mcp.json``,
  ``.codex/``, ``.gemini/settings.json``, ``opencode.json``, ``.cursor/``, ``.windsurf/``).
  They hold nothing of this machine: memlode's commands (``memlode mcp``, ``memlode-hook EVENT
  [CLIENT]``, installed with memlode), which every teammate has on ``PATH``.
- ``user``: the user configuration, with the absolute interpreter.

Where each client reads its configuration (its documentation, checked 2026; INTEGRATION.md):
Claude Code ``settings*.json`` + ``.mcp.json``/``~/.claude.json``; Codex CLI ``config.toml``
(``[mcp_servers.memlode]``) + ``hooks.json``; Gemini CLI ``settings.json`` (``mcpServers``,
``hooks``; timeouts in milliseconds); OpenCode ``opencode.json(c)`` (``mcp``, ``type: local``,
the command as a list) + a plugin file; Cursor ``mcp.json`` + ``hooks.json`` (``version`` 1,
flat handler lists); Windsurf ``~/.codeium/windsurf/mcp_config.json`` + ``hooks.json``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memlode.errors import InvalidInput
from memlode.hook_events import CLIENT_HOOKS, DEFAULT_CLIENT, HOOK_CODE, HookSpec

__all__ = ["CLIENTS", "SCOPES", "Client", "Launch", "codex_home", "is_ours"]

SCOPES = ("local", "project", "user")
MS_PER_S = 1000  # Gemini CLI's hook timeouts are milliseconds


@dataclass(frozen=True)
class Launch:
    """How a client starts memlode: this interpreter by absolute path (personal files), or
    the ``memlode`` command (``python`` None: files a team shares)."""

    python: str | None
    env: dict[str, str] = field(default_factory=dict)

    def hook(self, event: str, client: str) -> str:
        from memlode.cli.claude_cmds import hook_command

        suffix = "" if client == DEFAULT_CLIENT else f" {client}"
        if self.python is None:
            return f"memlode-hook {event}{suffix}"
        return hook_command(self.python, event, self.env, client)

    def hook_argv(self) -> list[str]:
        """The hook command as a list, the event and client to be appended (OpenCode)."""
        return ["memlode-hook"] if self.python is None else [self.python, "-c", HOOK_CODE]

    def server(self) -> tuple[str, list[str], dict[str, str]]:
        if self.python is None:
            return "memlode", ["mcp"], {}
        return self.python, ["-m", "memlode", "mcp"], dict(self.env)


def _home() -> Path:
    return Path.home()


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or _home() / ".codex")


def _xdg_config() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or _home() / ".config")


def _opencode_file(folder: Path) -> Path:
    """``opencode.jsonc`` when that is the file the folder has, else ``opencode.json``."""
    jsonc = folder / "opencode.jsonc"
    return (
        jsonc
        if jsonc.exists() and not (folder / "opencode.json").exists()
        else folder / "opencode.json"
    )


# ---- MCP entries ---------------------------------------------------------------------------------


def _claude_entry(launch: Launch) -> dict[str, Any]:
    command, args, env = launch.server()
    entry: dict[str, Any] = {"type": "stdio", "command": command, "args": args}
    if env:
        entry["env"] = env
    return entry


def _std_entry(launch: Launch) -> dict[str, Any]:
    command, args, env = launch.server()
    entry: dict[str, Any] = {"command": command, "args": args}
    if env:
        entry["env"] = env
    return entry


def _opencode_entry(launch: Launch) -> dict[str, Any]:
    command, args, env = launch.server()
    entry: dict[str, Any] = {"type": "local", "command": [command, *args], "enabled": True}
    if env:
        entry["environment"] = env
    return entry


def is_ours(entry: object) -> bool:
    """An MCP entry that runs memlode (command and args, or OpenCode's command list), or the
    HTTP entry ``init --http`` writes."""
    from memlode.cli.claude_mcp import is_our_entry

    if not isinstance(entry, dict):
        return False
    if is_our_entry(entry):
        return True
    words: list[object] = []
    for key in ("command", "args"):
        value = entry.get(key)
        words += value if isinstance(value, list) else [value]
    return any("memlode" in str(word) for word in words if word is not None)


# ---- hook handlers -------------------------------------------------------------------------------


def _claude_handler(spec: HookSpec, command: str) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command", "command": command, "timeout": spec.timeout}
    if spec.async_:
        handler["async"] = True
    return handler


def _codex_handler(spec: HookSpec, command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": spec.timeout}


def _gemini_handler(spec: HookSpec, command: str) -> dict[str, Any]:
    return {
        "name": f"memlode-{spec.name}",
        "type": "command",
        "command": command,
        "timeout": spec.timeout * MS_PER_S,
    }


def _cursor_handler(spec: HookSpec, command: str) -> dict[str, Any]:
    return {"command": command}


def _windsurf_handler(spec: HookSpec, command: str) -> dict[str, Any]:
    return {"command": command, "show_output": False}


@dataclass(frozen=True)
class Client:
    """One assistant: where its config lives per scope, and how memlode's entries look there."""

    name: str
    title: str
    folder: Callable[[], Path]  # its user config folder: "found on this machine" if it exists
    mcp_files: dict[str, Callable[[Path], Path]]  # scope -> (project root -> MCP config file)
    entry: Callable[[Launch], dict[str, Any]]
    servers_key: str = "mcpServers"  # the object that holds the servers
    toml: bool = False  # Codex CLI: a [mcp_servers.memlode] table
    hooks_files: dict[str, Callable[[Path], Path]] = field(default_factory=dict)
    hook_handler: Callable[[HookSpec, str], dict[str, Any]] | None = None
    grouped: bool = True  # event -> [{matcher, hooks: [handler]}]; else event -> [handler]
    hooks_base: dict[str, Any] = field(default_factory=dict)  # keys a new hooks file needs
    plugin_files: dict[str, Callable[[Path], Path]] = field(default_factory=dict)  # OpenCode
    # what the user must do before the client runs memlode, per scope (init prints it)
    approval: dict[str, str] = field(default_factory=dict)
    schema_only: bool = False  # no CLI of the client runs here: checked against its docs

    @property
    def hook_specs(self) -> tuple[HookSpec, ...]:
        return CLIENT_HOOKS.get(self.name, ())

    def mcp_path(self, scope: str, root: Path) -> Path | None:
        make = self.mcp_files.get(scope)
        return make(root) if make else None

    def mcp_key(self, scope: str, root: Path) -> tuple[str, ...]:
        """Where the servers object sits in the MCP file (Claude Code's local scope: under the
        project's entry of ``~/.claude.json``)."""
        if self.name == DEFAULT_CLIENT and scope == "local":
            return ("projects", str(root), self.servers_key)
        return (self.servers_key,)

    def hooks_path(self, scope: str, root: Path) -> Path | None:
        make = self.hooks_files.get(scope)
        return make(root) if make else None

    def plugin_path(self, scope: str, root: Path) -> Path | None:
        make = self.plugin_files.get(scope)
        return make(root) if make else None

    def check_scope(self, scope: str) -> None:
        if scope not in self.mcp_files and scope not in self.hooks_files:
            raise InvalidInput(f"{self.title} has no {scope} scope; use --scope user")


def _both(
    make: Callable[[Path], Path], user: Callable[[Path], Path]
) -> dict[str, Callable[[Path], Path]]:
    """Scopes for a client without personal per-project settings: local is the user's."""
    return {"local": user, "project": make, "user": user}


_CODEX_TRUST = (
    "Codex CLI runs no hook until you trust it: start `codex`, open /hooks and trust memlode's"
    " hooks (again after a command changes); `codex exec --dangerously-bypass-hook-trust` runs"
    " them in scripts."
)

CLIENTS: dict[str, Client] = {
    c.name: c
    for c in (
        Client(
            "claude",
            "Claude Code",
            lambda: _home() / ".claude",
            {
                "local": lambda r: _home() / ".claude.json",
                "project": lambda r: r / ".mcp.json",
                "user": lambda r: _home() / ".claude.json",
            },
            _claude_entry,
            hooks_files={
                "local": lambda r: r / ".claude" / "settings.local.json",
                "project": lambda r: r / ".claude" / "settings.json",
                "user": lambda r: _home() / ".claude" / "settings.json",
            },
            hook_handler=_claude_handler,
            approval={
                "project": "Claude Code asks each teammate to approve the servers of .mcp.json on"
                " first start (`claude mcp list` shows them once approved); every teammate needs"
                " `memlode` on PATH.",
            },
        ),
        Client(
            "codex",
            "Codex CLI",
            codex_home,
            _both(lambda r: r / ".codex" / "config.toml", lambda r: codex_home() / "config.toml"),
            _std_entry,
            servers_key="mcp_servers",
            toml=True,
            hooks_files=_both(
                lambda r: r / ".codex" / "hooks.json", lambda r: codex_home() / "hooks.json"
            ),
            hook_handler=_codex_handler,
            approval={
                "local": _CODEX_TRUST,
                "user": _CODEX_TRUST,
                "project": "Codex CLI reads .codex/ only in a project you trust, and runs no hook"
                " until you trust it in /hooks; every teammate needs `memlode` on PATH.",
            },
        ),
        Client(
            "gemini",
            "Gemini CLI",
            lambda: _home() / ".gemini",
            _both(
                lambda r: r / ".gemini" / "settings.json",
                lambda r: _home() / ".gemini" / "settings.json",
            ),
            _std_entry,
            hooks_files=_both(
                lambda r: r / ".gemini" / "settings.json",
                lambda r: _home() / ".gemini" / "settings.json",
            ),
            hook_handler=_gemini_handler,
            approval={
                "project": "Gemini CLI ignores .gemini/settings.json in a folder you have not"
                " trusted: trust it when Gemini asks (or list it in ~/.gemini/trustedFolders.json);"
                " every teammate needs `memlode` on PATH.",
            },
        ),
        Client(
            "opencode",
            "OpenCode",
            lambda: _xdg_config() / "opencode",
            _both(_opencode_file, lambda r: _opencode_file(_xdg_config() / "opencode")),
            _opencode_entry,
            servers_key="mcp",
            plugin_files=_both(
                lambda r: r / ".opencode" / "plugins" / "memlode.js",
                lambda r: _xdg_config() / "opencode" / "plugins" / "memlode.js",
            ),
            approval={"project": "Every teammate needs `memlode` on PATH."},
        ),
        Client(
            "cursor",
            "Cursor",
            lambda: _home() / ".cursor",
            _both(lambda r: r / ".cursor" / "mcp.json", lambda r: _home() / ".cursor" / "mcp.json"),
            _std_entry,
            hooks_files=_both(
                lambda r: r / ".cursor" / "hooks.json", lambda r: _home() / ".cursor" / "hooks.json"
            ),
            hook_handler=_cursor_handler,
            grouped=False,
            hooks_base={"version": 1},
            approval={"project": "Every teammate needs `memlode` on PATH."},
            schema_only=True,
        ),
        Client(
            "windsurf",
            "Windsurf",
            lambda: _home() / ".codeium" / "windsurf",
            {
                "local": lambda r: _home() / ".codeium" / "windsurf" / "mcp_config.json",
                "user": lambda r: _home() / ".codeium" / "windsurf" / "mcp_config.json",
            },
            _std_entry,
            hooks_files=_both(
                lambda r: r / ".windsurf" / "hooks.json",
                lambda r: _home() / ".codeium" / "windsurf" / "hooks.json",
            ),
            hook_handler=_windsurf_handler,
            grouped=False,
            approval={
                "project": "Windsurf reads MCP servers only from"
                " ~/.codeium/windsurf/mcp_config.json: `memlode init --client windsurf` puts"
                " memlode there; every teammate needs `memlode` on PATH.",
            },
            schema_only=True,
        ),
    )
}
