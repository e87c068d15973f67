"""Streamable HTTP, CLI/MCP ranking parity, and the background embedder."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from memlode.config import Settings
from memlode.engine import Engine

pytestmark = pytest.mark.anyio

CORPUS = [
    ("We deploy with blue-green releases behind the load balancer", "decision"),
    ("Database migrations run before the new release takes traffic", "pattern"),
    ("The load balancer health check hits /healthz every 5 seconds", "context"),
    ("Rollbacks flip the load balancer back to the previous release", "pattern"),
    ("Prefer small pull requests that can be reviewed in ten minutes", "preference"),
    ("Release notes are generated from conventional commit messages", "habit"),
    ("Feature flags gate risky changes during a release", "insight"),
    ("Staging mirrors production traffic at ten percent", "context"),
]


async def test_http_transport_serves_the_same_tools(harness, store: Engine, tmp_path: Path) -> None:
    port = harness.free_port()
    log = (tmp_path / "http-server.log").open("w", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlode", "mcp", "--http", "--port", str(port)],
        cwd=harness.cwd,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        harness.wait_for_port(port, proc)
        url = f"http://127.0.0.1:{port}/mcp"
        token = subprocess.run(  # every HTTP request needs the bearer token (tests/e2e/safety)
            [sys.executable, "-m", "memlode", "mcp", "--print-token"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            assert {"store_memory", "recall_memory", "memlode_health"} <= names
            stored = harness.ok(
                await session.call_tool(
                    "store_memory",
                    {"content": "HTTP transport memory about caching", "tags": ["http"]},
                )
            )
            hits = harness.ok(await session.call_tool("recall_memory", {"query": "caching"}))
            assert [h["id"] for h in hits["hits"]] == [stored["id"]]
            bad = await session.call_tool("get_memory", {"memory_id": "missing"})
            assert "no memory with id" in harness.error_text(bad)
        assert store.get(stored["id"], touch=False).tags == ["http"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
    stderr = (tmp_path / "http-server.log").read_text(encoding="utf-8")
    assert f"http://127.0.0.1:{port}/mcp" in stderr
    assert "Traceback" not in stderr, stderr


async def test_cli_search_and_recall_memory_rank_alike(
    harness, cli, workdir: Path, store: Engine
) -> None:
    for content, memory_type in CORPUS:
        store.store(content, memory_type, tags=["ops"])
    queries = ["load balancer release", "how do we roll back"]
    async with harness.session() as session:
        for query in queries:
            result = await session.call_tool("recall_memory", {"query": query, "k": 5})
            mcp_ids = [hit["id"] for hit in harness.ok(result)["hits"]]
            searched = cli("search", query, "-k", "5", "--json", cwd=workdir)
            assert searched.returncode == 0, searched.stderr
            cli_ids = [hit["id"] for hit in searched.json()]
            assert mcp_ids, query  # unrelated memories are not padded in
            assert mcp_ids == cli_ids, query


async def test_background_embedder_fills_pending_vectors(harness, workdir: Path) -> None:
    with Engine(Settings.load({}), cwd=workdir) as engine:
        for content, memory_type in CORPUS:
            engine.store(content, memory_type)
        if engine.pending_embeddings() == 0:
            pytest.skip("this engine embeds on store; nothing is left pending")
        initial = engine.pending_embeddings()
    assert initial == len(CORPUS)

    async with harness.session() as session:
        deadline = time.monotonic() + 30
        report: dict[str, object] = {}
        while time.monotonic() < deadline:
            report = harness.ok(await session.call_tool("memlode_health", {}))
            if report["pending_embeddings"] == 0:
                break
            await anyio.sleep(0.2)
        assert report["pending_embeddings"] == 0, report
        worker = report["server"]["background_embedder"]  # type: ignore[index]
        assert worker["embedded_since_start"] >= initial, worker
        # A new memory is embedded soon after it is stored (the store wakes the worker).
        harness.ok(await session.call_tool("store_memory", {"content": "fresh memory to embed"}))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            report = harness.ok(await session.call_tool("memlode_health", {}))
            if report["pending_embeddings"] == 0:
                break
            await anyio.sleep(0.2)
        assert report["pending_embeddings"] == 0, report
