"""``memlode init --client X`` / ``disable --client X`` / ``doctor`` for every assistant, through
the real entry point, with HOME a fake home and the cwd a fake project; every file is read back
with its format's own parser (json, tomllib), and compared byte for byte where it must not
change."""

from __future__ import annotations

import json
import os
import subprocess
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
CLIENTS = ["claude", "codex", "cursor", "gemini", "opencode", "windsurf"]

# client -> scope -> (MCP file, hooks file, plugin file), relative to the project ("P:") or the
# home ("H:"); None where the client has none in that scope.
FILES: dict[str, dict[str, tuple[str | None, str | None, str | None]]] = {
    "claude": {
        "local": ("H:.claude.json", "P:.claude/settings.local.json", None),
        "project": ("P:.mcp.json", "P:.claude/settings.json", None),
        "user": ("H:.claude.json", "H:.claude/settings.json", None),
    },
    "codex": {
        "local": ("H:.codex/config.toml", "H:.codex/hooks.json", None),
        "project": ("P:.codex/config.toml", "P:.codex/hooks.json", None),
    },
    "cursor": {
        "local": ("H:.cursor/mcp.json", "H:.cursor/hooks.json", None),
        "project": ("P:.cursor/mcp.json", "P:.cursor/hooks.json", None),
    },
    "gemini": {
        "local": ("H:.gemini/settings.json", "H:.gemini/settings.json", None),
        "project": ("P:.gemini/settings.json", "P:.gemini/settings.json", None),
    },
    "opencode": {
        "local": (
            "H:.config/opencode/opencode.json",
            None,
            "H:.config/opencode/plugins/memlode.js",
        ),
        "project": ("P:opencode.json", None, "P:.opencode/plugins/memlode.js"),
    },
    "windsurf": {
        "local": (
            "H:.codeium/windsurf/mcp_config.json",
            "H:.codeium/windsurf/hooks.json",
            None,
        ),
        "project": (None, "P:.windsurf/hooks.json", None),
    },
}
CASES = [(c, s) for c, scopes in FILES.items() for s in scopes]


def read(path: Path) -> dict[str, Any]:
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text(encoding="utf-8"))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def servers(client: str, data: dict[str, Any], project: Path, scope: str) -> dict[str, Any]:
    if client == "claude" and scope == "local":
        data = data.get("projects", {}).get(str(project), {})
    key = {"codex": "mcp_servers", "opencode": "mcp"}.get(client, "mcpServers")
    found = data.get(key, {})
    assert isinstance(found, dict)
    return found


def server_words(client: str, entry: dict[str, Any]) -> list[str]:
    if client == "opencode":
        return list(entry["command"])
    return [entry["command"], *entry["args"]]


OTHER_SERVER: dict[str, Any] = {"command": "npx", "args": ["-y", "@acme/docs-mcp"]}
OTHER_OPENCODE: dict[str, Any] = {"type": "local", "command": ["npx", "-y", "@acme/docs-mcp"]}

# Existing configs with another server, someone else's hook and unrelated keys, comments and a
# hand-made layout included (they must survive byte for byte).
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
JSONC_BEFORE = """{
    // my settings: comments and trailing commas, as Gemini CLI and OpenCode accept
    "theme": "dark",
    "nested": {"keep": [1, 2, 3]},
    "SERVERS": {
        "docs": DOCS, /* the docs server */
    },
    "hooks": {
        "EVENT": [HOOK],
    },
}
"""


