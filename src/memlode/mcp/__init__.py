"""The MCP server: memlode's engine as tools any MCP client can call (stdio or streamable HTTP).

Layout: ``server`` builds and runs the SDK server; ``context`` holds the shared engine and maps
errors; ``tooling`` is the one shape of a tool (a module-level function declared with
``mcp_tool``, its result model, its text); ``registry`` binds every declaration of the modules
in ``tools/`` (one module per area); ``listing`` answers the list requests from the lists an
earlier start kept and binds each tool on its first call; the background embedder is
``memlode.engine.embed_worker``.

Importing this package is cheap; the SDK is imported by ``memlode.mcp.server``.
"""

__all__: list[str] = []
