"""memlode.hooks.adapters.cursor on payloads written from Cursor's hooks reference
(tests/clients/payloads/cursor/, each naming its source in "_source"; no Cursor runs here):
each one in Claude Code's shape and read back through memlode's extractors, then end to end
through the hooks ``memlode init --client cursor`` writes, run as Cursor runs them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import run_memlode

from memlode.hook_events import CLIENT_HOOKS, EVENTS
from memlode.hooks.adapters.cursor import adapt
from memlode.hooks.extract import extract, extract_failure

PAYLOADS = Path(__file__).resolve().parents[1] / "clients" / "payloads" / "cursor"
WORKSPACE = "/home/dev/zebra"
DOC = "https://cursor.com/docs/agent/hooks"

# The documented hooks.json: version 1, the agent events (cursor.com/docs/agent/hooks), and
# per entry the keys the reference names for a hook definition.
CURSOR_EVENTS = frozenset(
    {
        "sessionStart",
        "sessionEnd",
        "preToolUse",
        "postToolUse",
        "postToolUseFailure",
        "subagentStart",
        "subagentStop",
        "beforeShellExecution",
        "afterShellExecution",
        "beforeMCPExecution",
        "afterMCPExecution",
        "beforeReadFile",
        "afterFileEdit",
        "beforeSubmitPrompt",
        "preCompact",
        "stop",
        "afterAgentResponse",
        "afterAgentThought",
        "beforeTabFileRead",
        "afterTabFileEdit",
    }
)
ENTRY_KEYS = frozenset({"command", "type", "timeout", "matcher", "loop_limit", "failClosed"})


def payload(name: str, workspace: str = WORKSPACE) -> dict[str, Any]:
    text = (PAYLOADS / f"{name}.json").read_text(encoding="utf-8")
    data = json.loads(text.replace("WORKSPACE", workspace))
    assert isinstance(data, dict)
    assert data.pop("_source") == DOC
    return data


def adapted(event: str, name: str) -> tuple[str, dict[str, Any]]:
    result = adapt(event, payload(name))
    assert result is not None
    return result


def test_every_payload_names_its_source_and_a_registered_event() -> None:
    registered = {spec.event for spec in CLIENT_HOOKS["cursor"]}
    files = sorted(PAYLOADS.glob("*.json"))
    assert len(files) >= 10
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["_source"] == DOC, path.name
        assert data["hook_event_name"] in registered, path.name
        assert data["conversation_id"] == "c0nv-7f3a"


def test_session_id_and_cwd_come_from_the_conversation_and_the_first_workspace_root() -> None:
    event, data = adapted("session-start", "sessionStart")
    assert event == "session-start"
    assert data["session_id"] == "c0nv-7f3a"
    assert data["cwd"] == WORKSPACE
    assert data["hook_event_name"] == "SessionStart"
    assert data["model"] == "claude-sonnet-4-6"


def test_without_a_workspace_root_the_cwd_is_left_out() -> None:
    raw = payload("beforeSubmitPrompt")
    raw["workspace_roots"] = []
    result = adapt("prompt", raw)
    assert result is not None
    assert "cwd" not in result[1]
    assert result[1]["session_id"] == "c0nv-7f3a"


def test_prompt_is_verbatim() -> None:
    event, data = adapted("prompt", "beforeSubmitPrompt")
    assert event == "prompt"
    assert data["prompt"] == "Why does the zebra parser cut wide tables? Fix it in parser.py."
    assert data["hook_event_name"] == "UserPromptSubmit"


def test_a_file_edit_becomes_an_edit_read_by_the_extractor() -> None:
    event, data = adapted("post-tool", "afterFileEdit")
    assert event == "post-tool"
    assert data["tool_name"] == "Edit"
    assert data["tool_input"] == {
        "file_path": f"{WORKSPACE}/parser.py",
        "old_string": "LIMIT = 40",
        "new_string": "LIMIT = 4096",
        "replace_all": False,  # as Claude Code's own Edit input
    }
    obs = extract("Edit", data["tool_input"], data["tool_response"], data["cwd"], 2000)
    assert obs is not None
    assert obs.content.startswith("Edited parser.py")
    assert "LIMIT = 4096" in obs.content
    assert obs.metadata["file"] == f"{WORKSPACE}/parser.py"


def test_several_edits_of_one_file_are_one_multiedit_with_a_hunk_each() -> None:
    _, data = adapted("post-tool", "afterFileEdit-two-edits")
    assert data["tool_name"] == "MultiEdit"
    assert [e["new_string"] for e in data["tool_input"]["edits"]] == [
        "LIMIT = 4096",
        "def parse_row(row, limit=LIMIT):",
    ]
    obs = extract("MultiEdit", data["tool_input"], data["tool_response"], data["cwd"], 2000)
    assert obs is not None
    assert obs.content.startswith("Edited parser.py")
    assert obs.metadata["diff"]["hunks"] == 2


def test_a_shell_command_becomes_bash_with_its_output() -> None:
    event, data = adapted("post-tool", "afterShellExecution")
    assert event == "post-tool"
    assert data["tool_input"] == {"command": "python3 -m pytest tests/test_parser.py -q"}
    obs = extract("Bash", data["tool_input"], data["tool_response"], data["cwd"], 2000)
    assert obs is not None
    assert obs.content == (
        "$ python3 -m pytest tests/test_parser.py -q\nOutcome: tests: 3 passed\n"
        "[stdout]\n3 passed in 0.04s"
    )


def test_a_failed_command_is_a_failure_with_cursors_error() -> None:
    event, data = adapted("post-tool-failure", "postToolUseFailure-shell")
    assert event == "post-tool-failure"
    assert data["tool_name"] == "Bash"
    assert data["hook_event_name"] == "PostToolUseFailure"
    assert data["is_interrupt"] is False
    obs = extract_failure("Bash", data["tool_input"], data["error"], data["cwd"])
    assert obs is not None
    assert obs.content.startswith("Failed: $ python3 check_parser.py --frobnicate\n")
    assert "QuokkaFlagError: unknown option --frobnicate" in obs.content


def test_an_interrupted_call_is_marked_so() -> None:
    raw = payload("postToolUseFailure-shell")
    raw["is_interrupt"] = True
    result = adapt("post-tool-failure", raw)
    assert result is not None and result[1]["is_interrupt"] is True


def test_post_tool_use_keeps_reads_and_passes_over_what_other_events_report() -> None:
    event, data = adapted("post-tool", "postToolUse-read")
    assert (event, data["tool_name"]) == ("post-tool", "Read")
    obs = extract("Read", data["tool_input"], data["tool_response"], data["cwd"], 2000)
    assert obs is not None
    assert obs.content == "Read parser.py; defines parse_row"
    assert adapt("post-tool", payload("postToolUse-shell")) is None  # afterShellExecution has it


def test_memlodes_own_mcp_tools_are_dropped_and_others_kept() -> None:
    assert adapt("post-tool", payload("afterMCPExecution-memlode")) is None
    _, data = adapted("post-tool", "afterMCPExecution-github")
    assert data["tool_name"] == "mcp__cursor__list_commits"
    assert data["tool_input"] == {"repo": "zebra", "perPage": 1}
    obs = extract(data["tool_name"], data["tool_input"], data["tool_response"], WORKSPACE, 2000)
    assert obs is not None and obs.content.startswith("Used mcp__cursor__list_commits")


def test_the_agents_reply_is_the_stops_last_message() -> None:
    event, data = adapted("stop", "afterAgentResponse")
    assert event == "stop"
    assert data["last_assistant_message"].startswith("Finding: the zebra parser")
    assert data["stop_hook_active"] is False
    event, data = adapted("stop", "stop")
    assert "last_assistant_message" not in data
    assert data["status"] == "completed"


def test_compaction_and_session_end_carry_trigger_and_reason() -> None:
    assert adapted("pre-compact", "preCompact")[1]["trigger"] == "auto"
    assert adapted("session-end", "sessionEnd")[1]["reason"] == "completed"


# ---- the hooks init writes, run as Cursor runs them ---------------------------------------------


@pytest.fixture
def hooks_file(project: Path, tmp_path: Path) -> dict[str, Any]:
    """The user's ~/.cursor/hooks.json (init's default scope: this interpreter's command)."""
    home = tmp_path / "cursor-home"
    home.mkdir()
    done = run_memlode("init", "--client", "cursor", cwd=project, env={"HOME": str(home)})
    assert done.returncode == 0, done.stderr
    data = json.loads((home / ".cursor" / "hooks.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_the_hooks_file_matches_cursors_documented_schema(hooks_file: dict[str, Any]) -> None:
    assert hooks_file["version"] == 1
    hooks = hooks_file["hooks"]
    assert set(hooks) <= CURSOR_EVENTS
    assert set(hooks) == {spec.event for spec in CLIENT_HOOKS["cursor"]}
    for event, entries in hooks.items():
        assert isinstance(entries, list) and entries, event
        for entry in entries:
            assert set(entry) <= ENTRY_KEYS, (event, entry)
            assert isinstance(entry["command"], str) and entry["command"], event


def test_each_installed_hook_stores_what_cursor_sent(
    hooks_file: dict[str, Any], project: Path
) -> None:
    """Each command exactly as written in hooks.json, through ``sh -c`` from the project,
    fed its documented payload; then the store read back."""
    order = [
        "sessionStart",
        "beforeSubmitPrompt",
        "postToolUse-read",
        "afterFileEdit",
        "afterShellExecution",
        "postToolUse-shell",
        "postToolUseFailure-shell",
        "afterMCPExecution-memlode",
        "afterAgentResponse",
        "stop",
        "sessionEnd",
    ]
    for name in order:
        data = payload(name, str(project))
        (entry,) = hooks_file["hooks"][data["hook_event_name"]]
        words = entry["command"].split()
        assert words[-1] == "cursor" and words[-2] in EVENTS
        proc = subprocess.run(
            ["sh", "-c", entry["command"]],
            input=json.dumps(data),
            capture_output=True,
            text=True,
            cwd=project,
            timeout=60,
        )
        assert proc.returncode == 0, (name, proc.stderr)
    listed = run_memlode("list", "--json", "-n", "*", "--limit", "100", cwd=project)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    mine = [r for r in rows if r["metadata"].get("client") == "cursor"]
    assert len(mine) == len(rows)
    contents = [r["content"] for r in mine]
    assert all(r["session_id"] == "c0nv-7f3a" for r in mine)
    assert any(c.startswith("Why does the zebra parser cut wide tables?") for c in contents)
    assert any(c.startswith("Read parser.py") for c in contents)
    assert any(c.startswith("Edited parser.py") for c in contents)
    commands = [c for c in contents if c.startswith("$ python3 -m pytest")]
    assert commands == [
        "$ python3 -m pytest tests/test_parser.py -q\nOutcome: tests: 3 passed\n"
        "[stdout]\n3 passed in 0.04s"
    ]
    assert any(c.startswith("Failed: $ python3 check_parser.py --frobnicate") for c in contents)
    assert not any("recall_memory" in c for c in contents)
    assert any("raised it to 4096" in c for c in contents)  # the summary keeps the reply


def _run(hooks_file: dict[str, Any], name: str, project: Path) -> str:
    data = payload(name, str(project))
    (entry,) = hooks_file["hooks"][data["hook_event_name"]]
    proc = subprocess.run(
        ["sh", "-c", entry["command"]],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    return proc.stdout


def test_session_start_hands_context_in_cursors_shape_and_a_prompt_none(
    hooks_file: dict[str, Any], project: Path
) -> None:
    """sessionStart's output is Cursor's ``additional_context``; beforeSubmitPrompt cannot add
    context (only continue/user_message), so memlode recalls nothing there."""
    stored = run_memlode(
        "store", "The zebra parser wraps tables wider than 120 columns", "--type", "decision",
        cwd=project,
    )  # fmt: skip
    assert stored.returncode == 0, stored.stderr
    out = json.loads(_run(hooks_file, "sessionStart", project))
    assert set(out) == {"additional_context", "continue"}
    assert "wraps tables wider than 120 columns" in out["additional_context"]
    assert _run(hooks_file, "beforeSubmitPrompt", project) == ""
    rows = json.loads(run_memlode("list", "--json", "-n", "*", cwd=project).stdout)
    (prompt,) = [r for r in rows if "prompt" in r["tags"] or "instruction" in r["tags"]]
    assert "injected" not in prompt["metadata"]  # nothing was recalled for it
