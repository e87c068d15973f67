"""OpenCode, the real CLI, wired to memlode by ``memlode init --client opencode`` plus memlode's
plugin, and driven against a scripted model (``chat_api``): what the plugin's events store,
what reaches the model, what the MCP server answers.

The scenario runs once for the module (``scenario``), each session one ``opencode run
PROMPT`` in a project folder (a new session each time):

- session 1: the model reads ``calc.py`` (read), edits it (edit), runs a check that fails with
  a distinctive error (bash), runs it again passing, and answers with a finding.
- session 2 (``FOLLOW_UP``): memlode's context must bring the finding into the request (the
  plugin adds the session-start and prompt hooks' additionalContext to the system prompt
  through ``experimental.chat.system.transform``); the model calls memlode's recall tool
  (``memlode_recall_memory``: OpenCode names MCP tools ``<server>_<tool>``) and the tool's
  result must hold the finding.
- session 3 (``UNRELATED``): a prompt about something else: no recall block.

Offline: the provider is ``@ai-sdk/openai-compatible`` (bundled in the binary) in a config file
of its own (``OPENCODE_CONFIG``); ``OPENCODE_DISABLE_MODELS_FETCH`` keeps it off models.dev
(the bundled snapshot is used); ``npm_config_offline`` makes the install of
``@opencode-ai/plugin`` that OpenCode starts in every config folder without it fail instead of
asking the registry (``mark_plugin_sdk_installed`` spares the runs that install altogether); a
dead proxy catches anything else (OpenCode's grep and glob would download ripgrep from GitHub
when ``rg`` is not on PATH: the scenario does not use them). ``opencode run`` joins its
arguments, quoting one that holds a space: the prompt is passed word by word so that
OpenCode's user message is the prompt as typed. It takes the project from ``$PWD``, so PWD is
set too.

Until ``memlode init --client opencode`` installs the plugin itself, ``install_plugin`` copies
it into the project's ``.opencode/plugins/`` with the hook command filled in (this
interpreter), unless init already put one in OpenCode's plugin folders.

OpenCode's own record of the sessions: a SQLite database,
``$XDG_DATA_HOME/opencode/opencode.db`` (WAL), with sessions, messages and parts (``part``
rows hold the tool calls' input/output as JSON), plus logs in ``$XDG_DATA_HOME/opencode/log/``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.clients import chat_api as api
from tests.clients.scenario import (
    BUILD,
    BUILD_OUTCOME,
    BUILD_VERDICT,
    CALC,
    CHECK,
    ERROR_MARK,
    FINDING,
    FINDING_MARK,
    FOLLOW_UP,
    PROMPT,
    RECALL_QUERY,
    RECALLED_TEXT,
    UNRELATED,
    UNRELATED_ANSWER,
)
from tests.clients.scripted import Reply, Request, ScriptedServer, ToolCall
from tests.clients.stored import memlode
from tests.conftest import TEST_SETTINGS

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = json.loads((Path(__file__).with_name("clients.json")).read_text())
OPENCODE = ROOT / ".cache" / "clients" / "node_modules" / ".bin" / CLIENTS["bin"]["opencode"]
PLUGIN = ROOT / "src" / "memlode" / "hooks" / "opencode_plugin.js"

RUN_TIMEOUT = 120  # seconds for one client run (each takes ~5-8 s here)
INGEST_WAIT = 60  # seconds the detached transcript ingest is given (it takes ~1 s here)
MODEL = "scripted"

# The headings memlode's injected blocks open with (memlode.hooks.injection).
SESSION_BLOCK = "## memlode: what I remember about"
RECALL_BLOCK = "## memlode: possibly relevant memories"
RECALL_TOOL = "memlode_recall_memory"


# OpenCode's events as memlode's plugin hands them over (OpenCode's name -> memlode's event):
# used only when memlode.hook_events has no row for OpenCode.
PLUGIN_EVENTS = {
    "session.created": "session-start",
    "chat.message": "prompt",
    "tool.execute.after": "post-tool",
    "message.part.updated": "post-tool-failure",
    "session.idle": "stop",
    "experimental.session.compacting": "pre-compact",
    "session.compacted": "post-compact",
    "session.deleted": "session-end",
}
HOOK_ARGV = [
    sys.executable,
    "-c",
    "from memlode.hooks.dispatch import main; main(exit_process=True)",
]


# --- the model's script ---------------------------------------------------------------------


def plans(project: Path) -> dict[str, list[Reply]]:
    """Per prompt, the model's replies in order: reply N answers the request that carries N
    tool results."""
    calc = str(project / "calc.py")
    edit = {"filePath": calc, "oldString": "return a - b", "newString": "return a + b"}
    failing = {"command": "sh check.sh first", "description": "Run the checks"}
    passing = {"command": "sh check.sh", "description": "Run the checks again"}
    build = {"command": "sh build.sh", "description": "Build the project"}
    return {
        PROMPT: [
            Reply(tool_calls=(ToolCall("read", {"filePath": calc}),)),
            Reply(tool_calls=(ToolCall("edit", edit),)),
            Reply(tool_calls=(ToolCall("bash", failing),)),
            Reply(tool_calls=(ToolCall("bash", passing),)),
            Reply(tool_calls=(ToolCall("bash", build),)),
            Reply(FINDING),
        ],
        FOLLOW_UP: [
            Reply(tool_calls=(ToolCall(RECALL_TOOL, {"query": RECALL_QUERY}),)),
            Reply(RECALLED_TEXT),
        ],
        UNRELATED: [Reply(UNRELATED_ANSWER)],
    }


def current_prompt(request: Request) -> str:
    texts = api.user_texts(request)
    return texts[-1] if texts else ""


def scripted(project: Path) -> Callable[[Request], Reply]:
    by_prompt = plans(project)

    def script(request: Request) -> Reply:
        prompt = current_prompt(request)
        replies = by_prompt.get(prompt)
        step = len(api.tool_outputs(request))
        if replies is None or step >= len(replies):
            raise AssertionError(f"no script for {prompt[:200]!r} after {step} results")
        return replies[step]

    return script


# --- running the client ---------------------------------------------------------------------


def provider_config(server: ScriptedServer) -> dict[str, Any]:
    """The user's model: the scripted server as an OpenAI-compatible provider, every tool
    allowed (``opencode run`` cannot ask), nothing shared or updated."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "local": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Scripted",
                "options": {"baseURL": f"{server.url}/v1", "apiKey": "scripted-key"},
                "models": {MODEL: {"name": "Scripted", "tool_call": True}},
            }
        },
        "model": f"local/{MODEL}",
        "small_model": f"local/{MODEL}",
        "autoupdate": False,
        "share": "disabled",
        "permission": {"edit": "allow", "bash": "allow", "webfetch": "allow"},
    }


