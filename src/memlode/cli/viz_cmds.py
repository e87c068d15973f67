"""``memlode viz``: the dashboard, a local web app over the engine (``memlode.viz``).

Started through the ``viz`` entry point (interfaces never import each other), so Starlette and
uvicorn are imported only when this command runs.
"""

from __future__ import annotations

import click

from memlode.cli.common import interface, namespace_option, settings_from

__all__ = ["viz"]


@click.command("viz")
@click.option(
    "--port",
    default=0,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port on 127.0.0.1 (0: a free one).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the dashboard in a browser.")
@click.option(
    "--allow-edit",
    is_flag=True,
    help="Allow editing importance and tags and deleting memories from the page.",
)
@namespace_option
@click.pass_context
def viz(
    ctx: click.Context, port: int, open_browser: bool, allow_edit: bool, namespace: str | None
) -> None:
    """Serve the dashboard on 127.0.0.1 until Ctrl-C: search, memories, graph, embeddings,
    sessions, code and health.

    Prints its URL with a token made for this run; requests without it are refused. Read-only
    unless --allow-edit.
    """
    serve = interface("viz")  # memlode.viz.server:serve, through its entry point
    serve(
        settings_from(ctx, namespace=namespace),
        port=port,
        open_browser=open_browser,
        allow_edit=allow_edit,
    )