def seed(client: str, path: Path, kind: str) -> None:
    """An existing file of the user's at ``path`` (kind: mcp or hooks)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".toml":
        path.write_text(CODEX_BEFORE, encoding="utf-8")
        return
    key = {"opencode": "mcp"}.get(client, "mcpServers")
    docs = OTHER_OPENCODE if client == "opencode" else OTHER_SERVER
    event = CLIENT_HOOKS[client][-1].event
    theirs: dict[str, Any] = {"command": "python3 ~/audit.py"}
    hook = theirs if client in ("cursor", "windsurf") else {"hooks": [theirs]}
    text = JSONC_BEFORE.replace("SERVERS", key).replace("DOCS", json.dumps(docs))
    text = text.replace("EVENT", event).replace("HOOK", json.dumps(hook))
    path.write_text(text, encoding="utf-8")


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


def where(client: str, scope: str, project: Path, home: Path) -> list[Path | None]:
    out: list[Path | None] = []
    for rel in FILES[client][scope]:
        if rel is None:
            out.append(None)
        else:
            base, _, name = rel.partition(":")
            out.append((project if base == "P" else home) / name)
    return out


@pytest.mark.parametrize(("client", "scope"), CASES)
def test_init_writes_the_clients_own_files(
    client: str,
    scope: str,
    run: Callable[..., CliResult],
    project: Path,
    fake_home: Path,
    memlode_home: Path,
) -> None:
    done = run("init", "--client", client, "--scope", scope)
    assert done.returncode == 0, done.stderr
    mcp, hooks, plugin = where(client, scope, project, fake_home)
    written = [p for p in (mcp, hooks, plugin) if p is not None]
    for path in written:
        assert f"written to {path}" in done.stdout, (path, done.stdout)
        text = path.read_text(encoding="utf-8")
        if scope == "project":  # a file a team commits: nothing of this machine
            for mine in (PYTHON, str(memlode_home), str(fake_home), "MEMLODE_HOME"):
                assert mine not in text, (path, mine)
        else:
            assert PYTHON in text, path
    if mcp is not None:
        (entry,) = servers(client, read(mcp), project, scope).values()
        expected = ["memlode", "mcp"] if scope == "project" else [PYTHON, *MCP_ARGS]
        assert server_words(client, entry) == expected
    if hooks is not None:
        commands = [c for e, cs in _hook_commands(read(hooks)).items() for c in cs]
        events = {spec.event for spec in CLIENT_HOOKS[client]}
        assert set(_hook_commands(read(hooks))) == events
        suffix = "" if client == "claude" else f" {client}"
        for handler in commands:
            assert handler["command"].endswith(suffix)
            if scope == "project":
                assert handler["command"].startswith("memlode-hook ")
    if scope != "project":
        assert f"interpreter: {PYTHON}" in done.stdout
    # nothing else was created: in the project, only the files of this scope
    made = {p for p in project.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert made == {p for p in written if project in p.parents}


@pytest.mark.parametrize(("client", "scope"), CASES)
def test_init_keeps_the_rest_is_idempotent_and_disable_restores_every_file(
    client: str, scope: str, run: Callable[..., CliResult], project: Path, fake_home: Path
) -> None:
    mcp, hooks, plugin = where(client, scope, project, fake_home)
    if mcp is not None:
        seed(client, mcp, "mcp")
    if hooks is not None and hooks != mcp:
        seed(client, hooks, "hooks")
    paths = [p for p in dict.fromkeys((mcp, hooks, plugin)) if p is not None]
    before = {p: (p.read_text(encoding="utf-8") if p.exists() else None) for p in paths}

    first = run("init", "--client", client, "--scope", scope)
    assert first.returncode == 0, first.stderr
    if mcp is not None and mcp.suffix != ".toml":
        after = mcp.read_text(encoding="utf-8")
        assert "// my settings" in after and "/* the docs server */" in after  # comments kept
        data = read_jsonc(mcp)
        assert "docs" in servers(client, data, project, "project")  # where the user has it
        assert "memlode" in servers(client, data, project, scope)
    if mcp is not None and mcp.suffix == ".toml":
        assert mcp.read_text(encoding="utf-8").startswith(CODEX_BEFORE)
    written = {p: p.read_text(encoding="utf-8") for p in paths}

    second = run("init", "--client", client, "--scope", scope)
    assert second.returncode == 0, second.stderr
    assert "Nothing changed" in second.stdout
    assert {p: p.read_text(encoding="utf-8") for p in paths} == written

    off = run("disable", "--client", client, "--scope", scope)
    assert off.returncode == 0, off.stderr
    for path, text in before.items():
        if text is None:
            assert not path.exists(), path  # a file init created is gone again
        else:
            assert path.read_text(encoding="utf-8") == text, path  # byte for byte

    again = run("disable", "--client", client, "--scope", scope)
    assert again.returncode == 0, again.stderr
    for path, text in before.items():
        assert (path.read_text(encoding="utf-8") if path.exists() else None) == text


def read_jsonc(path: Path) -> dict[str, Any]:
    from memlode.cli.jsonc_edit import Document

    return Document(path.read_text(encoding="utf-8"), str(path)).data


@pytest.mark.parametrize("client", CLIENTS)
def test_init_then_disable_without_files_leaves_nothing(
    client: str, run: Callable[..., CliResult], project: Path, fake_home: Path
) -> None:
    assert run("init", "--client", client).returncode == 0
    assert run("init", "--client", client, "--scope", "project").returncode == 0
    off = run("disable", "--client", client)  # local and project
    assert off.returncode == 0, off.stderr
    left = [p for p in [*project.rglob("*"), *fake_home.rglob("*")] if p.is_file()]
    assert [p for p in left if ".git" not in p.parts] == []


def test_a_malformed_file_changes_nothing_at_all(
    run: Callable[..., CliResult], project: Path, fake_home: Path
) -> None:
    config = fake_home / ".codex" / "config.toml"
    hooks = fake_home / ".codex" / "hooks.json"
    config.parent.mkdir()
    config.write_text(CODEX_BEFORE, encoding="utf-8")
    hooks.write_text('{"hooks": {"Stop": [}', encoding="utf-8")
    done = run("init", "--client", "codex")
    assert done.returncode != 0
    (line,) = done.stderr.strip().splitlines()
    assert str(hooks) in line and "not valid JSON" in line
    assert config.read_text(encoding="utf-8") == CODEX_BEFORE  # the good file untouched too
    assert hooks.read_text(encoding="utf-8") == '{"hooks": {"Stop": [}'


def test_opencode_jsonc_is_edited_in_place(run: Callable[..., CliResult], project: Path) -> None:
    path = project / "opencode.jsonc"
    text = '{\n  // ours\n  "theme": "dark",\n}\n'
    path.write_text(text, encoding="utf-8")
    assert run("init", "--client", "opencode", "--scope", "project").returncode == 0
    assert not (project / "opencode.json").exists()
    assert "memlode" in read_jsonc(path)["mcp"]
    assert run("disable", "--client", "opencode", "--scope", "project").returncode == 0
    assert path.read_text(encoding="utf-8") == text


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


def test_windsurf_project_scope_is_hooks_only(
    run: Callable[..., CliResult], project: Path, fake_home: Path
) -> None:
    done = run("init", "--client", "windsurf", "--scope", "project")
    assert done.returncode == 0, done.stderr
    assert (project / ".windsurf" / "hooks.json").is_file()
    assert "reads MCP servers only from ~/.codeium/windsurf/mcp_config.json" in done.stdout
    assert not (fake_home / ".codeium").exists()


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
    done = run("init", "--client", "codex", "--scope", "project")
    assert done.returncode != 0
    assert "edit its [mcp_servers.memlode] table by hand" in done.stderr
    assert path.read_text() == text


def _hook_commands(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Event -> memlode's and others' handlers (a group's matcher added), either layout."""
    found: dict[str, list[dict[str, Any]]] = {}
    for event, entries in data.get("hooks", {}).items():
        for entry in entries:
            handlers = entry.get("hooks") if isinstance(entry.get("hooks"), list) else [entry]
            for handler in handlers:
                found.setdefault(event, []).append({**handler, "matcher": entry.get("matcher")})
    return found


