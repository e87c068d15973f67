"""Reaching a store's resident process from outside it (L2; import-light).

Every interface needs the resident (``memlode.resident``) without being it: the hooks ask it to
rank a prompt and start it when none runs, the CLI searches through it and starts, inspects and
stops it, ``memlode mcp`` checks for one. This package is that shared side, so that no interface
imports another:

- ``paths``: where a store's socket, lock and log live (derived from the resolved database
  path, so two stores never share a resident). Import-light: the hooks use it.
- ``wire``: one JSON line each way over the owner-only unix socket (builtin ``_socket``).
- ``lock``: the ``flock`` that makes the resident of a store unique, and who holds it.
- ``launch``: start a detached resident (``posix_spawn``, own session). Import-light.
- ``client``: ask, start, stop, and ``search`` (what ``memlode search`` tries first), and
  ``ranking_settings``, the settings a client and the resident compare before trusting a ranking.

The resident process itself uses the same paths, lock and wire. Importing this package imports
nothing.
"""

__all__: list[str] = []
