"""The repository contracts a storage backend implements, one module per area.

``memory`` (memories, capture, vectors, settings, namespaces, counts), ``sessions`` (sessions,
the hooks' capture state, transcript ingest), ``search`` (recall's reads), ``graph``, ``code``,
``docs`` and ``maintenance``. ``memlode.storage.backend`` binds the SQLite modules to them.
"""
