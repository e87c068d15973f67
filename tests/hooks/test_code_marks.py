"""The PostToolUse hook marks the files an edit changed (``storage.code_dirty``) for the
resident to re-index; a Read marks nothing, a repeated edit of one file bumps its one mark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import edit_payload

from memlode.engine import Engine
from memlode.storage import code_dirty


def _post_tool(project: Path, tool: str, tool_input: dict[str, Any], response: dict[str, Any]):
    return {
        "session_id": "mark-session",
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_response": response,
    }


def test_edits_mark_their_files_and_reads_do_not(hook, project: Path, proj_engine: Engine):
    code = project / "src" / "app.py"
    other = project / "src" / "util.py"
    read = _post_tool(
        project,
        "Read",
        {"file_path": str(other)},
        {"type": "text", "file": {"filePath": str(other), "content": "x = 1\n"}},
    )
    assert hook("post-tool", read).returncode == 0
    assert code_dirty.pending(proj_engine.conn) == []
    assert hook("post-tool", edit_payload(code, "a = 1", "a = 2", project)).returncode == 0
    assert hook("post-tool", edit_payload(code, "b = 1", "b = 2", project)).returncode == 0
    multi = _post_tool(
        project,
        "MultiEdit",
        {"file_path": "src/util.py", "edits": [{"old_string": "x", "new_string": "y"}]},
        {"filePath": str(other), "edits": [], "structuredPatch": []},
    )
    assert hook("post-tool", multi).returncode == 0  # a relative path, made absolute
    marks = {path: count for path, _, count in code_dirty.pending(proj_engine.conn)}
    assert marks == {str(code): 2, str(other): 1}
