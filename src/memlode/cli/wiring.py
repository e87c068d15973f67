"""``init`` and ``disable`` for every assistant: the edits planned in full, then written.

Every file is read and edited in memory first (``plan_init``/``plan_disable``); only when all
of them parse and edit cleanly are they written (``apply``), so a malformed file anywhere
changes nothing at all. JSON and JSONC files are edited in place (``memlode.cli.jsonc_edit``:
comments and formatting kept), Codex's TOML line-wise (``memlode.cli.toml_table``), and what
``init`` added ``disable`` removes exactly: a file ``init`` created is deleted again, a key it
added (``mcpServers``, ``hooks``) goes with its last entry.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlode.cli.claude_cmds import is_memlode_command
from memlode.cli.claude_mcp import MCP_NAME
from memlode.cli.clients import Client, Launch, is_ours
from memlode.cli.jsonc_edit import Document
from memlode.errors import InvalidInput

__all__ = ["Edit", "apply", "plan_disable", "plan_init", "read_text"]

PLUGIN_MARK = "memlode-opencode-plugin"  # the first line of the plugin file memlode writes


@dataclass
class Edit:
    """One file: its text before (None: absent) and after (None: deleted)."""

    path: Path
    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after


def read_text(path: Path) -> str | None:
    if path.exists() and not path.is_file():  # a device such as /dev/zero would never end
        raise InvalidInput(f"{path} is not a regular file; give a settings file")
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{path} is not UTF-8 text; fix it, then run again") from None


class _Files:
    """The planned state of each file touched (several edits may go to one file)."""

    def __init__(self) -> None:
        self.edits: dict[Path, Edit] = {}

    def text(self, path: Path) -> str | None:
        if path not in self.edits:
            before = read_text(path)
            self.edits[path] = Edit(path, before, before)
        return self.edits[path].after

    def document(self, path: Path) -> Document:
        return Document(self.text(path) or "", str(path))

    def put(self, path: Path, text: str | None) -> None:
        self.text(path)
        self.edits[path].after = text


# ---- planning ------------------------------------------------------------------------------------


def plan_init(
    client: Client,
    scope: str,
    root: Path,
    launch: Launch,
    *,
    mcp_file: Path | None = None,
    hooks_file: Path | None = None,
    with_mcp: bool = True,
) -> tuple[list[Edit], list[str]]:
    """The edits that wire ``client`` (its MCP server, hooks or plugin) and the lines to print."""
    client.check_scope(scope)
    files = _Files()
    said: list[tuple[str, Path]] = []  # (what, the file it went to): stated once all are planned
    mcp_path = mcp_file or client.mcp_path(scope, root)
    if with_mcp and mcp_path is not None:
        key = (client.servers_key,) if mcp_file else client.mcp_key(scope, root)
        _put_server(files, client, mcp_path, key, client.entry(launch))
        said.append((f"mcp: {{}} {_where(mcp_path, key)}", mcp_path))
    hooks_path = hooks_file or client.hooks_path(scope, root)
    if hooks_path is not None and client.hook_specs:
        _put_hooks(files, client, hooks_path, launch)
        events = ", ".join(dict.fromkeys(s.event for s in client.hook_specs))
        said.append((f"hooks: {{}} {hooks_path} ({events})", hooks_path))
    plugin_path = client.plugin_path(scope, root)
    if plugin_path is not None:
        files.put(plugin_path, opencode_plugin(launch))
        said.append((f"plugin: {{}} {plugin_path}", plugin_path))
    edits = list(files.edits.values())
    changed = {e.path for e in edits if e.changed}
    lines = [
        line.format("written to" if path in changed else "already up to date in")
        for line, path in said
    ]
    if launch.python:
        lines.append(f"interpreter: {launch.python}")
    return edits, lines


def _where(path: Path, key: tuple[str, ...]) -> str:
    return f"{path} (local scope of {key[1]})" if len(key) > 2 else str(path)


def plan_disable(
    client: Client,
    scope: str,
    root: Path,
    *,
    mcp_file: Path | None = None,
    hooks_file: Path | None = None,
) -> tuple[list[Edit], list[str]]:
    """The edits that remove exactly memlode's entries, and the lines to print."""
    client.check_scope(scope)
    files = _Files()
    lines: list[str] = []
    mcp_path = mcp_file or client.mcp_path(scope, root)
    if mcp_path is not None and mcp_path.exists():
        key = (client.servers_key,) if mcp_file else client.mcp_key(scope, root)
        dropped = _drop_server(files, client, mcp_path, key)
        lines.append(f"mcp: {'unregistered from' if dropped else 'not registered in'} {mcp_path}")
    elif mcp_path is not None:
        lines.append(f"mcp: not registered in {mcp_path}")
    hooks_path = hooks_file or client.hooks_path(scope, root)
    if hooks_path is not None and client.hook_specs:
        removed = _drop_hooks(files, client, hooks_path) if hooks_path.exists() else 0
        lines.append(f"hooks: removed {removed} memlode handler(s) from {hooks_path}")
    plugin_path = client.plugin_path(scope, root)
    if plugin_path is not None:
        text = files.text(plugin_path)
        ours = text is not None and PLUGIN_MARK in text.split("\n", 1)[0]
        if ours:
            files.put(plugin_path, None)
        lines.append(f"plugin: {'removed' if ours else 'not installed at'} {plugin_path}")
    return list(files.edits.values()), lines


