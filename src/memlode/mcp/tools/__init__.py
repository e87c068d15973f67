"""Tool modules, one per area. Each declares its tools, resources and prompts as module-level
functions (``mcp_tool``, ``mcp_resource``, ``mcp_prompt`` from ``memlode.mcp.tooling``).

A capability adds its tools by adding one module to this package; the registry
(``memlode.mcp.registry``) imports every module whose name does not start with ``_`` and binds
what it declares.
"""
