"""``memlode init --client X`` / ``disable --client X`` / ``doctor`` for the assistants other than
Claude Code, through the real entry point, with HOME a fake home and the cwd a fake project;
every file is read back with its format's own parser (json, tomllib)."""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import CliResult, run_memlode

from memlode.hook_events import CLIENT_HOOKS

PYTHON = str(Path(sys.executable).absolute())
MCP_ARGS = ["-m", "memlode", "mcp"]

# client -> (scope -> file relative to the project ("P") or the home ("H")), reader, servers key
FILES: dict[str, dict[str, tuple[str, str]]] = {
    "codex": {"project": ("P", ".codex/config.toml"), "user": ("H", ".codex/config.toml")},
    "cursor": {"project": ("P", ".cursor/mcp.json"), "user": ("H", ".cursor/mcp.json")},
    "gemini": {"project": ("P", ".gemini/settings.json"), "user": ("H", ".gemini/settings.json")},
    "opencode": {
        "project": ("P", "opencode.json"),
        "user": ("H", ".config/opencode/opencode.json"),
    },
    "windsurf": {"user": ("H", ".codeium/windsurf/mcp_config.json")},
}
CASES = [(c, s) for c, scopes in FILES.items() for s in scopes]


def read(path: Path) -> dict[str, Any]:
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text(encoding="utf-8"))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def servers(client: str, data: dict[str, Any]) -> dict[str, Any]:
    key = {"codex": "mcp_servers", "opencode": "mcp"}.get(client, "mcpServers")
    found = data.get(key, {})
    assert isinstance(found, dict)
    return found


def expected_entry(client: str, env: dict[str, str]) -> dict[str, Any]:
    if client == "opencode":
        entry: dict[str, Any] = {"type": "local", "command": [PYTHON, *MCP_ARGS], "enabled": True}
        if env:
            entry["environment"] = env
        return entry
    entry = {"command": PYTHON, "args": MCP_ARGS}
    if env:
        entry["env"] = env
    return entry


OTHER_SERVER: dict[str, Any] = {"command": "npx", "args": ["-y", "@acme/docs-mcp"]}
OTHER_OPENCODE: dict[str, Any] = {"type": "local", "command": ["npx", "-y", "@acme/docs-mcp"]}

# An existing config of each format with another server and unrelated keys, comments included
# in the TOML (they must survive byte for byte).
CODEX_BEFORE = """# my Codex settings
model = "o4-mini"  # fast
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@acme/docs-mcp"]

# profiles below
[profiles.deep]
model = "o3"
"""


