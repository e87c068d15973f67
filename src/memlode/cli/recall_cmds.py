"""Commands around recall: embedding upkeep and scoring weights."""

from __future__ import annotations

import click

from memlode.cli.common import Count, echo_json, json_option, open_engine
from memlode.cli.progress import TtyProgress
from memlode.errors import InvalidInput

# Rows embedded in one call: far above what helps any model (64 is the default), low enough
# that a batch always fits in memory.
MAX_BATCH = 4096


@click.command()
@click.option("--limit", type=Count(1), default=None, help="Embed at most this many rows.")
@click.option("--batch-size", type=Count(1, MAX_BATCH), default=64, show_default=True)
@json_option
@click.pass_context
def embed(ctx: click.Context, limit: int | None, batch_size: int, as_json: bool) -> None:
    """Embed memories stored without a vector (hooks leave them for this), then give token
    states (late interaction) to memories embedded before they existed, then embed indexed code
    symbols that are new or changed (semantic code search)."""
    from memlode.engine.code import embed_symbols, pending_symbols

    with open_engine(ctx) as engine:
        if engine.embeddings.embedder is None:
            raise InvalidInput(
                f"no embedder: {engine.embeddings.error or 'embeddings are turned off'}"
            )
        symbols_pending = pending_symbols(engine)  # reads the code tables before any output
        with TtyProgress("embedding memories", quiet=as_json) as bar:
            done = engine.embed_pending(limit, batch_size, bar)
        symbols = 0
        if (limit is None or done < limit) and symbols_pending:
            with TtyProgress("embedding symbols", quiet=as_json) as bar:
                symbols = embed_symbols(
                    engine,
                    limit=None if limit is None else limit - done,
                    batch_size=batch_size,
                    progress=bar,
                ).embedded
        pending = engine.pending_embeddings()
        pending_states = engine.pending_token_states()
        model = engine.embeddings.model_name()
    if as_json:
        echo_json(
            {
                "embedded": done,
                "symbols_embedded": symbols,
                "pending": pending,
                "pending_token_states": pending_states,
                "model": model,
            }
        )
    else:
        more = f", {pending_states} without token states" if pending_states else ""
        click.echo(f"embedded {done} memories with {model}; {pending} pending{more}")
        if symbols:
            click.echo(f"embedded {symbols} code symbols")


@click.command()
@click.option("--yes", is_flag=True, help="Do not ask first.")
@click.option(
    "--stale-only",
    is_flag=True,
    help="Keep vectors already made by the current model; replace only other models' vectors.",
)
@json_option
@click.pass_context
def reembed(ctx: click.Context, yes: bool, stale_only: bool, as_json: bool) -> None:
    """Re-embed every memory with the current model (after a model or enrichment change)."""
    with open_engine(ctx) as engine:
        if engine.embeddings.embedder is None:
            raise InvalidInput(
                f"no embedder: {engine.embeddings.error or 'embeddings are turned off'}"
            )
        model = engine.embeddings.model_name()
        stored = engine.embeddings.models_in_store()
        replaced = {m: n for m, n in stored.items() if not stale_only or m != model}
        if replaced and not yes:
            listing = ", ".join(f"{m} ({n})" for m, n in replaced.items())
            if not click.confirm(f"Replace vectors from {listing} with {model}?"):
                raise click.exceptions.Abort()
        dropped = engine.embeddings.drop_other_models(including_current=not stale_only)
        with TtyProgress("re-embedding", quiet=as_json) as bar:
            done = engine.embed_pending(None, 64, bar)
    if as_json:
        echo_json({"model": model, "dropped": dropped, "embedded": done})
    else:
        click.echo(f"re-embedded {done} memories with {model} (dropped {dropped} old vectors)")


@click.group()
def config() -> None:
    """Show or change run-time settings stored with the data (scoring weights)."""


@config.command("show")
@json_option
@click.pass_context
def config_show(ctx: click.Context, as_json: bool) -> None:
    """The effective configuration: paths, embedder, recall parameters, and what the hooks
    read (``[hooks]``, as a hook started here would)."""
    from memlode.config_file import HOOK_KEYS
    from memlode.hook_settings import HookSettings

    with open_engine(ctx) as engine:
        data = {
            "home": str(engine.settings.home),
            "database": engine.db.display,
            "namespace": engine.namespace,
            "config_file": str(engine.settings.config_file),
            "write_compactions": engine.settings.write_compactions,
            **engine.describe_config(),
        }
    hooks = HookSettings().to_dict()
    data["hooks"] = {  # the [hooks] table's keys, as a hook reads them
        name: "every tool" if name == "tools" and hooks[name] is None else hooks[name]
        for name in sorted(HOOK_KEYS)
    }
    if as_json:
        echo_json(data)
        return
    for key, value in data.items():
        if isinstance(value, dict):  # recall: one line per knob
            for name, inner in value.items():
                shown = ", ".join(inner) if isinstance(inner, list) else inner
                if isinstance(inner, dict):
                    shown = " ".join(f"{k}={v:.4f}" for k, v in inner.items())
                click.echo(f"{key}.{name}: {shown}")
        else:
            click.echo(f"{key}: {value}")


@config.command("get-weights")
@json_option
@click.pass_context
def get_weights(ctx: click.Context, as_json: bool) -> None:
    """The recall signal weights in effect (normalised to sum 1)."""
    with open_engine(ctx) as engine:
        weights = engine.get_weights()
    _print_weights(weights, as_json)


@config.command("set-weights")
@click.argument("assignments", nargs=-1, required=True, metavar="SIGNAL=WEIGHT...")
@click.option("--replace", is_flag=True, help="Unnamed signals get 0 instead of keeping theirs.")
@json_option
@click.pass_context
def set_weights(
    ctx: click.Context, assignments: tuple[str, ...], replace: bool, as_json: bool
) -> None:
    """Set recall signal weights, e.g. `bm25=0.4 vector=0.4`; they are normalised.

    Signals: vector, graph, bm25, temporal, tags, importance, confidence, recency.
    `set-weights reset` restores the configured defaults.
    """
    with open_engine(ctx) as engine:
        if assignments == ("reset",):
            weights = engine.reset_weights()
        else:
            parsed: dict[str, float] = {}
            for item in assignments:
                name, sep, value = item.partition("=")
                if not sep:
                    raise InvalidInput(f"expected SIGNAL=WEIGHT, got {item!r}")
                try:
                    parsed[name.strip()] = float(value)
                except ValueError:
                    raise InvalidInput(f"weight for {name!r} is not a number: {value!r}") from None
            weights = engine.set_weights(parsed, merge=not replace)
    _print_weights(weights, as_json)


def _print_weights(weights: dict[str, float], as_json: bool) -> None:
    if as_json:
        echo_json(weights)
        return
    for name, value in weights.items():
        click.echo(f"{name:<11} {value:.4f}")
