"""Instructions the prompt hook captured are linked by the supersede consolidation cycle, not in
the hook: the real prompt hook keeps two instructions of two sessions, `memlode consolidate
--cycle supersede` (a dry run first, which writes nothing) links the later to the earlier, a
second run links nothing new, and the next prompt is handed the current instruction with the
earlier one as its history."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from memlode.engine import Engine
from memlode.storage import supersession as links


def _prompt(project: Path, text: str, session: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(project / f"{session}.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def _consolidate(project: Path, *extra: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "memlode", "consolidate", "--cycle", "supersede", "--json", *extra],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)
    runs = runs.get("runs", runs) if isinstance(runs, dict) else runs
    found = [r for r in runs if r["cycle"] == "supersede"]
    assert len(found) == 1
    return dict(found[0])


def test_captured_instructions_are_linked_by_the_cycle(hook, project: Path, proj_engine: Engine):
    hook("prompt", _prompt(project, "Use npm to install the frontend packages in this repo", "s1"))
    later = "From now on install the frontend packages with pnpm instead of npm"
    hook("prompt", _prompt(project, later, "s2"))
    rows = {m.content: m.id for m in proj_engine.list_memories(sources=["hook"])}
    old = rows["Use npm to install the frontend packages in this repo"]
    new = rows["From now on install the frontend packages with pnpm instead of npm"]
    assert links.linked_pairs(proj_engine.conn, proj_engine.namespace) == []  # not in the hook

    dry = _consolidate(project, "--dry-run")
    assert [(c["source"], c["target"]) for c in dry["changes"]] == [(new, old)]
    assert links.linked_pairs(proj_engine.conn, proj_engine.namespace) == []

    done = _consolidate(project)
    assert done["counts"]["linked"] == 1
    pairs = links.linked_pairs(proj_engine.conn, proj_engine.namespace)
    assert [(r.old_id, r.new_id) for r in pairs] == [(old, new)]
    assert _consolidate(project)["counts"]["linked"] == 0  # nothing new since

    result = hook("prompt", _prompt(project, "how do we install the frontend packages?", "s3"))
    text = result.context()["hookSpecificOutput"]["additionalContext"]
    first = next(line for line in text.splitlines() if line.startswith("- ["))
    assert "pnpm instead of npm" in first
    assert "(was: Use npm to install the frontend packages" in first


def _asked(project: Path, question: str, answer: str, session: str) -> dict[str, Any]:
    """An AskUserQuestion the user answered, as Claude Code's PostToolUse carries it."""
    header = "Package manager"
    return {
        "session_id": session,
        "transcript_path": str(project / f"{session}.jsonl"),
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "AskUserQuestion",
        "tool_input": {
            "questions": [
                {
                    "question": question,
                    "header": header,
                    "options": [{"label": "npm", "description": "the default"}],
                    "multiSelect": False,
                }
            ]
        },
        "tool_response": {
            "questions": [{"question": question, "header": header}],
            "answers": {question: answer},
        },
    }


def test_a_choice_made_in_the_assistants_dialog_is_replaced_like_a_statement(
    hook, project: Path, proj_engine: Engine
):
    """The user's answer to the assistant's question (AskUserQuestion) is a decision the hook
    keeps; a later answer to the same question, or a later instruction that changes it,
    replaces it, and the next session is handed the current one with the first as history."""
    question = "Which package manager should install the frontend packages?"
    hook("post-tool", _asked(project, question, "npm", "s1"))
    hook("post-tool", _asked(project, question, "pnpm", "s2"))
    later = "From now on install the frontend packages with bun instead of pnpm"
    hook("prompt", _prompt(project, later, "s3"))
    hook("post-tool", _asked(project, "Which test runner should the frontend use?", "vitest", "s3"))
    rows = {m.content: m.id for m in proj_engine.list_memories(sources=["hook"])}
    first = next(i for c, i in rows.items() if c.endswith("A (user): npm"))
    second = next(i for c, i in rows.items() if c.endswith("A (user): pnpm"))

    done = _consolidate(project)
    pairs = links.linked_pairs(proj_engine.conn, proj_engine.namespace)
    assert sorted((r.old_id, r.new_id) for r in pairs) == sorted(
        [(first, second), (second, rows[later])]
    )
    assert done["counts"]["linked"] == 2  # the test runner's choice replaced nothing

    asked = "which package manager installs the frontend packages?"
    result = hook("prompt", _prompt(project, asked, "s4"))
    text = result.context()["hookSpecificOutput"]["additionalContext"]
    first_item = next(line for line in text.splitlines() if line.startswith("- ["))
    assert "bun instead of pnpm" in first_item
    assert "(was: User decided: Q: Which package manager" in first_item
    assert "A (user): npm" not in text.split("(was:", 1)[0]
