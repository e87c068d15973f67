"""The MCP server: memlode's engine as tools any MCP client can call (stdio or streamable HTTP).

Layout: ``server`` builds and runs the SDK server; ``context`` holds the shared engine and maps
errors; ``registry`` finds the tool modules in ``tools/`` (one module per area, each with
``register(server, ctx)``); the background embedder is ``memlode.engine.embed_worker``.

Importing this package is cheap; the SDK is imported by ``memlode.mcp.server``.
"""

__all__: list[str] = []
