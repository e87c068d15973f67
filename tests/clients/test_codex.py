"""memlode in the real Codex CLI (``codex exec``, pinned in tests/clients/clients.json) against
the scripted model (``responses_api``), wired as a user would: ``memlode init --client codex``
in a git project that the user config trusts.

One scenario per module, run once (``codex_run``):

0. ``memlode init --client codex`` (writes the MCP entry in ``config.toml`` and the hooks in
   ``hooks.json``: ``$CODEX_HOME/`` or the project's ``.codex/``); ``codex app-server`` lists
   the hooks with their trust hash.
1. A ``codex exec`` without ``--dangerously-bypass-hook-trust``: Codex skips the untrusted hooks.
2. Session 1 (``--dangerously-bypass-hook-trust``, as for automation): the model reads
   ``calc.py`` with the shell, edits it with ``apply_patch``, runs a check that fails with a
   distinctive error, runs it again (passes) and answers with a distinctive finding.
3. Session 2 (a new ``codex exec``): a follow-up prompt; the model finds memlode's MCP tools
   with ``tool_search`` (Codex defers MCP tools behind it) and calls ``recall_memory``.
4. ``codex exec resume`` of session 2 with an unrelated prompt.

What memlode stored is read back with ``memlode export``; what reached the model, from the
scripted server's requests (Codex puts SessionStart's context in a developer message before the
prompt and UserPromptSubmit's in one right after it).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.clients import responses_api
from tests.clients.scripted import Reply, Request, ScriptedServer, ToolCall
from tests.conftest import process_environment

from memlode.cli.client_report import codex_hook_hash

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
CODEX = ROOT / ".cache" / "clients" / "node_modules" / ".bin" / "codex"
# A model of Codex's bundled catalog: for an unknown name Codex falls back to metadata whose
# tools have no apply_patch.
MODEL = "gpt-5.5"
KEY_VARIABLE = "MEMLODE_TEST_CODEX_KEY"

PROMPT = "Why does the zebra parser cut wide tables? Read calc.py and fix it."
FINDING = (
    "Finding: the zebra parser truncated widths because calc.LIMIT was 40;"
    " raised it to 4096 (pelican-7731)."
)
MARK = "pelican-7731"
FOLLOW_UP = "What limit did we set for the zebra parser widths in calc.py?"
UNRELATED = "Write a haiku about autumn leaves falling on a quiet pond."
UNTRUSTED = "Summarise the repository layout in one sentence."
PATCH = "*** Begin Patch\n*** Update File: calc.py\n@@\n-LIMIT = 40\n+LIMIT = 4096\n*** End Patch\n"
FAILING = "python3 check_calc.py --frobnicate"
PASSING = "python3 check_calc.py"
ERROR = "QuokkaFlagError: unknown option --frobnicate"
SESSION_1 = (
    ToolCall("exec_command", {"cmd": "cat calc.py"}),
    ToolCall("apply_patch", {"input": PATCH}),
    ToolCall("exec_command", {"cmd": FAILING}),
    ToolCall("exec_command", {"cmd": PASSING}),
)
RECALL = "mcp__memlode__recall_memory"
# Codex starts MCP servers in the background and tool_search finds a server's tools only once it
# is up (memlode's takes a few seconds to import): the model searches again after a pause.
TOOL_SEARCHES = 60
SEARCH_PAUSE = 0.25  # seconds

CALC = (
    '"""Width handling for the zebra parser."""\n\nLIMIT = 40\n\n\n'
    "def clamp(width: int) -> int:\n    return min(width, LIMIT)\n"
)
CHECK = (
    "import sys\n\nimport calc\n\n"
    'if "--frobnicate" in sys.argv:\n'
    f'    sys.exit("{ERROR} (expected none)")\n'
    "assert calc.LIMIT == 4096, calc.LIMIT\n"
    "for i in range(1500):  # a long log: Codex cuts its middle out for the model\n"
    "    print(f'[{i}/1500] compiling module {i} of the zebra build')\n"
    'print("calc ok: limit", calc.LIMIT)\n'
)


# ---- the model's side -------------------------------------------------------------------------


def _calls_done(turn: list[dict[str, Any]]) -> int:
    kinds = ("function_call_output", "custom_tool_call_output")
    return sum(1 for item in turn if item.get("type") in kinds)


def script(request: Request) -> Reply:
    prompt = responses_api.last_prompt(request)
    turn = responses_api.turn_items(request)
    done = _calls_done(turn)
    if prompt == PROMPT:
        if done < len(SESSION_1):
            return Reply(tool_calls=(SESSION_1[done],))
        return Reply(text=FINDING)
    if prompt == FOLLOW_UP:
        if done:
            return Reply(text="We raised calc.LIMIT to 4096.")
        searches = [i for i in turn if i.get("type") == "tool_search_output"]
        if len(searches) < TOOL_SEARCHES and not (searches and searches[-1].get("tools")):
            if searches:
                time.sleep(SEARCH_PAUSE)
            return Reply(tool_calls=(ToolCall("tool_search", {"query": "memlode recall memory"}),))
        return Reply(tool_calls=(ToolCall(RECALL, {"query": "zebra parser width limit"}),))
    if prompt == UNRELATED:
        return Reply(text="Leaves drift on still water.")
    return Reply(text="A small Python project: calc.py and its check.")


# ---- the client's side ------------------------------------------------------------------------


@dataclass
class Exec:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def events(self) -> list[dict[str, Any]]:
        out = []
        for line in self.stdout.splitlines():
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    out.append(json.loads(line))
        return out

    @property
    def thread_id(self) -> str:
        return next(str(e["thread_id"]) for e in self.events if e.get("type") == "thread.started")


@dataclass
class Scenario:
    project: Path
    codex_home: Path
    memlode_home: Path
    init: subprocess.CompletedProcess[str]
    hooks_listed: list[dict[str, Any]]
    untrusted: Exec
    first: Exec
    second: Exec
    third: Exec
    requests: list[Request]
    problems: list[str]
    records: list[dict[str, Any]] = field(default_factory=list)

    def codex_files(self) -> tuple[Path, Path]:
        """The config.toml and hooks.json ``memlode init`` wrote: the user's ($CODEX_HOME) or
        the project's (.codex/), whichever holds memlode's hooks."""
        for folder in (self.codex_home, self.project / ".codex"):
            hooks = folder / "hooks.json"
            if hooks.exists() and "memlode" in hooks.read_text():
                return folder / "config.toml", hooks
        raise AssertionError(f"no memlode hooks.json; init said: {self.init.stdout}")

    def memories(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("kind") == "memory"]

    def sessions(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("kind") == "session"]

    def turn(self, prompt: str) -> list[Request]:
        """The model requests of the turn that answered ``prompt``, in order."""
        return [
            r
            for r in self.requests
            if responses_api.is_turn(r) and responses_api.last_prompt(r) == prompt
        ]


def _environment(base: Path, memlode_home: Path) -> dict[str, str]:
    home = base / "home"
    drop = ("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "CLAUDE", "CODEX")
    env = {k: v for k, v in process_environment(memlode_home).items() if not k.startswith(drop)}
    env.update(
        HOME=str(home),
        CODEX_HOME=str(home / ".codex"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        NO_COLOR="1",
        **{KEY_VARIABLE: "sk-scripted"},
    )
    return env


def _project(path: Path, env: dict[str, str]) -> None:
    path.mkdir(parents=True)
    (path / "calc.py").write_text(CALC)
    (path / "check_calc.py").write_text(CHECK)
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "zebra"]):
        subprocess.run([*git, *args], cwd=path, env=env, check=True, timeout=60)


def _user_config(codex_home: Path, url: str, project: Path) -> None:
    codex_home.mkdir(parents=True)
    (codex_home / "config.toml").write_text(
        f'model = "{MODEL}"\n'
        'model_provider = "local"\n\n'
        "[model_providers.local]\n"
        'name = "scripted"\n'
        f'base_url = "{url}/v1"\n'
        f'env_key = "{KEY_VARIABLE}"\n'
        'wire_api = "responses"\n\n'
        f'[projects."{project}"]\n'
        'trust_level = "trusted"\n'
    )


def _codex_exec(
    env: dict[str, str], project: Path, prompt: str, *, trust: bool = True, resume: str = ""
) -> Exec:
    args = [str(CODEX), "exec", "--json", "--dangerously-bypass-approvals-and-sandbox"]
    if trust:
        args.append("--dangerously-bypass-hook-trust")
    if resume:
        args += ["resume", resume]
    args.append(prompt)
    done = subprocess.run(
        args,
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )
    return Exec(args, done.returncode, done.stdout, done.stderr)


def _hooks_list(env: dict[str, str], project: Path) -> list[dict[str, Any]]:
    """``hooks/list`` of ``codex app-server`` (JSON-RPC on stdio): every hook with its key,
    current hash and trust status."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "memlode-tests", "version": "0"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [str(project)]}},
    ]
    with subprocess.Popen(
        [str(CODEX), "app-server"],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        watchdog = threading.Timer(60, proc.kill)  # a hung app-server fails the test, no hang
        watchdog.start()
        try:
            for message in messages:
                proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            for line in proc.stdout:
                reply = json.loads(line)
                if reply.get("id") == 2:
                    return [h for entry in reply["result"]["data"] for h in entry["hooks"]]
            return []
        finally:
            watchdog.cancel()
            proc.stdin.close()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def run_scenario(base: Path) -> Scenario:
    memlode_home = base / "memlode-home"
    project = base / "zebra"
    env = _environment(base, memlode_home)
    server = ScriptedServer(responses_api.handler(script))
    try:
        _project(project, env)
        codex_home = Path(env["CODEX_HOME"])
        _user_config(codex_home, server.url, project)
        init = subprocess.run(
            [sys.executable, "-m", "memlode", "init", "--client", "codex"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        listed = _hooks_list(env, project)
        untrusted = _codex_exec(env, project, UNTRUSTED, trust=False)
        first = _codex_exec(env, project, PROMPT)
        second = _codex_exec(env, project, FOLLOW_UP)
        third = _codex_exec(env, project, UNRELATED, resume=second.thread_id)
    finally:
        server.close()
    # Stop hooks ingest each session's rollout in a detached process: wait (bounded) for the
    # first session's turns before reading everything back.
    deadline = time.monotonic() + 60
    while True:
        records = _export(project, env)
        turns = [r for r in records if r.get("source") == "transcript"]
        if any(r.get("session_id") == first.thread_id for r in turns):
            break
        if time.monotonic() > deadline:
            break  # the test on turns says what is missing
        time.sleep(0.5)
    return Scenario(
        project,
        codex_home,
        memlode_home,
        init,
        listed,
        untrusted,
        first,
        second,
        third,
        list(server.requests),
        list(server.problems),
        records,
    )


def _export(project: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    export = subprocess.run(
        [sys.executable, "-m", "memlode", "export", "--namespace", "*"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert export.returncode == 0, export.stderr
    return [json.loads(line) for line in export.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def codex_run(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    if not CODEX.exists():
        pytest.skip(f"{CODEX} is missing: `make test` installs the pinned clients")
    return run_scenario(tmp_path_factory.mktemp("codex").resolve())


# ---- the runs themselves ------------------------------------------------------------------


def test_codex_ran_every_session_against_the_script(codex_run: Scenario) -> None:
    for run in (codex_run.untrusted, codex_run.first, codex_run.second, codex_run.third):
        assert run.returncode == 0, run.stderr[-2000:]
    assert codex_run.problems == []
    messages = [
        e["item"]["text"]
        for e in codex_run.first.events
        if e.get("type") == "item.completed" and e["item"].get("type") == "agent_message"
    ]
    assert messages[-1] == FINDING
    commands = [
        e["item"]
        for e in codex_run.first.events
        if e.get("type") == "item.completed" and e["item"].get("type") == "command_execution"
    ]
    assert [c["exit_code"] for c in commands] == [0, 1, 0]
    assert "LIMIT = 4096" in (codex_run.project / "calc.py").read_text()


def test_init_writes_codex_config_and_hooks(codex_run: Scenario) -> None:
    assert codex_run.init.returncode == 0, codex_run.init.stderr
    config_file, hooks_file = codex_run.codex_files()
    assert "[mcp_servers.memlode]" in config_file.read_text()
    hooks = json.loads(hooks_file.read_text())["hooks"]
    assert {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"} <= set(hooks)
    for event, groups in hooks.items():
        for group in groups:
            for handler in group["hooks"]:
                words = handler["command"].split()
                assert words[-1] == "codex", (event, handler["command"])


def test_post_tool_hook_sees_apply_patch(codex_run: Scenario) -> None:
    """Codex names the edit tool ``apply_patch`` in PostToolUse: a matcher of ``Bash`` alone
    never sees an edit."""
    hooks = json.loads(codex_run.codex_files()[1].read_text())["hooks"]
    matchers = [g.get("matcher") for g in hooks["PostToolUse"]]
    assert any(m in (None, "", "*") or "apply_patch" in str(m) for m in matchers), matchers


# ---- hook trust -------------------------------------------------------------------------------


def _snake(event: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")


def test_codex_lists_memlodes_hooks_as_untrusted_with_a_hash_we_can_compute(
    codex_run: Scenario,
) -> None:
    """How a user (or ``memlode init``) trusts the hooks without the TUI: for each hook,
    ``[hooks.state."<hooks.json path>:<event>:<group>:<handler>"] trusted_hash = "sha256:..."``
    in the user's ``$CODEX_HOME/config.toml``."""
    hooks_file = codex_run.codex_files()[1]
    ours = {h["key"]: h for h in codex_run.hooks_listed if h["sourcePath"] == str(hooks_file)}
    hooks = json.loads(hooks_file.read_text())["hooks"]
    expected = {}
    for event, groups in hooks.items():
        for g, group in enumerate(groups):
            for n, handler in enumerate(group["hooks"]):
                key = f"{hooks_file}:{_snake(event)}:{g}:{n}"
                expected[key] = codex_hook_hash(_snake(event), group.get("matcher"), handler)
    assert {k: h["currentHash"] for k, h in ours.items()} == expected
    assert {h["trustStatus"] for h in ours.values()} == {"untrusted"}


def test_untrusted_hooks_do_not_run(codex_run: Scenario) -> None:
    stored = [m for m in codex_run.memories() if UNTRUSTED in m["content"]]
    assert stored == []
    turn = codex_run.turn(UNTRUSTED)
    # memlode's MCP server runs without hook trust (its tools may be listed): no hook context
    assert turn and "## memlode" not in turn[0].raw


def test_init_tells_the_user_codex_hooks_need_trusting(codex_run: Scenario) -> None:
    """Codex skips untrusted hooks silently in ``codex exec`` (no warning on stdout, stderr or
    in --json): memlode has to say so itself."""
    said = (codex_run.init.stdout + codex_run.init.stderr).lower()
    assert "trust" in said and "/hooks" in said


# ---- what memlode captured --------------------------------------------------------------------


def test_session_start_prompt_and_stop_reached_memlode(codex_run: Scenario) -> None:
    first = next(s for s in codex_run.sessions() if s["id"] == codex_run.first.thread_id)
    assert first["ended_at"]
    assert MARK in first["summary"]
    assert first["metadata"]["start_source"] == "startup"
    second = codex_run.turn(FOLLOW_UP)[0]
    items = responses_api.input_items(second)
    prompt_at = max(n for n, item in enumerate(items) if responses_api.is_prompt(item))
    before = [responses_api.item_text(i) for i in items[:prompt_at] if i.get("role") == "developer"]
    assert any(t.startswith("## memlode") and MARK in t for t in before), before


def test_each_prompt_is_stored_once_verbatim(codex_run: Scenario) -> None:
    """Transcript turns (the rollout ingested by the Stop hook, User + Assistant + next User)
    quote the prompts as turns of their own source, as for Claude Code."""
    for prompt in (PROMPT, FOLLOW_UP, UNRELATED):
        holding = [
            m["content"]
            for m in codex_run.memories()
            if prompt in m["content"]
            and "session-summary" not in m["tags"]
            and m.get("source") != "transcript"
        ]
        assert holding == [prompt]


def test_everything_captured_records_codex(codex_run: Scenario) -> None:
    hooked = [m for m in codex_run.memories() if m.get("source") == "hook"]
    assert hooked
    assert {m["metadata"].get("client") for m in hooked} == {"codex"}
    assert {s["source"] for s in codex_run.sessions()} == {"codex"}


def test_shell_commands_are_captured_with_their_output(codex_run: Scenario) -> None:
    read = [m for m in codex_run.memories() if m["content"].startswith("$ cat calc.py")]
    assert len(read) == 1
    assert "LIMIT = 40" in read[0]["content"]
    passed = [m for m in codex_run.memories() if m["content"].startswith(f"$ {PASSING}\n")]
    assert len(passed) == 1 and "calc ok: limit 4096" in passed[0]["content"]
    # the long log is read from the rollout, whole: not with the note Codex puts before the
    # cut version it hands the hook
    assert "[0/1500] compiling module 0" in passed[0]["content"]
    assert "truncated output" not in passed[0]["content"]


def test_apply_patch_is_captured_as_an_edit_of_the_file(codex_run: Scenario) -> None:
    edits = [m for m in codex_run.memories() if "edit" in m["tags"]]
    assert len(edits) == 1
    assert edits[0]["metadata"]["file"] == str(codex_run.project / "calc.py")
    assert edits[0]["content"].startswith("Edited calc.py")
    assert "LIMIT = 4096" in edits[0]["content"]


def test_failing_command_is_captured_with_its_error(codex_run: Scenario) -> None:
    from memlode.storage.capture import FAILURE_TAG

    failed = [
        m
        for m in codex_run.memories()
        if FAILING in m["content"]
        and "session-summary" not in m["tags"]
        and m.get("source") != "transcript"  # the turn and its action chunk name it too
    ]
    assert len(failed) == 1
    assert ERROR in failed[0]["content"]
    assert FAILURE_TAG in failed[0]["tags"]


def test_hooks_logged_no_errors(codex_run: Scenario) -> None:
    log = codex_run.memlode_home / "hooks.log"
    assert not log.exists() or "Error" not in log.read_text()


# ---- what reached the model -------------------------------------------------------------------


def test_follow_up_request_carries_the_finding(codex_run: Scenario) -> None:
    first = codex_run.turn(FOLLOW_UP)[0]
    context = [responses_api.item_text(i) for i in responses_api.turn_items(first)]
    assert any(MARK in text for text in context), context


def test_unrelated_prompt_carries_no_recall(codex_run: Scenario) -> None:
    first = codex_run.turn(UNRELATED)[0]
    assert responses_api.turn_items(first) == []


def test_mcp_recall_returns_the_finding(codex_run: Scenario) -> None:
    last = codex_run.turn(FOLLOW_UP)[-1]
    turn = responses_api.turn_items(last)
    calls = [i for i in turn if i.get("type") == "function_call"]
    assert [(c.get("namespace"), c["name"]) for c in calls] == [("mcp__memlode", "recall_memory")]
    outputs = responses_api.turn_outputs(last)
    assert len(outputs) == 1 and MARK in outputs[0]


def test_codex_writes_its_own_rollout_of_each_session(codex_run: Scenario) -> None:
    """``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``: one JSON object a
    line (``session_meta``, ``response_item``, ``event_msg``, ``turn_context``...); the hooks'
    ``transcript_path`` points at it."""
    thread = codex_run.first.thread_id
    (rollout,) = (codex_run.codex_home / "sessions").glob(f"*/*/*/rollout-*-{thread}.jsonl")
    head = json.loads(rollout.read_text().splitlines()[0])
    assert head["type"] == "session_meta" and head["payload"]["id"] == thread
    session = next(s for s in codex_run.sessions() if s["id"] == thread)
    assert session["metadata"]["transcript_path"] == str(rollout)


def test_its_rollout_is_ingested_as_turns_labelled_codex(codex_run: Scenario) -> None:
    """Codex's own conversation file, ingested by the Stop hook's detached ingest: the first
    session's prompt as a turn, once, without Codex's instructions or memlode's briefing."""
    turns = [
        m
        for m in codex_run.memories()
        if m.get("source") == "transcript" and m.get("session_id") == codex_run.first.thread_id
    ]
    assert turns, "no turn of the first session was ingested"
    assert {t["metadata"].get("client") for t in turns} == {"codex"}
    assert sum(t["content"].count(PROMPT) for t in turns) >= 1
    for turn in turns:
        assert (
            "## memlode" not in turn["content"] and "<environment_context>" not in turn["content"]
        )
