"""The Claude Code plugin in plugin/ (and the one-plugin marketplace in .claude-plugin/ that
`/plugin marketplace add` reads): its layout checked against Claude Code's plugin reference,
its hooks against the ones `memlode init` installs, and its commands run the way Claude Code
runs them (``sh -c`` with ``CLAUDE_PLUGIN_ROOT`` set; MCP through the SDK's stdio client)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memlode import __version__
from memlode.cli.claude_cmds import HOOK_SPECS, plugin_hooks_json
from memlode.config import Settings
from memlode.engine import Engine
from memlode.hook_events import EVENTS

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "plugin"
ROOT_VAR = "${CLAUDE_PLUGIN_ROOT}"
# Claude Code's plugin reference (plugins-reference, "Plugin manifest schema"): `name` is the
# one required field, kebab-case; these are the other fields it documents.
MANIFEST_FIELDS = {
    "name", "version", "description", "author", "homepage", "repository", "license",
    "keywords", "commands", "agents", "skills", "hooks", "mcpServers", "outputStyles",
    "lspServers",
}  # fmt: skip
KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# The hook events of Claude Code's hooks reference that memlode could be wired to.
DOCUMENTED_EVENTS = {
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "Notification", "UserPromptSubmit",
    "Stop", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "SessionStart",
    "SessionEnd", "PermissionRequest",
}  # fmt: skip
HANDLER_FIELDS = {"type", "command", "timeout", "async"}


def _json(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    return data


def _in_plugin(word: str) -> str:
    return word.replace(ROOT_VAR, str(PLUGIN))


def _hook_commands() -> dict[str, str]:
    hooks = _json(PLUGIN / "hooks" / "hooks.json")["hooks"]
    return {event: groups[0]["hooks"][0]["command"] for event, groups in hooks.items()}


def test_marketplace_lists_the_plugin_folder() -> None:
    market = _json(REPO / ".claude-plugin" / "marketplace.json")
    assert KEBAB.match(market["name"])
    assert market["owner"]["name"]
    (entry,) = market["plugins"]
    assert entry["source"].startswith("./")
    assert (REPO / entry["source"]).resolve() == PLUGIN
    assert entry["name"] == _json(PLUGIN / ".claude-plugin" / "plugin.json")["name"]


def test_manifest_has_the_documented_fields_and_memlodes_version() -> None:
    manifest = _json(PLUGIN / ".claude-plugin" / "plugin.json")
    assert KEBAB.match(manifest["name"])
    assert set(manifest) <= MANIFEST_FIELDS, set(manifest) - MANIFEST_FIELDS
    assert manifest["version"] == __version__
    # Components sit at the plugin root, where Claude Code finds them without manifest paths.
    assert sorted(p.name for p in (PLUGIN / ".claude-plugin").iterdir()) == ["plugin.json"]


def test_hooks_json_is_generated_from_the_event_table() -> None:
    current = (PLUGIN / "hooks" / "hooks.json").read_text(encoding="utf-8")
    assert current == plugin_hooks_json(), (
        "plugin/hooks/hooks.json is stale: regenerate it with"
        " `.venv/bin/python -m memlode.cli.claude_cmds > plugin/hooks/hooks.json`"
    )


def test_hooks_are_the_ones_init_installs() -> None:
    hooks = _json(PLUGIN / "hooks" / "hooks.json")["hooks"]
    assert set(hooks) <= DOCUMENTED_EVENTS
    assert set(hooks) == {spec.event for spec in HOOK_SPECS}
    for spec in HOOK_SPECS:
        (group,) = hooks[spec.event]
        assert group.get("matcher") == spec.matcher, spec.event
        (handler,) = group["hooks"]
        assert set(handler) <= HANDLER_FIELDS
        assert handler["type"] == "command"
        assert handler["timeout"] == spec.timeout
        assert handler.get("async", False) is spec.async_
        words = shlex.split(handler["command"])
        assert words[-2:] == ["hook", spec.name]
        assert spec.name in EVENTS


def test_every_command_refers_to_files_in_the_plugin() -> None:
    commands = [shlex.split(c) for c in _hook_commands().values()]
    server = _json(PLUGIN / ".mcp.json")["mcpServers"]["memlode"]
    commands.append([server["command"], *server["args"]])
    for words in commands:
        assert words[0] == "sh"  # the launcher needs no executable bit after a copy
        paths = [_in_plugin(w) for w in words if ROOT_VAR in w]
        assert paths, words
        for path in paths:
            assert Path(path).is_file(), path
    launcher = PLUGIN / "scripts" / "run-memlode"
    assert launcher.read_text(encoding="utf-8").startswith("#!/bin/sh\n")
    checked = subprocess.run(["sh", "-n", str(launcher)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def _plugin_env(path_dirs: list[str]) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([*path_dirs, "/usr/bin", "/bin"])
    env["CLAUDE_PLUGIN_ROOT"] = str(PLUGIN)
    return env


def _run_plugin_hook(event: str, payload: dict[str, Any], cwd: Path, env: dict[str, str]) -> Any:
    """The hook's command as Claude Code runs it: through the shell, the variable in its
    environment, the payload on stdin."""
    return subprocess.run(
        ["sh", "-c", _hook_commands()[event]],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def _prompt(workdir: Path, text: str) -> dict[str, Any]:
    return {
        "session_id": "plugin-session",
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
        "cwd": str(workdir),
        "transcript_path": str(workdir / "no-transcript.jsonl"),
    }


def _stored_prompts(workdir: Path) -> list[str]:
    with Engine(Settings.load({}), cwd=workdir) as engine:
        return [m.content for m in engine.list_memories(namespace="*", limit=100)]


def _console_script(folder: Path, form: str) -> None:
    """A ``memlode`` console script as pip writes it: a plain shebang, or (for a long or spaced
    interpreter path) the ``/bin/sh`` trampoline."""
    head = f"#!{sys.executable}\n"
    if form == "trampoline":
        head = f"#!/bin/sh\n'''exec' \"{sys.executable}\" \"$0\" \"$@\"\n' '''\n"
    script = folder / "memlode"
    script.write_text(head + "import sys\nfrom memlode.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)


@pytest.mark.parametrize("form", ["shebang", "trampoline"])
def test_a_plugin_hook_runs_memlode_from_path(workdir: Path, tmp_path: Path, form: str) -> None:
    bin_dir = tmp_path / f"bin-{form}"
    bin_dir.mkdir()
    _console_script(bin_dir, form)
    text = f"why does the tokenizer of this project keep a {form} cache?"
    done = _run_plugin_hook(
        "UserPromptSubmit", _prompt(workdir, text), workdir, _plugin_env([str(bin_dir)])
    )
    assert done.returncode == 0, done.stderr
    assert text in _stored_prompts(workdir)


def _flagged_script(folder: Path, flags: str) -> None:
    """A ``memlode`` console script as pipx 1.18 writes it, ``#!/path/to/python -E``, whose
    body fails loudly: a hook stores something only if the launcher never ran the script but
    went to the dispatcher with the script's interpreter (the fast path)."""
    script = folder / "memlode"
    script.write_text(f"#!{sys.executable} {flags}\nraise SystemExit('the slow path ran')\n")
    script.chmod(0o755)


