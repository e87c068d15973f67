"""memlode.hooks.adapters.gemini on the payloads Gemini CLI 0.61 really sent
(tests/clients/payloads/gemini/, recorded from ``gemini -p`` against the scripted model of
tests/clients/test_gemini.py), read back through memlode's extractors.

Sessions 1-3 are test_gemini.py's scenario; session 4 ran glob, grep_search, write_file, a
replace that found nothing, a ranged read_file, a read_file of a missing file and
list_directory. ``sessionN-03-pre-compact.json`` is one of the PreCompress events Gemini CLI
fired before each model request of that session.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memlode.hooks.adapters.gemini import adapt, strip_hook_context
from memlode.hooks.extract import extract, extract_failure

PAYLOADS = Path(__file__).resolve().parents[1] / "clients" / "payloads" / "gemini"
CWD = "/tmp/gemini-run/proj"  # where the recordings were made
CALC = f"{CWD}/calc.py"
FINDING = (
    "Finding QUOKKA-3: add() in calc.py subtracted its arguments (a sign bug); "
    "it now returns a + b and the checks pass."
)


def payload(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PAYLOADS / name).read_text())
    return data


def adapted(event: str, name: str) -> tuple[str, dict[str, Any]]:
    result = adapt(event, payload(name))
    assert result is not None
    return result


def test_session_start_keeps_what_the_handler_reads() -> None:
    event, data = adapted("session-start", "session1-01-session-start.json")
    raw = payload("session1-01-session-start.json")
    assert event == "session-start"
    assert data["hook_event_name"] == "SessionStart"
    assert data["source"] == "startup"
    for key in ("session_id", "transcript_path", "cwd"):
        assert data[key] == raw[key]


def test_first_prompt_arrives_as_typed() -> None:
    event, data = adapted("prompt", "session1-02-prompt.json")
    assert event == "prompt"
    assert data["prompt"] == "Fix the add function in calc.py so the checks pass"
    assert data["hook_event_name"] == "UserPromptSubmit"


@pytest.mark.parametrize(
    ("name", "typed"),
    [
        ("session2-02-prompt.json", "Remind me what the sign bug in the calc.py add function was"),
        ("session3-02-prompt.json", "What is the weather usually like in Lisbon in April?"),
    ],
)
def test_session_start_context_is_cut_from_the_prompt(name: str, typed: str) -> None:
    """Gemini CLI put SessionStart's additionalContext in front of the prompt BeforeAgent got."""
    raw = payload(name)["prompt"]
    assert raw.startswith("<hook_context>## memlode: what I remember about")
    assert raw.endswith(typed)
    _event, data = adapted("prompt", name)
    assert data["prompt"] == typed


def test_strip_hook_context_leaves_other_text_alone() -> None:
    assert strip_hook_context("plain prompt") == "plain prompt"
    assert strip_hook_context("say <hook_context>x</hook_context>") == (
        "say <hook_context>x</hook_context>"
    )
    assert (
        strip_hook_context("<hook_context>a</hook_context>\n\n<hook_context>b</hook_context>\n\nq")
        == "q"
    )
    assert strip_hook_context("<hook_context>never closed") == "<hook_context>never closed"


def test_after_agent_becomes_stop_with_the_answer() -> None:
    event, data = adapted("stop", "session1-12-stop.json")
    assert event == "stop"
    assert data["last_assistant_message"] == FINDING
    assert data["stop_hook_active"] is False
    assert data["hook_event_name"] == "Stop"


def test_session_end_keeps_its_reason() -> None:
    event, data = adapted("session-end", "session1-13-session-end.json")
    assert (event, data["reason"], data["hook_event_name"]) == ("session-end", "exit", "SessionEnd")


def test_automatic_pre_compress_before_each_request_is_ignored() -> None:
    """Gemini CLI 0.61 fires PreCompress (trigger auto) before every model request."""
    for session in (1, 2, 3, 4):
        data = payload(f"session{session}-03-pre-compact.json")
        assert data["trigger"] == "auto"
        assert adapt("pre-compact", data) is None


