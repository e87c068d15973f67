"""``memlode init`` and ``memlode disable``: Claude Code's hooks and MCP registration by default
(``memlode.cli.claude_cmds``, ``memlode.cli.claude_mcp``), or with ``--client`` another
assistant's own configuration (``memlode.cli.clients``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from memlode.cli import claude_mcp
from memlode.cli.claude_cmds import (
    _explicit_env,
    _paths,
    merge_hooks,
    project_root,
    remove_hooks,
    update_json,
)
from memlode.cli.claude_mcp import MCP_NAME
from memlode.errors import InvalidInput, StorageError

__all__ = ["CLIENT_NAMES", "disable", "init"]


def _scope_option(fn: Any) -> Any:
    fn = click.option(
        "--mcp-file",
        type=click.Path(dir_okay=False),
        default=None,
        help="MCP registration file (default: .mcp.json, or ~/.claude.json for --scope user).",
    )(fn)
    fn = click.option(
        "--settings-file",
        type=click.Path(dir_okay=False),
        default=None,
        help="Claude Code settings file to edit (default: the scope's settings.json).",
    )(fn)
    fn = click.option(
        "--scope",
        type=click.Choice(["project", "user"]),
        default=None,
        help="project (the default; Windsurf: user only): the project's config files;"
        " user: the ones in your home folder (Claude Code: ~/.claude/settings.json).",
    )(fn)
    return click.option(
        "--client",
        type=click.Choice(CLIENT_NAMES),
        default="claude",
        show_default=True,
        help="The assistant to wire (README, 'Other assistants': where each one's config goes).",
    )(fn)


# The assistants `--client` knows; all but Claude Code are in memlode.cli.clients (imported only
# when one is asked for).
CLIENT_NAMES = ["claude", "codex", "cursor", "gemini", "opencode", "windsurf"]


def _other_client(ctx: click.Context, client: str, **claude_only: object) -> bool:
    """True if ``client`` is not Claude Code (then the Claude-only options must be unset)."""
    if client == "claude":
        return False
    given = [f"--{k.replace('_', '-')}" for k, v in claude_only.items() if v]
    if given:
        raise InvalidInput(f"{', '.join(given)}: only with --client claude")
    return True


@click.command()
@_scope_option
@click.option("--no-mcp", is_flag=True, help="Install the hooks only; do not register MCP.")
@click.option(
    "--http",
    "use_http",
    is_flag=True,
    help="Register memlode's HTTP server (`memlode mcp --http`) with its bearer token, in "
    "Claude Code's local scope (~/.claude.json) unless --mcp-file says where.",
)
@click.option(
    "--host",
    default=claude_mcp.DEFAULT_HOST,
    show_default=True,
    help="With --http: the address `memlode mcp --http` serves on.",
)
@click.option(
    "--port",
    default=claude_mcp.DEFAULT_PORT,
    show_default=True,
    type=click.IntRange(1, 65535),
    help="With --http: the port `memlode mcp --http` serves on.",
)
@click.pass_context
def init(
    ctx: click.Context,
    client: str,
    scope: str | None,
    settings_file: str | None,
    mcp_file: str | None,
    no_mcp: bool,
    use_http: bool,
    host: str,
    port: int,
) -> None:
    """Install memlode's Claude Code hooks and register its MCP server.

    Merges into the existing settings (other hooks are kept) and is safe to run again.
    Restart Claude Code (or review /hooks) afterwards. With --http the MCP entry points at
    `memlode mcp --http` and carries its bearer token; start that server yourself.

    --client codex|cursor|gemini|opencode|windsurf writes that assistant's own MCP config (and
    the Codex CLI and Gemini CLI hooks) instead.
    """
    python = str(Path(sys.executable).absolute())
    env = _explicit_env(ctx)
    if _other_client(
        ctx, client, settings_file=settings_file, mcp_file=mcp_file, no_mcp=no_mcp, http=use_http
    ):
        from memlode.cli.clients import init_client

        for line in init_client(client, scope, project_root(), python, env):
            click.echo(line)
        return
    scope = scope or "project"
    settings_path, mcp_path, user_mcp = _paths(scope, settings_file, mcp_file)
    changed = update_json(settings_path, lambda data: merge_hooks(data, python, env))
    click.echo(f"hooks: {'installed in' if changed else 'already up to date in'} {settings_path}")
    if not no_mcp and use_http:
        _register_http(ctx, scope, mcp_file, host, port)
    elif not no_mcp:
        changed = update_json(mcp_path, claude_mcp.register(claude_mcp.stdio_entry(python, env)))
        where = f"{mcp_path}" + (" (user scope)" if user_mcp else "")
        click.echo(f"mcp: {'registered in' if changed else 'already registered in'} {where}")
    click.echo(f"interpreter: {python}")
    click.echo("Restart Claude Code (or open /hooks) so it picks up the new hooks.")


def _register_http(
    ctx: click.Context, scope: str, mcp_file: str | None, host: str, port: int
) -> None:
    """The HTTP entry with the token: in ``--mcp-file``, the user scope, or the local scope."""
    from memlode.cli.common import settings_from
    from memlode.owner_only import http_token

    settings = settings_from(ctx)
    try:
        token = http_token(settings.home)
    except OSError as exc:
        raise StorageError(f"cannot read or create the HTTP token: {exc}") from None
    url = claude_mcp.http_url(host, port)
    change = claude_mcp.register(claude_mcp.http_entry(url, token))
    if mcp_file or scope == "user":
        path = Path(mcp_file).expanduser().resolve() if mcp_file else Path.home() / ".claude.json"
        changed = update_json(path, change, private=True)
        where = f"{path}" + ("" if mcp_file else " (user scope)")
    else:
        root = project_root()
        path = Path.home() / ".claude.json"
        changed = update_json(
            path, lambda data: claude_mcp.in_local_scope(data, root, change), private=True
        )
        where = f"{path} for {root} (local scope: the token stays out of the repository)"
    state = "registered in" if changed else "already registered in"
    click.echo(f"mcp: {state} {where} as {url} with its bearer token")
    click.echo(f"start the server with: memlode mcp --http --host {host} --port {port}")


@click.command()
@_scope_option
@click.pass_context
def disable(
    ctx: click.Context,
    client: str,
    scope: str | None,
    settings_file: str | None,
    mcp_file: str | None,
) -> None:
    """Remove memlode's hooks and MCP registration; the stored memories are kept."""
    if _other_client(ctx, client, settings_file=settings_file, mcp_file=mcp_file):
        from memlode.cli.clients import disable_client

        for line in disable_client(client, scope, project_root()):
            click.echo(line)
        return
    scope = scope or "project"
    settings_path, mcp_path, _ = _paths(scope, settings_file, mcp_file)
    removed = 0

    def strip_hooks(data: dict[str, Any]) -> dict[str, Any]:
        nonlocal removed
        out, removed = remove_hooks(data)
        return out

    if settings_path.exists():
        update_json(settings_path, strip_hooks)
    click.echo(f"hooks: removed {removed} memlode handler(s) from {settings_path}")
    dropped = False

    def unregister(data: dict[str, Any]) -> dict[str, Any]:
        nonlocal dropped
        out = json.loads(json.dumps(data))
        servers = out.get("mcpServers")
        if isinstance(servers, dict) and claude_mcp.is_our_entry(servers.get(MCP_NAME)):
            del servers[MCP_NAME]
            dropped = True
        return dict(out)

    if mcp_path.exists():
        update_json(mcp_path, unregister)
    click.echo(f"mcp: {'unregistered from' if dropped else 'not registered in'} {mcp_path}")
    local = Path.home() / ".claude.json"
    if scope == "project" and not mcp_file and local.exists():
        dropped = False
        update_json(local, lambda data: claude_mcp.drop_local(data, project_root(), unregister))
        if dropped:
            click.echo(f"mcp: unregistered from {local} (local scope of {project_root()})")
    click.echo("Your memories are kept; run `memlode init` to turn capture back on.")
