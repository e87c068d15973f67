"""Ask a resident memlode process for vector hits, within a hard deadline.

A hook cannot load an embedding model (it would cost seconds), but a long-lived memlode
process (the MCP server, a daemon) already has one. Such a process may listen on a unix
socket at ``$MEMLODE_HOME/memlode.sock`` and answer one request per connection, each a single
line of JSON:

    request:  {"op": "vector_search", "query": "...", "namespace": "proj", "k": 8, "db": "..."}
    response: {"hits": [{"id": "<memory id>", "score": 0.83}, ...]}     (score: cosine, 0..1)

No socket, a refused connection, a late or malformed answer: the hook goes on with BM25 alone.
"""

from __future__ import annotations

import os
import time

from memlode.hooks._lean import dumps, loads

__all__ = ["SOCKET_NAME", "vector_hits"]

SOCKET_NAME = "memlode.sock"
_MAX_REPLY = 1 << 20


def vector_hits(
    home: str, query: str, namespace: str, k: int, timeout_ms: int, db: str = ""
) -> dict[str, float]:
    """``{memory_id: score}`` from the resident process, or ``{}`` (never raises, never waits
    longer than ``timeout_ms``)."""
    path = os.path.join(home, SOCKET_NAME)
    if timeout_ms <= 0 or not os.path.exists(path):
        return {}
    try:
        import socket

        family = getattr(socket, "AF_UNIX", None)
        if family is None:
            return {}
        deadline = time.monotonic() + timeout_ms / 1000
        request = {
            "op": "vector_search",
            "query": query[:4000],
            "namespace": namespace,
            "k": k,
            "db": db,  # the resident answers only for the database this hook writes
        }
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout_ms / 1000)
            sock.connect(path)
            sock.sendall(dumps(request).encode("utf-8") + b"\n")
            data = b""
            while b"\n" not in data and len(data) < _MAX_REPLY:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return {}
                sock.settimeout(remaining)
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        reply = loads(data.split(b"\n", 1)[0].decode("utf-8", "replace") or "{}")
    except (OSError, ValueError):
        return {}
    hits = reply.get("hits") if isinstance(reply, dict) else None
    out: dict[str, float] = {}
    if isinstance(hits, list):
        for hit in hits:
            if isinstance(hit, dict) and isinstance(hit.get("id"), str):
                score = hit.get("score")
                if isinstance(score, int | float) and not isinstance(score, bool):
                    out[hit["id"]] = float(score)
    return out
