"""Tool modules. Each module here exposes ``register(server, ctx)`` and is found by name.

A capability adds its tools (and resources, prompts) by adding one module to this package; the
registry (``memlode.mcp.registry``) imports every module whose name does not start with ``_``.
"""