def test_manual_compress_becomes_pre_compact() -> None:
    data = {**payload("session1-03-pre-compact.json"), "trigger": "manual"}
    event, out = adapt("pre-compact", data) or ("", {})
    assert (event, out["trigger"], out["hook_event_name"]) == (
        "pre-compact",
        "manual",
        "PreCompact",
    )


def test_read_file_becomes_read() -> None:
    event, data = adapted("post-tool", "session1-04-post-tool-read-file.json")
    assert event == "post-tool"
    assert data["tool_name"] == "Read"
    assert data["tool_input"] == {"file_path": CALC}  # the model said "calc.py"
    assert data["tool_response"]["file"]["content"] == "def add(a, b):\n    return a - b\n"
    obs = extract("Read", data["tool_input"], data["tool_response"], CWD, 2000)
    assert obs is not None
    assert obs.content == "Read calc.py lines 1-2 of 2; defines add"


def test_ranged_read_file_keeps_its_window() -> None:
    _event, data = adapted("post-tool", "session4-12-post-tool-read-file.json")
    assert data["tool_input"] == {"file_path": CALC, "offset": 2, "limit": 1}
    file_info = data["tool_response"]["file"]
    assert (file_info["startLine"], file_info["numLines"], file_info["totalLines"]) == (2, 1, 3)
    assert file_info["content"] == "    return a + b"
    obs = extract("Read", data["tool_input"], data["tool_response"], CWD, 2000)
    assert obs is not None and obs.content.startswith("Read calc.py lines 2-2 of 3")


def test_replace_becomes_edit_with_its_patch() -> None:
    event, data = adapted("post-tool", "session1-06-post-tool-replace.json")
    assert event == "post-tool"
    assert data["tool_name"] == "Edit"
    assert data["tool_input"] == {
        "file_path": CALC,
        "old_string": "return a - b",
        "new_string": "return a + b",
        "replace_all": False,
    }
    (hunk,) = data["tool_response"]["structuredPatch"]
    assert hunk["lines"] == [" def add(a, b):", "-    return a - b", "+    return a + b"]
    assert (hunk["oldStart"], hunk["oldLines"], hunk["newStart"], hunk["newLines"]) == (1, 2, 1, 2)
    obs = extract("Edit", data["tool_input"], data["tool_response"], CWD, 2000)
    assert obs is not None
    assert obs.content.startswith("Edited calc.py: +1 -1 lines in 1 hunk")
    assert "return a + b" in obs.content


def test_failing_shell_command_becomes_a_failure() -> None:
    """Gemini CLI reports a non-zero exit as a successful call whose output says so."""
    raw = payload("session1-08-post-tool-run-shell-command.json")
    assert "error" not in raw["tool_response"]
    assert "Exit Code: 1" in raw["tool_response"]["llmContent"]
    event, data = adapted("post-tool", "session1-08-post-tool-run-shell-command.json")
    assert event == "post-tool-failure"
    assert data["tool_name"] == "Bash"
    assert data["tool_input"] == {"command": "sh check.sh first", "description": "Run the checks"}
    assert "tool_response" not in data
    assert data["error"] == "Exit code 1\nAssertionError: ZEBRA-4471 add(2, 2) returned 0"
    assert data["hook_event_name"] == "PostToolUseFailure"
    obs = extract_failure("Bash", data["tool_input"], data["error"], CWD)
    assert obs is not None
    assert obs.content.startswith("Failed: $ sh check.sh first\nExit code 1\n")


def test_passing_shell_command_becomes_bash_with_its_output() -> None:
    event, data = adapted("post-tool", "session1-10-post-tool-run-shell-command.json")
    assert event == "post-tool"
    assert data["tool_name"] == "Bash"
    assert data["tool_response"]["stdout"] == "all checks passed"
    assert data["tool_response"]["interrupted"] is False
    obs = extract("Bash", data["tool_input"], data["tool_response"], CWD, 2000)
    assert obs is not None
    assert obs.content == "$ sh check.sh\n# Run the checks again\n[stdout]\nall checks passed"


def test_memlodes_own_mcp_tool_is_not_captured() -> None:
    data = payload("session2-04-post-tool-mcp-memlode-recall-memory.json")
    assert data["mcp_context"]["server_name"] == "memlode"
    assert adapt("post-tool", data) is None


