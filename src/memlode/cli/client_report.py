"""What ``doctor`` says of each assistant: per scope, whether memlode's MCP server, hooks and
plugin are there; whether the client will run them yet (approval it waits for); and when a hook
of that client last reached memlode (``$MEMLODE_HOME/hook-timings.log``).

An entry that names an interpreter that no longer exists is a problem with its fix.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memlode.cli.claude_cmds import is_memlode_command
from memlode.cli.claude_mcp import MCP_NAME
from memlode.cli.clients import CLIENTS, SCOPES, Client, is_ours
from memlode.cli.jsonc_edit import Document
from memlode.cli.wiring import PLUGIN_MARK, read_text
from memlode.errors import InvalidInput
from memlode.hook_events import CLIENT_LABELS

__all__ = ["clients_report", "codex_hook_hash", "codex_trust", "last_hooks"]


def last_hooks(home: Path) -> dict[str, str]:
    """Client -> the time its newest hook run reached memlode (lines without a client are
    Claude Code's, from before clients were recorded)."""
    from memlode.hook_settings import TIMINGS_FILE

    seen: dict[str, str] = {}
    for name in (TIMINGS_FILE + ".1", TIMINGS_FILE):  # the rotated file first: older
        try:
            with open(home / name, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    parts = line.split()
                    if len(parts) in (3, 4):
                        seen[parts[3] if len(parts) == 4 else "claude"] = parts[0]
        except OSError:
            continue
    return seen


def codex_hook_hash(event: str, matcher: object, handler: dict[str, Any]) -> str:
    """Codex's trust hash of one command hook (its ``command_hook_hash``; tests/clients checks
    it against what Codex itself lists): SHA-256 of the compact, key-sorted JSON of the event
    (snake_case), the matcher (not for user_prompt_submit and stop) and the handler as Codex
    normalises it (timeout in seconds, 600 by default, SessionEnd's capped at 3)."""
    import hashlib
    import json

    timeout = int(handler.get("timeout", 600))
    if event == "session_end":
        timeout = min(timeout, 3)
    normalized: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": timeout,
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": event, "hooks": [normalized]}
    if matcher not in (None, "") and event not in ("user_prompt_submit", "stop"):
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _snake(event: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")


def codex_trust(hooks_path: Path, config_path: Path) -> tuple[int, int]:
    """(memlode's hooks in ``hooks_path``, how many of them Codex trusts): trust is a
    ``[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash`` in the user's config
    that matches the hook's current hash."""
    import tomllib

    doc = _readable(hooks_path)
    hooks = doc.get(("hooks",)) if doc else None
    try:
        text = read_text(config_path) or ""
        state = tomllib.loads(text).get("hooks", {}).get("state", {})
    except (InvalidInput, tomllib.TOMLDecodeError):
        state = {}
    ours = trusted = 0
    for event, groups in (hooks or {}).items():
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            inner = group.get("hooks") if isinstance(group, dict) else None
            for n, handler in enumerate(inner if isinstance(inner, list) else []):
                if not (isinstance(handler, dict) and is_memlode_command(handler.get("command"))):
                    continue
                ours += 1
                key = f"{hooks_path}:{_snake(event)}:{g}:{n}"
                wanted = codex_hook_hash(_snake(event), group.get("matcher"), handler)
                entry = state.get(key) if isinstance(state, dict) else None
                trusted += isinstance(entry, dict) and entry.get("trusted_hash") == wanted
    return ours, trusted


def _document(path: Path) -> Document | None:
    text = read_text(path)
    return None if text is None else Document(text, str(path))


def _readable(path: Path) -> Document | None:
    """The file's document, or None when it is absent or unreadable (reported elsewhere)."""
    try:
        return _document(path)
    except InvalidInput:
        return None


def _mcp_state(client: Client, scope: str, root: Path) -> dict[str, Any] | None:
    path = client.mcp_path(scope, root)
    if path is None:
        return None
    report: dict[str, Any] = {"scope": scope, "file": str(path), "registered": False}
    try:
        if client.toml:
            from memlode.cli.toml_table import read_toml, table_of

            text = read_text(path)
            entry = (
                table_of(read_toml(text, str(path)), ("mcp_servers", MCP_NAME)) if text else None
            )
        else:
            doc = _document(path)
            entry = doc.get((*client.mcp_key(scope, root), MCP_NAME)) if doc else None
    except InvalidInput as exc:
        report["error"] = str(exc)
        return report
    if is_ours(entry):
        assert isinstance(entry, dict)
        command = entry.get("command")
        report["registered"] = True
        report["command"] = command[0] if isinstance(command, list) and command else command
    return report


def _hooks_state(client: Client, scope: str, root: Path) -> dict[str, Any] | None:
    path = client.hooks_path(scope, root)
    if path is None or not client.hook_specs:
        return None
    report: dict[str, Any] = {"scope": scope, "file": str(path), "events": []}
    try:
        doc = _document(path)
    except InvalidInput as exc:
        report["error"] = str(exc)
        return report
    hooks = doc.get(("hooks",)) if doc else None
    commands: list[str] = []
    for spec in client.hook_specs:
        entries = hooks.get(spec.event) if isinstance(hooks, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            for handler in inner if isinstance(inner, list) else [entry]:
                if isinstance(handler, dict) and is_memlode_command(handler.get("command")):
                    if spec.event not in report["events"]:
                        report["events"].append(spec.event)
                    commands.append(str(handler["command"]))
    if commands:
        report["command"] = commands[0]
    return report


def _plugin_state(client: Client, scope: str, root: Path) -> dict[str, Any] | None:
    path = client.plugin_path(scope, root)
    if path is None:
        return None
    try:
        text = read_text(path)
    except InvalidInput:
        text = None
    installed = text is not None and PLUGIN_MARK in text.split("\n", 1)[0]
    return {"scope": scope, "file": str(path), "installed": installed}


def _claude_plugin(root: Path) -> bool:
    """The Claude Code plugin enabled in any of Claude Code's settings files."""
    for path in (
        Path.home() / ".claude" / "settings.json",
        root / ".claude" / "settings.json",
        root / ".claude" / "settings.local.json",
    ):
        doc = _readable(path)
        enabled = doc.get(("enabledPlugins",)) if doc else None
        if isinstance(enabled, dict) and any(
            k.split("@")[0] == "memlode" and v for k, v in enabled.items()
        ):
            return True
    return False


def _waits_for(client: Client, scopes: dict[str, dict[str, Any]], root: Path) -> list[str]:
    """Approvals the client still needs before it runs what memlode registered."""
    waits: list[str] = []
    if client.name == "claude" and scopes.get("project", {}).get("mcp"):
        doc = _readable(root / ".claude" / "settings.local.json")
        approved = doc is not None and (
            doc.get(("enableAllProjectMcpServers",)) is True
            or MCP_NAME in (doc.get(("enabledMcpjsonServers",)) or [])
        )
        if not approved:
            waits.append("approve memlode's server of .mcp.json when Claude Code asks")
    if client.name == "codex":
        from memlode.cli.clients import codex_home

        for scope in scopes:
            path = client.hooks_path(scope, root)
            ours, trusted = codex_trust(path, codex_home() / "config.toml") if path else (0, 0)
            if trusted < ours:
                waits.append(
                    f"trust memlode's hooks in Codex's /hooks ({trusted} of {ours} in {path}"
                    " trusted; Codex runs no untrusted hook)"
                )
    if client.name == "gemini" and scopes.get("project", {}).get("hooks"):
        trusted = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower() == "true"
        doc = _readable(Path.home() / ".gemini" / "trustedFolders.json")
        folders = doc.data if doc else {}
        if not trusted and not any(str(root).startswith(str(k)) for k in folders):
            waits.append(f"trust {root} in Gemini CLI (it ignores an untrusted folder's settings)")
    return waits


def clients_report(root: Path, home: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Each client found on this machine (its config folder exists) or wired in this project:
    per scope, memlode's MCP entry, hooks and plugin; approvals pending; the last hook seen.
    And the problems (an entry whose interpreter is gone, a file memlode cannot read)."""
    seen = last_hooks(home)
    found: list[dict[str, Any]] = []
    problems: list[str] = []
    for client in CLIENTS.values():
        scopes: dict[str, dict[str, Any]] = {}
        shown: set[tuple[Path | None, ...]] = set()
        for scope in SCOPES:
            where = (
                client.mcp_path(scope, root),
                client.hooks_path(scope, root),
                client.plugin_path(scope, root),
            )
            if where in shown or where == (None, None, None):
                continue  # a client without personal project settings: local is user
            shown.add(where)
            state = {
                "mcp": _mcp_state(client, scope, root),
                "hooks": _hooks_state(client, scope, root),
                "plugin": _plugin_state(client, scope, root),
            }
            scopes[scope] = {
                "mcp": bool(state["mcp"] and state["mcp"]["registered"]),
                "hooks": (state["hooks"] or {}).get("events", []),
                "plugin": bool(state["plugin"] and state["plugin"]["installed"]),
                "files": [s for s in state.values() if s is not None],
            }
            for report in scopes[scope]["files"]:
                if "error" in report:
                    problems.append(f"{client.name}: {report['error']}")
                command = report.get("command")
                if isinstance(command, str):
                    problems += _gone(client, report["file"], command)
        wired = any(s["mcp"] or s["hooks"] or s["plugin"] for s in scopes.values())
        plugin = client.name == "claude" and _claude_plugin(root)
        if not wired and not plugin and not client.folder().is_dir():
            continue
        found.append(
            {
                "client": client.name,
                "title": client.title,
                "folder": str(client.folder()),
                "registered": any(s["mcp"] for s in scopes.values()),
                "scopes": {k: {**v, "files": v["files"]} for k, v in scopes.items()},
                "claude_plugin": plugin if client.name == "claude" else None,
                "waits_for": _waits_for(client, scopes, root),
                "last_hook": seen.get(client.name),
                "label": CLIENT_LABELS[client.name],
                "schema_only": client.schema_only,
            }
        )
    return found, list(dict.fromkeys(problems))


def _gone(client: Client, file: str, command: str) -> list[str]:
    """The interpreter an entry names, when it does not exist any more."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return []
    python = next((w for w in words if "=" not in w.split("/")[0]), "")
    if not os.path.isabs(python) or os.path.isfile(python):
        return []
    return [
        f"{client.name}: memlode's entry in {file} runs {python}, which does not exist;"
        f" run `memlode init --client {client.name}` again"
    ]
