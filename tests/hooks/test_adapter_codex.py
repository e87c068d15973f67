"""memlode.hooks.adapters.codex on the payloads Codex CLI 0.171 really sent
(tests/clients/payloads/codex/, recorded from ``codex exec`` against the scripted model of
tests/clients/test_codex.py), read back through memlode's extractors.

``sessionN-rollout.jsonl`` holds the lines of that session's rollout file the adapter reads (the
calls' ``item_completed`` events); each payload's ``transcript_path`` is pointed at it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memlode.hooks.adapters.codex import adapt, adapt_all
from memlode.hooks.extract import extract, extract_failure
from memlode.sources.patches import parse_patch

PAYLOADS = Path(__file__).resolve().parents[1] / "clients" / "payloads" / "codex"
CWD = "/tmp/cx/proj"  # where the recordings were made


def payload(name: str, *, rollout: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PAYLOADS / name).read_text())
    session = name.split("-", 1)[0]
    data["transcript_path"] = str(
        PAYLOADS / f"{session}-rollout.jsonl" if rollout else PAYLOADS / "missing.jsonl"
    )
    return data


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("session1-01-session-start.json", "session-start"),
        ("session1-02-prompt.json", "prompt"),
        ("session1-11-stop.json", "stop"),
        ("session1-12-session-end.json", "session-end"),
    ],
)
def test_lifecycle_events_pass_through(name: str, event: str) -> None:
    data = payload(name)
    assert adapt(event, data) == (event, data)


def test_prompt_and_stop_carry_what_the_handlers_read() -> None:
    prompt = payload("session1-02-prompt.json")
    stop = payload("session1-11-stop.json")
    assert prompt["prompt"] == "Why does the zebra parser cut wide tables? Read calc.py and fix it."
    assert stop["last_assistant_message"].startswith("Finding: the zebra parser")
    assert stop["stop_hook_active"] is False
    assert prompt["session_id"] == stop["session_id"]


def test_shell_command_becomes_bash_with_its_output() -> None:
    event, data = adapt("post-tool", payload("session1-04-post-tool-bash.json")) or ("", {})
    assert event == "post-tool"
    assert data["tool_name"] == "Bash"
    assert data["tool_input"] == {"command": "cat calc.py"}
    assert "LIMIT = 40" in data["tool_response"]["stdout"]
    assert data["tool_response"]["exit_code"] == 0
    obs = extract("Bash", data["tool_input"], data["tool_response"], CWD, 2000)
    assert obs is not None
    assert obs.content.startswith("$ cat calc.py\n[stdout]\n")


def test_failed_command_becomes_a_failure_with_its_error() -> None:
    adapted = adapt("post-tool", payload("session1-08-post-tool-bash.json"))
    assert adapted is not None
    event, data = adapted
    assert event == "post-tool-failure"
    assert data["tool_input"] == {"command": "python3 check_calc.py --frobnicate"}
    assert "tool_response" not in data
    assert data["error"].startswith("Exit code 1\n")
    assert "QuokkaFlagError: unknown option --frobnicate" in data["error"]
    obs = extract_failure("Bash", data["tool_input"], data["error"], CWD)
    assert obs is not None
    assert obs.content.startswith("Failed: $ python3 check_calc.py --frobnicate\n")
    assert "QuokkaFlagError" in obs.content


def test_without_the_rollout_a_failed_command_is_kept_with_its_output() -> None:
    """No exit code anywhere in Codex's payload: the output is kept, the failure is not seen."""
    adapted = adapt("post-tool", payload("session1-08-post-tool-bash.json", rollout=False))
    assert adapted is not None
    event, data = adapted
    assert event == "post-tool"
    assert "QuokkaFlagError" in data["tool_response"]["stdout"]
    assert data["tool_response"]["exit_code"] is None


def test_passing_command_after_the_failure_is_a_success() -> None:
    adapted = adapt("post-tool", payload("session1-10-post-tool-bash.json"))
    assert adapted is not None
    assert adapted[0] == "post-tool"
    assert adapted[1]["tool_response"]["stdout"] == "calc ok: limit 4096\n"


def test_apply_patch_becomes_an_edit_with_the_real_line_numbers() -> None:
    adapted = adapt("post-tool", payload("session1-06-post-tool-apply-patch.json"))
    assert adapted is not None
    event, data = adapted
    assert event == "post-tool"
    assert data["tool_name"] == "Edit"
    assert data["tool_input"]["file_path"] == f"{CWD}/calc.py"
    hunks = data["tool_response"]["structuredPatch"]
    assert [(h["oldStart"], h["newStart"]) for h in hunks] == [(2, 2)]
    assert "-LIMIT = 40" in hunks[0]["lines"] and "+LIMIT = 4096" in hunks[0]["lines"]
    obs = extract("Edit", data["tool_input"], data["tool_response"], CWD, 2000)
    assert obs is not None
    assert obs.content.startswith("Edited calc.py")
    assert obs.metadata["file"] == f"{CWD}/calc.py"
    assert "LIMIT = 4096" in obs.content


