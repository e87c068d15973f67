"""``memlode supersede OLD NEW``: record by hand that a memory replaces an earlier one (what the
rules of ``memlode.engine.supersede_rules`` did not see), ``--undo`` to remove such a link
(a rule's or a user's), ``--chain`` to show a memory's replacements in order."""

from __future__ import annotations

import click

from memlode.cli.common import echo_json, json_option, open_engine
from memlode.engine import supersession
from memlode.errors import InvalidInput

__all__ = ["supersede"]


@click.command()
@click.argument("old_id")
@click.argument("new_id", required=False)
@click.option("--undo", is_flag=True, help="Remove the link: NEW no longer replaces OLD.")
@click.option("--chain", is_flag=True, help="Show OLD's chain of replacements, oldest first.")
@json_option
@click.pass_context
def supersede(
    ctx: click.Context, old_id: str, new_id: str | None, undo: bool, chain: bool, as_json: bool
) -> None:
    """Record that memory NEW_ID replaces OLD_ID (same namespace): search ranks OLD below NEW,
    and the hooks show OLD only as NEW's history."""
    if chain:
        if new_id is not None or undo:
            raise InvalidInput("--chain takes one memory id and no --undo")
        with open_engine(ctx) as engine:
            found = supersession.decision_chain(engine.conn, old_id)
        if as_json:
            echo_json(found)
            return
        for member in found["chain"]:
            until = f" until {member['until'][:10]}" if member["until"] else " (current)"
            text = " ".join(member["content"].split())
            click.echo(f"{member['id']}  {member['from'][:10]}{until}\n    {text[:100]}")
        return
    if new_id is None:
        raise InvalidInput("give two ids: OLD_ID NEW_ID (or --chain OLD_ID)")
    with open_engine(ctx) as engine:
        change = supersession.unsupersede if undo else supersession.supersede
        result = change(engine.db, old_id, new_id)
    if as_json:
        echo_json(result)
    elif undo:
        click.echo(f"{new_id} no longer replaces {old_id}")
    else:
        state = "" if result["created"] else " (already recorded)"
        click.echo(f"{new_id} replaces {old_id} since {result['at'][:10]}{state}")
