"""Gemini CLI, the real CLI, wired to memlode by ``memlode init --client gemini`` and driven
against a scripted model (``gemini_api``): what its hooks store, what reaches the model, what
the MCP server answers.

The scenario runs once for the module (``scenario``), each session one ``gemini -p PROMPT
--yolo`` in a trusted project folder (``GEMINI_CLI_TRUST_WORKSPACE=true``; in an untrusted
folder ``gemini -p`` exits 55 asking for ``--skip-trust``, and with ``--skip-trust`` the
project's ``.gemini/settings.json`` hooks and MCP servers are ignored without a word):

- session 1: the model reads ``calc.py`` (read_file), edits it (replace), runs a check that
  fails with a distinctive error (run_shell_command), runs it again passing, and answers with
  a finding.
- session 2 (``FOLLOW_UP``): memlode's context must bring the finding into the request; the
  model calls memlode's recall tool (``mcp_memlode_recall_memory``: Gemini CLI names MCP tools
  ``mcp_<server>_<tool>``) and its functionResponse must hold the finding.
- session 3 (``UNRELATED``): a prompt about something else: no recall block.

Gemini CLI puts SessionStart's additionalContext in front of the prompt as
``<hook_context>…</hook_context>`` and hands BeforeAgent that combined text; each prompt must
still be stored once, as typed. Rows are read back through memlode's CLI (``list --json``,
``sessions --json``).

Gemini CLI's own chat files: ``$GEMINI_CLI_HOME/.gemini/tmp/<project name>/chats/
session-<date>T<hh-mm>-<session id prefix>.jsonl``: a header line (``sessionId``,
``projectHash``, ``startTime``, ``kind``), then message records (``id``, ``type`` user/gemini,
``content``, ``toolCalls``, ``tokens``, ``model``; a record is written again as it grows) and
``{"$set": {...}}`` updates. Its hook payloads' ``transcript_path`` names that file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.clients import gemini_api as api
from tests.clients.scenario import (
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
GEMINI = ROOT / ".cache" / "clients" / "node_modules" / ".bin" / CLIENTS["bin"]["gemini"]

RUN_TIMEOUT = 120  # seconds for one client run (each takes ~5 s here)

# The headings memlode's injected blocks open with (memlode.hooks.injection).
SESSION_BLOCK = "## memlode: what I remember about"
RECALL_BLOCK = "## memlode: possibly relevant memories"
RECALL_TOOL = "mcp_memlode_recall_memory"


# The user's settings: the API key as the way in, and nothing that would reach the network
# (usage statistics go to play.googleapis.com; an update check to the npm registry).
USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


# --- the model's script ---------------------------------------------------------------------


def plans(project: Path) -> dict[str, list[Reply]]:
    """Per prompt, the model's replies in order: reply N answers the request that carries N
    tool results of the current turn."""
    edit = {
        "file_path": str(project / "calc.py"),
        "instruction": "fix the sign",
        "old_string": "return a - b",
        "new_string": "return a + b",
    }
    failing = {"command": "sh check.sh first", "description": "Run the checks"}
    passing = {"command": "sh check.sh", "description": "Run the checks again"}
    return {
        PROMPT: [
            Reply(tool_calls=(ToolCall("read_file", {"file_path": "calc.py"}),)),
            Reply(tool_calls=(ToolCall("replace", edit),)),
            Reply(tool_calls=(ToolCall("run_shell_command", failing),)),
            Reply(tool_calls=(ToolCall("run_shell_command", passing),)),
            Reply(FINDING),
        ],
        FOLLOW_UP: [
            Reply(tool_calls=(ToolCall(RECALL_TOOL, {"query": RECALL_QUERY}),)),
            Reply(RECALLED_TEXT),
        ],
        UNRELATED: [Reply(UNRELATED_ANSWER)],
    }


def scripted(project: Path) -> Callable[[Request], Reply]:
    by_prompt = plans(project)

    def script(request: Request) -> Reply:
        prompt = api.prompt_text(request)
        replies = by_prompt.get(prompt)
        step = len(api.turn_results(request))
        if replies is None or step >= len(replies):
            raise AssertionError(f"no script for {prompt[:200]!r} after {step} results")
        return replies[step]

    return script


# --- running the client ---------------------------------------------------------------------


def client_environment(root: Path, server: ScriptedServer) -> dict[str, str]:
    """A HOME (Gemini CLI's folder, XDG folders) of the run's own, the parent's model and
    client variables stripped, the scripted server as the API, memlode's test settings."""
    stripped = ("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "CLAUDE", "CODEX", "MEMLODE_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(stripped)}
    folders = {
        "HOME": root / "home",
        "GEMINI_CLI_HOME": root / "home",
        "XDG_CONFIG_HOME": root / "xdg" / "config",
        "XDG_DATA_HOME": root / "xdg" / "data",
        "XDG_STATE_HOME": root / "xdg" / "state",
        "XDG_CACHE_HOME": root / "xdg" / "cache",
    }
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    settings = root / "home" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(USER_SETTINGS, indent=2))
    return {
        **env,
        **{name: str(folder) for name, folder in folders.items()},
        **TEST_SETTINGS,
        "MEMLODE_HOME": str(root / "memlode-home"),
        "GOOGLE_GEMINI_BASE_URL": server.url,
        "GEMINI_API_KEY": "scripted-key",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "NO_COLOR": "1",
    }


