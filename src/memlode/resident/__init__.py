"""The resident process: one long-lived memlode process per store that keeps the engine warm.

A hook is a fresh interpreter on every event and cannot load a model or a vector index in its
budget; a one-shot CLI search pays ~0.7 s to load them. The resident keeps one ``Engine`` open
(model, vector index, in-memory text index), embeds rows the hooks stored, and answers over an
owner-only unix socket with the engine's own ranking.

Layout:

- ``paths``: where a store's socket, lock and log live (derived from the resolved database
  path, so two stores never share a resident). Import-light: the hooks use it.
- ``launch``: start a detached resident (``posix_spawn``, own session). Import-light.
- ``lock``: the ``flock`` that makes the resident of a store unique.
- ``protocol``: the requests (``ping``, ``status``, ``recall``, ``search``, ``vector_search``,
  ``stop``) and their answers, one JSON line each way.
- ``server``: the socket server, its idle exit and its background embedder; run by
  ``memlode resident`` or hosted inside ``memlode mcp``.
- ``client``: the CLI's side (``memlode search`` asks the resident first; ``memlode resident
  status|stop``). The hooks' side is ``memlode.hooks._resident`` (no ``json``, no ``socket``).

Importing this package imports nothing.
"""

__all__: list[str] = []
