"""The ``memlode`` command group: its global options and where each subcommand lives.

Subcommands live in their own modules and are imported only when invoked, so that a quick
command (or a hook) does not pay for the imports of the heavy ones. A capability adds its
commands with one line in ``COMMANDS``.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

import click

from memlode import __version__
from memlode.cli.logs import log_to_stderr

__all__ = ["COMMANDS", "cli"]

# command name -> "module:attribute" (a click.Command)
COMMANDS: dict[str, str] = {
    "store": "memlode.cli.memory_cmds:store",
    "get": "memlode.cli.memory_cmds:get",
    "update": "memlode.cli.memory_cmds:update",
    "delete": "memlode.cli.memory_cmds:delete",
    "list": "memlode.cli.memory_cmds:list_",
    "search": "memlode.cli.memory_cmds:search",
    "stats": "memlode.cli.admin_cmds:stats",
    "demo": "memlode.cli.admin_cmds:demo",
    "namespaces": "memlode.cli.namespace_cmds:namespaces",
    "sessions": "memlode.cli.admin_cmds:sessions",
    "associate": "memlode.cli.memory_cmds:associate",
    "neighbors": "memlode.cli.memory_cmds:neighbors",
    "supersede": "memlode.cli.supersede_cmds:supersede",
    "export": "memlode.cli.admin_cmds:export",
    "import": "memlode.cli.admin_cmds:import_",
    "docs": "memlode.cli.docs_cmds:docs",
    "memory": "memlode.cli.docs_cmds:memory",
    "watch": "memlode.cli.docs_cmds:watch",
    "ingest": "memlode.cli.ingest_cmds:ingest",
    "embed": "memlode.cli.recall_cmds:embed",
    "reembed": "memlode.cli.recall_cmds:reembed",
    "config": "memlode.cli.recall_cmds:config",
    "eval": "memlode.cli.eval_cmds:eval_",
    "mcp": "memlode.cli.mcp_cmds:mcp",
    "resident": "memlode.cli.resident_cmds:resident",
    "init": "memlode.cli.init_cmds:init",
    "disable": "memlode.cli.init_cmds:disable",
    "doctor": "memlode.cli.doctor_cmd:doctor",
    "setup": "memlode.cli.setup_cmd:setup",
    "hook": "memlode.cli.claude_cmds:hook",
    "index": "memlode.cli.code_cmds:index",
    "symbols": "memlode.cli.code_cmds:symbols",
    "map": "memlode.cli.code_cmds:map_",
    "impact": "memlode.cli.code_cmds:impact",
    "graph": "memlode.cli.code_cmds:graph",
    "backup": "memlode.cli.backup_cmds:backup",
    "restore": "memlode.cli.backup_cmds:restore",
    "migrate": "memlode.cli.migrate_cmd:migrate",
    "consolidate": "memlode.cli.consolidate_cmds:consolidate",
    "patterns": "memlode.cli.patterns_cmds:patterns",
    "viz": "memlode.cli.viz_cmds:viz",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(super().list_commands(ctx)))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module_name, attr = target.split(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memlode")
@click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False),
    envvar="MEMLODE_DB",
    help="Database file, or a postgresql:// URL (default: $MEMLODE_HOME/memlode.db).",
)
@click.option(
    "--home",
    type=click.Path(file_okay=False),
    envvar="MEMLODE_HOME",
    help="memlode's home folder (default: ~/.memlode).",
)
@click.option(
    "--created-by",
    envvar="MEMLODE_CREATED_BY",
    help="Who stores memories, kept with each one on a PostgreSQL store (default: login@host).",
)
@click.option("-v", "--verbose", count=True, help="Log more to stderr (-v info, -vv debug).")
@click.pass_context
def cli(
    ctx: click.Context,
    db_path: str | None,
    home: str | None,
    created_by: str | None,
    verbose: int,
) -> None:
    """memlode: persistent, local-first memory for AI coding assistants.

    Memories live in one SQLite file, or in a PostgreSQL database (--db postgresql://...).
    The namespace defaults to the current project (git top
    level or nearest project marker); pass --namespace '*' to a read command for all of them.
    """
    level = {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    log_to_stderr(level)
    overrides: dict[str, Any] = {"db_path": db_path, "home": home, "created_by": created_by}
    ctx.obj = overrides
