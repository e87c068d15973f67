"""``memlode init`` / ``disable`` / ``doctor`` through the real entry point, on empty, existing
and twice-initialised Claude Code settings files. HOME is a folder of the test's own: the
default scope writes personal settings, some of them in the home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memlode.hook_events import CLIENT_HOOKS

HOOK_SPECS = CLIENT_HOOKS["claude"]

EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "PreCompact",
    "PostCompact",
    "SubagentStop",
    "SessionEnd",
]

OTHER_SETTINGS: dict[str, Any] = {
    "permissions": {"allow": ["Bash(npm test)"]},
    "model": "claude-sonnet-4-6",
    "hooks": {
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [{"type": "command", "command": "npx prettier --write", "timeout": 30}],
            }
        ],
        "SessionStart": [
            {"hooks": [{"type": "command", "command": "echo welcome", "timeout": 2}]},
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
}


@pytest.fixture(autouse=True)
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def memlode(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def ours(settings: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    found = []
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for handler in group["hooks"]:
                if "memlode.hooks" in handler["command"] or "memlode-hook " in handler["command"]:
                    found.append((event, group, handler))
    return found


def test_init_on_empty_project(project: Path, fake_home: Path) -> None:
    result = memlode("init", cwd=project)
    assert result.returncode == 0, result.stderr
    # personal settings: the project's settings.local.json (Claude Code keeps it out of git)
    # and the project's entry in ~/.claude.json; no file a team commits
    assert not (project / ".claude" / "settings.json").exists()
    assert not (project / ".mcp.json").exists()
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    found = ours(settings)
    assert sorted(e for e, _, _ in found) == sorted(EVENTS)
    python = str(Path(sys.executable).absolute())
    for event, group, handler in found:
        assert handler["type"] == "command"
        assert f'"{python}" -c "from memlode.hooks.dispatch' in handler["command"]
        assert isinstance(handler["timeout"], int) and 1 <= handler["timeout"] <= 10
        if event == "PostToolUse":
            assert handler["async"] is True
            assert "mcp__memlode" not in group["matcher"]
            assert {"Read", "Edit", "Write", "Bash", "Grep", "Glob", "WebFetch"} <= set(
                group["matcher"].split("|")
            )
    mcp = json.loads((fake_home / ".claude.json").read_text())
    server = mcp["projects"][str(project)]["mcpServers"]["memlode"]
    assert server["type"] == "stdio"
    assert (server["command"], server["args"]) == (python, ["-m", "memlode", "mcp"])


def test_project_scope_is_what_a_team_can_commit(project: Path, fake_home: Path) -> None:
    result = memlode("init", "--scope", "project", cwd=project)
    assert result.returncode == 0, result.stderr
    texts = [(project / f).read_text() for f in (".claude/settings.json", ".mcp.json")]
    python = str(Path(sys.executable).absolute())
    for text in texts:
        assert python not in text and str(project.parent) not in text and "MEMLODE" not in text
    settings = json.loads(texts[0])
    commands = sorted(h["command"] for groups in settings["hooks"].values() for g in groups
                      for h in g["hooks"])  # fmt: skip
    assert commands == sorted(f"memlode-hook {s.name}" for s in HOOK_SPECS)
    assert json.loads(texts[1])["mcpServers"]["memlode"] == {
        "type": "stdio",
        "command": "memlode",
        "args": ["mcp"],
    }
    assert "approve the servers of .mcp.json" in result.stdout
    assert not (fake_home / ".claude.json").exists()

    # a teammate with memlode on PATH: the committed hook stores the prompt
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    payload = {"session_id": "t-1", "cwd": str(project), "prompt": "use tabs for the makefile"}
    proc = subprocess.run(
        command, shell=True, input=json.dumps(payload), text=True, capture_output=True,
        cwd=project, env=env, timeout=60,
    )  # fmt: skip
    assert (proc.returncode, proc.stderr) == (0, "")
    listed = memlode("list", "--json", "--namespace", "proj", cwd=project)
    assert "use tabs for the makefile" in listed.stdout


def test_init_keeps_other_entries_and_is_idempotent(project: Path) -> None:
    settings_path = project / ".claude" / "settings.local.json"
    settings_path.parent.mkdir()
    settings_path.write_text(json.dumps(OTHER_SETTINGS, indent=2))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"github": {"command": "gh"}}}))
    assert memlode("init", "--scope", "project", "--settings-file", str(settings_path),
                   cwd=project).returncode == 0  # fmt: skip
    first = settings_path.read_text()
    first_mcp = (project / ".mcp.json").read_text()
    again = memlode("init", "--scope", "project", "--settings-file", str(settings_path),
                    cwd=project)  # fmt: skip
    assert again.returncode == 0 and "already up to date" in again.stdout
    assert settings_path.read_text() == first  # byte for byte: nothing changed
    assert (project / ".mcp.json").read_text() == first_mcp
    settings = json.loads(first)
    assert settings["permissions"] == OTHER_SETTINGS["permissions"]
    assert settings["model"] == "claude-sonnet-4-6"
    commands = [
        h["command"] for groups in settings["hooks"].values() for g in groups for h in g["hooks"]
    ]
    for other in ("npx prettier --write", "echo welcome", "notify-send hi"):
        assert commands.count(other) == 1
    assert len(ours(settings)) == len(EVENTS)  # no duplicates
    assert json.loads(first_mcp)["mcpServers"]["github"] == {"command": "gh"}


def test_init_replaces_a_stale_memlode_entry_in_place(project: Path) -> None:
    stale = {
        "hooks": {
            "PostToolUse": [
                {
                    "matcher": "*",
                    "hooks": [
                        {"type": "command", "command": "memlode hook post-tool", "timeout": 2000},
                        {"type": "command", "command": "/old/python -m memlode.hooks post-tool"},
                    ],
                }
            ]
        }
    }
    path = project / "custom-settings.json"
    path.write_text(json.dumps(stale))
    assert memlode("init", "--settings-file", str(path), "--no-mcp", cwd=project).returncode == 0
    settings = json.loads(path.read_text())
    post = [h for e, _, h in ours(settings) if e == "PostToolUse"]
    assert len(post) == 1 and post[0]["timeout"] == 10
    assert not (project / ".mcp.json").exists()


def test_disable_removes_exactly_ours(project: Path, memlode_home: Path) -> None:
    settings_path = project / ".claude" / "settings.json"
    settings_path.parent.mkdir()
    settings_path.write_text(json.dumps(OTHER_SETTINGS))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"github": {"command": "gh"}}}))
    before = (settings_path.read_text(), (project / ".mcp.json").read_text())
    memlode("init", "--scope", "project", cwd=project)
    memlode("init", cwd=project)
    memlode("store", "a memory that must survive", cwd=project)
    result = memlode("disable", cwd=project)  # both of this project's scopes
    assert result.returncode == 0 and f"removed {len(EVENTS)}" in result.stdout
    assert (settings_path.read_text(), (project / ".mcp.json").read_text()) == before
    assert not (project / ".claude" / "settings.local.json").exists()
    listed = memlode("list", "--json", cwd=project)
    assert "a memory that must survive" in listed.stdout
    assert memlode("disable", cwd=project).returncode == 0  # twice is fine


def test_user_scope_uses_home_files(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "userhome"
    home.mkdir()
    (home / ".claude.json").write_text(json.dumps({"numStartups": 3, "mcpServers": {}}))
    env = {"HOME": str(home)}
    assert memlode("init", "--scope", "user", cwd=project, env=env).returncode == 0
    assert len(ours(json.loads((home / ".claude" / "settings.json").read_text()))) == len(EVENTS)
    claude = json.loads((home / ".claude.json").read_text())
    assert claude["numStartups"] == 3 and "memlode" in claude["mcpServers"]
    assert not (project / ".claude").exists()
    assert memlode("disable", "--scope", "user", cwd=project, env=env).returncode == 0
    assert json.loads((home / ".claude.json").read_text()) == {"numStartups": 3}


def test_init_refuses_a_broken_settings_file(project: Path) -> None:
    path = project / "broken.json"
    path.write_text("{not json")
    result = memlode("init", "--settings-file", str(path), "--no-mcp", cwd=project)
    assert result.returncode != 0 and "not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr
    assert path.read_text() == "{not json"


def test_installed_command_runs_through_the_shell(project: Path, payloads) -> None:
    memlode("init", cwd=project)
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    command = next(h["command"] for e, _, h in ours(settings) if e == "PostToolUse")
    proc = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payloads["post-tool"]),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    listed = memlode("list", "--json", "--namespace", "proj", cwd=project)
    assert "Edited auth.py" in listed.stdout


def test_doctor_reports_the_installation(project: Path) -> None:
    before = memlode("doctor", "--json", cwd=project)
    assert before.returncode == 1
    report = json.loads(before.stdout)
    assert any("not installed" in p for p in report["problems"])
    memlode("init", cwd=project)
    memlode("store", "something", cwd=project)
    result = memlode("doctor", "--json", cwd=project)
    report = json.loads(result.stdout)
    assert result.returncode == 0, report["problems"]
    project_hooks = next(h for h in report["hooks"] if h["file"].startswith(str(project)))
    assert set(project_hooks["events"]) == set(EVENTS)
    assert {i["status"] for i in project_hooks["events"].values()} == {"ok"}
    assert report["mcp"][0]["registered"] is True
    assert [m["scope"] for m in report["mcp"]] == ["local", "project", "user"]
    assert report["database"]["memories"] == 1
    assert "pending_embeddings" in report["database"]
    assert report["sqlite"]["fts5"] is True and report["sqlite"]["version"]
    assert report["embedder"]["provider"] == "hash"
    assert report["hook_settings"]["question_max_memories"] == 16
    text = memlode("doctor", cwd=project)
    assert "all good" in text.stdout
    assert "memories 10/16 (prompt/question)" in text.stdout
    # ~/.claude.json holds two scopes: each line says which one it is
    claude_json = [line for line in text.stdout.splitlines() if ".claude.json" in line]
    assert [line.split("(", 1)[1].split(")")[0] for line in claude_json] == [
        "local scope",
        "user scope",
    ]
    assert claude_json[0].endswith(": registered")


@pytest.mark.parametrize("event", ["session-start", "post-tool"])
def test_memlode_hook_command_for_humans(project: Path, payloads, event: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "memlode", "hook", event],
        input=json.dumps(payloads[event]),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    garbage = subprocess.run(
        [sys.executable, "-m", "memlode", "hook", event],
        input="garbage",
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )
    assert (garbage.returncode, garbage.stdout) == (0, "")


def test_a_server_url_is_written_into_no_file_and_makes_no_folder(
    project: Path, fake_home: Path
) -> None:
    """A team store's URL may hold a password: init leaves it in the environment, where the
    hooks and the server read it (it used to become a folder named after the URL)."""
    url = "postgresql://team:s3cret-pw@db.internal:5432/memory"
    done = memlode("init", cwd=project, env={"MEMLODE_DB": url})
    assert done.returncode == 0, done.stderr
    assert "MEMLODE_DB is a server URL" in done.stdout
    written = [*project.rglob("*.json"), *fake_home.rglob("*.json")]
    assert written and all("s3cret" not in p.read_text() for p in written)
    hook = subprocess.run(
        [sys.executable, "-m", "memlode", "hook", "session-start"],
        input=json.dumps({"session_id": "u-1", "cwd": str(project)}),
        capture_output=True,
        text=True,
        cwd=project,
        env={**os.environ, "MEMLODE_DB": url, "MEMLODE_RESIDENT_AUTOSTART": "0"},
        timeout=60,
    )
    assert (hook.returncode, hook.stdout) == (0, "")
    assert not [p for p in project.rglob("*") if "postgresql" in p.name]