def seed(client: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if client == "codex":
        path.write_text(CODEX_BEFORE, encoding="utf-8")
        return
    data: dict[str, Any] = {"theme": "dark", "nested": {"keep": [1, 2, 3]}}
    if client == "opencode":
        data["$schema"] = "https://opencode.ai/config.json"
        data["mcp"] = {"docs": OTHER_OPENCODE}
    else:
        data["mcpServers"] = {"docs": OTHER_SERVER}
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


@pytest.fixture
def fake_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def run(project: Path, fake_home: Path) -> Callable[..., CliResult]:
    def call(*args: str) -> CliResult:
        env = {"HOME": str(fake_home), "USERPROFILE": str(fake_home)}
        env |= {"XDG_CONFIG_HOME": "", "CODEX_HOME": ""}  # the defaults under the fake home
        return run_memlode(*args, cwd=project, env=env)

    return call


def where(client: str, scope: str, project: Path, home: Path) -> Path:
    base, rel = FILES[client][scope]
    return (project if base == "P" else home) / rel


@pytest.mark.parametrize(("client", "scope"), CASES)
def test_init_writes_the_clients_own_file(
    client: str,
    scope: str,
    run: Callable[..., CliResult],
    project: Path,
    fake_home: Path,
    memlode_home: Path,
) -> None:
    done = run("init", "--client", client, "--scope", scope)
    assert done.returncode == 0, done.stderr
    path = where(client, scope, project, fake_home)
    assert f"mcp: registered in {path}" in done.stdout
    env = {"MEMLODE_HOME": str(memlode_home.resolve())}  # the store this run used, pinned
    assert servers(client, read(path)) == {"memlode": expected_entry(client, env)}


@pytest.mark.parametrize(("client", "scope"), CASES)
def test_init_keeps_the_rest_is_idempotent_and_disable_removes_exactly_ours(
    client: str, scope: str, run: Callable[..., CliResult], project: Path, fake_home: Path
) -> None:
    path = where(client, scope, project, fake_home)
    seed(client, path)
    before_text = path.read_text(encoding="utf-8")
    before = read(path)

    first = run("init", "--client", client, "--scope", scope)
    assert first.returncode == 0, first.stderr
    after = read(path)
    listed = servers(client, after)
    assert listed["docs"] == servers(client, before)["docs"]
    assert listed["memlode"]["command"] in (PYTHON, [PYTHON, *MCP_ARGS])
    ours = ("mcpServers", "mcp", "mcp_servers", "hooks")  # Gemini's hooks share the file
    assert {k: v for k, v in after.items() if k not in ours} == {
        k: v for k, v in before.items() if k not in ours
    }
    if client == "codex":  # the lines around our table are the user's, byte for byte
        assert path.read_text(encoding="utf-8").startswith(before_text)

    written = path.read_text(encoding="utf-8")
    second = run("init", "--client", client, "--scope", scope)
    assert second.returncode == 0, second.stderr
    assert f"mcp: already registered in {path}" in second.stdout
    assert "Nothing changed" in second.stdout
    assert path.read_text(encoding="utf-8") == written

    off = run("disable", "--client", client, "--scope", scope)
    assert off.returncode == 0, off.stderr
    assert f"mcp: unregistered from {path}" in off.stdout
    assert read(path) == before
    if client == "codex":
        assert path.read_text(encoding="utf-8") == before_text

    again = run("disable", "--client", client, "--scope", scope)
    assert again.returncode == 0, again.stderr
    assert f"mcp: not registered in {path}" in again.stdout
    assert read(path) == before


def test_disable_keeps_someone_elses_server_named_memlode(
    run: Callable[..., CliResult], project: Path
) -> None:
    path = project / ".cursor" / "mcp.json"
    path.parent.mkdir()
    theirs = {"mcpServers": {"memlode": {"command": "node", "args": ["their-server.js"]}}}
    path.write_text(json.dumps(theirs))
    done = run("disable", "--client", "cursor")
    assert done.returncode == 0, done.stderr
    assert "not registered" in done.stdout
    assert read(path) == theirs


def test_windsurf_has_no_project_scope(
    run: Callable[..., CliResult], project: Path, fake_home: Path
) -> None:
    done = run("init", "--client", "windsurf", "--scope", "project")
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "no project scope" in lines[0] and "--scope user" in lines[0]
    assert "Traceback" not in done.stderr
    assert not (fake_home / ".codeium").exists()
    assert not (project / ".codeium").exists()
    # With no --scope, Windsurf goes to the user scope.
    default = run("init", "--client", "windsurf")
    assert default.returncode == 0, default.stderr
    assert (fake_home / ".codeium" / "windsurf" / "mcp_config.json").is_file()


def test_claude_only_options_are_refused_for_other_clients(
    run: Callable[..., CliResult], project: Path
) -> None:
    done = run("init", "--client", "cursor", "--http")
    assert done.returncode != 0
    assert "--http: only with --client claude" in done.stderr
    assert not (project / ".cursor").exists()


def test_codex_table_defined_another_way_is_refused_not_broken(
    run: Callable[..., CliResult], project: Path
) -> None:
    path = project / ".codex" / "config.toml"
    path.parent.mkdir()
    text = '[mcp_servers]\nmemlode.command = "elsewhere"\n'
    path.write_text(text)
    done = run("init", "--client", "codex")
    assert done.returncode != 0
    assert "edit its [mcp_servers.memlode] table by hand" in done.stderr
    assert path.read_text() == text


def _hook_commands(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for event, groups in data.get("hooks", {}).items():
        for group in groups:
            for handler in group["hooks"]:
                found.setdefault(event, []).append({**handler, "matcher": group.get("matcher")})
    return found


def test_codex_hooks_in_hooks_json(run: Callable[..., CliResult], project: Path) -> None:
    path = project / ".codex" / "hooks.json"
    path.parent.mkdir()
    theirs = {"type": "command", "command": "python3 ~/audit.py", "timeout": 3}
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [theirs]}]}}))
    done = run("init", "--client", "codex")
    assert done.returncode == 0, done.stderr
    hooks = _hook_commands(read(path))
    ours = {e: h for e, hs in hooks.items() for h in hs if "memlode.hooks.dispatch" in h["command"]}
    assert set(ours) == {spec.event for spec in CLIENT_HOOKS["codex"]}
    assert ours["PostToolUse"]["matcher"] is None  # every tool: the adapter keeps what it reads
    assert ours["UserPromptSubmit"]["command"].endswith(" prompt codex")
    assert all(h["timeout"] <= 10 and "async" not in h for h in ours.values())
    assert f'"{PYTHON}" -c' in ours["SessionStart"]["command"]
    assert any(h["command"] == "python3 ~/audit.py" for h in hooks["Stop"])

    off = run("disable", "--client", "codex")
    assert off.returncode == 0, off.stderr
    assert f"removed {len(CLIENT_HOOKS['codex'])} memlode handler(s)" in off.stdout
    assert read(path) == {"hooks": {"Stop": [{"hooks": [theirs]}]}}