def test_codex_hooks_in_hooks_json(run: Callable[..., CliResult], project: Path) -> None:
    path = project / ".codex" / "hooks.json"
    path.parent.mkdir()
    theirs = {"type": "command", "command": "python3 ~/audit.py", "timeout": 3}
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [theirs]}]}}))
    done = run("init", "--client", "codex", "--scope", "project")
    assert done.returncode == 0, done.stderr
    hooks = _hook_commands(read(path))
    ours = {e: h for e, hs in hooks.items() for h in hs if h["command"].startswith("memlode-hook ")}
    assert set(ours) == {spec.event for spec in CLIENT_HOOKS["codex"]}
    assert ours["PostToolUse"]["matcher"] is None  # every tool: the adapter keeps what it reads
    assert ours["UserPromptSubmit"]["command"].endswith(" prompt codex")
    assert all(h["timeout"] <= 10 and "async" not in h for h in ours.values())
    assert ours["SessionStart"]["command"] == "memlode-hook session-start codex"
    assert any(h["command"] == "python3 ~/audit.py" for h in hooks["Stop"])

    off = run("disable", "--client", "codex", "--scope", "project")
    assert off.returncode == 0, off.stderr
    assert f"removed {len(CLIENT_HOOKS['codex'])} memlode handler(s)" in off.stdout
    assert read(path) == {"hooks": {"Stop": [{"hooks": [theirs]}]}}


