"""What the hooks capture from the tool calls that carry knowledge: the user's answers and
approved plans as decisions, failed tool calls (PostToolUseFailure), Grep in content mode
counted from its content. Payload shapes are those of real Claude Code transcripts
(INTEGRATION.md section 1.2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlode.engine import Engine


def _payload(project: Path, event: str, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": "cap-session",
        "transcript_path": str(project / "cap.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def _ran(project: Path, command: str, stdout: str) -> dict[str, Any]:
    """PostToolUse of a Bash command that ran without failing."""
    return _payload(
        project,
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": command},
        tool_response={"stdout": stdout, "stderr": "", "interrupted": False},
    )


def _asked(project: Path, offered: dict[str, list[str]], answers: dict[str, str]) -> dict[str, Any]:
    """PostToolUse of AskUserQuestion: each question with its option labels, and the answers."""
    return _payload(
        project,
        "PostToolUse",
        tool_name="AskUserQuestion",
        tool_input={
            "questions": [
                {
                    "question": q,
                    "header": "Choice",
                    "options": [{"label": o, "description": "..."} for o in labels],
                    "multiSelect": "," in answers.get(q, ""),
                }
                for q, labels in offered.items()
            ]
        },
        tool_response={
            "questions": [{"question": q, "header": "Choice"} for q in offered],
            "answers": answers,
        },
    )


def _hook_rows(engine: Engine) -> list[Any]:
    return engine.list_memories(sources=["hook"], limit=None)


def test_ask_user_question_answer_is_a_decision(hook, project: Path, proj_engine: Engine):
    question = "Is main clean, or should I fix the pre-commit issues first?"
    answer = {question: "main was clean; fix the issues"}
    assert hook("post-tool", _asked(project, {question: ["Fix them"]}, answer)).returncode == 0
    rows = [m for m in _hook_rows(proj_engine) if "asked-user" in m.tags]
    assert len(rows) == 1
    assert rows[0].memory_type.value == "decision"
    assert question in rows[0].content and "main was clean; fix the issues" in rows[0].content
    assert rows[0].importance > 0.5


def test_an_answer_keeps_the_options_the_user_turned_down(hook, project: Path, proj_engine: Engine):
    """What else the assistant offered is part of the choice: each question's answer is
    followed by the labels not chosen (none when the answer took them all)."""
    syntax = "Syntax for the single-color gradient keyword?"
    sides = "Which edges should the shade reach?"
    offered = {
        syntax: ["linear-gradient(#color) — single stop", "New function, e.g. shade(#color)"],
        sides: ["Leading edge", "Trailing edge"],
    }
    answers = {syntax: offered[syntax][0], sides: "Leading edge, Trailing edge"}
    assert hook("post-tool", _asked(project, offered, answers)).returncode == 0
    (row,) = [m for m in _hook_rows(proj_engine) if "asked-user" in m.tags]
    assert row.content == (
        "User decided:\n"
        f"Q: {syntax}\nA (user): linear-gradient(#color) — single stop\n"
        "Other options: New function, e.g. shade(#color)\n"
        f"Q: {sides}\nA (user): Leading edge, Trailing edge"
    )


def test_approved_plan_is_a_decision(hook, project: Path, proj_engine: Engine):
    plan = "1. Add the telemetry handler\n2. Wire it in application.ex\n3. Test it"
    payload = _payload(
        project,
        "PostToolUse",
        tool_name="ExitPlanMode",
        tool_input={"plan": plan},
        tool_response={},
    )
    assert hook("post-tool", payload).returncode == 0
    rows = [m for m in _hook_rows(proj_engine) if "plan" in m.tags]
    assert len(rows) == 1 and rows[0].memory_type.value == "decision"
    assert "telemetry handler" in rows[0].content


def test_failed_push_is_captured(hook, project: Path, proj_engine: Engine):
    error = (
        "Exit code 1\nTo github.com:me/app.git\n ! [rejected] main -> main (fetch first)\n"
        "error: failed to push some refs"
    )
    payload = _payload(
        project,
        "PostToolUseFailure",
        tool_name="Bash",
        tool_use_id="toolu_01F",
        tool_input={"command": "git push origin main", "description": "Push"},
        error=error,
        is_interrupt=False,
    )
    result = hook("post-tool-failure", payload)
    assert result.returncode == 0 and result.stdout == ""
    rows = [m for m in _hook_rows(proj_engine) if "failure" in m.tags]
    assert len(rows) == 1
    assert rows[0].content.startswith("Failed: $ git push origin main")
    assert "[rejected]" in rows[0].content and "cmd:git" in rows[0].tags
    # the declared event name alone is enough too (hook_event_name), and an interrupt is skipped
    interrupted = {**payload, "tool_input": {"command": "sleep 100"}, "is_interrupt": True}
    assert hook("PostToolUseFailure", interrupted).returncode == 0
    assert len([m for m in _hook_rows(proj_engine) if "failure" in m.tags]) == 1


def test_a_long_command_is_stored_as_what_ran_then_what_happened(
    hook, project: Path, proj_engine: Engine
):
    """A commit with its message in a heredoc: the first line and the subject, then the
    error, then the rest of the message (a short excerpt shows what happened)."""
    body = "\n".join(f"- change number {i} of the rebuilt panel" for i in range(30))
    command = (
        "git add priv/static/app.css && git commit -m \"$(cat <<'EOF'\n"
        f'feat: rebuild the panel\n\n{body}\nEOF\n)"'
    )
    error = "The following paths are ignored by one of your .gitignore files:\npriv/static"
    payload = _payload(
        project,
        "PostToolUseFailure",
        tool_name="Bash",
        tool_input={"command": command},
        error=error,
        is_interrupt=False,
    )
    assert hook("post-tool-failure", payload).returncode == 0
    [row] = [m for m in _hook_rows(proj_engine) if "failure" in m.tags]
    first, second = row.content.split("\n")[:2]
    assert first.startswith("Failed: $ git add priv/static/app.css && git commit")
    assert first.endswith("feat: rebuild the panel …")
    assert second.startswith("The following paths are ignored")
    assert row.content.index("[command]") > row.content.index("priv/static\n")
    assert "change number 29" not in row.content[:300]


def _subagent_stop(project: Path, report: str) -> dict[str, Any]:
    """SubagentStop of an Explore agent whose last message is ``report``."""
    return _payload(
        project,
        "SubagentStop",
        agent_id="a1b2",
        agent_type="Explore",
        stop_hook_active=False,
        last_assistant_message=report,
    )


def test_a_subagent_report_is_stored_as_an_insight(hook, project: Path, proj_engine: Engine):
    report = "Research: xterm.js swallows wheel events when the outer page scrolls; set"
    payload = _subagent_stop(project, report + " scrollback on the terminal and stop propagation.")
    result = hook("SubagentStop", payload)
    assert result.returncode == 0 and result.stdout == ""
    [row] = [m for m in _hook_rows(proj_engine) if "subagent" in m.tags]
    assert row.memory_type.value == "insight" and "agent:Explore" in row.tags
    assert row.content.startswith("Subagent Explore reported: Research: xterm.js")
    # a report-less stop (older builds) and a looping stop store nothing
    assert hook("SubagentStop", {**payload, "last_assistant_message": ""}).returncode == 0
    looping = {**payload, "stop_hook_active": True, "last_assistant_message": "other"}
    assert hook("SubagentStop", looping).returncode == 0
    assert len([m for m in _hook_rows(proj_engine) if "subagent" in m.tags]) == 1


def test_a_long_subagent_report_is_kept_whole_in_parts(hook, project: Path, proj_engine: Engine):
    """An Explore agent's survey runs to thousands of characters: it is stored in parts cut at
    its headings, each naming its place, so that a fact halfway down (the window's size) is
    in a memory of its own and nothing is dropped."""
    from memlode.hooks.extract import REPORT_PART_CHARS

    sections = [
        f"### {n}. Section {n}\n\n"
        + "\n".join(
            f"- finding {n}.{i}: the module keeps its state in a plain struct" for i in range(14)
        )
        for n in range(1, 9)
    ]
    sections[4] += "\n- GUI mode opens a window sized 850x750 pixels (min 600x550)"
    report = "Here is the survey.\n\n## Summary of the codebase\n\n" + "\n\n".join(sections)
    assert len(report) > 4 * REPORT_PART_CHARS
    assert hook("SubagentStop", _subagent_stop(project, report)).returncode == 0
    rows = [m for m in _hook_rows(proj_engine) if "subagent" in m.tags]
    count = len(rows)
    assert count >= 4 and all(len(r.content) <= REPORT_PART_CHARS + 100 for r in rows)
    numbered = sorted(rows, key=lambda r: int(r.metadata["part"]))
    assert [r.metadata["part"] for r in numbered] == list(range(1, count + 1))
    assert numbered[0].content.startswith(f"Subagent Explore reported (part 1 of {count}): Here")
    [window] = [r for r in rows if "850x750" in r.content]
    assert "### 5. Section 5" in window.content
    kept = "\n".join(r.content.split("): ", 1)[1] for r in numbered)
    assert all(line in kept for line in report.splitlines())  # nothing dropped


def test_a_comment_in_a_reports_code_block_is_no_heading():
    """A part of a long report starts at a markdown heading, and names it; a "# ..." comment
    inside a fenced code block, an issue number ("#123") or a shebang is none."""
    from memlode.hooks.extract import REPORT_PART_CHARS, _heading, _report_parts

    assert _heading("### 3. Key Functionality") and _heading("#") and _heading("  ## Plan")
    assert not any(_heading(line) for line in ("#!/bin/sh", "#123 fixed", "####### seven"))
    assert not _heading("    # indented: code")

    body = "\n".join(f"- step {i}: the build keeps its cache in target/" for i in range(20))
    script = "```bash\n# Build the AppImage\n~~~\n#!/bin/sh\n" + "echo building\n" * 5 + "```"
    report = f"## Build\n\n{body}\n\n{script}\n#123 is fixed too\n\n## Release\n\n{body}"
    assert len(report) > REPORT_PART_CHARS  # two parts, cut at the second heading only
    parts = _report_parts(report)
    assert [heading for heading, _ in parts] == ["## Build", "## Release"]
    assert "# Build the AppImage" in parts[0][1] and "#123 is fixed too" in parts[0][1]


def test_grep_content_mode_counts_its_matches(hook, project: Path, proj_engine: Engine):
    """Grep in content mode: its matches counted from the matched lines, which are kept (as a
    grep run in the shell keeps its output) with the project's folder left out of their paths."""
    content = (
        f"{project}/lib/app/telemetry.ex:12:  def handle_event(event, measurements, meta, _c) do\n"
        f'{project}/lib/app/telemetry.ex:40:    :telemetry.attach("h", event, &handle_event/4)\n'
        f"{project}/lib/app_web/endpoint.ex:7:  plug Plug.Telemetry, event_prefix: [:phoenix]\n"
    )
    payload = _payload(
        project,
        "PostToolUse",
        tool_name="Grep",
        tool_input={"pattern": "telemetry", "output_mode": "content", "-n": True},
        tool_response={
            "mode": "content",
            "numFiles": 0,
            "filenames": [],
            "content": content,
            "numLines": 3,
        },
    )
    assert hook("post-tool", payload).returncode == 0
    rows = [m for m in _hook_rows(proj_engine) if m.metadata.get("tool") == "Grep"]
    assert len(rows) == 1
    text = rows[0].content
    assert "0 files" not in text
    assert "3 matching lines in 2 files" in text and "lib/app/telemetry.ex" in text
    assert rows[0].metadata["matches"] == 3
    assert text.endswith(
        "\nlib/app_web/endpoint.ex:7:  plug Plug.Telemetry, event_prefix: [:phoenix]"
    )
    assert str(project) not in text


def test_edits_are_observations_not_decisions(hook, payloads, proj_engine: Engine):
    hook("post-tool", payloads["post-tool"])
    edits = [m for m in _hook_rows(proj_engine) if m.metadata.get("tool") == "Edit"]
    assert edits and all(m.memory_type.value == "context" for m in edits)
    assert proj_engine.list_memories(memory_types=["decision"], limit=None) == []


def test_session_summary_leads_with_the_end_state(hook, project: Path, proj_engine: Engine):
    def bash(command: str, stdout: str, failed: bool = False) -> None:
        if failed:
            payload = _payload(
                project,
                "PostToolUseFailure",
                tool_name="Bash",
                tool_input={"command": command},
                error=stdout,
            )
            hook("post-tool-failure", payload)
        else:
            payload = _payload(
                project,
                "PostToolUse",
                tool_name="Bash",
                tool_input={"command": command, "description": "step"},
                tool_response={"stdout": stdout, "stderr": "", "interrupted": False},
            )
            hook("post-tool", payload)

    bash("mix test 2>&1 | tail -3", "Finished in 2.1 seconds\n14 doctests, 127 tests, 0 failures")
    commit = "git commit -m \"$(cat <<'EOF'\nfeat: enrich the transcript renderer\n\nBody\nEOF\n)\""
    bash(commit, "[spotter-fum 1a2b3c4] feat: enrich the transcript renderer")
    bash("bd close spotter-fum.1 spotter-fum --reason=done", "Closed spotter-fum.1")
    bash('bd create --title="agent_id dropped by load_session_messages" --type=bug', "Created")
    bash("git push 2>&1", "fatal: The current branch has no upstream branch.", failed=True)
    bash("git push --set-upstream origin spotter-fum 2>&1", "branch set up to track")
    long_tail = "Earlier work. " * 300
    stop = _payload(
        project, "Stop", stop_hook_active=False, last_assistant_message=long_tail + "All pushed."
    )
    assert hook("stop", stop).returncode == 0
    session = proj_engine.sessions()[0]
    lines = (session.summary or "").splitlines()
    assert lines[1].startswith("Outcome: ") and lines[2].startswith("State: ")
    state = lines[2]
    assert 'committed 1 time (last: 1a2b3c4 "feat: enrich the transcript renderer")' in state
    assert "pushed spotter-fum" in state and "push failed" not in state
    assert "closed spotter-fum.1, spotter-fum" in state
    assert 'filed "agent_id dropped by load_session_messages"' in state
    assert "14 doctests, 127 tests, 0 failures" in state
    assert len(session.summary or "") <= 2000


def test_the_end_state_names_the_last_commits_with_their_hashes(
    hook, project: Path, proj_engine: Engine
):
    """A session that ends on a small fix after the commit that holds its work: the state
    line gives both, each with the hash git printed (a repeated message counts once)."""
    for sha, message, form in [  # the ways a commit command gives its message
        ("e85d6f0", "feat(color): auto-shade single-stop gradients", 'git commit -m"{}"'),
        ("62c5d6c", "feat(color): dark-gradient and light-gradient", "git commit -am '{}'"),
        ("1b2c3d4", "fix(color): satisfy fieldalignment", 'git commit --message="{}"'),
        ("6be0732", "fix(color): satisfy fieldalignment", 'git commit -a -m "{}"'),
    ]:
        output = f"[next {sha}] {message}\n 1 file changed"
        hook("post-tool", _ran(project, form.format(message), output))
    stop = _payload(project, "Stop", stop_hook_active=False, last_assistant_message="Pushed.")
    assert hook("stop", stop).returncode == 0
    lines = (proj_engine.sessions()[0].summary or "").splitlines()
    state = next(line for line in lines if line.startswith("State: "))
    assert state.startswith(
        'State: committed 4 times (last: 6be0732 "fix(color): satisfy fieldalignment";'
        ' before it: 62c5d6c "feat(color): dark-gradient and light-gradient")'
    )


def test_a_recalled_failure_shows_its_error_and_what_ran_next(
    hook, project: Path, proj_engine: Engine
):
    """A question about a failure is answered by the failed command's error (not by the words
    of the command) and by the same command run next without failing."""
    body = "\n".join(f"- the transcript panel change {i}" for i in range(30))
    failed = (
        "git add lib/panel.ex priv/static/panel.css && git commit -m \"$(cat <<'EOF'\n"
        f'feat: rebuild the transcript panel\n\n{body}\nEOF\n)"'
    )
    error = (
        "Exit code 1\nThe following paths are ignored by one of your .gitignore files:\n"
        "priv/static\nhint: Use -f if you really want to add them."
    )
    fields: dict[str, Any] = {"tool_name": "Bash", "is_interrupt": False}
    failure = _payload(
        project, "PostToolUseFailure", tool_input={"command": failed}, error=error, **fields
    )
    assert hook("post-tool-failure", failure).returncode == 0
    for command, out in [
        ("git status", "On branch main\nChanges not staged for commit"),
        ("git add -f priv/static/panel.css && git add lib/panel.ex", ""),
    ]:
        assert hook("post-tool", _ran(project, command, out)).returncode == 0
    prompt = {
        "session_id": "next-day",
        "transcript_path": str(project / "next-day.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "Why was the git add of the transcript panel css refused?",
    }
    result = hook("prompt", prompt)
    text = str(result.context()["hookSpecificOutput"]["additionalContext"])
    failure_line = next(line for line in text.splitlines() if "Failed: $ git add" in line)
    assert "ignored by one of your .gitignore files" in failure_line
    assert "Then: $ git add -f priv/static/panel.css" in failure_line


def _edited(project: Path, path: Path, old: str, new: str, start: int) -> dict[str, Any]:
    """PostToolUse of an Edit that changed ``old`` to ``new``; its one hunk starts at line
    ``start`` with the edit's first line (Claude Code's ``structuredPatch`` shape)."""
    patch = [
        {
            "oldStart": start,
            "oldLines": len(old.splitlines()),
            "newStart": start,
            "newLines": len(new.splitlines()),
            "lines": [f"-{line}" for line in old.splitlines()]
            + [f"+{line}" for line in new.splitlines()],
        }
    ]
    return _payload(
        project,
        "PostToolUse",
        tool_name="Edit",
        tool_input={"file_path": str(path), "old_string": old, "new_string": new},
        tool_response={"filePath": str(path), "structuredPatch": patch},
    )


def test_an_edit_of_a_markdown_file_names_its_section(hook, project: Path, proj_engine: Engine):
    """A one-line edit of a README's list says nothing a question about it asks ("which package
    do people need to build from source?"): it names the section it is in, read from the file
    above it, or from the edit's own text when the file is gone. A "# ..." comment in a code
    block is no heading."""
    readme = project / "README.md"
    lines = [
        "# Wallpaper",
        "",
        "**Build Dependencies** (Pop!_OS/Ubuntu/Debian):",
        "```bash",
        "# install the build tools",
        "sudo apt install -y \\",
        "    cmake \\",
        "    libdbus-1-dev \\",
        "    pkg-config",
        "```",
        "",
        "## Usage",
    ]
    readme.write_text("\n".join(lines) + "\n")
    hook("post", _edited(project, readme, "    cmake \\", "    cmake \\\n    libdbus-1-dev \\", 7))
    anchor = "## Usage\n\nRun it."
    missing = project / "docs" / "guide.md"
    hook("post", _edited(project, missing, anchor, anchor + "\nOr run it daily.", 40))
    texts = [m.content for m in _hook_rows(proj_engine)]
    assert any(
        t.startswith('Edited README.md, section "Build Dependencies (Pop!_OS/Ubuntu/Debian)": +2')
        and "libdbus-1-dev" in t
        for t in texts
    ), texts
    assert any(t.startswith('Edited docs/guide.md, section "Usage": ') for t in texts), texts


def test_a_read_manifest_keeps_what_it_says(hook, read_payload, project: Path, proj_engine: Engine):
    """A read of Cargo.toml keeps its lines (a next-day "what licence does Cargo.toml declare?",
    "which release-profile settings do we have?"), compacted, and the redaction every stored
    text passes takes the secret one of them holds. A lock file and a long JSON fixture keep
    only the read's path and range; a source file keeps the names it defines."""
    cargo = "\n".join(
        [
            "[package]",
            'name = "wallpaper"',
            'license = "MPL-2.0"',
            "",
            "# built for size",
            "[profile.release]",
            "lto = true",
            'strip = "symbols"',
            "",
            "[package.metadata.publish]",
            'registry_token = "Zq8vL2mXw9RtY4kP7nB3"',
        ]
    )
    hook("post", read_payload(str(project / "Cargo.toml"), cargo + "\n"))
    hook("post", read_payload(str(project / "Cargo.lock"), '[[package]]\nname = "ksni"\n'))
    fixture = "[\n" + ",\n".join(f'  {{"id": {i}, "name": "row {i}"}}' for i in range(400)) + "\n]"
    hook("post", read_payload(str(project / "tests" / "rows.json"), fixture + "\n"))
    hook("post", read_payload(str(project / "app.py")))
    hook("post", read_payload(str(project / "web" / "package.json"), "\x00\x01PK\x03\n"))
    texts = {m.content.split(" lines ")[0]: m.content for m in _hook_rows(proj_engine)}
    assert texts["Read Cargo.toml"].splitlines()[1:7] == [
        "[package]",
        'name = "wallpaper"',
        'license = "MPL-2.0"',
        "[profile.release]",
        "lto = true",
        'strip = "symbols"',
    ], texts
    assert "Zq8vL2mXw9RtY4kP7nB3" not in texts["Read Cargo.toml"]
    assert "registry_token" in texts["Read Cargo.toml"]
    assert texts["Read Cargo.lock"].endswith("of 2"), texts
    assert texts["Read tests/rows.json"].endswith("of 402"), texts
    assert texts["Read app.py"].endswith("; defines login"), texts
    assert texts["Read web/package.json"].endswith("of 1"), texts  # a binary file: nothing


def _wrote(
    project: Path,
    path: Path,
    content: str,
    patch: list[dict[str, Any]] | None = None,
    original: str | None = None,
) -> dict[str, Any]:
    """PostToolUse of a Write (Claude Code's result: "create" with the content, or "update"
    with its patch and the file before it)."""
    response = {
        "type": "create" if original is None else "update",
        "filePath": str(path),
        "content": content,
        "structuredPatch": patch or [],
        "originalFile": original,
    }
    return _payload(
        project,
        "PostToolUse",
        tool_name="Write",
        tool_input={"file_path": str(path), "content": content},
        tool_response=response,
    )


def test_a_unit_file_written_whole_keeps_what_it_says(hook, project: Path, proj_engine: Engine):
    """A systemd unit the Write tool creates, then rewrites (Claude Code's Write results: "create"
    with the content, "update" with its patch): a next-day "does systemd bring the tray back
    when it crashes?" asks what the file says, which its path and line count do not."""
    path = project / "systemd" / "tray.service"
    unit = (
        "[Unit]\nDescription=Wallpaper tray\nPartOf=cosmic-session.target\n\n"
        "[Service]\nExecStart=/home/me/.local/bin/tray\nRestart=on-failure\nRestartSec=5\n"
    )
    hook("post", _wrote(project, path, unit))
    changed = unit.replace("/home/me", "%h")
    patch = [
        {
            "oldStart": 5,
            "oldLines": 2,
            "newStart": 5,
            "newLines": 2,
            "lines": [
                " [Service]",
                "-ExecStart=/home/me/.local/bin/tray",
                "+ExecStart=%h/.local/bin/tray",
            ],
        }
    ]
    hook("post", _wrote(project, path, changed, patch=patch, original=unit))
    texts = sorted(m.content for m in _hook_rows(proj_engine))
    assert texts[0].startswith("Created systemd/tray.service: +8 -0 lines in 1 hunk\n"), texts
    assert texts[0].endswith(
        "\nPartOf=cosmic-session.target\n[Service]\n"
        "ExecStart=/home/me/.local/bin/tray\nRestart=on-failure\nRestartSec=5"
    )
    assert texts[1].startswith("Edited systemd/tray.service: +1 -1 lines"), texts
    assert texts[1].endswith(
        "[the file now]\n[Unit]\nDescription=Wallpaper tray\n"
        "PartOf=cosmic-session.target\n[Service]\n"
        "ExecStart=%h/.local/bin/tray\nRestart=on-failure\nRestartSec=5"
    )


def test_a_new_file_keeps_the_comment_it_opens_with(hook, project: Path, proj_engine: Engine):
    """A source file the Write tool creates keeps its symbols and what its opening comment says
    it is for ("what does tray.rs do?"), not its code."""
    path = project / "src" / "tray.rs"
    body = (
        "//! System Tray Module\n//!\n//! Runs the tray icon over the SNI protocol (ksni crate).\n"
        "use ksni;\n\npub fn run_tray() {\n    // start the loop\n}\n"
    )
    hook("post", _wrote(project, path, body))
    (text,) = [m.content for m in _hook_rows(proj_engine)]
    assert text == (
        "Created src/tray.rs: +8 -0 lines in 1 hunk; symbols: run_tray\n"
        "System Tray Module Runs the tray icon over the SNI protocol (ksni crate)."
    )


def _used(project: Path, tool: str, tool_input: Any, response: Any) -> dict[str, Any]:
    return _payload(
        project, "PostToolUse", tool_name=tool, tool_input=tool_input, tool_response=response
    )


def test_another_tools_reply_is_kept_after_what_it_was_asked(
    hook, project: Path, proj_engine: Engine
):
    """An MCP server's reply (Codex's and Claude Code's shape: text blocks beside
    structuredContent), a tool's values by name (a wakeup cancelled, as a real transcript has
    it); not what a subagent, TodoWrite or a task update answer, which say again what they were
    asked, keep the assistant's own books or are reported at SubagentStop."""
    pr = {
        "content": [{"type": "text", "text": "Created pull request #7716: Fix gradient stops"}],
        "structuredContent": {"number": 7716},
    }
    wakeup = {"scheduledFor": 0, "wasClamped": False, "stopped": True, "cancelledWakeups": 1}
    todos = {"oldTodos": [], "newTodos": [{"content": "Write docs", "status": "pending"}]}
    agent = {"status": "completed", "prompt": "Research the palette code", "content": []}
    for tool, asked, said in (
        ("mcp__github__create_pull_request", {"title": "Fix gradient stops"}, pr),
        ("ScheduleWakeup", {"stop": True}, wakeup),
        ("TodoWrite", {"todos": [{"content": "Write docs", "status": "pending"}]}, todos),
        ("Agent", {"prompt": "Research the palette code"}, agent),
        ("TaskUpdate", {"taskId": "1", "status": "completed"}, {"success": True, "taskId": "1"}),
    ):
        assert hook("post-tool", _used(project, tool, asked, said)).returncode == 0
    rows = {m.content.split(":", 1)[0]: m.content for m in _hook_rows(proj_engine)}
    assert (
        "Answered: Created pull request #7716: Fix gradient stops"
        in (rows["Used mcp__github__create_pull_request"])
    )
    assert "stopped: true; cancelledWakeups: 1" in rows["Used ScheduleWakeup"]
    for own_books in ("Used TodoWrite", "Used Agent", "Used TaskUpdate"):
        assert "Answered" not in rows[own_books]


def test_a_reply_keeps_no_encoded_payload_and_takes_any_shape():
    """An image block's base64 is no words; a list, nothing or a number are replies too."""
    from memlode.hooks.replies import other_tool

    image = {"content": [{"type": "image", "data": "iVBORw0KGgo" * 500, "mimeType": "image/png"}]}
    shot = other_tool("mcp__browser__screenshot", {"url": "http://localhost:3000"}, image, 2000)
    assert shot is not None
    assert shot.content.endswith("Answered: content.type: image; content.mimeType: image/png")
    replies = {"list": (["a.py", "b.py"], "a.py, b.py"), "none": (None, ""), "number": (3, "3")}
    for reply, said in replies.values():
        obs = other_tool("mcp__files__list", {}, reply, 2000)
        assert obs is not None
        assert obs.content == "Used mcp__files__list" + (f"\nAnswered: {said}" if said else "")


def test_a_background_commands_output_is_read_as_a_commands(
    hook, project: Path, proj_engine: Engine
):
    """TaskOutput of a background test run: its totals as the outcome, the log's end; of a
    failed build: a failure with its error line first."""
    log = "==> file_system\nCompiling 7 files (.ex)\n" * 200 + "Finished in 4.2 seconds\n"
    passed = {
        "retrieval_status": "success",
        "task": {
            "task_id": "be613ab",
            "task_type": "local_bash",
            "status": "completed",
            "description": "Run transcript renderer tests",
            "output": log + "312 tests, 0 failures\n",
            "exitCode": 0,
        },
    }
    failed = {
        "retrieval_status": "success",
        "task": {
            "task_id": "bd0afab",
            "status": "completed",
            "description": "Build the frontend",
            "output": "src/tree.ts(3,1): error TS2304: Cannot find name 'Collection'.\n",
            "exitCode": 2,
        },
    }
    for response in (passed, failed):
        payload = _used(project, "TaskOutput", {"task_id": "x", "block": True}, response)
        assert hook("post-tool", payload).returncode == 0
    rows = {m.content.split("\n", 1)[0]: m for m in _hook_rows(proj_engine)}
    ok = rows["Background task Run transcript renderer tests (completed, exit code 0)"]
    assert "Outcome: tests: 312 passed, 0 failed" in ok.content
    assert ok.content.rstrip().endswith("312 tests, 0 failures")
    assert len(ok.content) < 700  # a passing run keeps its totals, not its log
    bad = rows["Failed: Background task Build the frontend (completed, exit code 2)"]
    assert "error TS2304: Cannot find name 'Collection'." in bad.content
    assert "failure" in bad.tags