def make_project(root: Path) -> Path:
    project = root / "proj"
    project.mkdir()
    (project / "calc.py").write_text(CALC)
    (project / "check.sh").write_text(CHECK)
    git = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "calc"]):
        subprocess.run([*git, *args], cwd=project, check=True, timeout=30, capture_output=True)
    return project


def print_run(project: Path, env: dict[str, str], prompt: str) -> dict[str, Any]:
    """``gemini -p PROMPT --yolo``: its JSON result (``session_id``, ``response``)."""
    done = subprocess.run(
        [str(GEMINI), "-p", prompt, "--yolo", "--output-format", "json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert isinstance(result, dict)
    return result


# --- the scenario ---------------------------------------------------------------------------


@dataclass
class Scenario:
    project: Path
    env: dict[str, str]
    home: Path
    init_output: str
    server: ScriptedServer
    results: dict[str, dict[str, Any]]
    rows: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)

    def requests_for(self, prompt: str) -> list[Request]:
        """The agent's requests (no side questions) whose current prompt is ``prompt``."""
        return [r for r in api.turns(self.server.requests) if api.prompt_text(r) == prompt]

    def session_id(self, prompt: str) -> str:
        return str(self.results[prompt]["session_id"])

    def session_rows(self, prompt: str) -> list[dict[str, Any]]:
        return [r for r in self.rows if r.get("session_id") == self.session_id(prompt)]

    def session(self, prompt: str) -> dict[str, Any]:
        (found,) = [s for s in self.sessions if s["id"] == self.session_id(prompt)]
        return found


def run_scenario(root: Path) -> Scenario:
    project = make_project(root)
    server = ScriptedServer(api.handler(scripted(project)))
    env = client_environment(root, server)
    init = subprocess.run(
        [sys.executable, "-m", "memlode", "init", "--client", "gemini"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert init.returncode == 0, init.stderr
    results = {prompt: print_run(project, env, prompt) for prompt in (PROMPT, FOLLOW_UP, UNRELATED)}
    # AfterAgent/SessionEnd ingest each chat file in a detached process: wait (bounded) for the
    # first session's turns before reading everything back
    first = str(results[PROMPT]["session_id"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rows = memlode(project, env, "list", "--limit", "100000", "--source", "transcript")
        if any(r.get("session_id") == first for r in rows):
            break
        time.sleep(0.5)
    return Scenario(
        project=project,
        env=env,
        home=root / "home",
        init_output=init.stdout,
        server=server,
        results=results,
        rows=list(memlode(project, env, "list", "--limit", "100000")),
        sessions=list(memlode(project, env, "sessions", "--limit", "1000")),
    )


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    if not GEMINI.exists():
        pytest.fail(f"{GEMINI} is missing: `make test` installs the pinned clients")
    done = run_scenario(tmp_path_factory.mktemp("gemini"))
    try:
        yield done
    finally:
        done.server.close()


# --- the client and the wiring --------------------------------------------------------------


def test_the_scripted_model_answered_every_request(scenario: Scenario) -> None:
    assert scenario.server.problems == []
    assert scenario.results[PROMPT]["response"] == FINDING
    assert scenario.results[FOLLOW_UP]["response"] == RECALLED_TEXT
    assert scenario.results[UNRELATED]["response"] == UNRELATED_ANSWER


def test_init_wires_hooks_and_mcp_server(scenario: Scenario) -> None:
    """Where ``init --client gemini`` put them: the user's settings or the project's (Gemini
    CLI merges both; the project's only in a trusted folder)."""
    wired: set[str] = set()
    servers: set[str] = set()
    for path in (scenario.home / ".gemini" / "settings.json",
                 scenario.project / ".gemini" / "settings.json"):  # fmt: skip
        settings = json.loads(path.read_text()) if path.exists() else {}
        wired |= set(settings.get("hooks") or {})
        servers |= set(settings.get("mcpServers") or {})
    assert {"SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd"} <= wired
    assert "memlode" in servers
    declared = [
        d["name"]
        for t in scenario.requests_for(PROMPT)[0].body["tools"]
        for d in t.get("functionDeclarations") or []
    ]
    assert RECALL_TOOL in declared  # the MCP server connected


def test_gemini_keeps_its_own_chat_file_per_session(scenario: Scenario) -> None:
    chats = sorted((scenario.home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))
    started = {json.loads(p.read_text().splitlines()[0])["sessionId"] for p in chats}
    assert {scenario.session_id(p) for p in (PROMPT, FOLLOW_UP, UNRELATED)} <= started


# --- what session 1 stored ------------------------------------------------------------------


def test_sessions_started_and_ended_through_the_hooks(scenario: Scenario) -> None:
    """SessionStart recorded the session (its ``source``), SessionEnd ended it with Gemini's
    reason, each under memlode's label for Gemini CLI."""
    for prompt in (PROMPT, FOLLOW_UP, UNRELATED):
        session = scenario.session(prompt)
        assert session["source"] == "gemini"
        assert session["metadata"].get("start_source") == "startup"
        assert session["metadata"].get("end_reason") == "exit"
        assert session["ended_at"]


def test_after_agent_stored_the_answer(scenario: Scenario) -> None:
    """AfterAgent's ``prompt_response`` (the turn's text) is the session's last message and the
    summary's outcome."""
    session = scenario.session(PROMPT)
    assert session["metadata"].get("last_assistant_message") == FINDING
    summaries = [r for r in scenario.session_rows(PROMPT) if "session-summary" in r["tags"]]
    assert any(f"Outcome: {FINDING}" in r["content"] for r in summaries)


def test_prompt_stored_once_verbatim(scenario: Scenario) -> None:
    """Rows tagged ``prompt`` or ``instruction`` whose content is exactly the prompt (one for
    each prompt), rows so tagged that contain the prompt among other text (none: the
    ``<hook_context>`` Gemini CLI put in front of it is memlode's own), and no row holding a
    ``<hook_context>`` tag at all."""
    tagged = [r for r in scenario.rows if {"prompt", "instruction"} & set(r["tags"])]
    for prompt in (PROMPT, FOLLOW_UP, UNRELATED):
        assert [r["content"] for r in tagged if r["content"] == prompt] == [prompt]
        assert [r["content"] for r in tagged if prompt in r["content"] != prompt] == []
    assert [r["content"][:200] for r in scenario.rows if "<hook_context>" in r["content"]] == []
    interjections = [
        r["content"]
        for r in scenario.rows
        if r["content"].startswith("User said while the assistant worked")
    ]
    assert interjections == []


def test_every_captured_row_records_the_client(scenario: Scenario) -> None:
    hooks = [r for r in scenario.rows if r.get("source") == "hook"]
    assert hooks
    assert {r["metadata"].get("client") for r in hooks} == {"gemini"}


def test_read_edit_and_passing_command_captured(scenario: Scenario) -> None:
    """AfterTool reached memlode once per successful tool call, as Read, Edit and Bash."""
    captured = [
        r for r in scenario.session_rows(PROMPT) if r["metadata"].get("hook") == "PostToolUse"
    ]
    tools = [r["metadata"].get("tool") for r in captured]
    assert tools.count("Read") == 1 and tools.count("Edit") == 1, tools
    (read,) = [r for r in captured if r["metadata"].get("tool") == "Read"]
    assert "calc.py" in read["content"]
    (edit,) = [r for r in captured if r["metadata"].get("tool") == "Edit"]
    assert "calc.py" in edit["content"] and "return a + b" in edit["content"]
    passing = [r for r in captured if r["metadata"].get("tool") == "Bash"]
    assert len(passing) == 1, [r["content"] for r in passing]
    assert "sh check.sh" in passing[0]["content"]
    assert "all checks passed" in passing[0]["content"]


def test_failing_command_captured_with_its_error(scenario: Scenario) -> None:
    """A command that exits non-zero is a success to Gemini CLI (``Exit Code: 1`` in its
    output); memlode stores it as a failure: the command and its error text."""
    failures = [r for r in scenario.session_rows(PROMPT) if "failure" in r["tags"]]
    assert len(failures) == 1, [r["content"] for r in failures]
    (failure,) = failures
    assert "sh check.sh first" in failure["content"]
    assert ERROR_MARK in failure["content"]


# --- sessions 2 and 3: what reached the model -----------------------------------------------


def test_follow_up_request_carries_the_finding(scenario: Scenario) -> None:
    """memlode's context (SessionStart's block in front of the prompt, BeforeAgent's recall
    after it, or both) in the first request of the follow-up prompt holds what session 1
    found."""
    first = scenario.requests_for(FOLLOW_UP)[0]
    assert FINDING_MARK not in FOLLOW_UP
    injected = api.hook_context(first, "SessionStart") + api.hook_context(first, "BeforeAgent")
    assert any(FINDING_MARK in text for text in injected), injected


def test_unrelated_prompt_gets_no_recall_block(scenario: Scenario) -> None:
    requests = scenario.requests_for(UNRELATED)
    assert requests
    for request in requests:
        assert api.hook_context(request, "BeforeAgent") == []
        assert RECALL_BLOCK not in request.raw


def test_mcp_recall_returns_the_finding(scenario: Scenario) -> None:
    second = scenario.requests_for(FOLLOW_UP)[1]
    (result,) = [r for r in api.turn_results(second) if r["name"] == RECALL_TOOL]
    text = json.dumps(result["response"], ensure_ascii=False)
    assert "error" not in result["response"], text
    assert FINDING_MARK in text


def test_its_chat_file_is_ingested_as_turns_labelled_gemini(scenario: Scenario) -> None:
    """Gemini's own conversation file, ingested by the hooks' detached ingest: the first
    session's prompt as a turn, without memlode's <hook_context> or Gemini's own context."""
    turns = [r for r in scenario.session_rows(PROMPT) if r.get("source") == "transcript"]
    assert turns, "no turn of the first session was ingested"
    assert {t["metadata"].get("client") for t in turns} == {"gemini"}
    assert any(PROMPT in t["content"] for t in turns)
    for turn in turns:
        assert "<hook_context>" not in turn["content"]
        assert "<session_context>" not in turn["content"]
