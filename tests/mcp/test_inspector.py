"""The official MCP Inspector (CLI mode) against ``memlode mcp``: a black-box client we do not own.

The Inspector is installed once into ``<repo>/.cache/inspector`` (npm, pinned). 0.15.0 is the
newest release that declares no Node engine floor; later ones ask for Node >= 22.7.5 (2.x for
>= 22.19), and this project's CI has Node 20.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from memlode.engine import Engine

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

INSPECTOR_VERSION = "0.15.0"
REPO = Path(__file__).resolve().parents[2]
INSPECTOR_DIR = REPO / ".cache" / "inspector"
INSPECTOR_BIN = INSPECTOR_DIR / "node_modules" / ".bin" / "mcp-inspector"


def _installed_version() -> str | None:
    package = INSPECTOR_DIR / "node_modules" / "@modelcontextprotocol" / "inspector"
    try:
        return str(json.loads((package / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


@pytest.fixture(scope="module")
def inspector() -> Path:
    if _installed_version() == INSPECTOR_VERSION and INSPECTOR_BIN.exists():
        return INSPECTOR_BIN
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("node/npm are not installed; the MCP Inspector needs them")
    # Install next to the final place, then move it in: a parallel run never sees half a tree.
    staging = INSPECTOR_DIR.with_name(f"inspector-{uuid.uuid4().hex[:8]}")
    staging.mkdir(parents=True)
    try:
        proc = subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(staging),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, f"npm install failed:\n{proc.stderr}"
        if INSPECTOR_DIR.exists():
            shutil.rmtree(INSPECTOR_DIR)
        staging.rename(INSPECTOR_DIR)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return INSPECTOR_BIN


def _inspect(inspector: Path, cwd: Path, *args: str) -> dict[str, object]:
    command = [str(inspector), "--cli", sys.executable, "-m", "memlode", "mcp", *args]
    proc = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        timeout=120,
    )
    assert proc.returncode == 0, f"{command}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    start = proc.stdout.index("{")  # the JSON answer (some versions print a banner first)
    answer: dict[str, object] = json.loads(proc.stdout[start:])
    return answer


def test_inspector_lists_and_calls_tools(inspector: Path, workdir: Path, store: Engine) -> None:
    listed = _inspect(inspector, workdir, "--method", "tools/list")
    names = {tool["name"] for tool in listed["tools"]}  # type: ignore[attr-defined]
    assert {"store_memory", "recall_memory", "get_decision_chain"} <= names

    called = _inspect(
        inspector,
        workdir,
        "--method",
        "tools/call",
        "--tool-name",
        "store_memory",
        "--tool-arg",
        "content=Stored through the MCP Inspector",
        "--tool-arg",
        "memory_type=decision",
        "--tool-arg",
        'tags=["inspector"]',
    )
    assert called["isError"] is False, called
    memory_id = called["structuredContent"]["id"]  # type: ignore[index]
    memory = store.get(memory_id, touch=False)
    assert memory.content == "Stored through the MCP Inspector"
    assert memory.tags == ["inspector"]
    assert str(memory.memory_type) == "decision"
