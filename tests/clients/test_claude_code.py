"""Claude Code, the real CLI, wired to memlode by ``memlode init`` and driven against a scripted
model (``anthropic_api``): what its hooks store, what reaches the model, what the MCP server
answers.

The scenario runs once for the module (``scenario``):

- session 1 (``claude -p`` reading stream-json from stdin, as the Agent SDK drives it): a
  prompt after which the model reads ``calc.py``, edits it, runs a check that fails with a
  distinctive error, runs it again passing, asks the user a question (AskUserQuestion,
  answered through ``--permission-prompt-tool stdio``: in print mode that tool exists only with
  a permission prompt tool) and answers with a finding; then ``/compact``; then, once memlode
  stored the compaction summary, stdin closes and the session ends.
- session 2 (``claude -p FOLLOW_UP``): memlode's context must bring the finding into the request;
  the model calls ``mcp__memlode__recall_memory`` (after WaitForMcpServers while the server is
  still connecting) and the result must hold the finding.
- session 3 (``claude -p UNRELATED``): a prompt about something else: no recall block.
- ``claude mcp list``: connects to ``memlode mcp`` and fires SessionEnd, which must not leave a
  memlode session behind.
- session 4 (``claude -p CACHE_QUESTION --strict-mcp-config``: hooks only, so no MCP server
  hosts a resident) with the resident on, none running: two decisions stored by the CLI, the
  second replacing the first; SessionStart starts the resident and the prompt waits for it (it
  was ranked by the lean BM25 before), and the current decision reaches the model with the
  replaced one as history.

Rows are read back through memlode's CLI (``list --json``, ``sessions --json``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.clients import anthropic_api as api
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
CLAUDE = ROOT / ".cache" / "clients" / "node_modules" / ".bin" / CLIENTS["bin"]["claude"]

RUN_TIMEOUT = 120  # seconds for one client run (each takes ~5 s here)
SETTLE_TIMEOUT = 40  # seconds to wait for async hooks and the detached transcript ingest

# The heading memlode's recall for a prompt opens with (memlode.hooks.injection).
RECALL_BLOCK = "## memlode: possibly relevant memories"

QUESTION = "Which database should the calc results be cached in?"
ANSWER = "SQLite"
RECALL_TOOL = "mcp__memlode__recall_memory"
# What a recalled hit carries (memlode.mcp.models.HitOut).
READ_FIELDS = {"id", "content", "memory_type", "tags", "namespace", "source", "created_at"} | {
    "replaced_by",
    "replaced_at",
    "score",
    "signals",
}


# --- the model's script ---------------------------------------------------------------------


def call(tool: str, **arguments: Any) -> Reply:
    return Reply(tool_calls=(ToolCall(tool, arguments),))


def in_order(*replies: Reply) -> Callable[[Request], Reply]:
    """Reply N answers the request that carries N tool results of the current turn."""

    def reply(request: Request) -> Reply:
        step = len(api.turn_results(request))
        assert step < len(replies), f"the script has no reply {step}"
        return replies[step]

    return reply


def through_mcp(tool: str, answer: str, **arguments: Any) -> Callable[[Request], Reply]:
    """Call one of memlode's tools, then answer. In print mode Claude Code does not wait for MCP
    servers before the first request: while memlode's is still connecting its tools are not
    offered, and the model waits for it with WaitForMcpServers, as a model would."""

    def reply(request: Request) -> Reply:
        done = {result["name"] for result in api.turn_results(request)}
        if tool in done:
            return Reply(answer)
        if tool in api.tool_names(request):
            return call(tool, **arguments)
        waits = sum(r["name"] == "WaitForMcpServers" for r in api.turn_results(request))
        if waits < 3 and "WaitForMcpServers" in api.tool_names(request):
            return call("WaitForMcpServers", servers=["memlode"])
        return Reply("memlode's MCP server never connected.")

    return reply


# Session 4: a decision stored, then the model stores the one that replaces it through
# memlode's MCP server; a direct question about it is asked cold (no resident running).
CACHE_OLD = "We cache user sessions in Redis."
CACHE_NEW = "Sessions move to Memcached; Redis is dropped for sessions."
CACHE_QUESTION = "Which cache backend do we use for user sessions?"
STORE_TOOL = "mcp__memlode__store_memory"
STORE_PROMPT = "Remember for later sessions: sessions move to Memcached, Redis is dropped."


def scripted(project: Path) -> Callable[[Request], Reply]:
    """The model: what it answers depends on the prompt the request ends with."""
    calc = str(project / "calc.py")
    question = {
        "question": QUESTION,
        "header": "Cache",
        "multiSelect": False,
        "options": [
            {"label": ANSWER, "description": "a file next to the project"},
            {"label": "Redis", "description": "a server"},
        ],
    }
    by_prompt = {
        PROMPT: in_order(
            Reply("Reading calc.py.", (ToolCall("Read", {"file_path": calc}),)),
            call("Edit", file_path=calc, old_string="return a - b", new_string="return a + b"),
            call("Bash", command="sh check.sh first", description="Run the checks"),
            call("Bash", command="sh check.sh", description="Run the checks again"),
            call("Bash", command="sh build.sh", description="Build the project"),
            call("AskUserQuestion", questions=[question]),
            Reply(FINDING),
        ),
        FOLLOW_UP: through_mcp(RECALL_TOOL, RECALLED_TEXT, query=RECALL_QUERY),
        UNRELATED: in_order(Reply(UNRELATED_ANSWER)),
        CACHE_QUESTION: in_order(Reply("Memcached.")),
        STORE_PROMPT: through_mcp(STORE_TOOL, "Stored.", content=CACHE_NEW, memory_type="decision"),
    }

    def script(request: Request) -> Reply:
        prompt = api.last_user_text(request)
        for key, answer in by_prompt.items():
            if key in prompt:
                return answer(request)
        raise AssertionError(f"no script for {prompt[:200]!r}")

    return script


# --- running the client ---------------------------------------------------------------------


def client_environment(root: Path, server: ScriptedServer) -> dict[str, str]:
    """A HOME (and XDG folders) of the run's own, the parent's model and client variables
    stripped, the scripted server as the API, memlode's test settings."""
    stripped = ("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "CLAUDE", "CODEX", "MEMLODE_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(stripped)}
    folders = {
        "HOME": root / "home",
        "XDG_CONFIG_HOME": root / "xdg" / "config",
        "XDG_DATA_HOME": root / "xdg" / "data",
        "XDG_STATE_HOME": root / "xdg" / "state",
        "XDG_CACHE_HOME": root / "xdg" / "cache",
    }
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    return {
        **env,
        **{name: str(folder) for name, folder in folders.items()},
        **TEST_SETTINGS,
        "MEMLODE_HOME": str(root / "memlode-home"),
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "sk-ant-scripted",
        # no update checks, telemetry or error reports: nothing leaves 127.0.0.1
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
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


def approve_project_servers(project: Path) -> None:
    """What a user does once when ``.mcp.json`` registers a server (``init --scope project``):
    approve it (Claude Code asks in its UI; ``enableAllProjectMcpServers`` in the personal
    settings file says yes). A server in the local scope (``~/.claude.json``, init's default)
    needs no approval."""
    if not (project / ".mcp.json").exists():
        return
    path = project / ".claude" / "settings.local.json"
    settings = json.loads(path.read_text()) if path.exists() else {}
    settings.setdefault("enableAllProjectMcpServers", True)
    path.write_text(json.dumps(settings, indent=2))


def stream_session(
    project: Path,
    env: dict[str, str],
    prompts: list[str],
    answers: dict[str, str],
    before_exit: Callable[[], object] = lambda: None,
) -> list[dict[str, Any]]:
    """One ``claude -p`` session reading user messages as stream-json from stdin: each prompt
    sent once the previous one's turn is over, permission requests answered (allowed, an
    AskUserQuestion with ``answers``). Every message Claude Code printed, in order.

    A turn is over at the ``session_state_changed`` "idle" event
    (``CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS``), which Claude Code calls the authoritative
    turn-over signal (``result`` comes earlier). After the last one, ``before_exit`` runs, then
    stdin closes and the session ends. Closed right after a ``/compact``, Claude Code 2.1.197
    often exits without running the PostCompact hook (async: it is killed) or SessionEnd at
    all; ``before_exit`` waits for what PostCompact stores."""
    command = [
        str(CLAUDE), "-p", "--input-format", "stream-json", "--output-format", "stream-json",
        "--verbose", "--permission-prompt-tool", "stdio", "--allowedTools", "Read,Edit,Bash",
    ]  # fmt: skip
    waiting = list(prompts)
    printed: list[dict[str, Any]] = []
    # stderr to a file: a full pipe nobody reads would stall the client
    with (
        tempfile.TemporaryFile("w+") as errors,
        subprocess.Popen(
            command,
            cwd=project,
            env={**env, "CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS": "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        ) as proc,
    ):
        watchdog = threading.Timer(RUN_TIMEOUT, proc.kill)
        watchdog.start()
        assert proc.stdin is not None and proc.stdout is not None
        stdin = proc.stdin

        def send(message: dict[str, Any]) -> None:
            stdin.write(json.dumps(message) + "\n")
            stdin.flush()

        def prompt(text: str) -> None:
            send({"type": "user", "message": {"role": "user", "content": text},
                  "parent_tool_use_id": None, "session_id": ""})  # fmt: skip

        try:
            prompt(waiting.pop(0))
            for line in proc.stdout:
                message = json.loads(line)
                printed.append(message)
                request = message.get("request") or {}
                kind = (message.get("type"), message.get("subtype") or request.get("subtype"))
                if kind == ("control_request", "can_use_tool"):
                    send(allow(message["request_id"], request, answers))
                elif kind == ("system", "session_state_changed") and message["state"] == "idle":
                    results = sum(m.get("type") == "result" for m in printed)
                    if waiting and results == len(prompts) - len(waiting):
                        prompt(waiting.pop(0))
                    elif not waiting and results == len(prompts) and not stdin.closed:
                        before_exit()
                        stdin.close()
            proc.wait(timeout=RUN_TIMEOUT)
        finally:
            watchdog.cancel()
        errors.seek(0)
        stderr = errors.read()
    assert proc.returncode == 0, stderr[-2000:]
    return printed


def allow(request_id: str, request: dict[str, Any], answers: dict[str, str]) -> dict[str, Any]:
    """The answer to a permission request: allowed; an AskUserQuestion with its answers
    (the Agent SDK's ``canUseTool`` answers it the same way, in ``updatedInput``)."""
    tool_input = dict(request.get("input") or {})
    if request.get("tool_name") == "AskUserQuestion":
        tool_input["answers"] = {
            q["question"]: answers[q["question"]] for q in tool_input["questions"]
        }
    return {
        "type": "control_response",
        "response": {
            "subtype": "success",
            "request_id": request_id,
            "response": {"behavior": "allow", "updatedInput": tool_input},
        },
    }


def print_run(
    project: Path, env: dict[str, str], prompt: str, tools: str, *extra: str
) -> dict[str, Any]:
    """``claude -p PROMPT [EXTRA...]``: its JSON result (``session_id``, ``result``)."""
    done = subprocess.run(
        [str(CLAUDE), "-p", prompt, "--output-format", "json", "--allowedTools", tools, *extra],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert isinstance(result, dict)
    return result


def rows(project: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    return list(memlode(project, env, "list", "--limit", "100000"))


def sessions(project: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    return list(memlode(project, env, "sessions", "--limit", "1000"))


def settle(
    project: Path, env: dict[str, str], ready: Callable[[list[dict[str, Any]]], bool]
) -> list[dict[str, Any]]:
    """The stored rows once ``ready`` holds for them (async PostToolUse hooks and the detached
    transcript ingest finish after the client exits), or as they are after SETTLE_TIMEOUT:
    the assertions then say what is missing."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        found = rows(project, env)
        if ready(found) or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


# --- the scenario ---------------------------------------------------------------------------


@dataclass
class Scenario:
    project: Path
    env: dict[str, str]
    init_output: str
    server: ScriptedServer
    session1: list[dict[str, Any]]
    session1_id: str
    follow_up: dict[str, Any]
    unrelated: dict[str, Any]
    mcp_list: str
    sessions_before_list: list[dict[str, Any]]
    sessions_after_list: list[dict[str, Any]]
    rows: list[dict[str, Any]] = field(default_factory=list)
    cold: dict[str, Any] = field(default_factory=dict)  # session 4's result
    cold_rows: list[dict[str, Any]] = field(default_factory=list)

    def requests_for(self, prompt: str) -> list[Request]:
        """The conversation requests (no side requests) whose last prompt is ``prompt``."""
        return [
            r
            for r in self.server.requests
            if r.path.split("?")[0].endswith("/v1/messages")
            and not api.is_side_request(r)
            and prompt in api.last_user_text(r)
        ]

    def session_rows(self, session_id: str) -> list[dict[str, Any]]:
        return [r for r in self.rows if r.get("session_id") == session_id]


def is_turn(row: dict[str, Any]) -> bool:
    return row.get("source") == "transcript" and row["metadata"].get("kind") == "turn"


def run_scenario(root: Path) -> Scenario:
    project = make_project(root)
    server = ScriptedServer(api.handler(scripted(project)))
    env = client_environment(root, server)
    init = subprocess.run(
        [sys.executable, "-m", "memlode", "init"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    assert init.returncode == 0, init.stderr
    approve_project_servers(project)

    def compacted(found: list[dict[str, Any]]) -> bool:
        return any(
            r.get("source") == "transcript" and api.COMPACT_SUMMARY_MARK in r["content"]
            for r in found
        )

    session1 = stream_session(
        project,
        env,
        [PROMPT, "/compact"],
        {QUESTION: ANSWER},
        before_exit=lambda: settle(project, env, compacted),
    )
    session1_id = next(m["session_id"] for m in session1 if m.get("session_id"))

    def session1_done(found: list[dict[str, Any]]) -> bool:
        mine = [r for r in found if r.get("session_id") == session1_id]
        return any(is_turn(r) and FINDING_MARK in r["content"] for r in mine) and any(
            ERROR_MARK in r["content"] and r.get("source") == "hook" for r in mine
        )

    settle(project, env, session1_done)
    follow_up = print_run(project, env, FOLLOW_UP, f"{RECALL_TOOL},WaitForMcpServers")
    unrelated = print_run(project, env, UNRELATED, "Read")
    before = sessions(project, env)
    listed = subprocess.run(
        [str(CLAUDE), "mcp", "list"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert listed.returncode == 0, listed.stderr
    after = sessions(project, env)

    def all_done(found: list[dict[str, Any]]) -> bool:
        ids = {follow_up["session_id"], unrelated["session_id"]}
        ingested = {r.get("session_id") for r in found if is_turn(r)}
        return session1_done(found) and ids <= ingested

    scenario = Scenario(
        project=project,
        env=env,
        init_output=init.stdout,
        server=server,
        session1=session1,
        session1_id=session1_id,
        follow_up=follow_up,
        unrelated=unrelated,
        mcp_list=listed.stdout,
        sessions_before_list=before,
        sessions_after_list=after,
    )
    scenario.rows = settle(project, env, all_done)
    memlode(project, env, "store", CACHE_OLD, "--type", "decision")
    print_run(project, env, STORE_PROMPT, f"{STORE_TOOL},WaitForMcpServers")
    resident = {**env, "MEMLODE_RESIDENT_AUTOSTART": "1"}
    try:
        # none left by the server of the run before: this prompt is asked cold
        stop_resident(project, resident)
        # hooks only: memlode's MCP server would host a resident of its own
        scenario.cold = print_run(project, resident, CACHE_QUESTION, "Read", "--strict-mcp-config")
    finally:
        stop_resident(project, resident)
    scenario.cold_rows = rows(project, env)
    return scenario


def stop_resident(project: Path, env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "memlode", "resident", "stop"],
        cwd=project,
        env=env,
        capture_output=True,
        timeout=RUN_TIMEOUT,
    )


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    if not CLAUDE.exists():
        pytest.fail(f"{CLAUDE} is missing: `make test` installs the pinned clients")
    done = run_scenario(tmp_path_factory.mktemp("claude-code"))
    try:
        yield done
    finally:
        done.server.close()


# --- the client and the wiring --------------------------------------------------------------


def test_the_scripted_model_answered_every_request(scenario: Scenario) -> None:
    assert scenario.server.problems == []
    results = [m for m in scenario.session1 if m.get("type") == "result"]
    assert [r.get("result") for r in results][:1] == [FINDING]
    assert scenario.follow_up["result"] == RECALLED_TEXT
    assert scenario.unrelated["result"] == UNRELATED_ANSWER


def test_init_wires_hooks_and_mcp_server_into_the_project(scenario: Scenario) -> None:
    """Wherever ``memlode init`` (no options) put them: the hooks in the project's settings
    or personal settings, the server in ``.mcp.json`` or the local scope of ``~/.claude.json``;
    ``claude mcp list`` connects to it."""
    hooks: set[str] = set()
    for name in ("settings.json", "settings.local.json"):
        path = scenario.project / ".claude" / name
        if path.exists():
            hooks |= set(json.loads(path.read_text()).get("hooks") or {})
    needed = {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop",
              "PreCompact", "PostCompact", "SessionEnd"}  # fmt: skip
    assert needed <= hooks, scenario.init_output
    servers: dict[str, Any] = {}
    if (scenario.project / ".mcp.json").exists():
        servers |= json.loads((scenario.project / ".mcp.json").read_text())["mcpServers"]
    user = json.loads((Path(scenario.env["HOME"]) / ".claude.json").read_text())
    servers |= user.get("projects", {}).get(str(scenario.project), {}).get("mcpServers") or {}
    assert "memlode" in servers, scenario.init_output
    listed = [line for line in scenario.mcp_list.splitlines() if line.startswith("memlode:")]
    assert len(listed) == 1 and "Connected" in listed[0], scenario.mcp_list


def test_the_question_was_answered_and_the_session_compacted(scenario: Scenario) -> None:
    answered = [
        block
        for m in scenario.session1
        if m.get("type") == "user"
        for block in (m["message"].get("content") or [])
        if isinstance(block, dict) and block.get("type") == "tool_result"
        and QUESTION in str(block.get("content"))
    ]  # fmt: skip
    assert answered and ANSWER in str(answered[0]["content"])
    boundaries = [m for m in scenario.session1 if m.get("subtype") == "compact_boundary"]
    assert boundaries and boundaries[0]["compact_metadata"]["trigger"] == "manual"


# --- what session 1 stored ------------------------------------------------------------------


def test_compaction_reached_memlode(scenario: Scenario) -> None:
    """PreCompact marked the session; PostCompact's ingest stored the compaction summary."""
    (session,) = [s for s in scenario.sessions_after_list if s["id"] == scenario.session1_id]
    assert session["metadata"].get("compaction_trigger") == "manual"
    summaries = [
        r for r in scenario.session_rows(scenario.session1_id)
        if r.get("source") == "transcript" and api.COMPACT_SUMMARY_MARK in r["content"]
    ]  # fmt: skip
    assert summaries


def test_session_start_and_session_end_reached_memlode(scenario: Scenario) -> None:
    (session,) = [s for s in scenario.sessions_after_list if s["id"] == scenario.session1_id]
    assert session["source"] == "claude-code"
    assert "start_source" in session["metadata"]  # SessionStart: startup, later compact
    assert session["metadata"].get("end_reason")  # SessionEnd alone carries a reason
    assert session["ended_at"]


def test_prompt_stored_once_verbatim(scenario: Scenario) -> None:
    """Counted over every row of the project: rows tagged ``prompt`` or ``instruction`` whose
    content is exactly the prompt (one for each prompt), rows so tagged that contain the prompt
    among other text (none: nothing injected into it), and rows whose content starts with
    "User said while the assistant worked" (none: no second copy from the transcript)."""
    tagged = [r["content"] for r in scenario.rows if {"prompt", "instruction"} & set(r["tags"])]
    for prompt in (PROMPT, FOLLOW_UP, UNRELATED):
        assert [text for text in tagged if text == prompt] == [prompt]
        assert [text for text in tagged if prompt in text and text != prompt] == []
    interjections = [
        r["content"]
        for r in scenario.rows
        if r["content"].startswith("User said while the assistant worked")
    ]
    assert interjections == []


def test_session_summary_names_the_prompt_once(scenario: Scenario) -> None:
    summaries = [
        r for r in scenario.session_rows(scenario.session1_id) if "session-summary" in r["tags"]
    ]
    assert summaries
    for summary in summaries:
        assert summary["content"].count(PROMPT) == 1, summary["content"]


def test_every_captured_row_records_the_client(scenario: Scenario) -> None:
    hooks = [r for r in scenario.rows if r.get("source") == "hook"]
    assert hooks
    assert {r["metadata"].get("client") for r in hooks} == {"claude-code"}


def test_transcript_turns_record_the_client(scenario: Scenario) -> None:
    turns = [r for r in scenario.rows if r.get("source") == "transcript"]
    assert turns
    assert {r["metadata"].get("client") for r in turns} == {"claude-code"}


def test_read_edit_and_passing_command_captured(scenario: Scenario) -> None:
    """PostToolUse reached memlode once per successful tool call."""
    captured = [
        r for r in scenario.session_rows(scenario.session1_id)
        if r["metadata"].get("hook") == "PostToolUse"
    ]  # fmt: skip
    contents = "\n".join(r["content"] for r in captured)
    assert "calc.py" in contents
    edits = [r for r in captured if "return a + b" in r["content"]]
    assert edits, contents
    assert any("sh check.sh" in r["content"] and "all checks passed" in r["content"]
               for r in captured), contents  # fmt: skip


def test_a_long_build_log_captured_to_its_verdict(scenario: Scenario) -> None:
    """The build's log is longer than what Claude Code hands the hook; its end, with the
    verdict, is read back from the file Claude Code kept it in."""
    (build,) = [
        r for r in scenario.session_rows(scenario.session1_id)
        if r["metadata"].get("hook") == "PostToolUse" and "sh build.sh" in r["content"]
    ]  # fmt: skip
    assert BUILD_OUTCOME in build["content"]
    assert build["content"].rstrip().endswith(BUILD_VERDICT)


def test_failing_command_captured_with_its_error(scenario: Scenario) -> None:
    """PostToolUseFailure reached memlode: the command and its error text."""
    failures = [
        r for r in scenario.session_rows(scenario.session1_id)
        if r["metadata"].get("hook") == "PostToolUseFailure"
    ]  # fmt: skip
    assert len(failures) == 1
    (failure,) = failures
    assert "failure" in failure["tags"]
    assert "sh check.sh first" in failure["content"]
    assert ERROR_MARK in failure["content"]


def test_answered_question_stored_as_a_decision(scenario: Scenario) -> None:
    decisions = [
        r for r in scenario.session_rows(scenario.session1_id)
        if r["memory_type"] == "decision" and QUESTION in r["content"]
    ]  # fmt: skip
    assert len(decisions) == 1
    assert ANSWER in decisions[0]["content"]


def test_stop_stored_the_finding_in_the_session_summary(scenario: Scenario) -> None:
    """Stop alone carries ``last_assistant_message``: the summary's outcome."""
    summaries = [
        r for r in scenario.session_rows(scenario.session1_id) if "session-summary" in r["tags"]
    ]
    assert any(f"Outcome: {FINDING}" in r["content"] for r in summaries)


def test_transcript_ingested_as_turns(scenario: Scenario) -> None:
    turns = [r for r in scenario.session_rows(scenario.session1_id) if is_turn(r)]
    assert any(PROMPT in r["content"] and FINDING_MARK in r["content"] for r in turns)


def test_compaction_summary_is_not_stored_as_a_subagent_report(scenario: Scenario) -> None:
    """Claude Code 2.1.197 runs /compact as a subagent and fires SubagentStop with the
    compaction summary as ``last_assistant_message`` (``agent_type`` empty): that is not a
    subagent's report."""
    reports = [
        r for r in scenario.session_rows(scenario.session1_id) if "subagent" in r["tags"]
    ]  # fmt: skip
    assert [r["content"] for r in reports if api.COMPACT_SUMMARY_MARK in r["content"]] == []


# --- session 2 and 3: what reached the model ------------------------------------------------


def test_follow_up_request_carries_the_finding(scenario: Scenario) -> None:
    """memlode's context (the session block, the prompt's recall, or both) in the first
    request of the follow-up prompt holds what session 1 found."""
    first = scenario.requests_for(FOLLOW_UP)[0]
    assert FINDING_MARK not in FOLLOW_UP
    injected = api.hook_context(first, "SessionStart") + api.hook_context(first, "UserPromptSubmit")
    assert any(FINDING_MARK in text for text in injected), injected


def test_unrelated_prompt_gets_no_recall_block(scenario: Scenario) -> None:
    requests = scenario.requests_for(UNRELATED)
    assert requests
    for request in requests:
        assert api.hook_context(request, "UserPromptSubmit") == []
        assert RECALL_BLOCK not in request.raw


def test_a_cold_first_prompt_is_ranked_by_the_resident_and_gets_the_current_decision(
    scenario: Scenario,
) -> None:
    """``claude -p`` with hooks only and no resident running: the prompt waited for the one
    SessionStart started (the engine ranked it; before, the lean BM25 did), and the model got
    the current decision with the replaced one as its history. With memlode's MCP server
    registered, the server hosts a resident and the client waits for the server, so there the
    first prompt was ranked by the resident already."""
    (asked,) = [r for r in scenario.cold_rows if r["content"] == CACHE_QUESTION]
    assert asked["metadata"]["recall"] == "resident", asked["metadata"]
    first = scenario.requests_for(CACHE_QUESTION)[0]
    (context,) = api.hook_context(first, "UserPromptSubmit")
    assert CACHE_NEW in context and f"(was: {CACHE_OLD}" in context


def test_the_model_stored_the_replacing_decision_and_was_told_what_it_replaced(
    scenario: Scenario,
) -> None:
    """The model stored the new decision through memlode's MCP server in a real Claude Code
    run: the tool's answer names the decision it replaced, and the store links the two (the
    cold question above gets the new one with the old as "was:"). Claude Code hands the model
    the tool's structured result (its JSON), not the text beside it, so the JSON itself says
    how to undo the link."""
    last = scenario.requests_for(STORE_PROMPT)[-1]
    (result,) = [r for r in api.tool_results(last) if r["name"] == STORE_TOOL]
    assert not result.get("is_error"), result["text"]
    answer = json.loads(result["text"])
    old = next(r for r in scenario.cold_rows if r["content"] == CACHE_OLD)
    assert [(r["id"], r["content"]) for r in answer["replaces"]] == [(old["id"], CACHE_OLD)]
    # the undo, should the link be wrong, is in what the model reads
    undo = f"supersede_memory(old_id='{old['id']}', new_id='{answer['id']}', undo=true)"
    assert undo in answer["next_step"]
    stored = [r for r in scenario.cold_rows if r["content"] == CACHE_NEW]
    assert [(r["id"], r["memory_type"]) for r in stored] == [(answer["id"], "decision")]


def test_mcp_recall_returns_the_finding(scenario: Scenario) -> None:
    last = scenario.requests_for(FOLLOW_UP)[-1]
    (result,) = [r for r in api.tool_results(last) if r["name"] == RECALL_TOOL]
    assert not result.get("is_error"), result["text"]
    assert FINDING_MARK in result["text"]
    # the client hands the model the structured JSON: each hit what a model reads, not the
    # stored row's bookkeeping (get_memory has that)
    hits = json.loads(result["text"])["hits"]
    assert hits and all(set(hit) == READ_FIELDS for hit in hits), hits[0]


def test_mcp_list_creates_no_session(scenario: Scenario) -> None:
    before = {s["id"] for s in scenario.sessions_before_list}
    after = {s["id"] for s in scenario.sessions_after_list}
    assert after - before == set()
