"""Claude Code's own pieces of the integration: the hook command line (``hook_command``: the
interpreter memlode is installed in, by absolute path and quoted, straight into the dispatcher;
no shim or ``PATH`` lookup), how memlode's entries are recognised (``is_memlode_command``: that
command, ``memlode-hook``, ``memlode hook`` or the older ``-m memlode.hooks``), the plugin's
``hooks.json`` generated from the hook-event table, JSON settings read and written for
``init --http``, and the ``hook`` command. ``init``/``disable`` for every client are in
``memlode.cli.init_cmds`` and ``memlode.cli.wiring``, ``doctor`` in ``memlode.cli.doctor_cmd``.

``init --http`` registers memlode's HTTP server with its bearer token instead of a stdio server
(``memlode.cli.claude_mcp``: the token goes to Claude Code's local scope, not the repository).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

import click

from memlode.cli.claude_mcp import MCP_NAME
from memlode.errors import InvalidInput
from memlode.hook_events import CLIENT_HOOKS, DEFAULT_CLIENT, HOOK_CODE, HookSpec

__all__ = [
    "HOOK_SPECS",
    "MCP_NAME",
    "HookSpec",
    "hook",
    "hook_command",
    "is_memlode_command",
    "project_root",
    "read_json",
    "update_json",
]


HOOK_SPECS = CLIENT_HOOKS[DEFAULT_CLIENT]  # Claude Code's row of the hook-event table

_OURS = re.compile(
    r"-m\s+memlode\.hooks\b|memlode\.hooks\.dispatch\b|(?:^|[\s/\\\"'])memlode(?:\s+hook|-hook)\s"
)


def is_memlode_command(command: object) -> bool:
    return isinstance(command, str) and _OURS.search(command) is not None


def _quote(path: str) -> str:
    """A shell word for ``path``: double quotes (works in sh, bash, Git Bash and cmd)."""
    if os.name == "nt":
        path = path.replace("\\", "/")
    escaped = re.sub(r'(["\\$`])', r"\\\1", path)
    return f'"{escaped}"'


def hook_command(
    python: str, event: str, env: dict[str, str] | None = None, client: str = DEFAULT_CLIENT
) -> str:
    """The command a client runs for memlode event ``event``: this interpreter straight into
    the dispatcher, with the client named after the event (all but Claude Code's)."""
    prefix = ""
    if env and os.name != "nt":
        prefix = " ".join(f"{k}={_quote(v)}" for k, v in sorted(env.items())) + " "
    suffix = "" if client == DEFAULT_CLIENT else f" {client}"
    return f'{prefix}{_quote(python)} -c "{HOOK_CODE}" {event}{suffix}'


def _handler(spec: HookSpec, command: str) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command", "command": command, "timeout": spec.timeout}
    if spec.async_:
        handler["async"] = True
    return handler


def _set_matcher(group: dict[str, Any], matcher: str | None) -> None:
    if matcher is None:
        group.pop("matcher", None)
    else:
        group["matcher"] = matcher


PLUGIN_LAUNCHER = 'sh "${CLAUDE_PLUGIN_ROOT}/scripts/run-memlode" hook'
PLUGIN_DESCRIPTION = (
    "memlode: capture the session and hand back what is remembered"
    " (the hooks `memlode init` installs)"
)


def plugin_hooks_json() -> str:
    """The text of plugin/hooks/hooks.json (regenerate: ``python -m memlode.cli.claude_cmds``)."""
    hooks: dict[str, Any] = {}
    for spec in HOOK_SPECS:
        group: dict[str, Any] = {}
        _set_matcher(group, spec.matcher)
        group["hooks"] = [_handler(spec, f"{PLUGIN_LAUNCHER} {spec.name}")]
        hooks[spec.event] = [group]
    data = {"description": PLUGIN_DESCRIPTION, "hooks": hooks}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# ---- files -----------------------------------------------------------------------------------


def read_json(path: Path) -> dict[str, Any]:
    if path.exists() and not path.is_file():  # a device such as /dev/zero would never end
        raise InvalidInput(f"{path} is not a regular file; give a JSON settings file")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{path} is not UTF-8 text; give a JSON settings file") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); fix it, then run again"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path} does not hold a JSON object; fix it, then run again")
    return data


def _write_json(path: Path, data: dict[str, Any], *, private: bool = False) -> None:
    """Replace ``path`` atomically, keeping its permissions; ``private``: 0600 (it holds a
    secret). A new file that is not private gets the usual 0644 less the umask."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    if private:
        mode = 0o600 if mode is None else mode & 0o600
    tmp = path.with_name(f".{path.name}.memlode-{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, 0o600 if private else 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, path)


def update_json(path: Path, change: Any, *, private: bool = False) -> bool:
    """Apply ``change(data) -> data`` to a JSON file; write only if it changed. True if written.

    ``private`` (the file holds a secret) also tightens an unchanged file to 0600.
    """
    before = read_json(path)
    after = change(before)
    if after == before and path.exists():
        if private and stat.S_IMODE(path.stat().st_mode) & 0o077:
            os.chmod(path, stat.S_IMODE(path.stat().st_mode) & 0o600)
        return False
    _write_json(path, after, private=private)
    return True


def project_root() -> Path:
    from memlode.project import find_project_root

    cwd = Path.cwd()
    return find_project_root(cwd) or cwd


def _explicit_env(ctx: click.Context) -> dict[str, str]:
    """MEMLODE_HOME / MEMLODE_DB as chosen for this run, to pin hooks and MCP to the same store.

    A server URL (a team store) is never written into a settings file: it may hold a password,
    and the hooks and the server read it from the environment the user exports it in."""
    root = ctx.find_root().obj or {}
    env: dict[str, str] = {}
    home = root.get("home") or os.environ.get("MEMLODE_HOME")
    db = root.get("db_path") or os.environ.get("MEMLODE_DB")
    if home:
        env["MEMLODE_HOME"] = str(Path(home).expanduser().resolve())
    if db and "://" not in str(db):
        env["MEMLODE_DB"] = str(Path(db).expanduser().resolve())
    return env


# ---- commands --------------------------------------------------------------------------------


@click.command()
@click.argument("event")
@click.argument("client", required=False, default=DEFAULT_CLIENT)
@click.pass_context
def hook(ctx: click.Context, event: str, client: str) -> None:
    """Run one hook EVENT with its JSON payload on stdin (always exits 0).

    EVENT is memlode's event (session-start, prompt, post-tool, post-tool-failure, stop,
    pre-compact, post-compact, subagent-stop, session-end) or the client's own name for it;
    CLIENT is the assistant that fired it (claude, the default, codex, cursor, gemini, opencode,
    windsurf). `memlode hook EVENT [CLIENT]` without options goes straight to the hook
    dispatcher, skipping the CLI's start-up.
    """
    for key, value in _explicit_env(ctx).items():
        os.environ[key] = value
    # The hooks are another interface: started as installed hooks start them (this process
    # becomes the hook, with the same stdin and the same exit status 0), not imported.
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-c", HOOK_CODE, event, client])


if __name__ == "__main__":  # the plugin's hooks.json, from the table
    sys.stdout.write(plugin_hooks_json())