# ---- MCP -----------------------------------------------------------------------------------------


def _put_server(
    files: _Files, client: Client, path: Path, key: tuple[str, ...], entry: dict[str, Any]
) -> None:
    if client.toml:
        from memlode.cli.toml_table import set_table

        text = files.text(path) or ""
        files.put(path, set_table(text, (*key, MCP_NAME), entry, str(path)))
        return
    doc = files.document(path)
    servers = doc.get(key)
    if servers is not None and not isinstance(servers, dict):
        raise InvalidInput(f'"{key[-1]}" in {path} is not an object; fix it by hand first')
    doc.set((*key, MCP_NAME), entry)
    files.put(path, doc.result())


def _drop_server(files: _Files, client: Client, path: Path, key: tuple[str, ...]) -> bool:
    if client.toml:
        from memlode.cli.toml_table import read_toml, remove_table, table_of

        text = files.text(path) or ""
        if not is_ours(table_of(read_toml(text, str(path)), (*key, MCP_NAME))):
            return False
        after = remove_table(text, (*key, MCP_NAME), str(path))
        files.put(path, after if after.strip() else None)
        return True
    doc = files.document(path)
    if not is_ours(doc.get((*key, MCP_NAME))):
        return False
    doc.remove((*key, MCP_NAME))
    for depth in range(len(key), 0, -1):  # the objects memlode's entry was the last one of
        if doc.get(key[:depth]) == {}:
            doc.remove(key[:depth])
    files.put(path, doc.result())
    return True


# ---- hooks ---------------------------------------------------------------------------------------


def _ours(handler: object) -> bool:
    return isinstance(handler, dict) and is_memlode_command(handler.get("command"))


