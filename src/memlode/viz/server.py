"""Running the dashboard: the listening socket, the per-run token, the printed URL, uvicorn.

The socket is bound here before uvicorn starts, so that port 0 becomes a real port that the
printed URL names, and a port in use is one clear error instead of uvicorn's log and exit.
The URL is printed on stdout (one line, flushed): it is the command's output, and a script or
a test reads the port and the token from it.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import socket
import sys
import webbrowser

from memlode.config import Settings
from memlode.errors import InvalidInput

__all__ = ["HOST", "bind", "serve"]

HOST = "127.0.0.1"  # owner-only: never another interface


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port`` (0: a free one), or InvalidInput."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise InvalidInput(
            f"cannot listen on {HOST}:{port}: {exc.strerror or exc}; "
            "choose another --port, or leave it out for a free one"
        ) from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


def serve(
    settings: Settings,
    *,
    port: int = 0,
    open_browser: bool = False,
    allow_edit: bool = False,
) -> None:
    """Serve the dashboard until interrupted."""
    import uvicorn

    from memlode.engine import Engine
    from memlode.viz.app import build_app

    sock = bind(port)
    token = secrets.token_urlsafe(24)
    engine = Engine(settings)
    try:
        app = build_app(engine, token=token, allow_edit=allow_edit)
        real_port = sock.getsockname()[1]
        url = f"http://{HOST}:{real_port}/?token={token}"
        mode = "edits allowed" if allow_edit else "read-only"
        print(f"memlode viz: {url}  ({mode}; Ctrl-C stops)", flush=True)
        if open_browser:
            webbrowser.open(url)
        # log_config=None: uvicorn keeps to our stderr logging, no access lines on stdout
        config = uvicorn.Config(
            app,
            log_config=None,
            access_log=False,
            log_level=logging.getLogger().getEffectiveLevel(),
            lifespan="off",
        )
        with contextlib.suppress(KeyboardInterrupt):
            uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
        engine.close()
        sys.stdout.flush()