def test_gemini_hooks_share_settings_json(run: Callable[..., CliResult], fake_home: Path) -> None:
    done = run("init", "--client", "gemini")
    assert done.returncode == 0, done.stderr
    data = read(fake_home / ".gemini" / "settings.json")
    assert "memlode" in data["mcpServers"]
    hooks = _hook_commands(data)
    assert set(hooks) == {spec.event for spec in CLIENT_HOOKS["gemini"]}
    (before_agent,) = hooks["BeforeAgent"]
    assert before_agent["command"].endswith(" prompt gemini")
    assert before_agent["name"] == "memlode-prompt"
    assert before_agent["timeout"] == 5000  # Gemini CLI counts milliseconds
    off = run("disable", "--client", "gemini")
    assert off.returncode == 0, off.stderr
    assert not (fake_home / ".gemini" / "settings.json").exists()  # init had created it


def test_a_wired_gemini_prompt_hook_answers_in_geminis_format(
    run: Callable[..., CliResult], project: Path, fake_home: Path
) -> None:
    """The BeforeAgent command as installed, fed Gemini CLI's payload: exit 0 and one JSON object
    whose hookSpecificOutput.additionalContext (what Gemini CLI reads) holds the memory."""
    run("store", "The billing service retries webhooks three times", "--type", "decision")
    assert run("init", "--client", "gemini").returncode == 0
    data = read(fake_home / ".gemini" / "settings.json")
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


def test_doctor_lists_the_clients_their_scopes_and_what_they_wait_for(
    run: Callable[..., CliResult], project: Path, fake_home: Path
) -> None:
    (fake_home / ".cursor").mkdir()
    assert run("init", "--client", "gemini", "--scope", "project").returncode == 0
    assert run("init", "--client", "codex").returncode == 0
    report = json.loads(run("doctor", "--json").stdout)
    assert {"hooks", "mcp", "database", "problems", "ok"} <= set(report)  # the shape it had
    by_name = {c["client"]: c for c in report["clients"]}
    assert set(by_name) == {"cursor", "gemini", "codex"}  # found or wired; no others
    assert by_name["cursor"]["registered"] is False
    gemini = by_name["gemini"]
    assert gemini["registered"] is True and gemini["scopes"]["project"]["mcp"] is True
    assert "BeforeAgent" in gemini["scopes"]["project"]["hooks"]
    assert any("trust" in w and str(project) in w for w in gemini["waits_for"])
    assert any("/hooks" in w for w in by_name["codex"]["waits_for"])
    assert gemini["last_hook"] is None

    # a hook as the client runs it is seen
    command = _hook_commands(read(project / ".gemini" / "settings.json"))["SessionStart"][0]
    env = {**os.environ, "PATH": f"{Path(PYTHON).parent}{os.pathsep}{os.environ['PATH']}"}
    payload = {"session_id": "g-2", "cwd": str(project), "hook_event_name": "SessionStart"}
    subprocess.run(
        command["command"],
        shell=True,
        input=json.dumps(payload),
        text=True,
        cwd=project,
        env=env,
        timeout=60,
    )
    again = json.loads(run("doctor", "--json").stdout)
    seen = {c["client"]: c["last_hook"] for c in again["clients"]}
    assert seen["gemini"] is not None and seen["codex"] is None
    text = run("doctor").stdout
    assert "client  gemini: project: mcp, hooks 6; waits: trust" in text
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


def test_doctor_sees_codex_hooks_trusted_once_their_hashes_are_recorded(
    run: Callable[..., CliResult], fake_home: Path
) -> None:
    """Codex keys trust to each hook's hash (tests/clients/test_codex.py checks the formula
    against Codex's own listing); doctor stops asking once every memlode hook is trusted."""
    from memlode.cli.client_report import codex_hook_hash

    assert run("init", "--client", "codex").returncode == 0
    waits = _codex_waits(run)
    assert waits and "0 of 6" in waits[0]
    hooks_file = fake_home / ".codex" / "hooks.json"
    lines = []
    for event, groups in read(hooks_file)["hooks"].items():
        snake = "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")
        for g, group in enumerate(groups):
            for n, handler in enumerate(group["hooks"]):
                digest = codex_hook_hash(snake, group.get("matcher"), handler)
                lines.append(f'[hooks.state."{hooks_file}:{snake}:{g}:{n}"]')
                lines.append(f'trusted_hash = "{digest}"\n')
    with (fake_home / ".codex" / "config.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n" + "\n".join(lines))
    assert _codex_waits(run) == []


def _codex_waits(run: Callable[..., CliResult]) -> list[str]:
    report = json.loads(run("doctor", "--json").stdout)
    (codex,) = [c for c in report["clients"] if c["client"] == "codex"]
    waits: list[str] = codex["waits_for"]
    return waits
