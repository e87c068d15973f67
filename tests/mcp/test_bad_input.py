"""Bad calls come back as isError results that say what to fix; the server keeps serving."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.anyio

# (tool, arguments, a piece of the error text the model should see)
BAD_CALLS = [
    ("no_such_tool", {}, "no_such_tool"),
    ("store_memory", {}, "content"),
    ("store_memory", {"content": ""}, "content"),
    ("store_memory", {"content": "   "}, "content is empty"),
    ("store_memory", {"content": "x", "importance": 3}, "less than or equal to 1"),
    ("store_memory", {"content": "x", "memory_type": "rumour"}, "memory_type"),
    ("store_memory", {"content": "x", "tags": "not a list"}, "tags"),
    ("store_memory", {"content": "x", "metadata": [1, 2]}, "metadata"),
    ("store_memory", {"content": "x", "namespace": "*"}, "not '*'"),
    ("recall_memory", {"query": ""}, "query"),
    ("recall_memory", {"query": "x", "k": 0}, "greater than or equal to 1"),
    ("recall_memory", {"query": "x", "k": 10_000}, "less than or equal to 100"),
    ("recall_memory", {"query": "x", "memory_types": ["gossip"]}, "memory_types"),
    ("recall_with_expansion", {"query": "x", "depth": 9}, "depth"),
    ("get_memory", {"memory_id": "missing"}, "no memory with id 'missing'"),
    ("update_memory", {"memory_id": "missing", "content": "y"}, "no memory with id"),
    ("update_memory", {"memory_id": "{known}"}, "nothing to update"),
    ("delete_memory", {"memory_id": "missing"}, "no memory with id"),
    ("associate_memories", {"source_id": "{known}", "target_id": "missing"}, "missing"),
    ("associate_memories", {"source_id": "{known}", "target_id": "{known}"}, "itself"),
    (
        "associate_memories",
        {"source_id": "{known}", "target_id": "missing", "relationship": "LIKES"},
        "relationship",
    ),
    ("graph_traverse", {"memory_id": "missing"}, "no memory or graph node"),
    ("graph_traverse", {"memory_id": "{known}", "strategy": "random"}, "strategy"),
    ("get_decision_chain", {"topic": ""}, "topic"),
    ("delete_namespace", {"namespace": "proj"}, "confirm=true"),
    ("delete_namespace", {"namespace": "nowhere", "confirm": True}, "no namespace 'nowhere'"),
    ("delete_namespace", {"namespace": "*", "confirm": True}, "one namespace at a time"),
    ("import_memories", {"jsonl": "{not json"}, "line 1"),
    ("import_memories", {"jsonl": '{"kind": "memory"}\n'}, "line 1"),
    ("import_memories", {"jsonl": '{"kind": "header"}\n{"kind": "planet"}'}, "line 2"),
    ("set_scoring_weights", {"weights": {"vibes": 1.0}}, "unknown scoring signal"),
    ("set_scoring_weights", {"weights": {"bm25": -1}}, "greater than or equal to 0"),
    ("set_scoring_weights", {"weights": {"bm25": 0}, "merge": False}, "positive"),
    ("set_scoring_weights", {"weights": {}}, "weights"),
    ("namespace_stats", {"namespace": ""}, "namespace"),
]


async def test_bad_calls_are_tool_errors_and_the_server_survives(harness) -> None:
    async with harness.session() as session:
        known_result = await session.call_tool("store_memory", {"content": "a known memory"})
        known = harness.ok(known_result)["id"]
        for name, raw_args, expected in BAD_CALLS:
            args = json.loads(json.dumps(raw_args).replace("{known}", known))
            result = await session.call_tool(name, args)
            text = harness.error_text(result)
            assert expected.lower() in text.lower(), (name, raw_args, text)
            assert "internal error" not in text, (name, raw_args, text)
        # A query with no words in it is answered (no hits), not a crash.
        wordless = await session.call_tool("recall_memory", {"query": "!!! ???"})
        assert not wordless.is_error or "internal error" not in harness.error_text(wordless)
        # Still serving, and nothing half-applied.
        stats = harness.ok(await session.call_tool("namespace_stats", {}))
        assert stats["memories"] == 1
        assert "Traceback" not in harness.server_stderr()


def test_stdout_carries_protocol_messages_only(workdir: Path, tmp_path: Path) -> None:
    """Raw pipe check: every line the server writes to stdout is one JSON-RPC message."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "store_memory", "arguments": {"content": "raw pipe memory"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "get_memory", "arguments": {"memory_id": "nope"}},
        },
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    stderr_path = tmp_path / "raw-server.log"
    with stderr_path.open("w", encoding="utf-8") as errlog:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memlode", "mcp", "--no-background-embed"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
            text=True,
            cwd=workdir,
            env=env,
        )
        assert proc.stdin is not None and proc.stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        stdout = proc.stdout

        def read_lines() -> None:
            for line in stdout:
                lines.put(line)

        reader = threading.Thread(target=read_lines, daemon=True)
        reader.start()
        messages: list[dict[str, object]] = []
        try:
            for request in requests:
                proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            while len([m for m in messages if "id" in m]) < 4:
                line = lines.get(timeout=60)
                messages.append(json.loads(line))  # fails on any stray output
        finally:
            proc.stdin.close()  # end of input: the server shuts down
            returncode = proc.wait(timeout=30)
            reader.join(timeout=5)
            proc.stdout.close()
    assert returncode == 0, stderr_path.read_text()
    while not lines.empty():
        messages.append(json.loads(lines.get()))
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    by_id = {m["id"]: m for m in messages if "id" in m}
    assert set(by_id) == {1, 2, 3, 4}
    assert by_id[1]["result"]["serverInfo"]["name"] == "memlode"
    assert len(by_id[2]["result"]["tools"]) >= 18
    assert by_id[3]["result"]["isError"] is False
    assert by_id[4]["result"]["isError"] is True


async def test_storage_failure_is_a_tool_error(harness, tmp_path: Path) -> None:
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("this is not a database\n" * 10)
    async with harness.session(env={"MEMLODE_DB": str(not_a_db)}) as session:
        for _ in range(2):  # the second call fails the same way: nothing is left half-open
            result = await session.call_tool("store_memory", {"content": "lost?"})
            text = harness.error_text(result)
            assert "storage failure" in text and "not a SQLite database" in text, text
        assert len((await session.list_tools()).tools) >= 18  # still serving
    assert not_a_db.read_text().startswith("this is not a database")