def client_environment(root: Path, project: Path, server: ScriptedServer) -> dict[str, str]:
    """A HOME (and XDG folders) of the run's own, the parent's model and client variables
    stripped, the scripted server as the provider, memlode's test settings, nothing online."""
    stripped = ("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "CLAUDE", "CODEX", "MEMLODE_")
    stripped += ("OPENCODE", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(stripped)}
    folders = {
        "HOME": root / "home",
        "XDG_CONFIG_HOME": root / "home" / ".config",
        "XDG_DATA_HOME": root / "home" / ".local" / "share",
        "XDG_STATE_HOME": root / "home" / ".local" / "state",
        "XDG_CACHE_HOME": root / "home" / ".cache",
    }
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    config = root / "provider.json"
    config.write_text(json.dumps(provider_config(server), indent=2))
    dead_proxy = "http://127.0.0.1:9"  # the discard port: any request that is not local fails
    return {
        **env,
        **{name: str(folder) for name, folder in folders.items()},
        **TEST_SETTINGS,
        "MEMLODE_HOME": str(root / "memlode-home"),
        "OPENCODE_CONFIG": str(config),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "npm_config_offline": "true",
        "HTTP_PROXY": dead_proxy,
        "HTTPS_PROXY": dead_proxy,
        "NO_PROXY": "127.0.0.1,localhost",
        "PWD": str(project),
        "NO_COLOR": "1",
    }


def make_project(root: Path) -> Path:
    project = root / "proj"
    project.mkdir()
    (project / "calc.py").write_text(CALC)
    (project / "check.sh").write_text(CHECK)
    (project / "build.sh").write_text(BUILD)
    git = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "calc"]):
        subprocess.run([*git, *args], cwd=project, check=True, timeout=30, capture_output=True)
    return project


def plugin_folders(project: Path, home: Path) -> list[Path]:
    """Where OpenCode 1.18 loads plugin files from without a config entry."""
    config = home / ".config" / "opencode"
    return [project / ".opencode" / "plugins", project / ".opencode" / "plugin",
            config / "plugins", config / "plugin"]  # fmt: skip


def installed_plugins(project: Path, home: Path) -> list[Path]:
    return [
        path
        for folder in plugin_folders(project, home)
        for path in sorted(folder.glob("*.[jt]s"))
        if "HOOK_COMMAND" in path.read_text(encoding="utf-8", errors="replace")
    ]


def plugin_source(hook_argv: list[str]) -> str:
    """memlode's plugin with the hook command and the event table filled in (what ``init
    --client opencode`` is to write; until it does, the test installs this)."""
    try:
        from memlode.hook_events import CLIENT_HOOKS

        events = {spec.event: spec.name for spec in CLIENT_HOOKS["opencode"]}
    except (ImportError, KeyError):
        events = dict(PLUGIN_EVENTS)
    text = PLUGIN.read_text(encoding="utf-8")
    text = text.replace("__MEMLODE_HOOK_COMMAND__", json.dumps(hook_argv))
    return text.replace("__MEMLODE_EVENTS__", json.dumps(events))


def install_plugin(project: Path, home: Path) -> list[Path]:
    """memlode's plugin where OpenCode loads it, unless init installed it already."""
    found = installed_plugins(project, home)
    if found:
        return found
    target = project / ".opencode" / "plugins" / "memlode.js"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(plugin_source(HOOK_ARGV), encoding="utf-8")
    return [target]


def mark_plugin_sdk_installed(folders: list[Path]) -> None:
    """What OpenCode's first run online leaves in each config folder: ``@opencode-ai/plugin``
    installed (a ``node_modules`` folder and a lock file that lists it). Without it every run
    starts that install again (offline: it fails, and a run waited ~55 s for it here)."""
    lock = {"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}
    for folder in folders:
        (folder / "node_modules").mkdir(parents=True, exist_ok=True)
        (folder / "package-lock.json").write_text(json.dumps(lock))


def opencode_run(project: Path, env: dict[str, str], prompt: str) -> str:
    """``opencode run PROMPT``: what it printed (the session's tool calls and answer)."""
    done = subprocess.run(
        [str(OPENCODE), "run", *prompt.split(" ")],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def opencode_sessions(home: Path) -> dict[str, str]:
    """OpenCode's own sessions (its SQLite database): id -> title."""
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return {str(i): str(t) for i, t in conn.execute("SELECT id, title FROM session")}


# --- the scenario ---------------------------------------------------------------------------


@dataclass
class Scenario:
    project: Path
    env: dict[str, str]
    home: Path
    plugins: list[Path]
    server: ScriptedServer
    outputs: dict[str, str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)

    def requests_for(self, prompt: str) -> list[Request]:
        """The agent's requests (no title requests) whose current prompt is ``prompt``."""
        return [r for r in api.turns(self.server) if current_prompt(r) == prompt]

    def session_ids(self, prompt: str) -> set[str]:
        """memlode's sessions whose prompt rows hold ``prompt``."""
        return {
            str(r["session_id"])
            for r in self.rows
            if r.get("content") == prompt and r.get("session_id")
        }

    def session_rows(self, prompt: str) -> list[dict[str, Any]]:
        ids = self.session_ids(prompt)
        return [r for r in self.rows if r.get("session_id") in ids]


def run_scenario(root: Path) -> Scenario:
    project = make_project(root)
    server = ScriptedServer(api.handler(scripted(project), models=(MODEL,)))
    env = client_environment(root, project, server)
    home = root / "home"
    init = subprocess.run(
        [sys.executable, "-m", "memlode", "init", "--client", "opencode"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert init.returncode == 0, init.stderr
    plugins = install_plugin(project, home)
    config_folders = [home / ".config" / "opencode"]
    if (project / ".opencode").is_dir():
        config_folders.append(project / ".opencode")
    mark_plugin_sdk_installed(config_folders)
    outputs = {
        prompt: opencode_run(project, env, prompt) for prompt in (PROMPT, FOLLOW_UP, UNRELATED)
    }
    # session.idle starts the ingest of the session from OpenCode's database in a detached
    # process: wait (bounded) for the first session's turns before reading everything back.
    first = min(opencode_sessions(home))  # OpenCode's ids ascend in time
    deadline = time.monotonic() + INGEST_WAIT
    while True:
        rows = list(memlode(project, env, "list", "--limit", "100000"))
        if any(r.get("source") == "transcript" and r.get("session_id") == first for r in rows):
            break
        if time.monotonic() > deadline:
            break  # the test on turns says what is missing
        time.sleep(0.5)
    return Scenario(
        project=project,
        env=env,
        home=home,
        plugins=plugins,
        server=server,
        outputs=outputs,
        rows=rows,
        sessions=list(memlode(project, env, "sessions", "--limit", "1000")),
    )


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    if not OPENCODE.exists():
        pytest.fail(f"{OPENCODE} is missing: `make test` installs the pinned clients")
    done = run_scenario(tmp_path_factory.mktemp("opencode"))
    try:
        yield done
    finally:
        done.server.close()


# --- the client and the wiring --------------------------------------------------------------


def test_the_scripted_model_answered_every_request(scenario: Scenario) -> None:
    assert scenario.server.problems == []
    assert FINDING in scenario.outputs[PROMPT]
    assert RECALLED_TEXT in scenario.outputs[FOLLOW_UP]
    assert UNRELATED_ANSWER in scenario.outputs[UNRELATED]
    # only the provider's endpoint was asked: agent turns and title requests
    paths = {(r.method, r.path) for r in scenario.server.requests}
    assert paths == {("POST", "/v1/chat/completions")}


def test_one_plugin_and_the_mcp_server_are_wired(scenario: Scenario) -> None:
    assert len(scenario.plugins) == 1, scenario.plugins
    declared = [t["function"]["name"] for t in scenario.requests_for(PROMPT)[0].body["tools"]]
    assert RECALL_TOOL in declared  # memlode's MCP server connected


def test_opencode_keeps_its_own_sessions(scenario: Scenario) -> None:
    """OpenCode's database holds the three sessions, titled by the (side) title request."""
    titles = opencode_sessions(scenario.home)
    assert len(titles) == 3
    assert set(titles.values()) == {api.TITLE}


# --- what session 1 stored ------------------------------------------------------------------


def test_prompt_stored_once_verbatim(scenario: Scenario) -> None:
    """Rows tagged ``prompt`` or ``instruction`` whose content is exactly the prompt (one for
    each prompt), and none that hold the prompt among other text (memlode's context) or a
    second "User said while the assistant worked" copy."""
    tagged = [r for r in scenario.rows if {"prompt", "instruction"} & set(r["tags"])]
    for prompt in (PROMPT, FOLLOW_UP, UNRELATED):
        assert [r["content"] for r in tagged if r["content"] == prompt] == [prompt]
        assert [r["content"] for r in tagged if prompt in r["content"] != prompt] == []
    interjections = [
        r["content"]
        for r in scenario.rows
        if r["content"].startswith("User said while the assistant worked")
    ]
    assert interjections == []


def test_sessions_recorded_under_opencode(scenario: Scenario) -> None:
    """The plugin's session.created started each session (OpenCode's ``ses_…`` id), under
    memlode's label for OpenCode; session.idle ended it with the turn's answer."""
    opencode_ids = set(opencode_sessions(scenario.home))
    for prompt in (PROMPT, FOLLOW_UP, UNRELATED):
        (session_id,) = scenario.session_ids(prompt)
        assert session_id in opencode_ids
        (session,) = [s for s in scenario.sessions if s["id"] == session_id]
        assert session["source"] == "opencode"
        assert session["metadata"].get("start_source") == "startup"
        assert session["ended_at"]
    (first,) = scenario.session_ids(PROMPT)
    (session,) = [s for s in scenario.sessions if s["id"] == first]
    assert session["metadata"].get("last_assistant_message") == FINDING


def test_every_captured_row_records_the_client(scenario: Scenario) -> None:
    hooks = [r for r in scenario.rows if r.get("source") == "hook"]
    assert hooks
    assert {r["metadata"].get("client") for r in hooks} == {"opencode"}


def test_read_edit_and_passing_command_captured(scenario: Scenario) -> None:
    """tool.execute.after reached memlode once per successful tool call, as Read, Edit and
    Bash."""
    captured = [
        r for r in scenario.session_rows(PROMPT) if r["metadata"].get("hook") == "PostToolUse"
    ]
    tools = [r["metadata"].get("tool") for r in captured]
    assert tools.count("Read") == 1 and tools.count("Edit") == 1, tools
    (read,) = [r for r in captured if r["metadata"].get("tool") == "Read"]
    assert "calc.py" in read["content"]
    (edit,) = [r for r in captured if r["metadata"].get("tool") == "Edit"]
    assert "calc.py" in edit["content"] and "return a + b" in edit["content"]
    commands = [r for r in captured if r["metadata"].get("tool") == "Bash"]
    assert len(commands) == 2, [r["content"] for r in commands]  # the check, the build
    passing = [r for r in commands if "sh check.sh" in r["content"]]
    assert len(passing) == 1 and "all checks passed" in passing[0]["content"]


def test_a_long_build_log_captured_from_its_start_to_its_end(scenario: Scenario) -> None:
    """OpenCode hands the plugin the build log's last ~50 KB and keeps the whole in a file: the
    stored command starts where the log started (read from the file) and ends where the output
    OpenCode sent the model ends. (OpenCode 1.18 itself sometimes loses the last lines of a
    long output, for the model and in its file alike: in 3 of 8 runs here it ended hundreds of
    lines before the verdict. What it kept is what memlode can keep.)"""
    (build,) = [
        r for r in scenario.session_rows(PROMPT)
        if r["metadata"].get("hook") == "PostToolUse" and "sh build.sh" in r["content"]
    ]  # fmt: skip
    sent = [
        o for r in scenario.requests_for(PROMPT) for o in api.tool_outputs(r) if "Compiling" in o
    ]
    assert sent, "the build's output never reached the model"
    assert "[0/1500] Compiling module 0" not in sent[-1]  # the model got the end only
    assert "[0/1500] Compiling module 0" in build["content"]
    last = sent[-1].rstrip().rsplit("\n", 1)[-1]
    assert build["content"].rstrip().endswith(last)
    if BUILD_VERDICT in sent[-1]:
        assert BUILD_OUTCOME in build["content"]


def test_failing_command_captured_with_its_error(scenario: Scenario) -> None:
    """A command that exits non-zero is a completed call to OpenCode (``metadata.exit`` 1);
    memlode stores it as a failure: the command and its error text."""
    failures = [r for r in scenario.session_rows(PROMPT) if "failure" in r["tags"]]
    assert len(failures) == 1, [r["content"] for r in failures]
    (failure,) = failures
    assert "sh check.sh first" in failure["content"]
    assert ERROR_MARK in failure["content"]


# --- sessions 2 and 3: what reached the model -----------------------------------------------


def test_follow_up_request_carries_the_finding(scenario: Scenario) -> None:
    """memlode's context (the session-start block, the prompt's recall, or both), added to the
    system prompt by the plugin, is in the first request of the follow-up prompt and holds what
    session 1 found; the user's message stays the prompt alone."""
    first = scenario.requests_for(FOLLOW_UP)[0]
    assert FINDING_MARK not in FOLLOW_UP
    assert api.user_texts(first) == [FOLLOW_UP]
    system = api.system_text(first)
    assert SESSION_BLOCK in system or RECALL_BLOCK in system
    assert FINDING_MARK in system


def test_unrelated_prompt_gets_no_recall_block(scenario: Scenario) -> None:
    requests = scenario.requests_for(UNRELATED)
    assert requests
    for request in requests:
        assert RECALL_BLOCK not in request.raw


def test_mcp_recall_returns_the_finding(scenario: Scenario) -> None:
    second = scenario.requests_for(FOLLOW_UP)[1]
    (result,) = api.tool_outputs(second)
    assert FINDING_MARK in result, result


# --- OpenCode's database ingested as turns --------------------------------------------------


def test_first_session_ingested_as_turns_labelled_opencode(scenario: Scenario) -> None:
    """session.idle started ``memlode ingest transcript opencode.db --session ses_…``: the
    first session's turn (the prompt verbatim, the tools under Claude Code's names, the
    answer) is stored as transcript memories labelled with the client."""
    (first,) = scenario.session_ids(PROMPT)
    turns = [
        r for r in scenario.rows if r.get("source") == "transcript" and r.get("session_id") == first
    ]
    assert turns, "no transcript memories for the first session"
    assert {r["metadata"].get("client") for r in turns} == {"opencode"}
    text = "\n".join(r["content"] for r in turns)
    assert PROMPT in text and FINDING_MARK in text
    assert "Edit" in text and "calc.py" in text
    assert "## memlode" not in text  # memlode's context is in the system prompt, not the turn
    (session,) = [s for s in scenario.sessions if s["id"] == first]
    assert session["source"] == "opencode"