def test_another_servers_mcp_tool_gets_claude_codes_name() -> None:
    data = payload("session2-04-post-tool-mcp-memlode-recall-memory.json")
    data["tool_name"] = "mcp_tickets_find"
    data["mcp_context"] = {**data["mcp_context"], "server_name": "tickets", "tool_name": "find"}
    _event, out = adapt("post-tool", data) or ("", {})
    assert out["tool_name"] == "mcp__tickets__find"


def test_glob_becomes_glob_with_its_files() -> None:
    _event, data = adapted("post-tool", "session4-04-post-tool-glob.json")
    assert data["tool_name"] == "Glob"
    assert data["tool_input"] == {"pattern": "*.py"}
    assert data["tool_response"]["filenames"] == [CALC]
    obs = extract("Glob", data["tool_input"], data["tool_response"], CWD, 2000)
    assert obs is not None and obs.content == "Glob '*.py' -> 1 file: calc.py"


def test_grep_search_becomes_grep_with_its_matches() -> None:
    _event, data = adapted("post-tool", "session4-06-post-tool-grep-search.json")
    assert data["tool_name"] == "Grep"
    assert data["tool_input"] == {"pattern": "def add", "glob": "*.py", "output_mode": "content"}
    assert data["tool_response"]["content"] == "calc.py:1:def add(a, b):"
    obs = extract("Grep", data["tool_input"], data["tool_response"], CWD, 2000)
    assert obs is not None
    assert obs.content == (
        "Grep 'def add' (glob *.py) -> 1 matching line in 1 file: calc.py\ncalc.py:1:def add(a, b):"
    )


def test_grep_matches_are_read_from_the_text_without_the_display() -> None:
    data = payload("session4-06-post-tool-grep-search.json")
    data["tool_response"]["returnDisplay"] = "Found 1 match"
    _event, out = adapt("post-tool", data) or ("", {})
    assert out["tool_response"]["content"] == "calc.py:1:def add(a, b):"


def test_write_file_of_a_new_file_becomes_a_created_write() -> None:
    _event, data = adapted("post-tool", "session4-08-post-tool-write-file.json")
    assert data["tool_name"] == "Write"
    assert data["tool_response"]["type"] == "create"
    obs = extract("Write", data["tool_input"], data["tool_response"], CWD, 2000)
    assert obs is not None and obs.content.startswith("Created notes/todo.md: +2")


@pytest.mark.parametrize(
    ("name", "tool", "error"),
    [
        ("session4-10-post-tool-replace.json", "Edit", "Could not find an exact match"),
        ("session4-14-post-tool-read-file.json", "Read", "File not found:"),
    ],
)
def test_failed_tool_becomes_a_failure_with_its_message(name: str, tool: str, error: str) -> None:
    event, data = adapted("post-tool", name)
    assert (event, data["tool_name"]) == ("post-tool-failure", tool)
    assert data["error"].startswith(error)
    obs = extract_failure(tool, data["tool_input"], data["error"], CWD)
    assert obs is not None and obs.content.startswith(f"Failed: {tool} ")


def test_other_tools_keep_their_name() -> None:
    _event, data = adapted("post-tool", "session4-16-post-tool-list-directory.json")
    assert data["tool_name"] == "list_directory"
    assert data["tool_input"] == {"dir_path": "."}
    obs = extract(data["tool_name"], data["tool_input"], data["tool_response"], CWD, 2000)
    assert obs is not None  # what the model read of its reply, once
    assert obs.content.endswith(
        "Answered: Directory listing for /tmp/gemini-run/proj: [DIR] .gemini [DIR] notes "
        "calc.py (32 bytes) check.sh (124 bytes) (1 ignored)"
    )


def test_adapter_imports_nothing_heavy() -> None:
    """It runs in every hook process: nothing beyond what the package already loaded."""
    code = (
        "import sys, memlode.hooks.adapters; before = set(sys.modules)\n"
        "import memlode.hooks.adapters.gemini\n"
        "new = set(sys.modules) - before\n"
        "print(sorted(m for m in new if not m.startswith('memlode')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