def _put_hooks(files: _Files, client: Client, path: Path, launch: Launch) -> None:
    assert client.hook_handler is not None
    doc = files.document(path)
    hooks = doc.get(("hooks",))
    if hooks is not None and not isinstance(hooks, dict):
        raise InvalidInput(f'"hooks" in {path} is not an object; fix it by hand first')
    if hooks is None:
        for name, value in client.hooks_base.items():
            if doc.get((name,)) is None:
                doc.set((name,), value)
    for spec in client.hook_specs:
        handler = client.hook_handler(spec, launch.hook(spec.name, client.name))
        wanted: dict[str, Any] = handler
        if client.grouped:
            wanted = {"matcher": spec.matcher} if spec.matcher is not None else {}
            wanted["hooks"] = [handler]
        path_ = ("hooks", spec.event)
        entries = doc.get(path_)
        if entries is not None and not isinstance(entries, list):
            raise InvalidInput(f'"hooks.{spec.event}" in {path} is not a list; fix it first')
        if not entries:
            doc.set(path_, [wanted])
            continue
        # memlode's handlers under this event that the client lists (first one kept)
        found = [
            (i, h)
            for i, entry in enumerate(entries)
            for h, inner in enumerate(_handlers(entry, client.grouped))
            if _ours(inner)
        ]
        if not found:
            doc.append(path_, wanted)
            continue
        (first, inner), rest = found[0], found[1:]
        for i, h in reversed(rest):  # duplicates of memlode's handler: dropped
            if i == first:
                doc.remove((*path_, i, "hooks", h))
            else:
                _remove_handler(doc, path_, entries, i, h, client.grouped)
        if not client.grouped or len(_handlers(doc.get((*path_, first)), True)) == 1:
            doc.replace((*path_, first), wanted)
        else:  # memlode's handler in a group with someone else's: only the handler is ours
            doc.replace((*path_, first, "hooks", inner), handler)
    files.put(path, doc.result())


def _handlers(entry: Any, grouped: bool) -> list[Any]:
    if not grouped:
        return [entry]
    inner = entry.get("hooks") if isinstance(entry, dict) else None
    return inner if isinstance(inner, list) else []


def _remove_handler(
    doc: Document, path: tuple[str, ...], entries: list[Any], i: int, h: int, grouped: bool
) -> None:
    handlers = _handlers(entries[i], grouped)
    if not grouped or all(_ours(x) for x in handlers):
        doc.remove((*path, i))
    else:
        doc.remove((*path, i, "hooks", h))


def _drop_hooks(files: _Files, client: Client, path: Path) -> int:
    doc = files.document(path)
    hooks = doc.get(("hooks",))
    if not isinstance(hooks, dict):
        return 0
    removed = 0
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            continue
        before = removed
        for i in reversed(range(len(entries))):
            entry = entries[i]
            grouped = isinstance(entry, dict) and isinstance(entry.get("hooks"), list)
            handlers = _handlers(entry, grouped)
            mine = [h for h, x in enumerate(handlers) if _ours(x)]
            if not mine:
                continue
            removed += len(mine)
            if not grouped or len(mine) == len(handlers):
                doc.remove(("hooks", event, i))
            else:
                for h in reversed(mine):
                    doc.remove(("hooks", event, i, "hooks", h))
        if removed > before and doc.get(("hooks", event)) == []:
            doc.remove(("hooks", event))
    if removed and doc.get(("hooks",)) == {}:
        doc.remove(("hooks",))
        for name, value in client.hooks_base.items():
            if doc.get((name,)) == value and len(doc.data) == 1:
                doc.remove((name,))
    files.put(path, doc.result())
    return removed


# ---- the OpenCode plugin -------------------------------------------------------------------------


def opencode_plugin(launch: Launch) -> str:
    """The plugin file memlode installs for OpenCode: its template with the hook command and
    OpenCode's row of the hook-event table filled in."""
    import json

    import memlode
    from memlode.hook_events import CLIENT_HOOKS

    # read as package data, by path: the CLI does not import the hooks (another interface)
    template_path = Path(memlode.__file__).parent / "hooks" / "opencode_plugin.js"
    template = template_path.read_text(encoding="utf-8")
    events = {spec.event: spec.name for spec in CLIENT_HOOKS["opencode"]}
    text = template.replace("__MEMLODE_HOOK_COMMAND__", json.dumps(launch.hook_argv()))
    text = text.replace("__MEMLODE_EVENTS__", json.dumps(events))
    return f"// {PLUGIN_MARK}: written by `memlode init`; `memlode disable` removes it\n{text}"


# ---- writing -------------------------------------------------------------------------------------


def apply(edits: list[Edit]) -> None:
    """Write every changed file (atomically, keeping its permissions) or delete it."""
    for edit in edits:
        if not edit.changed:
            continue
        if edit.after is None:
            edit.path.unlink(missing_ok=True)
            continue
        _write_text(edit.path, edit.after)


def _write_text(path: Path, text: str) -> None:
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