def test_gemini_hooks_share_settings_json(run: Callable[..., CliResult], project: Path) -> None:
    done = run("init", "--client", "gemini")
    assert done.returncode == 0, done.stderr
    data = read(project / ".gemini" / "settings.json")
    assert "memlode" in data["mcpServers"]
    hooks = _hook_commands(data)
    assert set(hooks) == {spec.event for spec in CLIENT_HOOKS["gemini"]}
    (before_agent,) = hooks["BeforeAgent"]
    assert before_agent["command"].endswith(" prompt gemini")
    assert before_agent["name"] == "memlode-prompt"
    assert before_agent["timeout"] == 5000  # Gemini CLI counts milliseconds
    off = run("disable", "--client", "gemini")
    assert off.returncode == 0, off.stderr
    assert read(project / ".gemini" / "settings.json") == {"mcpServers": {}}


def test_a_wired_gemini_prompt_hook_answers_in_geminis_format(
    run: Callable[..., CliResult], project: Path
) -> None:
    """The BeforeAgent command as installed, fed Gemini CLI's payload: exit 0 and one JSON object
    whose hookSpecificOutput.additionalContext (what Gemini CLI reads) holds the memory."""
    import subprocess

    run("store", "The billing service retries webhooks three times", "--type", "decision")
    assert run("init", "--client", "gemini").returncode == 0
    data = read(project / ".gemini" / "settings.json")
    command = _hook_commands(data)["BeforeAgent"][0]["command"]
    payload = {
        "session_id": "g-1",
        "transcript_path": str(project / "chat.json"),
        "cwd": str(project),
        "hook_event_name": "BeforeAgent",
        "timestamp": "2026-05-01T10:00:00Z",
        "prompt": "how many times does the billing service retry webhooks?",
    }
    proc = subprocess.run(
        command, shell=True, input=json.dumps(payload), capture_output=True, text=True, cwd=project
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "webhooks three times" in out["hookSpecificOutput"]["additionalContext"]


def test_doctor_lists_the_clients_found(
    run: Callable[..., CliResult], project: Path, fake_home: Path
) -> None:
    (fake_home / ".cursor").mkdir()
    (fake_home / ".gemini").mkdir()
    assert run("init", "--client", "gemini").returncode == 0
    done = run("doctor", "--json")
    report = json.loads(done.stdout)
    assert {"hooks", "mcp", "database", "problems", "ok"} <= set(report)  # the shape it had
    by_name = {c["client"]: c for c in report["clients"]}
    assert set(by_name) == {"cursor", "gemini"}  # found: their folders exist; no others
    assert by_name["cursor"]["registered"] is False
    assert by_name["gemini"]["registered"] is True
    events = {e for h in by_name["gemini"]["hooks"] for e in h["events"]}
    assert "BeforeAgent" in events
    text = run("doctor").stdout
    assert "client  gemini: registered in" in text
    assert "client  cursor: memlode not registered" in text


def test_doctor_flags_a_registration_whose_interpreter_is_gone(
    run: Callable[..., CliResult], fake_home: Path
) -> None:
    path = fake_home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    gone = {"command": "/nowhere/bin/python", "args": MCP_ARGS}
    path.write_text(json.dumps({"mcpServers": {"memlode": gone}}))
    report = json.loads(run("doctor", "--json").stdout)
    assert any("cursor" in p and "/nowhere/bin/python" in p for p in report["problems"])
