"""memlode in assistants other than Claude Code: ``init --client``/``disable --client`` for Codex
CLI, Cursor, Gemini CLI, OpenCode and Windsurf, and what ``doctor`` reports about each.

Where each client reads its MCP servers (its documentation, checked 2026):

- codex: ``.codex/config.toml`` (project) or ``~/.codex/config.toml`` (user; ``$CODEX_HOME``),
  a ``[mcp_servers.memlode]`` table (``memlode.cli.toml_table`` keeps the rest of the file).
- cursor: ``.cursor/mcp.json`` or ``~/.cursor/mcp.json``, key ``mcpServers``.
- gemini: ``.gemini/settings.json`` or ``~/.gemini/settings.json``, key ``mcpServers``.
- opencode: ``opencode.json`` in the project or ``~/.config/opencode/opencode.json``
  (``$XDG_CONFIG_HOME``), key ``mcp``: ``type: "local"``, the command as a list, ``enabled``.
- windsurf: ``~/.codeium/windsurf/mcp_config.json`` only (no project scope), ``mcpServers``.

Codex reads a project's ``.codex/`` only once the project is trusted. The server is the
interpreter memlode runs in, by absolute path, running ``-m memlode mcp`` (as for Claude Code).

Lifecycle hooks, where the client has them and its payloads carry what memlode's handlers read
(``session_id``, ``cwd``, ``prompt``, ``tool_name``/``tool_input``):

- Codex CLI: ``hooks.json`` next to ``config.toml``, Claude Code's wire format. SessionStart,
  UserPromptSubmit, PostToolUse for ``Bash``, PreCompact and Stop. Not ``apply_patch``: its
  input is a patch, not the Edit/Write fields memlode's extractors read.
- Gemini CLI: ``hooks`` in ``settings.json`` (timeouts in milliseconds). SessionStart,
  BeforeAgent (the prompt), AfterAgent (end of a turn, as Stop), PreCompress and SessionEnd.
  Not AfterTool: Gemini's tools (``read_file``, ``replace``, ``run_shell_command``) have other
  names and argument fields than the ones memlode's extractors know.

Neither client writes Claude Code's transcript format, so no conversation turns are ingested
from them; the session, prompts, captured commands and summaries are.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memlode.cli.claude_cmds import (
    is_memlode_command,
    merge_hooks,
    read_json,
    remove_hooks,
    update_json,
)
from memlode.cli.claude_mcp import MCP_NAME
from memlode.cli.toml_table import read_toml, remove_table, set_table, table_of
from memlode.errors import InvalidInput
from memlode.hook_events import CLIENT_HOOKS, HookSpec

__all__ = ["CLIENTS", "Client", "clients_report", "disable_client", "init_client"]

MCP_ARGS = ["-m", "memlode", "mcp"]
TOML_KEY = ("mcp_servers", MCP_NAME)

MS_PER_S = 1000  # Gemini CLI's hook timeouts are milliseconds


def _codex_handler(spec: HookSpec, command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": spec.timeout}


def _gemini_handler(spec: HookSpec, command: str) -> dict[str, Any]:
    return {
        "name": f"memlode-{spec.name}",
        "type": "command",
        "command": command,
        "timeout": spec.timeout * MS_PER_S,
    }


def _home() -> Path:
    return Path.home()


def _codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or _home() / ".codex")


def _xdg_config() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or _home() / ".config")


def _std_entry(python: str, env: dict[str, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": python, "args": list(MCP_ARGS)}
    if env:
        entry["env"] = dict(env)
    return entry


def _opencode_entry(python: str, env: dict[str, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "local", "command": [python, *MCP_ARGS], "enabled": True}
    if env:
        entry["environment"] = dict(env)
    return entry


def is_ours(entry: object) -> bool:
    """An MCP entry that runs memlode (command and args, or OpenCode's command list)."""
    if not isinstance(entry, dict):
        return False
    words: list[object] = []
    for key in ("command", "args"):
        value = entry.get(key)
        words += value if isinstance(value, list) else [value]
    return any("memlode" in str(word) for word in words if word is not None)


@dataclass(frozen=True)
class Client:
    """One assistant: where its config lives per scope, and how memlode's entries look there."""

    name: str
    title: str
    folder: Callable[[], Path]  # its user config folder: "found on this machine" if it exists
    files: dict[str, Callable[[Path], Path]]  # scope -> (project root -> MCP config file)
    entry: Callable[[str, dict[str, str]], dict[str, Any]]
    servers_key: str = "mcpServers"  # JSON: the object that holds the servers
    toml: bool = False
    hooks_files: dict[str, Callable[[Path], Path]] = field(default_factory=dict)
    hook_specs: tuple[HookSpec, ...] = ()
    hook_handler: Callable[[HookSpec, str], dict[str, Any]] | None = None

    def path(self, scope: str, root: Path) -> Path:
        if scope not in self.files:
            other = next(iter(self.files))
            raise InvalidInput(
                f"{self.title} has no {scope} scope: it reads MCP servers only from"
                f" {self.files[other](root)}; use --scope {other}"
            )
        return self.files[scope](root)


CLIENTS: dict[str, Client] = {
    c.name: c
    for c in (
        Client(
            "codex",
            "Codex CLI",
            _codex_home,
            {
                "project": lambda r: r / ".codex" / "config.toml",
                "user": lambda r: _codex_home() / "config.toml",
            },
            _std_entry,
            toml=True,
            hooks_files={
                "project": lambda r: r / ".codex" / "hooks.json",
                "user": lambda r: _codex_home() / "hooks.json",
            },
            hook_specs=CLIENT_HOOKS["codex"],
            hook_handler=_codex_handler,
        ),
        Client(
            "cursor",
            "Cursor",
            lambda: _home() / ".cursor",
            {
                "project": lambda r: r / ".cursor" / "mcp.json",
                "user": lambda r: _home() / ".cursor" / "mcp.json",
            },
            _std_entry,
        ),
        Client(
            "gemini",
            "Gemini CLI",
            lambda: _home() / ".gemini",
            {
                "project": lambda r: r / ".gemini" / "settings.json",
                "user": lambda r: _home() / ".gemini" / "settings.json",
            },
            _std_entry,
            hooks_files={
                "project": lambda r: r / ".gemini" / "settings.json",
                "user": lambda r: _home() / ".gemini" / "settings.json",
            },
            hook_specs=CLIENT_HOOKS["gemini"],
            hook_handler=_gemini_handler,
        ),
        Client(
            "opencode",
            "OpenCode",
            lambda: _xdg_config() / "opencode",
            {
                "project": lambda r: r / "opencode.json",
                "user": lambda r: _xdg_config() / "opencode" / "opencode.json",
            },
            _opencode_entry,
            servers_key="mcp",
        ),
        Client(
            "windsurf",
            "Windsurf",
            lambda: _home() / ".codeium" / "windsurf",
            {"user": lambda r: _home() / ".codeium" / "windsurf" / "mcp_config.json"},
            _std_entry,
        ),
    )
}


# ---- files ------------------------------------------------------------------------------------


def _write_text(path: Path, text: str) -> None:
    """Replace ``path`` atomically, keeping its permissions (a new file: 0644 less the umask)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    tmp = path.with_name(f".{path.name}.memlode-{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(tmp, flags, 0o644), "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, path)


def _read_text(path: Path) -> str:
    if path.exists() and not path.is_file():
        raise InvalidInput(f"{path} is not a regular file; give a TOML config file")
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path} as UTF-8 text: {exc}") from None


def _servers(data: dict[str, Any], key: str) -> dict[str, Any]:
    servers = data.get(key)
    if servers is not None and not isinstance(servers, dict):
        raise InvalidInput(f'"{key}" in the config file is not an object; fix it by hand first')
    return servers or {}


def _register_json(key: str, entry: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def change(data: dict[str, Any]) -> dict[str, Any]:
        out = json.loads(json.dumps(data))
        out[key] = {**_servers(out, key), MCP_NAME: entry}
        return dict(out)

    return change


def _unregister_json(key: str, data: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(data))
    servers = out.get(key)
    if isinstance(servers, dict) and is_ours(servers.get(MCP_NAME)):
        del servers[MCP_NAME]
    return dict(out)


# ---- init / disable ---------------------------------------------------------------------------


def _scope(client: Client, scope: str | None) -> str:
    return scope or ("project" if "project" in client.files else "user")


def init_client(
    name: str, scope: str | None, root: Path, python: str, env: dict[str, str]
) -> list[str]:
    """Register memlode with client ``name`` (and its hooks); the lines to print."""
    client = CLIENTS[name]
    scope = _scope(client, scope)
    path = client.path(scope, root)
    entry = client.entry(python, env)
    if client.toml:
        text = _read_text(path)
        changed = table_of(read_toml(text, str(path)), TOML_KEY) != entry
        if changed:
            _write_text(path, set_table(text, TOML_KEY, entry, str(path)))
    else:
        changed = update_json(path, _register_json(client.servers_key, entry))
    lines = [f"mcp: {'registered in' if changed else 'already registered in'} {path}"]
    if client.hook_specs:
        hooks_path = client.hooks_files[scope](root)
        specs, handler = client.hook_specs, client.hook_handler
        changed_hooks = update_json(
            hooks_path, lambda data: merge_hooks(data, python, env, specs, handler, name)
        )
        state = "installed in" if changed_hooks else "already up to date in"
        events = ", ".join(s.event for s in specs)
        lines.append(f"hooks: {state} {hooks_path} ({events})")
        changed = changed or changed_hooks
    lines.append(f"interpreter: {python}")
    lines.append(
        f"Restart {client.title} so it picks up memlode."
        if changed
        else f"Nothing changed: memlode was already set up for {client.title}."
    )
    return lines


def disable_client(name: str, scope: str | None, root: Path) -> list[str]:
    """Remove exactly memlode's entries from client ``name``'s config; the lines to print."""
    client = CLIENTS[name]
    scope = _scope(client, scope)
    path = client.path(scope, root)
    dropped = False
    if client.toml and path.exists():
        text = _read_text(path)
        if is_ours(table_of(read_toml(text, str(path)), TOML_KEY)):
            _write_text(path, remove_table(text, TOML_KEY, str(path)))
            dropped = True
    elif path.exists():
        dropped = update_json(path, lambda data: _unregister_json(client.servers_key, data))
    lines = [f"mcp: {'unregistered from' if dropped else 'not registered in'} {path}"]
    if client.hook_specs:
        hooks_path = client.hooks_files[scope](root)
        removed = 0

        def strip(data: dict[str, Any]) -> dict[str, Any]:
            nonlocal removed
            out, removed = remove_hooks(data)
            return out

        if hooks_path.exists():
            update_json(hooks_path, strip)
        lines.append(f"hooks: removed {removed} memlode handler(s) from {hooks_path}")
    lines.append(f"Your memories are kept; run `memlode init --client {name}` to turn it back on.")
    return lines


# ---- doctor -----------------------------------------------------------------------------------


def _mcp_state(client: Client, path: Path) -> dict[str, Any]:
    report: dict[str, Any] = {"file": str(path), "registered": False}
    if not path.exists():
        return report
    try:
        if client.toml:
            entry = table_of(read_toml(_read_text(path), str(path)), TOML_KEY)
        else:
            entry = _servers(read_json(path), client.servers_key).get(MCP_NAME)
    except InvalidInput as exc:
        report["error"] = str(exc)
        return report
    if is_ours(entry):
        assert isinstance(entry, dict)
        command = entry.get("command")
        python = command[0] if isinstance(command, list) and command else command
        report.update(registered=True, interpreter=python)
    return report


def _hooks_state(client: Client, path: Path) -> dict[str, Any]:
    report: dict[str, Any] = {"file": str(path), "events": []}
    if not path.exists():
        return report
    try:
        hooks = read_json(path).get("hooks")
    except InvalidInput as exc:
        report["error"] = str(exc)
        return report
    for spec in client.hook_specs:
        groups = hooks.get(spec.event) if isinstance(hooks, dict) else None
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if any(
                isinstance(h, dict) and is_memlode_command(h.get("command"))
                for h in (handlers if isinstance(handlers, list) else [])
            ):
                report["events"].append(spec.event)
                break
    return report


def clients_report(root: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Each client found on this machine (its config folder exists): is memlode registered
    (and its hooks installed), per scope; and the problems (an entry whose interpreter is gone,
    a config file memlode cannot read)."""
    found: list[dict[str, Any]] = []
    problems: list[str] = []
    for client in CLIENTS.values():
        folder = client.folder()
        if not folder.is_dir():
            continue
        mcp = [
            _mcp_state(client, client.files[s](root))
            for s in ("project", "user")
            if s in client.files
        ]
        hooks = [_hooks_state(client, client.hooks_files[s](root)) for s in client.hooks_files]
        for report in [*mcp, *hooks]:
            if "error" in report:
                problems.append(f"{client.name}: {report['error']}")
        for report in mcp:
            python = report.get("interpreter")
            if report["registered"] and not (isinstance(python, str) and os.path.isfile(python)):
                problems.append(
                    f"{client.name}: memlode's entry in {report['file']} runs {python},"
                    f" which does not exist; run `memlode init --client {client.name}` again"
                )
        found.append(
            {
                "client": client.name,
                "folder": str(folder),
                "registered": any(m["registered"] for m in mcp),
                "mcp": mcp,
                "hooks": hooks if client.hook_specs else None,
            }
        )
    return found, problems
