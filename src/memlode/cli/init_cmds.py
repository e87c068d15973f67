"""``memlode init`` and ``memlode disable``: an assistant's hooks (or plugin) and MCP
registration, Claude Code's by default, another's with ``--client`` (the table in
``memlode.cli.clients``; the edits in ``memlode.cli.wiring``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from memlode.cli import claude_mcp
from memlode.cli.claude_cmds import _explicit_env, project_root, update_json
from memlode.cli.clients import CLIENTS, SCOPES, Client, Launch
from memlode.cli.common import echo_json, json_option
from memlode.cli.wiring import Edit, apply, plan_disable, plan_init
from memlode.errors import InvalidInput, StorageError

__all__ = ["CLIENT_NAMES", "disable", "init"]


def _scope_option(fn: Any) -> Any:
    fn = click.option(
        "--mcp-file",
        type=click.Path(dir_okay=False),
        default=None,
        help="Claude Code: the MCP registration file to edit instead of the scope's.",
    )(fn)
    fn = click.option(
        "--settings-file",
        type=click.Path(dir_okay=False),
        default=None,
        help="Claude Code: the settings file for the hooks instead of the scope's.",
    )(fn)
    fn = click.option(
        "--scope",
        type=click.Choice(SCOPES),
        default=None,
        help="local (init's default): your personal settings for this project (Claude Code:"
        " .claude/settings.local.json and ~/.claude.json; the others keep none per project, so"
        " their user config); project: the files a team commits, naming only the `memlode`"
        " command; user: your user config. disable's default: local and project.",
    )(fn)
    return click.option(
        "--client",
        type=click.Choice(CLIENT_NAMES),
        default="claude",
        show_default=True,
        help="The assistant to wire (README, 'Other assistants': where each one's config goes).",
    )(fn)


CLIENT_NAMES = list(CLIENTS)  # the assistants `--client` knows


def _claude_only(client: str, **claude_only: object) -> None:
    """The Claude-only options must be unset for another client."""
    if client == "claude":
        return
    given = [f"--{k.replace('_', '-')}" for k, v in claude_only.items() if v]
    if given:
        raise InvalidInput(f"{', '.join(given)}: only with --client claude")


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
@json_option
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
    as_json: bool,
) -> None:
    """Wire memlode into an assistant: its hooks (or plugin) and its MCP server.

    Merges into the existing settings (other entries, comments and formatting are kept) and is
    safe to run again; nothing is written if any file cannot be read. --scope local (the
    default) writes your personal settings for this project, naming this interpreter; --scope
    project writes the files a team commits, naming only the `memlode` command; --scope user
    your user configuration. Restart the assistant afterwards.
    """
    wired = CLIENTS[client]
    _claude_only(client, settings_file=settings_file, mcp_file=mcp_file, http=use_http)
    scope = scope or "local"
    root = project_root()
    env = _explicit_env(ctx)
    launch = (
        Launch(None) if scope == "project" else Launch(str(Path(sys.executable).absolute()), env)
    )
    edits, lines = plan_init(
        wired,
        scope,
        root,
        launch,
        mcp_file=_resolved(mcp_file),
        hooks_file=_resolved(settings_file),
        with_mcp=not (no_mcp or use_http),
    )
    apply(edits)
    notes = _init_notes(wired, scope, root, env)
    root_obj = ctx.find_root().obj or {}
    if "://" in str(root_obj.get("db_path") or os.environ.get("MEMLODE_DB") or ""):
        notes.insert(
            0,
            "MEMLODE_DB is a server URL: it is written into no file; the hooks and the MCP server"
            " read it from the environment, so export it where your assistant starts.",
        )
    changed = any(e.changed for e in edits)
    if as_json:
        echo_json(
            {
                "client": client,
                "scope": scope,
                "files": [{"path": str(e.path), "changed": e.changed} for e in edits],
                "notes": notes,
            }
        )
    else:
        for line in lines:
            click.echo(line)
    if use_http and not no_mcp:
        _register_http(ctx, scope, mcp_file, host, port)
    if as_json:
        return
    for note in notes:
        click.echo(note)
    click.echo(
        f"Restart {wired.title} so it picks up memlode."
        if changed or use_http
        else f"Nothing changed: memlode was already set up for {wired.title}."
    )


def _resolved(path: str | None) -> Path | None:
    return Path(path).expanduser().resolve() if path else None


def _init_notes(wired: Client, scope: str, root: Path, env: dict[str, str]) -> list[str]:
    """What the user must know or do: approvals, where memlode went, stale shared entries."""
    notes: list[str] = []
    if scope == "local" and wired.name != "claude":
        notes.append(
            f"{wired.title} keeps no personal settings per project: memlode went into your user"
            " configuration (each project keeps its own memory)."
        )
    if scope == "project" and env:
        names = ", ".join(sorted(env))
        notes.append(
            f"{names}: this machine's, so not written into files a team shares; teammates use"
            " their own store (default ~/.memlode)."
        )
    approval = wired.approval.get(scope)
    if approval:
        notes.append(approval)
    if scope != "project":
        stale = _shared_with_paths(wired, root)
        if stale:
            notes.append(
                f"{', '.join(map(str, stale))} also runs memlode by this machine's paths (an older"
                " `memlode init`): run `memlode disable --scope project`, then"
                " `memlode init --scope project` if your team shares it."
            )
    if wired.schema_only:
        notes.append(
            f"{wired.title}: its hook and MCP files follow its documentation; no {wired.title}"
            " ran against them here."
        )
    return notes


def _shared_with_paths(wired: Client, root: Path) -> list[Path]:
    """The project's shared files that hold memlode entries naming an interpreter path."""
    found: list[Path] = []
    for path in {wired.mcp_path("project", root), wired.hooks_path("project", root)}:
        if path is None or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "memlode" in text and ("memlode.hooks.dispatch" in text or '"-m", "memlode"' in text):
            found.append(path)
    return sorted(found)


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
@json_option
@click.pass_context
def disable(
    ctx: click.Context,
    client: str,
    scope: str | None,
    settings_file: str | None,
    mcp_file: str | None,
    as_json: bool,
) -> None:
    """Remove memlode's hooks and MCP registration; the stored memories are kept.

    Without --scope: this project's personal and shared files (local and project). Each file
    is left as `init` found it: a file `init` created is deleted, nothing else changes.
    """
    wired = CLIENTS[client]
    _claude_only(client, settings_file=settings_file, mcp_file=mcp_file)
    root = project_root()
    scopes = [scope] if scope else [s for s in ("local", "project") if s in _scopes_of(wired)]
    edits: list[Edit] = []
    lines: list[str] = []
    for each in scopes:
        planned, said = plan_disable(
            wired,
            each,
            root,
            mcp_file=_resolved(mcp_file),
            hooks_file=_resolved(settings_file),
        )
        seen = {e.path for e in edits}
        edits += [e for e in planned if e.path not in seen]
        lines += [line for line in said if line not in lines]
    apply(edits)
    if as_json:
        echo_json(
            {
                "client": client,
                "scopes": scopes,
                "files": [{"path": str(e.path), "changed": e.changed} for e in edits],
            }
        )
        return
    for line in lines:
        click.echo(line)
    click.echo(f"Your memories are kept; run `memlode init --client {client}` to turn it back on.")


def _scopes_of(wired: Client) -> set[str]:
    return set(wired.mcp_files) | set(wired.hooks_files) | set(wired.plugin_files)
