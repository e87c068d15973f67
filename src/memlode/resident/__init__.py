"""The resident process: one long-lived memlode process per store that keeps the engine warm.

A hook is a fresh interpreter on every event and cannot load a model or a vector index in its
budget; a one-shot CLI search pays ~0.7 s to load them. The resident keeps one ``Engine`` open
(model, vector index, in-memory text index), embeds rows the hooks stored, and answers over an
owner-only unix socket with the engine's own ranking.

Layout (the side every other process uses to reach it is ``memlode.resident_client``: paths,
wire, lock, launch, client):

- ``protocol``: the requests (``ping``, ``status``, ``recall``, ``search``, ``vector_search``,
  ``stop``) and their answers, one JSON line each way.
- ``server``: the socket server, its idle exit and its background embedder; run by
  ``memlode resident`` or hosted inside ``memlode mcp``.

Importing this package imports nothing.
"""

__all__: list[str] = []