def test_apply_patch_without_the_rollout_takes_its_hunks_from_the_patch() -> None:
    adapted = adapt("post-tool", payload("session1-06-post-tool-apply-patch.json", rollout=False))
    assert adapted is not None
    hunks = adapted[1]["tool_response"]["structuredPatch"]
    assert hunks == [{"lines": ["-LIMIT = 40", "+LIMIT = 4096"]}]
    assert adapted[1]["tool_input"]["old_string"] == "LIMIT = 40"
    assert adapted[1]["tool_input"]["new_string"] == "LIMIT = 4096"


def test_a_patch_of_two_files_gives_one_capture_per_file() -> None:
    data = payload("session3-05-post-tool-apply-patch.json")
    first = adapt("post-tool", data)
    every = adapt_all("post-tool", data)
    assert first == every[0]
    (_, added), (_, edited) = every
    assert added["tool_name"] == "Write"
    assert added["tool_input"] == {
        "file_path": f"{CWD}/notes/zebra.md",
        "content": "# Zebra\nwidths up to 4096\n",
    }
    assert added["tool_response"]["type"] == "create"
    created = extract("Write", added["tool_input"], added["tool_response"], CWD, 2000)
    assert created is not None and created.content.startswith("Created notes/zebra.md")
    assert edited["tool_name"] == "Edit"
    assert edited["tool_input"]["file_path"] == f"{CWD}/check_calc.py"
    assert edited["tool_response"]["structuredPatch"][0]["newStart"] == 4


def test_memlodes_own_mcp_tools_are_left_out() -> None:
    data = payload("session2-04-post-tool-mcp.json")
    assert data["tool_name"] == "mcp__memlode__recall_memory"
    assert adapt("post-tool", data) is None


def test_other_mcp_tools_pass_through() -> None:
    data = {**payload("session2-04-post-tool-mcp.json"), "tool_name": "mcp__github__get_issue"}
    assert adapt("post-tool", data) == ("post-tool", data)


def test_parse_patch_reads_moves_deletes_and_several_hunks() -> None:
    patch = (
        "*** Begin Patch\n"
        "*** Update File: a.py\n"
        "*** Move to: b.py\n"
        "@@ def f():\n"
        "-    return 1\n"
        "+    return 2\n"
        "@@ def g():\n"
        " x = 1\n"
        "-y = 2\n"
        "*** Delete File: old.txt\n"
        "*** End Patch\n"
    )
    files = parse_patch(patch)
    assert [(f["path"], f["kind"], f["move_to"]) for f in files] == [
        ("a.py", "update", "b.py"),
        ("old.txt", "delete", None),
    ]
    assert [h["lines"] for h in files[0]["hunks"]] == [
        ["-    return 1", "+    return 2"],
        [" x = 1", "-y = 2"],
    ]
    assert parse_patch("not a patch") == []


def test_the_adapter_imports_nothing_more() -> None:
    """A hook process imports the adapter on every event: no json, re or anything else."""
    code = (
        "import sys, memlode.hooks.adapters as a; before = set(sys.modules);"
        "import memlode.hooks.adapters.codex; print(sorted(set(sys.modules) - before))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stdout.replace("'", '"')) == ["memlode.hooks.adapters.codex"]


def test_a_long_output_is_read_whole_from_the_rollout(tmp_path: Path) -> None:
    """Codex hands the hook a long output with its middle cut out and a note of its own before
    it (0.171: "Warning: truncated output …", "Total output lines: …"); the rollout's
    ``aggregated_output`` has it whole. Without the rollout, the cut output without the note."""
    lines = [f"[{i}/1500] compiling module {i} of the zebra build" for i in range(1500)]
    whole = "\n".join([*lines, "calc ok: limit 4096"]) + "\n"
    cut = (
        "Warning: truncated output (original token count: 19325)\nTotal output lines: 1501\n\n"
        + "\n".join(lines[:40])
        + "\n…8 tokens truncated…\n"
        + "\n".join(lines[-40:])
        + "\ncalc ok: limit 4096\n"
    )
    recorded = payload("session1-10-post-tool-bash.json")
    call = recorded["tool_use_id"]
    rollout = tmp_path / "rollout.jsonl"
    item = {
        "type": "CommandExecution",
        "id": call,
        "command": ["/bin/bash", "-lc", "python3 check_calc.py"],
        "status": "completed",
        "aggregated_output": whole,
        "exit_code": 0,
    }
    line = {"type": "event_msg", "payload": {"type": "item_completed", "item": item}}
    rollout.write_text(json.dumps(line, separators=(",", ":")) + "\n")
    with_rollout = {**recorded, "tool_response": cut, "transcript_path": str(rollout)}
    _event, data = adapt("post-tool", with_rollout) or ("", {})
    assert data["tool_response"]["stdout"] == whole
    without = {**with_rollout, "transcript_path": str(tmp_path / "missing.jsonl")}
    _event, data = adapt("post-tool", without) or ("", {})
    assert data["tool_response"]["stdout"].startswith("[0/1500] compiling module 0")
    assert data["tool_response"]["stdout"].endswith("calc ok: limit 4096\n")
