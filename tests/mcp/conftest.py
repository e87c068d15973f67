"""MCP tests drive the real server (``python -m memlode mcp``) through the SDK's real clients."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from memlode.config import Settings
from memlode.engine import Engine

# The memlode environment a test server gets: the test's home, the deterministic embedder, the
# store when a test names one (MEMLODE_DB: a PostgreSQL store, tests/mcp/test_pg_tools.py) and
# PYTHONPATH (a checkout run with PYTHONPATH=src serves its own code, not an installed copy's).
_PASSED_ENV = ("MEMLODE_HOME", "MEMLODE_EMBED_PROVIDER", "MEMLODE_DB", "PYTHONPATH")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {name: os.environ[name] for name in _PASSED_ENV if name in os.environ}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


@asynccontextmanager
async def mcp_session(
    cwd: Path, log_path: Path, *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """An initialised client session with ``python -m memlode mcp`` started in ``cwd``."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memlode", "mcp", *args],
        env=server_env(env),
        cwd=str(cwd),
    )
    with log_path.open("a", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


@pytest.fixture
def store(workdir: Path) -> Iterator[Engine]:
    """The same database the server writes, opened the way the CLI would from ``workdir``."""
    engine = Engine(Settings.load({}), cwd=workdir)
    try:
        yield engine
    finally:
        engine.close()


def ok(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful call (fails the test with the error text)."""
    texts = [getattr(block, "text", "") for block in result.content]
    assert not result.is_error, "\n".join(texts)
    assert result.structured_content is not None
    assert texts and texts[0], "every result carries a text rendering"
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error, f"expected an error, got {result.structured_content}"
    return "\n".join(getattr(block, "text", "") for block in result.content)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port} after {timeout} s")


class Harness:
    """What a test needs to talk to servers: sessions, result checks, the server's stderr."""

    def __init__(self, cwd: Path, log_path: Path) -> None:
        self.cwd = cwd
        self.log_path = log_path

    def session(
        self, *args: str, env: dict[str, str] | None = None
    ) -> AbstractAsyncContextManager[ClientSession]:
        return mcp_session(self.cwd, self.log_path, *args, env=env)

    def server_stderr(self) -> str:
        return self.log_path.read_text(encoding="utf-8") if self.log_path.exists() else ""

    ok = staticmethod(ok)
    error_text = staticmethod(error_text)
    free_port = staticmethod(free_port)
    wait_for_port = staticmethod(wait_for_port)


@pytest.fixture
def harness(workdir: Path, tmp_path: Path) -> Harness:
    """Servers start in ``workdir`` (namespace 'proj') with the test's MEMLODE_HOME."""
    return Harness(workdir, tmp_path / "server-stderr.log")