def _shadowed_memlode(folder: Path) -> str:
    """A folder with a ``memlode`` package that cannot be imported: on PYTHONPATH it breaks
    every interpreter that reads PYTHONPATH, so only one started with -E or -I gets memlode."""
    (folder / "memlode").mkdir(parents=True)
    (folder / "memlode" / "__init__.py").write_text("raise ImportError('PYTHONPATH was read')\n")
    return str(folder)


@pytest.mark.parametrize("flags", ["-E", "-I", "-s", "-sE"])
def test_a_plugin_hook_runs_a_flagged_interpreter_line_straight_into_the_dispatcher(
    workdir: Path, tmp_path: Path, flags: str
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _flagged_script(bin_dir, flags)
    env = _plugin_env([str(bin_dir)])
    if "E" in flags or "I" in flags:  # the flags reached the interpreter
        env["PYTHONPATH"] = _shadowed_memlode(tmp_path / "shadow")
    text = f"why is the lexer of this project run with {flags} in its interpreter line?"
    done = _run_plugin_hook("UserPromptSubmit", _prompt(workdir, text), workdir, env)
    assert done.returncode == 0, done.stderr
    assert "slow path" not in done.stderr
    assert text in _stored_prompts(workdir)


def test_a_plugin_hook_runs_an_env_interpreter_line_through_the_memlode_command(
    workdir: Path, tmp_path: Path
) -> None:
    """``#!/usr/bin/env python3`` names no interpreter by path: the launcher runs the script
    itself (``memlode hook EVENT``), whose failing body shows it was the one run."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "memlode"
    script.write_text("#!/usr/bin/env python3\nraise SystemExit('the slow path ran')\n")
    script.chmod(0o755)
    done = _run_plugin_hook(
        "UserPromptSubmit",
        _prompt(workdir, "anything at all"),
        workdir,
        _plugin_env([str(bin_dir)]),
    )
    assert "the slow path ran" in done.stderr


def test_the_launcher_passes_the_client_on_to_the_dispatcher(
    workdir: Path, tmp_path: Path, memlode_home: Path
) -> None:
    """``run-memlode hook EVENT CLIENT``: a client the dispatcher does not know is logged and
    nothing is stored, which happens only if the third argument arrived."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _flagged_script(bin_dir, "-E")
    command = f"sh {PLUGIN}/scripts/run-memlode hook UserPromptSubmit no-such-client"
    text = "why does the tokenizer keep a cache between runs of the lexer?"
    done = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(_prompt(workdir, text)),
        capture_output=True,
        text=True,
        cwd=workdir,
        env=_plugin_env([str(bin_dir)]),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "unknown client 'no-such-client'" in (memlode_home / "hooks.log").read_text()
    assert text not in _stored_prompts(workdir)


def test_a_plugin_hook_without_memlode_says_so_and_lets_the_assistant_go_on(
    workdir: Path,
) -> None:
    done = _run_plugin_hook(
        "UserPromptSubmit", _prompt(workdir, "anything at all here"), workdir, _plugin_env([])
    )
    assert done.returncode == 0
    assert "memlode command is not on PATH" in done.stderr
    assert "pipx install ." in done.stderr  # an install that works: memlode is not on PyPI
    assert "pip install memlode" not in done.stderr


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_plugin_mcp_server_answers_tools_list(workdir: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _console_script(bin_dir, "shebang")
    server = _json(PLUGIN / ".mcp.json")["mcpServers"]["memlode"]
    params = StdioServerParameters(
        command=server["command"],
        args=[_in_plugin(a) for a in server["args"]],
        env=_plugin_env([str(bin_dir)]),
        cwd=str(workdir),
    )
    with (tmp_path / "server.log").open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = {tool.name for tool in (await session.list_tools()).tools}
    assert "recall_memory" in tools
