"""memlode.hooks.adapters.windsurf on payloads written from Windsurf's Cascade hooks reference
(tests/clients/payloads/windsurf/, each naming its source in "_source"; no Windsurf runs here):
each one in Claude Code's shape and read back through memlode's extractors, then end to end
through the hooks ``memlode init --client windsurf`` writes, run as Cascade runs them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import run_memlode

from memlode.hook_events import CLIENT_HOOKS, EVENTS
from memlode.hooks.adapters.windsurf import adapt
from memlode.hooks.extract import extract

PAYLOADS = Path(__file__).resolve().parents[1] / "clients" / "payloads" / "windsurf"
WORKSPACE = "/home/dev/zebra"
DOC = "https://docs.windsurf.com/windsurf/cascade/hooks"

# The documented hooks.json: {"hooks": {event: [entry]}}, the Cascade events, and the keys the
# reference's "Configuration Options" name for an entry.
CASCADE_EVENTS = frozenset(
    {
        "pre_read_code",
        "post_read_code",
        "pre_write_code",
        "post_write_code",
        "pre_run_command",
        "post_run_command",
        "pre_mcp_tool_use",
        "post_mcp_tool_use",
        "pre_user_prompt",
        "post_cascade_response",
        "post_cascade_response_with_transcript",
        "post_setup_worktree",
    }
)
ENTRY_KEYS = frozenset({"command", "show_output", "working_directory", "powershell"})


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
    registered = {spec.event for spec in CLIENT_HOOKS["windsurf"]}
    files = sorted(PAYLOADS.glob("*.json"))
    assert len(files) >= 6
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["_source"] == DOC, path.name
        assert data["agent_action_name"] in registered, path.name
        assert set(data) == {
            "_source",
            "agent_action_name",
            "trajectory_id",
            "execution_id",
            "timestamp",
            "tool_info",
        }


def test_prompt_is_verbatim_in_the_trajectorys_session() -> None:
    event, data = adapted("prompt", "pre_user_prompt")
    assert event == "prompt"
    assert data["prompt"] == "Why does the zebra parser cut wide tables? Fix it in parser.py."
    assert data["session_id"] == "traj-5e1d"
    assert "cwd" not in data  # Cascade sends none with a prompt: memlode takes the process's
    assert data["hook_event_name"] == "UserPromptSubmit"


def test_a_read_becomes_read() -> None:
    event, data = adapted("post-tool", "post_read_code")
    assert (event, data["tool_name"]) == ("post-tool", "Read")
    obs = extract("Read", data["tool_input"], data["tool_response"], WORKSPACE, 2000)
    assert obs is not None and obs.content == "Read parser.py"


def test_a_write_becomes_an_edit_and_several_a_multiedit() -> None:
    _, data = adapted("post-tool", "post_write_code")
    assert data["tool_name"] == "Edit"
    assert data["tool_input"]["old_string"] == "LIMIT = 40"
    obs = extract("Edit", data["tool_input"], data["tool_response"], WORKSPACE, 2000)
    assert obs is not None
    assert obs.content.startswith("Edited parser.py")
    assert "LIMIT = 4096" in obs.content
    _, data = adapted("post-tool", "post_write_code-two-edits")
    assert data["tool_name"] == "MultiEdit"
    obs = extract("MultiEdit", data["tool_input"], data["tool_response"], WORKSPACE, 2000)
    assert obs is not None and obs.metadata["diff"]["hunks"] == 2


def test_a_command_becomes_bash_with_its_cwd() -> None:
    _, data = adapted("post-tool", "post_run_command")
    assert data["tool_name"] == "Bash"
    assert data["cwd"] == WORKSPACE
    obs = extract("Bash", data["tool_input"], data["tool_response"], data["cwd"], 2000)
    assert obs is not None
    assert obs.content == "$ python3 -m pytest tests/test_parser.py -q"


def test_memlodes_own_mcp_tools_are_dropped_and_others_kept() -> None:
    assert adapt("post-tool", payload("post_mcp_tool_use-memlode")) is None
    _, data = adapted("post-tool", "post_mcp_tool_use-github")
    assert data["tool_name"] == "mcp__github__list_commits"
    assert data["tool_input"]["repo"] == "zebra"


def test_the_response_is_the_stops_last_message() -> None:
    event, data = adapted("stop", "post_cascade_response")
    assert event == "stop"
    assert "raised it to 4096" in data["last_assistant_message"]
    assert data["stop_hook_active"] is False


# ---- the hooks init writes, run as Cascade runs them --------------------------------------------


@pytest.fixture
def hooks_file(project: Path, tmp_path: Path) -> dict[str, Any]:
    """The user's ~/.codeium/windsurf/hooks.json (init's default scope)."""
    home = tmp_path / "windsurf-home"
    home.mkdir()
    done = run_memlode("init", "--client", "windsurf", cwd=project, env={"HOME": str(home)})
    assert done.returncode == 0, done.stderr
    path = home / ".codeium" / "windsurf" / "hooks.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_the_hooks_file_matches_cascades_documented_schema(hooks_file: dict[str, Any]) -> None:
    assert set(hooks_file) == {"hooks"}
    hooks = hooks_file["hooks"]
    assert set(hooks) <= CASCADE_EVENTS
    assert set(hooks) == {spec.event for spec in CLIENT_HOOKS["windsurf"]}
    for event, entries in hooks.items():
        assert isinstance(entries, list) and entries, event
        for entry in entries:
            assert set(entry) <= ENTRY_KEYS, (event, entry)
            assert isinstance(entry["command"], str) and entry["command"], event
            assert entry["show_output"] is False  # hook output stays out of the Cascade UI


def test_each_installed_hook_stores_what_cascade_sent(
    hooks_file: dict[str, Any], project: Path
) -> None:
    """Each command exactly as written in hooks.json, through ``sh -c`` from the workspace
    root (Cascade's default working directory), fed its documented payload; then the store
    read back."""
    order = [
        "pre_user_prompt",
        "post_read_code",
        "post_write_code",
        "post_run_command",
        "post_mcp_tool_use-memlode",
        "post_cascade_response",
    ]
    for name in order:
        data = payload(name, str(project))
        (entry,) = hooks_file["hooks"][data["agent_action_name"]]
        words = entry["command"].split()
        assert words[-1] == "windsurf" and words[-2] in EVENTS
        proc = subprocess.run(
            ["sh", "-c", entry["command"]],
            input=json.dumps(data),
            capture_output=True,
            text=True,
            cwd=project,
            timeout=60,
        )
        assert proc.returncode == 0, (name, proc.stderr)
        assert proc.stdout == ""  # Cascade reads no hook output
    listed = run_memlode("list", "--json", "-n", "*", "--limit", "100", cwd=project)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    mine = [r for r in rows if r["metadata"].get("client") == "windsurf"]
    assert len(mine) == len(rows)
    contents = [r["content"] for r in mine]
    assert all(r["session_id"] == "traj-5e1d" for r in mine)
    assert any(c.startswith("Why does the zebra parser cut wide tables?") for c in contents)
    assert "Read parser.py" in contents
    assert any(c.startswith("Edited parser.py") for c in contents)
    assert "$ python3 -m pytest tests/test_parser.py -q" in contents
    assert not any("recall_memory" in c for c in contents)
    assert any("raised it to 4096" in c for c in contents)  # the summary keeps the response
