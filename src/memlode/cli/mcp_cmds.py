"""``memlode mcp``: serve the engine to MCP clients over stdio (default) or streamable HTTP.

Nothing heavy is imported until the command runs, and the SDK is imported with stdout pointed
at stderr: over stdio, stdout belongs to the protocol. ``--print-token`` and ``--new-token``
show the HTTP server's bearer token (kept owner-only in the home) instead of serving.
"""

from __future__ import annotations

import click

from memlode.cli.common import interface, settings_from
from memlode.errors import StorageError

__all__ = ["mcp"]

DEFAULT_HOST = "127.0.0.1"  # same as memlode.mcp.server.DEFAULT_HOST (not imported: start time)
DEFAULT_PORT = 8765


@click.command("mcp")
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option(
    "--host",
    default=DEFAULT_HOST,
    show_default=True,
    help="Address to bind with --http (keep 127.0.0.1 unless you know why).",
)
@click.option(
    "--port",
    default=DEFAULT_PORT,
    show_default=True,
    type=click.IntRange(1, 65535),
    help="Port with --http.",
)
@click.option(
    "--no-background-embed",
    "no_embed",
    is_flag=True,
    help="Do not embed pending rows in the background.",
)
@click.option(
    "--watch",
    "watch_docs",
    is_flag=True,
    help="Also watch MEMORY.md, memory/*.md, SOUL.md, USER.md and docs folders, re-indexing "
    "them as they change.",
)
@click.option(
    "-n",
    "--namespace",
    default=None,
    help="The tools' default namespace (default: the project of the working directory).",
)
@click.option(
    "--print-token",
    is_flag=True,
    help="Print the bearer token --http requires (made on first use) and exit.",
)
@click.option(
    "--new-token",
    is_flag=True,
    help="Replace the --http bearer token with a new one, print it and exit "
    "(run `memlode init --http` again, or update your clients).",
)
@click.pass_context
def mcp(
    ctx: click.Context,
    use_http: bool,
    host: str,
    port: int,
    no_embed: bool,
    watch_docs: bool,
    namespace: str | None,
    print_token: bool,
    new_token: bool,
) -> None:
    """Run the MCP server (stdio by default; --http for http://HOST:PORT/mcp).

    Register it with a client, e.g. `claude mcp add memlode -- memlode mcp`. Over HTTP every
    request needs `Authorization: Bearer <token>`; `memlode init --http` writes it into Claude
    Code's config, `--print-token` shows it.
    """
    settings = settings_from(ctx, namespace=namespace)
    if print_token or new_token:
        from memlode.owner_only import http_token, new_http_token

        try:
            token = new_http_token(settings.home) if new_token else http_token(settings.home)
        except OSError as exc:
            raise StorageError(f"cannot read or create the HTTP token: {exc}") from None
        click.echo(token)
        return
    if use_http:
        serve_http = interface("mcp-http")  # memlode.mcp, through its entry point
        serve_http(
            settings,
            host=host,
            port=port,
            embed_in_background=not no_embed,
            watch_docs=watch_docs,
        )
    else:
        serve_stdio = interface("mcp-stdio")
        serve_stdio(settings, embed_in_background=not no_embed, watch_docs=watch_docs)
