"""Who may talk to ``memlode mcp --http``: a bearer token, and loopback Host and Origin headers.

Without a check any local process (any user on the machine, or a web page through DNS
rebinding) could call ``export_memories`` for every namespace. So every HTTP request must carry
``Authorization: Bearer <token>``, where the token is generated once and kept owner-only in
``$MEMLODE_HOME/http-token`` (``memlode.owner_only.http_token``; ``memlode mcp --print-token``
shows it, ``memlode init --http`` writes it into Claude Code's config). A request without it,
or with another token, gets 401 before it reaches the MCP app; tokens are compared in constant
time (``hmac.compare_digest``).

The SDK's own transport security rejects a Host or Origin header that is not an allowed one
(DNS rebinding): ``transport_security`` builds those settings, loopback names only unless the
server was bound to another address on purpose.
"""

from __future__ import annotations

import hmac
import json
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, MutableMapping

    from mcp.server.transport_security import TransportSecuritySettings

    Scope = MutableMapping[str, Any]
    Message = MutableMapping[str, Any]
    Receive = Callable[[], Awaitable[Message]]
    Send = Callable[[Message], Awaitable[None]]
    ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

__all__ = ["BearerTokenAuth", "transport_security"]

log = logging.getLogger(__name__)

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
# Binding to every interface names no one address a client would send as Host.
_WILDCARD_HOSTS = ("0.0.0.0", "::", "")
_REALM = 'Bearer realm="memlode"'


class BearerTokenAuth:
    """ASGI middleware: an HTTP request passes only with ``Authorization: Bearer <token>``.

    Lifespan events pass through untouched (the app's lifespan runs the embedder).
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("the HTTP server needs a token")
        self.app = app
        self._expected = token.encode("utf-8")
        self.rejected = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        presented = _bearer(scope)
        if presented is not None and hmac.compare_digest(presented, self._expected):
            await self.app(scope, receive, send)
            return
        self.rejected += 1
        client = scope.get("client") or ("?", 0)
        log.info(
            "refused an HTTP request from %s: %s",
            client[0],
            "no bearer token" if presented is None else "wrong bearer token",
        )
        await _unauthorized(send, wrong=presented is not None)


def _bearer(scope: Scope) -> bytes | None:
    """The token of the request's ``Authorization: Bearer ...`` header, if it has one."""
    for name, value in scope.get("headers") or ():
        if name.lower() != b"authorization":
            continue
        scheme, _, token = bytes(value).strip().partition(b" ")
        if scheme.lower() == b"bearer" and token.strip():
            return token.strip()
        return None
    return None


async def _unauthorized(send: Send, *, wrong: bool) -> None:
    challenge = _REALM + (', error="invalid_token"' if wrong else "")
    body = json.dumps(
        {
            "error": "unauthorized",
            "message": "memlode's HTTP server needs 'Authorization: Bearer <token>'; "
            "`memlode mcp --print-token` shows the token",
        }
    ).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode("ascii")),
                (b"www-authenticate", challenge.encode("ascii")),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def transport_security(host: str) -> TransportSecuritySettings:
    """Allowed Host and Origin headers: loopback names, plus ``host`` if bound elsewhere.

    Bound to every interface (``0.0.0.0``), no Host can be known in advance: the header check
    is off there and the bearer token is the only guard (``serve_http`` warns).
    """
    from mcp.server.transport_security import TransportSecuritySettings

    if host in _WILDCARD_HOSTS:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    names = list(LOOPBACK_HOSTS)
    if host not in names:
        names.append(host)
    bracketed = [f"[{n}]" if ":" in n else n for n in names]  # IPv6 literals, as in a URL
    hosts = [*bracketed, *(f"{b}:*" for b in bracketed)]
    origins = [f"{scheme}://{h}" for scheme in ("http", "https") for h in hosts]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )
