"""Each hook as a real subprocess fed the INTEGRATION.md payloads: exit 0, stdout only where
allowed, and the right memories, nodes, edges and sessions in the store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.hooks.conftest import hook_modules

from memlode.engine import Engine
from memlode.hook_settings import (
    CHARS_PER_TOKEN,
    PROMPT_BUDGET_TOKENS,
    PROMPT_MEMORIES,
    QUESTION_BUDGET_TOKENS,
    QUESTION_MEMORIES,
)

EVENTS = ["session-start", "prompt", "post-tool", "stop", "pre-compact", "session-end"]


def _hook_memories(engine: Engine) -> list[Any]:
    return engine.list_memories(sources=["hook"], limit=None)


def test_example_payloads_round_trip(hook, payloads, proj_engine: Engine, memlode_home: Path):
    for event in EVENTS:
        result = hook(event, payloads[event])
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        if event not in ("session-start", "prompt"):
            assert result.stdout == ""
    # an empty store prints nothing at SessionStart; nothing matched the first prompt either
    memories = _hook_memories(proj_engine)
    kinds = {(m.memory_type.value, m.content.split("\n")[0]) for m in memories}
    assert ("context", "Why does login 401?") in kinds
    edit = next(m for m in memories if m.metadata.get("tool") == "Edit")
    assert edit.memory_type.value == "context"  # a change observed, not a decision
    assert edit.content.startswith("Edited auth.py: +1 -1 lines in 1 hunk")
    assert "+exp=3600" in edit.content and "<whole file>" not in edit.content
    assert edit.session_id == "8c1f-test"
    summary = [m for m in memories if "session-summary" in m.tags]
    assert len(summary) == 1  # Stop, PreCompact and SessionEnd refresh one summary in place
    assert "Edited (1): auth.py (+1 -1)" in summary[0].content
    assert "Prompts (1): Why does login 401?" in summary[0].content
    assert summary[0].memory_type.value == "insight"
    session = proj_engine.sessions()[0]
    assert session.id == "8c1f-test" and session.source == "claude-code"
    assert session.ended_at is not None and session.summary == summary[0].content
    assert session.metadata["transcript_path"].endswith("8c1f.jsonl")
    assert session.metadata["end_reason"] == "prompt_input_exit"
    assert session.metadata["start_context"] == {"chars": 0, "text": ""}  # nothing handed
    assert not (memlode_home / "hooks.log").exists()
    # each run's own time, one line each, for the dashboard's Health page
    timed = [line.split() for line in (memlode_home / "hook-timings.log").read_text().splitlines()]
    assert [event for _, event, _, _ in timed] == EVENTS
    assert all(0.0 < float(ms) < 60_000 for _, _, ms, _ in timed)
    assert {client for *_, client in timed} == {"claude"}  # who ran it: doctor's last hook


def test_session_start_injects_compact_context(hook, payloads, proj_engine: Engine):
    for event in ("session-start", "prompt", "post-tool", "stop"):
        hook(event, payloads[event])
    proj_engine.store("Auth tokens expire after one hour; keep exp=3600.", "decision", 0.9)
    proj_engine.store("Team prefers pytest fixtures over mocks.", "preference", 0.7)
    result = hook("session-start", {**payloads["session-start"], "session_id": "next"})
    assert result.returncode == 0
    out = result.context()
    assert set(out) == {"hookSpecificOutput"}
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == "SessionStart"
    text = spec["additionalContext"]
    assert text.startswith("## memlode: what I remember about proj")
    for heading in ("### Recent sessions", "### Decisions, insights and patterns", "### Stats"):
        assert heading in text
    assert "Auth tokens expire after one hour" in text
    assert "auth.py (1 edits" in text
    assert len(text) <= 1500 * 4
    # what the assistant was handed is kept with the session (the dashboard shows it)
    session = next(s for s in proj_engine.sessions() if s.id == "next")
    assert session.metadata["start_context"] == {"chars": len(text), "text": text}


def test_session_start_includes_the_code_map(hook, payloads, project: Path, proj_engine: Engine):
    from memlode.engine import code

    (project / "src" / "core.py").write_text(
        "def helper():\n    return 1\n\n\nclass Store:\n    def get(self):\n"
        "        return helper()\n"
    )
    (project / "src" / "app.py").write_text(
        "from core import Store, helper\n\n\ndef main():\n    return Store().get() + helper()\n"
    )
    stats = code.index(proj_engine, project)
    assert stats["namespace"] == proj_engine.namespace and stats["session_map_chars"] > 0
    # a project with code indexed but no memories yet still gets its map
    text = hook("session-start", payloads["session-start"]).context()["hookSpecificOutput"][
        "additionalContext"
    ]
    assert "### Code map" in text and "core.py" in text and "helper" in text
    # many memories: the map keeps its share, and the whole block stays within the budget
    for i in range(100):
        proj_engine.store(f"decision number {i} about the cache layer " + "x" * 200, "decision")
    env = {"MEMLODE_HOOKS_SESSION_BUDGET": "400"}
    result = hook("session-start", {**payloads["session-start"], "session_id": "s2"}, env=env)
    text = result.context()["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= 400 * 4
    assert "### Code map" in text and "decision number" in text
    # an unchanged re-index does not render the map again
    assert "session_map_chars" not in code.index(proj_engine, project)


def test_session_start_respects_the_budget(hook, payloads, proj_engine: Engine):
    for i in range(200):
        proj_engine.store(f"decision number {i} about the cache layer " + "x" * 200, "decision")
    result = hook(
        "session-start",
        payloads["session-start"],
        env={"MEMLODE_HOOKS_SESSION_BUDGET": "100"},
    )
    text = result.context()["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= 100 * 4
    assert "### Stats" in text


def test_prompt_injects_relevant_memories_only(hook, payloads, proj_engine: Engine):
    proj_engine.store("The login endpoint returns 401 when the auth token expired.", "insight")
    proj_engine.store("Deploys go through the staging cluster first.", "decision")
    asked = {**payloads["prompt"], "prompt": "why does the login endpoint give a 401 error?"}
    result = hook("prompt", asked)
    spec = result.context()["hookSpecificOutput"]
    assert spec["hookEventName"] == "UserPromptSubmit"
    assert "returns 401 when the auth token expired" in spec["additionalContext"]
    assert "staging cluster" not in spec["additionalContext"]
    assert len(spec["additionalContext"]) <= PROMPT_BUDGET_TOKENS * CHARS_PER_TOKEN
    for vague in ("ok", "continue", "what is the weather like in paris"):
        result = hook("prompt", {**payloads["prompt"], "prompt": vague})
        assert result.returncode == 0 and result.stdout == ""


def test_a_question_is_given_the_question_budget(hook, payloads, proj_engine: Engine):
    """A question's recalled memories fill up to ``question_budget_tokens``, more than
    ``prompt_budget_tokens``; its variable sets it."""
    for n in range(8):  # long and distinct (no two share their word triples)
        steps = " ".join(f"step {n}.{i} checks token {n * 100 + i};" for i in range(60))
        proj_engine.store(f"Login endpoint 401 trace {n}: {steps} it gives the error.", "insight")
    asked = {**payloads["prompt"], "prompt": "why does the login endpoint give a 401 error?"}
    wide = hook("prompt", asked).context()["hookSpecificOutput"]["additionalContext"]
    assert len(wide) > PROMPT_BUDGET_TOKENS * CHARS_PER_TOKEN
    assert len(wide) <= QUESTION_BUDGET_TOKENS * CHARS_PER_TOKEN
    env = {"MEMLODE_HOOKS_QUESTION_BUDGET": "200", "MEMLODE_HOOKS_PROMPT_BUDGET": "2000"}
    narrow = hook("prompt", asked, env=env).context()["hookSpecificOutput"]["additionalContext"]
    assert "Login endpoint 401" in narrow and len(narrow) <= 200 * CHARS_PER_TOKEN


def test_a_question_is_given_more_memories_than_another_prompt(
    hook, payloads, proj_engine: Engine, memlode_home: Path
):
    """A question gets up to ``question_max_memories``, more than another prompt's
    ``prompt_max_memories``; its variable and its config key set it."""
    for n in range(QUESTION_MEMORIES + 4):  # short and distinct: the room holds them all
        steps = " ".join(f"step {n}.{i} checks token {n * 100 + i};" for i in range(4))
        proj_engine.store(f"Login endpoint 401 trace {n}: {steps} it gives the error.", "insight")

    def shown(prompt: str, env: dict[str, str] | None = None) -> int:
        asked = {**payloads["prompt"], "prompt": prompt}
        result = hook("prompt", asked, env=env)
        assert result.returncode == 0, result.stderr
        if not result.stdout:
            return 0
        text = result.context()["hookSpecificOutput"]["additionalContext"]
        return sum(line.startswith("- [") for line in text.splitlines())

    question = "why does the login endpoint give a 401 error?"
    assert shown(question) == QUESTION_MEMORIES > PROMPT_MEMORIES
    assert shown(question, {"MEMLODE_HOOKS_QUESTION_MEMORIES": "3"}) == 3
    (memlode_home / "config.toml").write_text("[hooks]\nquestion_max_memories = 0\n")
    assert shown(question) == 0  # nothing for a question, as prompt_max_memories = 0 for the rest
    (memlode_home / "config.toml").write_text("[hooks]\nprompt_max_memories = 2\n")
    assert shown(question) == QUESTION_MEMORIES  # another prompt's count is its own


def test_prompt_injection_can_be_turned_off(hook, payloads, proj_engine: Engine):
    proj_engine.store("The login endpoint returns 401 when the auth token expired.", "insight")
    asked = {**payloads["prompt"], "prompt": "why does the login endpoint give a 401 error?"}
    assert hook("prompt", asked, env={"MEMLODE_HOOKS_INJECT": "0"}).stdout == ""
    assert hook("prompt", asked, env={"MEMLODE_HOOKS": "0"}).stdout == ""


def test_capture_can_be_turned_off(hook, payloads, proj_engine: Engine):
    for event in ("prompt", "post-tool"):
        assert hook(event, payloads[event], env={"MEMLODE_HOOKS_CAPTURE": "0"}).returncode == 0
    assert _hook_memories(proj_engine) == []


def test_read_then_edit_links_file_node_and_evolution(
    hook, payloads, read_payload, project: Path, proj_engine: Engine
):
    path = str(project / "auth.py")
    body = "def login():\n    exp=60\n    UNIQUE_BODY_MARKER = 1\n"
    assert hook("post-tool", read_payload(path, body)).returncode == 0
    assert hook("post-tool", payloads["post-tool"]).returncode == 0
    memories = {m.metadata["tool"]: m for m in _hook_memories(proj_engine)}
    read, edit = memories["Read"], memories["Edit"]
    assert read.content == "Read auth.py lines 1-3 of 3; defines login"
    assert "UNIQUE_BODY_MARKER" not in read.content
    assert {"file:auth.py", "ext:py", "dir:.", "tool:Read"} <= set(read.tags)
    conn = proj_engine.conn
    node = conn.execute("SELECT kind, name FROM graph_nodes WHERE id = ?", (f"file:{path}",))
    assert tuple(node.fetchone()) == ("file", "auth.py")
    edges = {
        (r[0], r[1], r[2])
        for r in conn.execute("SELECT source_id, target_id, relationship FROM graph_edges")
    }
    assert (read.id, f"file:{path}", "RELATES_TO") in edges
    assert (edit.id, f"file:{path}", "RELATES_TO") in edges
    assert (read.id, edit.id, "EVOLVED_INTO") in edges


def test_each_tool_extractor(hook, project: Path, proj_engine: Engine):
    base = {"session_id": "s-tools", "cwd": str(project), "hook_event_name": "PostToolUse"}
    calls = [
        ("Glob", {"pattern": "**/*.py"}, {"filenames": [str(project / "a.py")], "numFiles": 1}),
        (
            "Grep",
            {"pattern": "def login", "path": str(project / "src"), "glob": "*.py"},
            {"mode": "files_with_matches", "numFiles": 2, "filenames": ["src/a.py", "src/b.py"]},
        ),
        (
            "Bash",
            {"command": "pytest -q", "description": "Run the tests"},
            {"stdout": "3 passed", "stderr": "", "interrupted": False},
        ),
        (
            "WebFetch",
            {"url": "https://docs.example.com/auth", "prompt": "token lifetime?"},
            {"url": "https://docs.example.com/auth", "code": 200, "result": "Tokens last 1h."},
        ),
        (
            "Write",
            {"file_path": str(project / "new.py"), "content": "class Cache:\n    pass\n"},
            {"type": "create", "filePath": str(project / "new.py"), "structuredPatch": []},
        ),
        (
            "MultiEdit",
            {
                "file_path": str(project / "m.py"),
                "edits": [{"old_string": "a = 1", "new_string": "a = 2\nb = 3"}],
            },
            {"filePath": str(project / "m.py")},
        ),
        ("mcp__memlode__store_memory", {"content": "x"}, {"id": "1"}),
    ]
    for tool, tool_input, response in calls:
        payload = {**base, "tool_name": tool, "tool_input": tool_input, "tool_response": response}
        assert hook("post-tool", payload).returncode == 0
    by_tool = {m.metadata["tool"]: m for m in _hook_memories(proj_engine)}
    assert "mcp__memlode__store_memory" not in by_tool
    assert by_tool["Glob"].memory_type.value == "pattern"
    assert "glob:**/*.py" in by_tool["Glob"].tags
    assert by_tool["Grep"].content.startswith("Grep 'def login' in src (glob *.py) -> 2 files")
    assert "pattern:def login" in by_tool["Grep"].tags
    assert by_tool["Bash"].content == (
        "$ pytest -q\n# Run the tests\nOutcome: tests: 3 passed\n[stdout]\n3 passed"
    )
    assert "web:docs.example.com" in by_tool["WebFetch"].tags
    assert by_tool["Write"].content == "Created new.py: +2 -0 lines in 1 hunk; symbols: Cache"
    assert by_tool["MultiEdit"].content.startswith("Edited m.py: +2 -1 lines in 1 hunk")


def test_dedup_repeated_observation(hook, read_payload, project: Path, proj_engine: Engine):
    payload = read_payload(str(project / "a.py"))
    for _ in range(3):
        hook("post-tool", payload)
    assert len(_hook_memories(proj_engine)) == 1
    # a later session reading the same file still lists it in its summary
    hook("post-tool", {**payload, "session_id": "later"})
    hook("stop", {"session_id": "later", "cwd": str(project), "stop_hook_active": False})
    later = next(s for s in proj_engine.sessions() if s.id == "later")
    assert later.summary is not None and "Read (1): a.py" in later.summary


def test_stop_hook_active_does_nothing(hook, payloads, proj_engine: Engine):
    hook("post-tool", payloads["post-tool"])
    hook("stop", {**payloads["stop"], "stop_hook_active": True})
    session = proj_engine.sessions()[0]
    assert session.ended_at is None and session.summary is None
    assert not [m for m in _hook_memories(proj_engine) if "session-summary" in m.tags]


def test_next_event_resumes_a_stopped_session(hook, payloads, proj_engine: Engine):
    hook("stop", payloads["stop"])
    assert proj_engine.sessions()[0].ended_at is not None
    hook("prompt", {**payloads["prompt"], "prompt": "and the refresh token?"})
    assert proj_engine.sessions()[0].ended_at is None


BAD_STDIN = [
    b"",
    b"not json at all",
    b"{truncated",
    b"[1, 2, 3]",
    b"null",
    b"\xff\xfe\x00binary",
    b"{}",
    json.dumps(
        {
            "session_id": 5,
            "cwd": ["x"],
            "tool_name": 7,
            "tool_input": "a string",
            "tool_response": None,
            "prompt": {"a": 1},
            "source": [],
            "stop_hook_active": "yes",
            "transcript_path": 3,
        }
    ).encode(),
    json.dumps(
        {"session_id": "s", "tool_name": "Edit", "tool_input": {"file_path": 3}, "cwd": "rel"}
    ).encode(),
    json.dumps(
        {
            "session_id": "s",
            "tool_name": "Edit",
            "tool_input": {"file_path": "/x/y.py"},
            "tool_response": {"structuredPatch": [None, {"lines": [1, None, "+ok"]}, "bad"]},
        }
    ).encode(),
]


@pytest.mark.parametrize("event", EVENTS)
def test_bad_payloads_exit_zero_silently(hook, event: str, memlode_home: Path):
    for stdin in BAD_STDIN:
        result = hook(event, stdin)
        assert result.returncode == 0, (stdin, result.stderr)
        assert result.stdout == "", (stdin, result.stdout)
        assert result.stderr == "", (stdin, result.stderr)
    log = (memlode_home / "hooks.log").read_text()
    assert "payload is not JSON" in log
    assert "Traceback" not in log and "Error" not in log.replace("JSONDecodeError", "")


def test_unknown_event_is_logged_not_raised(hook, payloads, memlode_home: Path):
    anonymous = {k: v for k, v in payloads["stop"].items() if k != "hook_event_name"}
    result = hook("no-such-event", anonymous)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    log = memlode_home / "hooks.log"
    assert "unknown hook event" in log.read_text()
    # the payload's own hook_event_name is used when the argument is not an event
    before = log.read_text()
    assert hook("no-such-event", payloads["stop"]).returncode == 0
    assert log.read_text() == before


def test_huge_tool_responses_are_bounded(hook, read_payload, project: Path, proj_engine: Engine):
    five_mb = ("line of a very large file\n" * 200_000)[: 5 * 1024 * 1024]
    assert hook("post-tool", read_payload(str(project / "big.txt"), five_mb)).returncode == 0
    bash = {
        "session_id": "s",
        "cwd": str(project),
        "tool_name": "Bash",
        "tool_input": {"command": "cat big.txt"},
        "tool_response": {"stdout": five_mb + "FINAL LINE", "stderr": ""},
    }
    assert hook("post-tool", bash).returncode == 0
    edit = {
        "session_id": "s",
        "cwd": str(project),
        "tool_name": "Write",
        "tool_input": {"file_path": str(project / "big.txt"), "content": five_mb},
        "tool_response": {"type": "update", "originalFile": five_mb, "structuredPatch": []},
    }
    assert hook("post-tool", edit).returncode == 0
    memories = _hook_memories(proj_engine)
    assert len(memories) == 3
    assert all(len(m.content) < 3000 for m in memories)
    bash_memory = next(m for m in memories if m.metadata["tool"] == "Bash")
    assert bash_memory.content.endswith("FINAL LINE")


def test_secrets_are_redacted_on_write_and_on_injection(hook, payloads, proj_engine: Engine):
    bash = {
        **payloads["post-tool"],
        "tool_name": "Bash",
        "tool_input": {
            "command": "curl -H 'Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwx' https://api"
        },
        "tool_response": {"stdout": "AWS key AKIAIOSFODNN7EXAMPLE <private>home address</private>"},
    }
    hook("post-tool", bash)
    stored = next(m for m in _hook_memories(proj_engine) if m.metadata.get("tool") == "Bash")
    for secret in ("sk-ant-api03", "AKIAIOSFODNN7EXAMPLE", "home address"):
        assert secret not in stored.content
    # a secret that reached the store by another path is still not injected
    proj_engine.store("deploy password=hunter2horse for the staging database server", "decision")
    asked = "which staging database server do we deploy to?"
    result = hook("prompt", {**payloads["prompt"], "prompt": asked})
    text = result.context()["hookSpecificOutput"]["additionalContext"]
    assert "staging database" in text and "hunter2horse" not in text
    prompt = hook(
        "prompt", {**payloads["prompt"], "prompt": "use ghp_abcdefghijklmnopqrstuvwxyz0123456789"}
    )
    assert prompt.returncode == 0
    assert not [m for m in _hook_memories(proj_engine) if "ghp_" in m.content]


def test_hook_imports_stay_light(project: Path, payloads):
    import os
    import subprocess
    import sys

    from memlode.hook_events import HOOK_CODE

    def imported(event: str) -> set[str]:
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", HOOK_CODE, event],
            input=json.dumps(payloads[event]).encode(),
            capture_output=True,
            cwd=project,
            env=dict(os.environ),
            timeout=120,
        )
        return {
            line.split("|")[-1].strip()
            for line in proj_stderr_lines(proc.stderr)
            if line.startswith("import time:")
        }

    for event in EVENTS:
        imported(event)  # the first event creates the database (the slow path)
        modules = imported(event)
        # the common path: no regex engine, no OpenSSL, no datetime (see memlode.hooks)
        assert modules & {"re", "hashlib", "datetime", "json", "sqlite3"} == set(), event
        heavy = {
            m
            for m in modules
            if m.split(".")[0] in {"numpy", "click", "tree_sitter", "igraph", "mcp", "onnxruntime"}
            or m in {"memlode.engine", "memlode.embed", "memlode.vector", "memlode.config"}
            or m.startswith(("memlode.search", "memlode.graph", "memlode.code"))
        }
        assert heavy == set(), (event, heavy)


# Every memlode module a PostToolUse hook may import, whatever the tool (a Read, an edit, a
# command, a search). The list may only shrink: each module costs a hook process ~0.1 ms before
# its body runs (bench/RESULTS.md, session 19), and PostToolUse runs on every tool call.
POST_TOOL_MODULES = frozenset(
    {
        *["memlode", "memlode.config_file", "memlode.fastjson", "memlode.hook_events"],
        *["memlode.hook_settings", "memlode.project", "memlode.textutil"],
        *["memlode.hooks", "memlode.hooks.dispatch", "memlode.hooks._log", "memlode.hooks.run"],
        *["memlode.hooks.handlers", "memlode.hooks.extract", "memlode.hooks.observation"],
        "memlode.hooks.output",  # what a command printed, as stored (a command's, a Grep's)
        "memlode.hooks.diffsum",  # a Read (the symbols a file defines) or an edit only
        "memlode.hooks.manifest",  # a Read or a Write only (whether of a settings file)
        *["memlode.sources", "memlode.sources.outcomes"],  # a command only
        *["memlode.storage", "memlode.storage.fastpath", "memlode.storage.scrub"],
        *["memlode.storage.capture", "memlode.storage.capture_session"],
        "memlode.storage.code_dirty",  # an edit only: the file is marked for re-indexing
        *["memlode.redact", "memlode.redact._assign", "memlode.redact._context"],
        *["memlode.redact._names", "memlode.redact._rules", "memlode.redact._tokens"],
    }
)
# What each tool's hook must not load (beside everything outside POST_TOOL_MODULES: the prompt
# handler and its recall, the storage dialect, the redaction guard's column tables).
NOT_FOR = {
    "Read": {"memlode.sources.outcomes", "memlode.storage.code_dirty"},
    "Edit": {"memlode.sources.outcomes", "memlode.hooks.manifest"},
    "Bash": {"memlode.hooks.diffsum", "memlode.hooks.manifest", "memlode.storage.code_dirty"},
    "Grep": {
        *["memlode.hooks.diffsum", "memlode.hooks.manifest"],
        *["memlode.sources.outcomes", "memlode.storage.code_dirty"],
    },
}


def test_post_tool_loads_only_what_its_tool_needs(
    project: Path, payloads: dict[str, dict[str, Any]], read_payload: Any
) -> None:
    """Each tool's PostToolUse hook, as registered, on a store that exists: its memlode modules
    are within ``POST_TOOL_MODULES`` and leave out what its tool does not need; none loads
    ``re`` (a command's output clipped with "…" is not ASCII)."""

    auth = str(project / "auth.py")
    tools = {
        "Read": read_payload(auth, "def login():\n    return 1\n" * 50),
        "Edit": payloads["post-tool"],
        "Bash": {
            **payloads["post-tool"],
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q tests", "description": "run the tests"},
            "tool_response": {"stdout": "." * 5000 + "\n12 passed in 0.5s", "stderr": ""},
        },
        "Grep": {
            **payloads["post-tool"],
            "tool_name": "Grep",
            "tool_input": {"pattern": "exp=", "path": str(project)},
            "tool_response": {"mode": "files_with_matches", "numFiles": 1, "filenames": [auth]},
        },
    }

    def loaded(payload: dict[str, Any]) -> set[str]:
        return hook_modules(project, "post-tool", payload)

    loaded(tools["Grep"])  # the first event creates the database (the slow path)
    for tool, payload in tools.items():
        modules = loaded(payload)
        assert "memlode.hooks.extract" in modules, tool
        memlode = {m for m in modules if m == "memlode" or m.startswith("memlode.")}
        assert memlode - POST_TOOL_MODULES == set(), tool
        assert memlode & NOT_FOR[tool] == set(), tool
        assert "re" not in modules, tool


def proj_stderr_lines(stderr: bytes) -> list[str]:
    return stderr.decode("utf-8", "replace").splitlines()
