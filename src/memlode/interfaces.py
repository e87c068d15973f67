"""How one interface starts another without importing it: by name, through the entry points
``[project.entry-points."memlode.interfaces"]`` in ``pyproject.toml`` (L0).

- ``resident``: serve a store's resident in this process (``memlode resident --foreground``).
- ``resident-host``: the resident server class ``memlode mcp`` hosts on a thread.
- ``hook-runner``: one spooled hook event through the hooks' handler, on the store the
  resident of a PostgreSQL store gives it (``memlode.hooks.handoff.apply``).
- ``mcp-stdio`` / ``mcp-http``: serve MCP (``memlode mcp``).
- ``viz``: serve the dashboard (``memlode viz``).

DESIGN.md: interfaces never import each other; the CLI starts the MCP server, the hooks or the
resident process through entry points.
"""

from __future__ import annotations

from typing import Any

from memlode.errors import MemlodeError

__all__ = ["GROUP", "load"]

GROUP = "memlode.interfaces"


def load(name: str) -> Any:
    """The object the entry point ``name`` names; MemlodeError when the install lacks it."""
    from importlib.metadata import PackageNotFoundError, distribution, entry_points

    # memlode's own distribution first: scanning every installed one costs ~10 ms of each
    # start of `memlode mcp`; the full scan stays for an install whose metadata lies elsewhere
    try:
        found = distribution("memlode").entry_points.select(group=GROUP, name=name)
    except PackageNotFoundError:
        found = entry_points(group=GROUP, name=name)
    if not found:
        found = entry_points(group=GROUP, name=name)
    if not found:
        raise MemlodeError(
            f"memlode's {name!r} entry point is missing: reinstall memlode (pip install -e .)"
        )
    return next(iter(found)).load()
