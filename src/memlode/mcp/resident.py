"""The resident vector service: the MCP server answers the hooks' vector questions.

A hook cannot load an embedding model, but the long-lived MCP server has one. While it runs, it
listens on a unix socket at ``$MEMLODE_HOME/memlode.sock`` and answers one JSON line per
connection (the protocol of ``memlode.hooks._resident``):

    request:  {"op": "vector_search", "query": "...", "namespace": "proj", "k": 8, "db": "..."}
    response: {"hits": [{"id": "<memory id>", "score": 0.83}, ...]}

The socket file is made readable by the owner only. A stale socket left by a crashed server is
replaced; a live one (another server answering) is left alone and this server does not listen.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.config import Settings

if TYPE_CHECKING:
    from memlode.mcp.context import EngineOpener

__all__ = ["SOCKET_NAME", "ResidentVectors"]

log = logging.getLogger(__name__)

SOCKET_NAME = "memlode.sock"  # memlode.hooks._resident.SOCKET_NAME
MAX_REQUEST = 64 * 1024
MAX_K = 50


class ResidentVectors:
    def __init__(
        self, settings: Settings, cwd: Path, open_engine: EngineOpener | None = None
    ) -> None:
        self.settings = settings
        self.cwd = cwd
        self.open_engine = open_engine  # the server's (shared embedder); else a plain Engine
        self.path = settings.home / SOCKET_NAME
        self._server: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.answered = 0

    def start(self) -> bool:
        family = getattr(socket, "AF_UNIX", None)
        if family is None:
            return False
        if self.path.exists() and _alive(self.path):
            log.info("another memlode process already answers on %s", self.path)
            return False
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self.settings.home.mkdir(parents=True, exist_ok=True)
        server = socket.socket(family, socket.SOCK_STREAM)
        old_umask = os.umask(0o077)
        try:
            server.bind(str(self.path))
        finally:
            os.umask(old_umask)
        server.listen(16)
        server.settimeout(0.5)
        self._server = server
        self._thread = threading.Thread(target=self._serve, name="memlode-resident", daemon=True)
        self._thread.start()
        return True

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    def _serve(self) -> None:
        from memlode.engine import Engine

        assert self._server is not None
        try:
            engine = self.open_engine() if self.open_engine else Engine(self.settings, cwd=self.cwd)
        except Exception:
            log.exception("resident vectors: cannot open the store")
            return
        with engine:
            while not self._stop.is_set():
                try:
                    conn, _ = self._server.accept()
                except TimeoutError:
                    continue
                except OSError:
                    break
                with conn:
                    try:
                        conn.settimeout(2.0)
                        reply = self._answer(engine, _read_line(conn))
                        conn.sendall(json.dumps(reply).encode("utf-8") + b"\n")
                        self.answered += 1
                    except Exception as exc:  # one bad client never stops the service
                        log.info("resident vectors: request failed: %s", exc)

    def _answer(self, engine: Any, raw: bytes) -> dict[str, Any]:
        request = json.loads(raw.decode("utf-8"))
        if not isinstance(request, dict) or request.get("op") != "vector_search":
            return {"error": "unknown op", "hits": []}
        query = request.get("query")
        namespace = request.get("namespace")
        k = request.get("k", 8)
        if not isinstance(query, str) or not query.strip() or not isinstance(k, int):
            return {"error": "bad request", "hits": []}
        embeddings = engine.embeddings
        if embeddings.embedder is None:
            return {"hits": []}
        index = embeddings.index
        if index is None or len(index) == 0:
            return {"hits": []}
        vector = embeddings.embed_query(query)
        if vector is None:
            return {"hits": []}
        db = request.get("db")
        if isinstance(db, str) and db and not _same_file(db, engine.db.path):
            return {"hits": []}  # another database shares this home: not ours to answer
        ns = namespace if isinstance(namespace, str) else None
        found = index.search(vector, max(1, min(k, MAX_K)), ns)
        return {"hits": [{"id": memory_id, "score": round(score, 4)} for memory_id, score in found]}


def _same_file(a: str, b: Path) -> bool:
    try:
        return Path(a).expanduser().resolve() == b.resolve()
    except OSError:
        return False


def _read_line(conn: socket.socket) -> bytes:
    data = b""
    while b"\n" not in data and len(data) < MAX_REQUEST:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0]


def _alive(path: Path) -> bool:
    """True when something accepts connections on the socket (a live server)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(0.2)
            probe.connect(str(path))
        return True
    except OSError:
        return False
