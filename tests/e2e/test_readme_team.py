"""The README's team set-up ("Team memory (PostgreSQL)", "Set up."), as a user runs it, on a
real PostgreSQL server (``bench/pg_server.py``): the block's commands typed into bash as printed
(the URL the only change: the test server's for the README's example), then the hooks Claude
Code would run, exactly as ``memlode init`` registered them, fired with real payloads through
``bash -c`` from the user's shell environment (which exports ``MEMLODE_DB``), and the MCP server
as registered, started through the SDK's real stdio client. A second machine (another HOME
and MEMLODE_HOME, a clone of the same repository, the same URL) then finds the session's prompt
and tool event, the memory stored through MCP and the one ``migrate`` copied, each once.

``pip install '.[postgres]'`` is run as printed by ``tests/e2e/test_wheel_install.py`` (in a
fresh venv); here the memlode of this venv is the one on PATH.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.e2e.test_wheel_install import PIP_INSTALL_POSTGRES  # run there, in a fresh venv
from tests.resident.support import stop_holder, wait_until

from memlode.storage import open_store

pytestmark = pytest.mark.usefixtures("pg_server")

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent  # this venv's bin: memlode and python on the user's PATH
# The commands of the README's team block; the URL is the README's example, replaced by the
# test server's in the one line that names it.
README_URL = "postgresql://ana@db.internal:5432/memory"
MIGRATE = f"memlode migrate --to '{README_URL}'"
EXPORT = f"export MEMLODE_DB='{README_URL}'"
INIT = "memlode init"
README_COMMANDS = [PIP_INSTALL_POSTGRES, MIGRATE, EXPORT, INIT]
# the command the paragraph after the block gives for a shell that already exports the URL
MIGRATE_EXPORTED = 'memlode --db ~/.memlode/memlode.db migrate --to "$MEMLODE_DB"'

ORIGIN = "https://git.example.com/team/kiln.git"
# Claude Code's events whose hooks the test fires, in a session's order.
EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop")
PROMPT = "Why does the kiln controller reject the bisque firing schedule?"
EDIT_OLD, EDIT_NEW = "MAX_RAMP = 80", "MAX_RAMP = 150"
MCP_MEMORY = "Glaze firings ramp at 150 degrees per hour above 600 in the kiln controller"
LAPTOP_MEMORY = "The kiln log rotates weekly; the old logs go to cold storage"
# how long the resident may take to apply a spooled event on a loaded 2-core machine (a bound,
# never a figure the test asserts)
APPLY_WAIT_S = 90.0


def _readme_team_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Team memory (PostgreSQL)\n", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)[0]
    lines = (line.split(" #", 1)[0].strip() for line in block.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def test_the_readme_team_commands_are_the_ones_run_here() -> None:
    assert _readme_team_commands() == README_COMMANDS
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"`{MIGRATE_EXPORTED}`" in " ".join(readme.split())


def _clone(path: Path) -> Path:
    """A checkout of the team's repository (its namespace comes from the origin remote)."""
    path.mkdir(parents=True)
    for args in (["init", "-q"], ["remote", "add", "origin", ORIGIN]):
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)
    (path / "pyproject.toml").write_text("[project]\nname = 'kiln'\n")
    return path


def _machine(home: Path, memlode_home: Path) -> dict[str, str]:
    """A user's environment on one machine: memlode's settings from the tests, this venv's
    memlode on PATH, the resident started by SessionStart as by default."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMLODE_", "VIRTUAL_ENV"))}
    env.update(
        HOME=str(home),
        MEMLODE_HOME=str(memlode_home),
        MEMLODE_EMBED_PROVIDER="hash",
        MEMLODE_CONSOLIDATE_EVERY="0",
        MEMLODE_RESIDENT_IDLE="120",
        PATH=os.pathsep.join([str(BIN), "/usr/bin", "/bin"]),
    )
    return env


def _bash(script: str, env: dict[str, str], cwd: Path, stdin: str | None = None) -> Any:
    done = subprocess.run(
        ["bash", "-c", script],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=180,
    )
    return done


def _ok(done: Any) -> str:
    assert done.returncode == 0, f"{done.args}: {done.stderr[-3000:]}"
    return str(done.stdout)


def _payloads(project: Path) -> dict[str, dict[str, Any]]:
    """Claude Code's payloads (INTEGRATION.md 1.2) of one session in ``project``."""
    base = {
        "session_id": "b7e1-team",
        "transcript_path": str(project / "b7e1-team.jsonl"),
        "cwd": str(project),
    }
    kiln = str(project / "kiln.py")
    return {
        "SessionStart": {**base, "hook_event_name": "SessionStart", "source": "startup"},
        "UserPromptSubmit": {
            **base,
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": PROMPT,
        },
        "PostToolUse": {
            **base,
            "permission_mode": "default",
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_use_id": "toolu_team01",
            "tool_input": {
                "file_path": kiln,
                "old_string": EDIT_OLD,
                "new_string": EDIT_NEW,
                "replace_all": False,
            },
            "tool_response": {
                "filePath": kiln,
                "oldString": EDIT_OLD,
                "newString": EDIT_NEW,
                "originalFile": f"{EDIT_OLD}\n",
                "structuredPatch": [
                    {
                        "oldStart": 1,
                        "oldLines": 1,
                        "newStart": 1,
                        "newLines": 1,
                        "lines": [f"-{EDIT_OLD}", f"+{EDIT_NEW}"],
                    }
                ],
                "userModified": False,
                "replaceAll": False,
            },
        },
        "Stop": {
            **base,
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "Raised the ramp limit for bisque firings.",
        },
    }


