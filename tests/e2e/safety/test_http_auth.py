"""``memlode mcp --http`` needs its bearer token; Host and Origin must be loopback names.

One real server (``python -m memlode mcp --http``) serves the module; it is reached through the
SDK's streamable-HTTP client and through plain ``httpx2`` requests. The token comes from the
real CLI (``memlode mcp --print-token``) and from what ``memlode init --http`` writes.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from tests.mcp.conftest import free_port, wait_for_port

pytestmark = pytest.mark.anyio

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "plain-httpx", "version": "1"},
    },
}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Server:
    url: str
    port: int
    home: Path
    project: Path
    log: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLODE_")}
        env.update(MEMLODE_HOME=str(self.home), MEMLODE_EMBED_PROVIDER="hash", **extra)
        return env

    def memlode(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memlode", *args],
            cwd=self.project,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=120,
        )

    def token(self) -> str:
        done = self.memlode("mcp", "--print-token")
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("http-auth")
    project = base / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    port = free_port()
    srv = Server(f"http://127.0.0.1:{port}/mcp", port, base / "home", project, base / "server.log")
    with srv.log.open("w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                *("-m", "memlode", "mcp", "--http", "--port", str(port)),
                "--no-background-embed",
            ],
            cwd=project,
            env=srv.env(PYTHONUNBUFFERED="1"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        try:
            wait_for_port(port, proc)
            yield srv
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    assert "Traceback" not in srv.log.read_text(encoding="utf-8")


def _structured(result: Any) -> dict[str, Any]:
    texts = [getattr(block, "text", "") for block in result.content]
    assert not result.is_error, "\n".join(texts)
    assert result.structured_content is not None
    return dict(result.structured_content)


async def _store_and_recall(
    url: str, headers: dict[str, str], text: str, statuses: list[int] | None = None
) -> list[str]:
    """Store and recall one memory through the SDK's client; ``statuses`` collects the HTTP
    status of every response the client saw."""
    seen = statuses if statuses is not None else []

    async def record(response: httpx2.Response) -> None:
        seen.append(response.status_code)

    async with (
        httpx2.AsyncClient(headers=headers, event_hooks={"response": [record]}) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        assert {"store_memory", "recall_memory", "export_memories"} <= names
        stored = _structured(await session.call_tool("store_memory", {"content": text}))
        # the query is not the stored text itself (a memory equal to the query is no answer)
        query = " ".join(text.split()[:4])
        hits = _structured(await session.call_tool("recall_memory", {"query": query}))
        assert stored["id"] in [h["id"] for h in hits["hits"]]
        return [h["id"] for h in hits["hits"]]


async def test_the_sdk_client_with_the_token_works(server: Server) -> None:
    token = server.token()
    assert len(token) >= 32
    ids = await _store_and_recall(
        server.url, {"Authorization": f"Bearer {token}"}, "The HTTP server needs a bearer token"
    )
    assert ids


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer not-the-token"}, {"Authorization": "Basic dXNlcjpwdw=="}],
    ids=["no-token", "wrong-token", "basic-auth"],
)
async def test_the_sdk_client_without_the_right_token_is_refused(
    server: Server, headers: dict[str, str]
) -> None:
    statuses: list[int] = []
    with pytest.raises(BaseException) as refused:  # the SDK reports an MCPError, in a group
        await _store_and_recall(server.url, headers, "this must never be stored", statuses)
    assert "MCPError" in _chain(refused.value), _chain(refused.value)
    assert statuses and set(statuses) == {401}, statuses
    # Nothing reached the store.
    listed = server.memlode("list", "-n", "*", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "this must never be stored" not in listed.stdout


def _chain(exc: BaseException) -> str:
    """The text of an exception, its causes and (for groups) its members."""
    parts: list[str] = []
    stack: list[BaseException] = [exc]
    while stack:
        current = stack.pop()
        parts.append(f"{type(current).__name__}: {current}")
        stack += list(getattr(current, "exceptions", ()))
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                stack.append(linked)
    return "\n".join(parts)


def test_plain_requests_get_401_without_the_token(server: Server) -> None:
    token = server.token()
    with httpx2.Client(timeout=30) as http:
        bare = http.post(server.url, json=INITIALIZE, headers=MCP_HEADERS)
        assert bare.status_code == 401
        assert bare.headers["www-authenticate"].startswith("Bearer")
        assert "--print-token" in bare.json()["message"]
        wrong = http.post(
            server.url,
            json=INITIALIZE,
            headers={**MCP_HEADERS, "Authorization": f"Bearer {token}x"},
        )
        assert wrong.status_code == 401
        assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
        prefix = http.post(
            server.url,
            json=INITIALIZE,
            headers={**MCP_HEADERS, "Authorization": f"Bearer {token[:-1]}"},
        )
        assert prefix.status_code == 401
        assert http.get(server.url).status_code == 401
        assert http.delete(server.url).status_code == 401
        assert http.get(f"http://127.0.0.1:{server.port}/").status_code == 401
        good = http.post(
            server.url,
            json=INITIALIZE,
            headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"},
        )
        assert good.status_code == 200, good.text


def test_foreign_host_and_origin_headers_are_refused(server: Server) -> None:
    """DNS rebinding: a page on evil.example resolving to 127.0.0.1 cannot reach the server."""
    auth = {**MCP_HEADERS, "Authorization": f"Bearer {server.token()}"}
    with httpx2.Client(timeout=30) as http:
        host = http.post(
            server.url, json=INITIALIZE, headers={**auth, "Host": f"evil.example:{server.port}"}
        )
        assert host.status_code == 421
        origin = http.post(
            server.url, json=INITIALIZE, headers={**auth, "Origin": "http://evil.example"}
        )
        assert origin.status_code == 403
        local = http.post(
            server.url,
            json=INITIALIZE,
            headers={**auth, "Origin": f"http://localhost:{server.port}"},
        )
        assert local.status_code == 200, local.text


def test_the_token_is_owner_only_and_stable(server: Server) -> None:
    first = server.token()
    assert server.token() == first
    path = server.home / "http-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(server.home.stat().st_mode) == 0o700
    assert path.read_text(encoding="ascii").strip() == first


async def test_init_http_writes_a_working_entry_outside_the_repository(server: Server) -> None:
    fake_home = server.project.parent / "user-home"
    fake_home.mkdir(exist_ok=True)
    (fake_home / ".claude.json").write_text('{"numStartups": 1}')  # Claude Code's own state
    done = server.memlode("init", "--http", "--port", str(server.port), HOME=str(fake_home))
    assert done.returncode == 0, done.stderr
    assert not (server.project / ".mcp.json").exists()  # the token stays out of the repository
    config = fake_home / ".claude.json"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    entry = json.loads(config.read_text())["projects"][str(server.project)]["mcpServers"]["memlode"]
    assert entry["type"] == "http" and entry["url"] == server.url
    assert entry["headers"] == {"Authorization": f"Bearer {server.token()}"}
    # What init wrote is what a client needs.
    assert await _store_and_recall(entry["url"], entry["headers"], "init wrote a working entry")
    again = server.memlode("init", "--http", "--port", str(server.port), HOME=str(fake_home))
    assert again.returncode == 0 and "already registered" in again.stdout
    gone = server.memlode("disable", HOME=str(fake_home))
    assert gone.returncode == 0, gone.stderr
    assert json.loads(config.read_text()) == {"numStartups": 1}  # as it was before init


def test_init_http_into_a_named_file_and_a_new_token(tmp_path: Path, cli: Any) -> None:
    """``--mcp-file``: the entry goes there, 0600; ``--new-token`` replaces the token."""
    target = tmp_path / "client.json"
    target.write_text(json.dumps({"mcpServers": {"other": {"type": "stdio", "command": "x"}}}))
    target.chmod(0o644)
    done = cli("init", "--http", "--no-mcp", "--mcp-file", str(target), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "memlode" not in json.loads(target.read_text())["mcpServers"]  # --no-mcp
    done = cli("init", "--http", "--mcp-file", str(target), "--port", "9001", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    servers = json.loads(target.read_text())["mcpServers"]
    assert servers["other"] == {"type": "stdio", "command": "x"}  # someone else's: kept
    old = cli("mcp", "--print-token").stdout.strip()
    assert servers["memlode"]["headers"]["Authorization"] == f"Bearer {old}"
    assert servers["memlode"]["url"] == "http://127.0.0.1:9001/mcp"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    new = cli("mcp", "--new-token")
    assert new.returncode == 0 and new.stdout.strip() not in ("", old)
    assert cli("mcp", "--print-token").stdout.strip() == new.stdout.strip()
