"""The dashboard's Starlette application: the token gate, the page, the static files, the API.

Owner-only: every request must carry the per-run token, as ``?token=`` (the printed URL; the
answer then sets it as a cookie, so the page's own requests need nothing more) or as that
cookie; anything else gets 403. A write (POST) must also send the token in the
``X-Memlode-Token`` header, which another site's page cannot know: the cookie alone does not
make a write (no cross-site request forgery), and writes need ``--allow-edit`` at all.
"""

from __future__ import annotations

import hashlib
import html
import json
import secrets
import threading
from http.cookies import SimpleCookie
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from memlode import __version__
from memlode.viz.api import Api

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from memlode.engine import Engine

__all__ = ["COOKIE", "STATIC", "TOKEN_HEADER", "TokenGate", "build_app"]

STATIC = Path(__file__).parent / "static"
COOKIE = "memlode_viz"
TOKEN_HEADER = "x-memlode-token"


class TokenGate:
    """ASGI middleware: 403 unless the request carries the token (query or cookie)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    def _matches(self, value: str | None) -> bool:
        return value is not None and secrets.compare_digest(value.encode(), self.token.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        from_query = self._matches((query.get("token") or [None])[0])
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # a malformed Cookie header: as if there were none
            cookie = SimpleCookie()
        from_cookie = COOKIE in cookie and self._matches(cookie[COOKIE].value)
        if not (from_query or from_cookie):
            await PlainTextResponse("forbidden: open the URL memlode viz printed", 403)(
                scope, receive, send
            )
            return
        if scope["method"] == "POST" and not self._matches(headers.get(TOKEN_HEADER)):
            await PlainTextResponse("forbidden: a write needs the X-Memlode-Token header", 403)(
                scope, receive, send
            )
            return
        if not from_query or from_cookie:
            await self.app(scope, receive, send)
            return
        set_cookie = f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict".encode()

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message["headers"], (b"set-cookie", set_cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


class Immutable:
    """ASGI wrapper: answers that never change for a URL (the static files, named with their
    content's hash by ``?v=``) are kept by the browser instead of asked again on every page."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_cached(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                keep = (b"cache-control", b"private, max-age=31536000, immutable")
                message = {**message, "headers": [*message["headers"], keep]}
            await send(message)

        await self.app(scope, receive, send_cached)


def _version() -> str:
    """A hash of the static files: their URLs change when they do."""
    digest = hashlib.sha256()
    for path in sorted(STATIC.iterdir()):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _page(token: str, allow_edit: bool) -> str:
    template = (STATIC / "index.html").read_text(encoding="utf-8")
    return (
        template.replace("{{v}}", _version())
        .replace("{{token}}", html.escape(token))
        .replace("{{edit}}", "1" if allow_edit else "0")
        .replace("{{version}}", html.escape(__version__))
    )


def build_app(engine: Engine, *, token: str, allow_edit: bool) -> ASGIApp:
    """The whole app, behind the token gate."""
    api = Api(engine, allow_edit=allow_edit)
    threading.Thread(target=api.warm_up, name="memlode-viz-warm-up", daemon=True).start()
    page = _page(token, allow_edit)

    async def index(request: Request) -> Response:
        # what every page needs first (namespaces, vocabularies, search mode), in the page
        # itself: one round trip less before a page can ask for its data
        meta = json.dumps(await run_in_threadpool(api.locked, api.meta, request))
        body = page.replace("{{meta}}", meta.replace("</", "<\\/"))
        return HTMLResponse(body, headers={"cache-control": "no-store"})

    routes: list[Any] = [
        Route("/", index),
        *api.routes(),
        Mount("/static", app=Immutable(StaticFiles(directory=STATIC)), name="static"),
    ]
    app = Starlette(routes=routes)
    return TokenGate(app, token)
