"""The MCP ``memory_store`` tool, through the SDK's real stdio client, writes no secret named
by its key into a memory file (the CLI and compaction summaries: tests/e2e/safety)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.anyio

CORPUS = Path(__file__).resolve().parents[1] / "e2e" / "safety" / "secrets_corpus.json"
CASES = {c["id"]: c for c in json.loads(CORPUS.read_text("utf-8"))["secrets"]}
NOTE_CASES = ("kc-yaml-password-word", "kd-py-def-default", "hd-curl-x-api-key-sq")


async def test_memory_store_tool_redacts_before_writing(harness: Any, workdir: Path) -> None:
    note = "\n\n".join(CASES[c]["text"] for c in NOTE_CASES)
    values = [v for c in NOTE_CASES for v in CASES[c]["values"]]
    async with harness.session() as session:
        stored = harness.ok(
            await session.call_tool("memory_store", {"name": "staging", "text": note})
        )
        assert stored["ref"] == "memory/staging.md"
        got = harness.ok(await session.call_tool("memory_get", {"path": "memory/staging.md"}))
    written = (workdir / "memory" / "staging.md").read_text("utf-8")
    assert "host: db.local" in written and "[redacted:" in written
    assert [v for v in values if v in written] == []
    assert [v for v in values if v in json.dumps(got)] == []
