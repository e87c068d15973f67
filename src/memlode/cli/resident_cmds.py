"""``memlode resident``: start, inspect and stop the store's resident process."""

from __future__ import annotations

from typing import Any

import click

from memlode.cli.common import EXIT_NOT_FOUND, echo_json, interface, json_option, settings_from
from memlode.errors import MemlodeError


@click.group("resident", invoke_without_command=True)
@click.option(
    "--foreground",
    is_flag=True,
    help="Serve in this process until stopped (Ctrl-C) instead of starting it in the background.",
)
@click.option(
    "--idle-exit",
    "idle_exit",
    type=click.FloatRange(min=0),
    default=None,
    metavar="SECONDS",
    help="Exit after this many seconds without a request; 0 never. "
    "[default: resident.idle_seconds, 1200]",
)
@click.option("--log-file", hidden=True, type=click.Path(dir_okay=False), default=None)
@click.pass_context
def resident(
    ctx: click.Context, foreground: bool, idle_exit: float | None, log_file: str | None
) -> None:
    """Start the store's resident process, unless one runs.

    One process per database keeps the engine warm (the embedding model, the vector index,
    the text index), embeds what the hooks stored, and answers the prompt hook's recall and
    `memlode search` with the engine's ranking over an owner-only unix socket. The
    SessionStart hook starts it (and `memlode mcp` hosts it) when [resident] autostart is on;
    it exits after resident.idle_seconds (MEMLODE_RESIDENT_IDLE) without a request.

    \b
    memlode resident            start it in the background, print its pid
    memlode resident status     is one running? (exit 3 when not)
    memlode resident stop       stop it
    """
    if ctx.invoked_subcommand is not None:
        return
    settings = settings_from(ctx)
    idle = settings.resident_idle_seconds if idle_exit is None else idle_exit
    if foreground:
        _serve(settings, idle, log_file)
        return
    from memlode.resident_client.client import database_of, start
    from memlode.resident_client.paths import log_path

    found = start(settings, idle_seconds=idle)
    if found is None:
        where = log_path(str(settings.home), database_of(settings))
        raise MemlodeError(f"the resident process did not answer; see {where}")
    click.echo(
        f"resident running (pid {found['pid']}, {found.get('host', 'resident')}) for "
        f"{found['db']}; socket {found['socket']}"
    )


def _serve(settings: Any, idle: float, log_file: str | None) -> None:
    serve = interface("resident")  # memlode.resident, through its entry point
    reason = serve(settings, idle, log_file)
    if reason.startswith("a resident process already serves"):
        click.echo(reason, err=True)


@resident.command("status")
@json_option
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """Show the store's resident process (exit 3 when none runs)."""
    from memlode.resident_client.client import ask, database_of, holder

    settings = settings_from(ctx)
    answer = ask(settings, {"op": "status"}, 5.0)
    if answer is None or "error" in answer:
        ping = ask(settings, {"op": "ping"}, 1.0)
        answer = ping if ping is not None and ping.get("ok") is True else None
    if answer is None:
        owner = holder(settings)
        if owner is not None:  # it holds the lock: it runs, too busy (or stalled) to answer
            if as_json:
                echo_json({"running": True, "answering": False, **owner})
            else:
                click.echo(
                    f"resident running (pid {owner.get('pid')}, {owner.get('host')}) for "
                    f"{owner.get('db') or database_of(settings)}, but it did not answer within "
                    "5 s (busy or stalled)"
                )
            return
        if as_json:
            echo_json({"running": False, "db": database_of(settings)})
        else:
            click.echo(f"no resident process serves {database_of(settings)}")
        ctx.exit(EXIT_NOT_FOUND)
    assert answer is not None
    answer = {"running": True, "answering": True, **answer}
    if as_json:
        echo_json(answer)
        return
    click.echo(
        f"resident running (pid {answer.get('pid')}, {answer.get('host')}) for {answer.get('db')}"
    )
    click.echo(f"  socket: {answer.get('socket')}")
    click.echo(f"  ready: {answer.get('ready')}, requests answered: {answer.get('answered')}")
    idle = answer.get("idle_exit_seconds")
    click.echo(
        f"  idle for {answer.get('idle_for_seconds')} s; exits after "
        + (f"{idle:g} s without a request" if idle else "its host (never idle)")
    )
    if "pending_embeddings" in answer:
        click.echo(
            f"  embedder: {answer.get('embed_model') or 'none'}, "
            f"{answer['pending_embeddings']} rows waiting"
        )


@resident.command("stop")
@click.pass_context
def stop(ctx: click.Context) -> None:
    """Stop the store's resident process (one hosted by `memlode mcp` ends with it)."""
    from memlode.resident_client.client import database_of
    from memlode.resident_client.client import stop as stop_resident

    settings = settings_from(ctx)
    answer = stop_resident(settings)
    if answer is None:
        click.echo(f"no resident process serves {database_of(settings)}")
        return
    if "error" in answer:
        raise MemlodeError(str(answer["error"]))
    click.echo(f"resident stopped (pid {answer.get('pid')})")