def _registered_hooks(project: Path) -> dict[str, str]:
    """Each event's command as ``memlode init`` wrote it into the personal settings."""
    settings = json.loads((project / ".claude" / "settings.local.json").read_text("utf-8"))
    commands = {}
    for event in EVENTS:
        (group,) = settings["hooks"][event]
        (hook,) = group["hooks"]
        commands[event] = hook["command"]
    return commands


def _registered_server(home: Path, project: Path) -> dict[str, Any]:
    """The MCP server ``memlode init`` registered for the project (Claude Code's local scope)."""
    config = json.loads((home / ".claude.json").read_text("utf-8"))
    server: dict[str, Any] = config["projects"][str(project)]["mcpServers"]["memlode"]
    return server


def _contents(url: str) -> list[str]:
    with open_store(url) as store:
        return [str(r[0]) for r in store.query("SELECT content FROM memories", ())]


async def _through_mcp(server: dict[str, Any], env: dict[str, str], cwd: Path) -> list[str]:
    """Store a memory and recall it through the registered server, started as Claude Code
    starts it: its command and args, the user's environment with the registered env on top."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=server["command"],
        args=server["args"],
        env={**env, **server.get("env", {})},
        cwd=str(cwd),
    )
    with (cwd.parent / "mcp.log").open("a", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            stored = await session.call_tool("store_memory", {"content": MCP_MEMORY})
            assert not stored.is_error, stored.content
            recalled = await session.call_tool("recall_memory", {"query": "glaze ramp"})
            assert not recalled.is_error, recalled.content
            hits = (recalled.structured_content or {}).get("hits", [])
            return [str(hit["content"]) for hit in hits]


def _search(env: dict[str, str], cwd: Path, query: str, *options: str) -> list[str]:
    out = _ok(_bash(f"memlode search {query!r} --json {' '.join(options)}", env, cwd))
    return [str(hit["content"]) for hit in json.loads(out)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_readme_team_setup_shares_a_session_with_a_second_machine(
    tmp_path: Path, pg_url: str
) -> None:
    laptop = _machine(tmp_path / "ana", tmp_path / "ana" / ".memlode")
    desktop = _machine(tmp_path / "ben", tmp_path / "ben" / ".memlode")
    for env in (laptop, desktop):
        Path(env["HOME"]).mkdir(parents=True)
    project = _clone(tmp_path / "ana" / "kiln")
    (project / "kiln.py").write_text(f"{EDIT_NEW}\n")
    other = _clone(tmp_path / "ben" / "src" / "kiln")
    try:
        # what this machine remembered before the team store
        _ok(_bash(f"memlode store {LAPTOP_MEMORY!r}", laptop, project))

        shell = [line.replace(README_URL, pg_url) for line in (MIGRATE, EXPORT, INIT)]
        said = _ok(_bash("\n".join(["set -e", *shell]), laptop, project))
        assert "1 memories checked" in said and "MEMLODE_DB is a server URL" in said
        # a shell that exports the URL already names the SQLite file; nothing new goes over
        again = _ok(_bash(MIGRATE_EXPORTED, {**laptop, "MEMLODE_DB": pg_url}, project))
        assert "0 rows copied" in again, again
        assert not list(project.rglob("postgresql*")), "no folder made from the URL"
        written = (project / ".claude" / "settings.local.json").read_text("utf-8")
        assert "postgresql" not in written

        # the user's shell from now on: their profile exports the variable, as the README says
        user = {**laptop, "MEMLODE_DB": pg_url}
        hooks = _registered_hooks(project)
        payloads = _payloads(project)
        for event in EVENTS:
            fired = _bash(hooks[event], user, project, json.dumps(payloads[event]))
            assert fired.returncode == 0 and fired.stderr == "", (event, fired.stderr)

        server = _registered_server(Path(laptop["HOME"]), project)
        recalled = await _through_mcp(server, user, project)
        assert MCP_MEMORY in recalled

        def arrived() -> bool:
            texts = _contents(pg_url)
            return any(PROMPT in t for t in texts) and any(EDIT_NEW in t for t in texts)

        assert wait_until(arrived, APPLY_WAIT_S), _contents(pg_url)

        # the second machine: its own home, a clone of the same repository, the same URL
        ben = {**desktop, "MEMLODE_DB": pg_url}
        # a stored prompt is found by its tag (a search leaves prompts out otherwise)
        asked = _search(ben, other, "kiln controller bisque schedule", "--tags", "prompt")
        prompts = [t for t in asked if t == PROMPT]
        edits = [t for t in _search(ben, other, "MAX_RAMP kiln.py") if EDIT_NEW in t]
        told = [t for t in _search(ben, other, "glaze firings ramp") if t == MCP_MEMORY]
        moved = [t for t in _search(ben, other, "kiln log rotates") if t == LAPTOP_MEMORY]
        assert (len(prompts), len(edits), len(told), len(moved)) == (1, 1, 1, 1)
        stored = _contents(pg_url)
        # each event once: the prompt, the edit, Stop's session summary; the MCP store once
        assert sum(t == PROMPT for t in stored) == 1
        assert sum(t.startswith("Edited kiln.py") for t in stored) == 1
        assert sum(t.startswith("Session summary") for t in stored) == 1
        assert sum(t == MCP_MEMORY for t in stored) == 1
    finally:
        for home in (laptop["MEMLODE_HOME"], desktop["MEMLODE_HOME"]):
            for lock in Path(home).rglob("run/*.lock"):
                stop_holder(lock)
