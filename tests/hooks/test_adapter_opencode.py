"""memlode.hooks.adapters.opencode on the payloads memlode's OpenCode plugin really sent
(OpenCode 1.18.33, recorded in tests/clients/payloads/opencode/): each one in Claude Code's
shape, and what memlode's extractors make of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlode.hooks.adapters.opencode import adapt
from memlode.hooks.extract import extract, extract_failure

PAYLOADS = Path(__file__).resolve().parents[1] / "clients" / "payloads" / "opencode"


def payload(name: str) -> dict[str, Any]:
    data = json.loads((PAYLOADS / f"{name}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def adapted(event: str, name: str) -> tuple[str, dict[str, Any]]:
    result = adapt(event, payload(name))
    assert result is not None
    return result


def observed(name: str) -> str:
    event, data = adapted("post-tool", name)
    assert event == "post-tool"
    obs = extract(data["tool_name"], data["tool_input"], data["tool_response"], data["cwd"], 2000)
    assert obs is not None
    return obs.content


def test_session_start_prompt_and_stop_keep_session_and_cwd() -> None:
    raw = payload("session.created")
    event, start = adapted("session-start", "session.created")
    assert event == "session-start"
    assert start["hook_event_name"] == "SessionStart"
    assert start["session_id"] == raw["session_id"] and start["session_id"].startswith("ses_")
    assert start["cwd"] == raw["cwd"]
    assert start["source"] == "startup"
    event, prompt = adapted("prompt", "chat.message")
    assert (event, prompt["hook_event_name"]) == ("prompt", "UserPromptSubmit")
    assert prompt["prompt"] == payload("chat.message")["prompt"]
    assert prompt["session_id"] == raw["session_id"]
    event, stop = adapted("stop", "session.idle")
    assert (event, stop["hook_event_name"]) == ("stop", "Stop")
    assert stop["last_assistant_message"] == payload("session.idle")["last_assistant_message"]
    assert stop["stop_hook_active"] is False


def test_an_empty_prompt_is_passed_over() -> None:
    assert adapt("prompt", {**payload("chat.message"), "prompt": "  "}) is None


def test_read_becomes_read_with_its_line_range() -> None:
    raw = payload("tool.execute.after.read")
    _event, data = adapted("post-tool", "tool.execute.after.read")
    assert data["tool_name"] == "Read"
    assert data["tool_input"] == {"file_path": raw["args"]["filePath"]}
    file_info = data["tool_response"]["file"]
    assert file_info["filePath"] == raw["args"]["filePath"]
    assert (file_info["startLine"], file_info["numLines"], file_info["totalLines"]) == (1, 2, 2)
    assert observed("tool.execute.after.read") == "Read notes.py lines 1-2 of 2; defines alpha"


def test_edit_becomes_edit_with_the_patch() -> None:
    _event, data = adapted("post-tool", "tool.execute.after.edit")
    assert data["tool_name"] == "Edit"
    assert data["tool_input"]["old_string"] == "return 1"
    assert data["tool_input"]["new_string"] == "return 2"
    (hunk,) = data["tool_response"]["structuredPatch"]
    assert hunk["lines"] == [" def alpha():", "-    return 1", "+    return 2"]
    text = observed("tool.execute.after.edit")
    assert text.startswith("Edited notes.py") and "return 2" in text


def test_write_of_a_new_file_is_a_creation() -> None:
    _event, data = adapted("post-tool", "tool.execute.after.write")
    assert data["tool_name"] == "Write"
    assert data["tool_response"]["type"] == "create"
    assert observed("tool.execute.after.write").startswith("Created new.py")


def test_passing_command_is_bash_with_its_output() -> None:
    _event, data = adapted("post-tool", "tool.execute.after.bash-exit-0")
    assert data["tool_name"] == "Bash"
    assert data["tool_input"] == {"command": "echo ok", "description": "echo"}
    assert data["tool_response"]["stdout"] == "ok\n"
    assert observed("tool.execute.after.bash-exit-0") == "$ echo ok\n# echo\n[stdout]\nok"


def test_command_that_exits_non_zero_is_a_failure() -> None:
    event, data = adapted("post-tool", "tool.execute.after.bash-exit-2")
    assert (event, data["hook_event_name"]) == ("post-tool-failure", "PostToolUseFailure")
    assert data["tool_name"] == "Bash"
    assert data["error"].startswith("Exit code 2\nls: cannot access '/nonexistent-xyz'")
    obs = extract_failure(data["tool_name"], data["tool_input"], data["error"], data["cwd"])
    assert obs is not None
    assert obs.content.startswith("Failed: $ ls /nonexistent-xyz\nExit code 2")


@pytest.mark.parametrize(
    ("name", "tool", "message"),
    [
        ("message.part.updated.edit-error", "Edit", "Could not find oldString"),
        ("message.part.updated.webfetch-error", "WebFetch", "404 GET"),
    ],
)
def test_tool_that_threw_is_a_failure(name: str, tool: str, message: str) -> None:
    for event in ("post-tool", "post-tool-failure"):
        adapted_event, data = adapted(event, name)
        assert adapted_event == "post-tool-failure"
        assert data["tool_name"] == tool
        assert message in data["error"]
        assert "tool_response" not in data
    obs = extract_failure(data["tool_name"], data["tool_input"], data["error"], data["cwd"])
    assert obs is not None and message in obs.content


def test_grep_and_glob_list_their_files() -> None:
    _event, grep = adapted("post-tool", "tool.execute.after.grep")
    assert grep["tool_name"] == "Grep"
    assert [Path(n).name for n in grep["tool_response"]["filenames"]] == ["new.py", "notes.py"]
    assert observed("tool.execute.after.grep") == "Grep 'def' in . -> 2 files: new.py, notes.py"
    _event, glob = adapted("post-tool", "tool.execute.after.glob")
    assert glob["tool_name"] == "Glob"
    assert glob["tool_response"]["numFiles"] == 2
    assert observed("tool.execute.after.glob") == "Glob '**/*.py' -> 2 files: new.py, notes.py"


def test_memlodes_own_mcp_tools_are_not_captured() -> None:
    assert payload("tool.execute.after.mcp-memlode")["tool"] == "memlode_recall_memory"
    assert adapt("post-tool", payload("tool.execute.after.mcp-memlode")) is None


def test_another_mcp_tool_keeps_its_name_and_output() -> None:
    raw = {**payload("tool.execute.after.mcp-memlode"), "tool": "github_list_issues"}
    raw["output"] = "issue 1"
    result = adapt("post-tool", raw)
    assert result is not None
    event, data = result
    assert event == "post-tool"
    assert data["tool_name"] == "github_list_issues"
    assert data["tool_response"] == {"output": "issue 1"}


def test_compaction_and_deletion() -> None:
    base = {"session_id": "ses_x", "cwd": "/p"}
    event, data = adapt("pre-compact", {**base, "hook_event_name": "x"}) or ("", {})
    assert (event, data["trigger"]) == ("pre-compact", "auto")
    event, data = adapt("session-end", {**base, "reason": "deleted"}) or ("", {})
    assert (event, data["reason"], data["hook_event_name"]) == (
        "session-end",
        "deleted",
        "SessionEnd",
    )


def test_a_long_output_is_read_from_the_file_opencode_saved(tmp_path: Path) -> None:
    """OpenCode hands a long output over cut: the model's text names the file with all of it
    and holds the output's end; ``metadata.output`` and the file can lag behind the end (1.18,
    recorded shape). The stored command starts where the output started (from the file) and
    ends with its verdict (from the model's text)."""
    lines = [f"[{i}/3000] Compiling module {i} of the calc build" for i in range(3000)]
    whole = "\n".join([*lines, "Build complete! (12.34s)"]) + "\n"
    saved = tmp_path / "tool_2433093f7001lbnELaWMQJ6MXt"
    saved.write_text(whole[:40_000])  # still being written
    tail = whole[-51_000:].split("\n", 1)[1]  # the last ~50 KB, from a whole line
    data = payload("tool.execute.after.bash-exit-0")
    data["args"] = {"command": "sh build.sh", "description": "Build"}
    data["output"] = f"...output truncated...\n\nFull output saved to: {saved}\n\n{tail}"
    lagging = "...\n\n" + whole[:100_000][-30_000:]  # the metadata, behind the end
    data["metadata"] = {"output": lagging, "exit": 0, "truncated": True, "outputPath": str(saved)}
    _event, shaped = adapt("post-tool", data) or ("", {})
    stdout = shaped["tool_response"]["stdout"]
    assert stdout.startswith("[0/3000] Compiling module 0 of the calc build\n")
    assert stdout.endswith(
        "[2999/3000] Compiling module 2999 of the calc build\n" + "Build complete! (12.34s)\n"
    )
    assert "\n…\n" in stdout and stdout.count("Compiling module 2500 of") == 1
    obs = extract("Bash", shaped["tool_input"], shaped["tool_response"], data["cwd"], 2000)
    assert obs is not None
    assert obs.content.startswith("$ sh build.sh\n# Build\nOutcome: build: succeeded in 12.34s\n")
    # a shorter output: the file's start and the model's end overlap, each line is kept once
    short = "\n".join(lines[:1400]) + "\n"  # 66 KB: its first 30 KB and last 50 KB overlap
    saved.write_text(short)
    tail = short[-51_000:].split("\n", 1)[1]
    data["output"] = f"...output truncated...\n\nFull output saved to: {saved}\n\n{tail}"
    _event, shaped = adapt("post-tool", data) or ("", {})
    assert shaped["tool_response"]["stdout"] == short
    # a line the end starts with that the head also holds earlier is no overlap by itself
    repeated = "ok\n" + "".join(f"step {i}\n" for i in range(6000)) + "ok\nfinal\n"
    saved.write_text(repeated)
    head_part = repeated[:30_000]
    cut_at = repeated.index("ok\n", 10)  # the second "ok": in the end only
    data["output"] = f"...output truncated...\n\nFull output saved to: {saved}\n\n"
    data["output"] += repeated[cut_at:]
    _event, shaped = adapt("post-tool", data) or ("", {})
    kept = shaped["tool_response"]["stdout"]
    assert kept.startswith(head_part[: head_part.rfind("\n") + 1].rstrip("\n") + "\n…\nok\n")
    saved.unlink()  # gone: the end the model got
    _event, shaped = adapt("post-tool", data) or ("", {})
    assert shaped["tool_response"]["stdout"] == repeated[cut_at:]
