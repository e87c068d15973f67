"""L4, the dashboard: ``memlode viz``, a local web app over the engine.

- ``server``: binds 127.0.0.1, makes the per-run token, prints the URL and runs uvicorn
  (the ``viz`` entry point the CLI starts it through).
- ``app``: the Starlette application: the token gate, the pages and the static files.
- ``api``: the JSON endpoints, each one engine call (``memlode.engine.dashboard`` and the
  facade; the search box is ``Engine.search`` with the CLI's parameters).
- ``static/``: the page, its style and its drawing code, hand-written: nothing is fetched at
  run time and no third-party code is served.

Starlette and uvicorn are imported only here, and only when ``memlode viz`` runs.
"""
