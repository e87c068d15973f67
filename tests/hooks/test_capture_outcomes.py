"""What a command's output says happened, kept where a next-day question looks: the commit,
push, tag, release and test totals a command reported ("Outcome: …" after the command line),
and for a failure the decisive error lines first (compiler, linter and CI output), also when
the exit status hid it (a test run piped into ``tail``). Hooks run as subprocesses fed
payloads shaped as real Claude Code sends them (INTEGRATION.md section 1.2); the outputs are
written here after real sessions' (../shared/data/transcripts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlode.engine import Engine


def _bash(project: Path, command: str, stdout: str, failed: bool = False) -> dict[str, Any]:
    base = {
        "session_id": "outcome-session",
        "transcript_path": str(project / "outcome.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    if failed:
        return {**base, "hook_event_name": "PostToolUseFailure", "error": stdout}
    return {
        **base,
        "hook_event_name": "PostToolUse",
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
    }


def _rows(engine: Engine) -> list[Any]:
    return engine.list_memories(sources=["hook"], limit=None)


def test_a_commit_and_push_are_stored_as_state(hook, project: Path, proj_engine: Engine):
    command = (
        "git add src/color/gradient_test.go && git commit -m \"$(cat <<'EOF'\n"
        'fix(color): satisfy fieldalignment\nEOF\n)" && git push origin next'
    )
    printed = (
        "[next 6be07325] fix(color): satisfy fieldalignment\n"
        " 1 file changed, 1 insertion(+), 1 deletion(-)\n"
        "To github.com:someone/app.git\n   62c5d6c0..6be07325  next -> next\n"
    )
    assert hook("post-tool", _bash(project, command, printed)).returncode == 0
    [row] = _rows(proj_engine)
    outcome = row.content.split("\n")[1]
    assert outcome.startswith("Outcome: committed 6be07325 on next: fix(color): satisfy")
    assert "pushed next -> next (62c5d6c0..6be07325)" in outcome
    assert "outcome" in row.tags and row.importance > 0.3
    assert row.metadata["outcomes"][0].startswith("committed 6be07325")


def test_a_git_log_says_where_its_ref_was(hook, project: Path, proj_engine: Engine):
    """ "Which commit was next on before …" is answered by a listing whose first line sits
    after a long status in the output: the ref's first commit goes in the outcome line (the
    shape of a real oh-my-posh session); a listing in another format says nothing."""
    status = "On branch next\n" + "\n".join(f"\tmodified:   src/f{i}.go" for i in range(40))
    printed = (
        f"{status}\n9f012815 fix(pwsh): stop async prompt clobbering wrappers\n"
        "218d7361 fix(color): remove stray blank line\n"
    )
    command = "git status && git log --oneline origin/next -3"
    assert hook("post-tool", _bash(project, command, printed)).returncode == 0
    [row] = _rows(proj_engine)
    outcome = row.content.split("\n")[1]
    assert outcome.startswith("Outcome: ")
    assert "log origin/next: 9f012815 fix(pwsh): stop async prompt clobbering wrappers" in outcome
    full = "commit 9f0128150000aaaa\nAuthor: someone\n\n    fix(pwsh): stop async"
    assert hook("post-tool", _bash(project, "git log -1", full)).returncode == 0
    [other] = [m for m in _rows(proj_engine) if m.id != row.id]
    assert "Outcome" not in other.content


def test_a_piped_test_run_that_failed_is_a_failure(hook, project: Path, proj_engine: Engine):
    """``go test … | tail`` exits 0: its output says it failed, and the failing lines lead."""
    passing = "\n".join(f"=== RUN   TestCase{i}\n--- PASS: TestCase{i} (0.00s)" for i in range(40))
    printed = (
        "# example.com/app/color [example.com/app/color.test]\n"
        "color/gradient_test.go:215:9: undefined: assert.Greater\n"
        "FAIL\texample.com/app/color [build failed]\n"
        f"{passing}\nok  \texample.com/app/terminal\t0.12s\n"
    )
    command = "go test ./color/... ./terminal/... -v 2>&1 | tail -300"
    assert hook("post-tool", _bash(project, command, printed)).returncode == 0
    [row] = _rows(proj_engine)
    lines = row.content.split("\n")
    assert lines[0] == f"Failed: $ {command}"
    # what failed first (a reflection or an excerpt reads on from the head), then the totals
    assert lines[1] == "color/gradient_test.go:215:9: undefined: assert.Greater"
    assert "Outcome: tests: 1 passed, 1 failed" in lines[2:5]
    assert "failure" in row.tags
    # a passing run stays a plain command with its totals
    ok = "ok  \texample.com/app/color\t0.10s\nok  \texample.com/app/terminal\t0.12s\n"
    assert hook("post-tool", _bash(project, "go test ./...", ok)).returncode == 0
    [plain] = [m for m in _rows(proj_engine) if m.id != row.id]
    assert plain.content.startswith("$ go test ./...\nOutcome: tests: 2 passed")
    assert "failure" not in plain.tags
    # a passing run's log is kept by its end, where the totals are, and by its first lines:
    # what the script ran
    log = "\n".join(f"[Routes] POST /api/evaluate request {i}" for i in range(100))
    head = "$ bun test src/\nbun test v1.3.5 (1e86cebd)\n\nsrc/api/parser.test.ts:\n"
    printed = f"{head}{log}\n 1274 pass\n 0 fail\nRan 1274 tests across 56 files. [719.00ms]\n"
    assert hook("post-tool", _bash(project, "bun run test 2>&1", printed)).returncode == 0
    [bun] = [m for m in _rows(proj_engine) if m.content.startswith("$ bun run test")]
    assert "Outcome: tests: 1274 passed, 0 failed" in bun.content
    assert "request 99" in bun.content and "request 50" not in bun.content
    assert "[stdout]\n$ bun test src/\nbun test v1.3.5 (1e86cebd)\n…\n" in bun.content
    assert "parser.test.ts" not in bun.content


def test_what_a_long_log_kept_printing_is_kept_once_with_its_count(
    hook, project: Path, proj_engine: Engine
):
    """A message a passing run printed again and again, its numbers aside, sits in the middle
    the stored head and end leave out: it is kept once, with its count, after the output. A
    stack frame, a quoted source line or a dump's opening line repeats as often and is no
    message (the shape of a real bun log, PackmindHub-context-evaluator)."""
    clamps = "\n".join(
        f"[SnippetExtractor] Line range {i}-{i + 5} exceeds file length {i // 2}, clamping"
        for i in range(10, 50, 8)
    )
    frames = "\n".join(f"    at runNext (/app/src/limiter.ts:55:{i})" for i in range(9))
    quoted = "\n".join(f"104 | \t\t\tconst items = [{i}, 2, 3];" for i in range(9))
    quoted += "\n" + "\n".join("[Routes] Request body: {" for _ in range(9))  # a dump opens
    tests = "\n".join(f"(pass) parser > case {name} [0.2ms]" for name in "abcdefghijklmnop")
    printed = (
        f"$ bun test src/\nbun test v1.3.5\n{clamps}\n{frames}\n{quoted}\n"
        f"[Parser] Warning: could not parse the response\n{tests}\n"
        " 1274 pass\n 0 fail\nRan 1274 tests across 56 files. [719.00ms]\n"
    )
    assert hook("post-tool", _bash(project, "bun run test 2>&1", printed)).returncode == 0
    [row] = _rows(proj_engine)
    assert (
        "\n[printed 5 times] [SnippetExtractor] Line range 10-15 exceeds file length 5, clamping"
        in row.content
    )
    assert row.content.count("[printed") == 1  # not frames, quoted source, dumps or the tests
    assert row.content.index("[printed") > row.content.index("[stdout]")  # after the output
    assert "[Parser] Warning" not in row.content  # printed once, in the middle
    # a failed run's long error keeps what it kept printing too
    filler = "\n".join(f"step {i} ran" for i in range(60))
    failing = f"Exit code 1\n{filler}\n{clamps}\n{frames}\n{filler}\nerror: 1 test failed\n"
    hook("post-tool-failure", _bash(project, "bun run test:ci", failing, failed=True))
    [failure] = [m for m in _rows(proj_engine) if m.id != row.id]
    assert "[printed 5 times] [SnippetExtractor] Line range" in failure.content


def test_a_long_diff_keeps_the_versions_it_adds(hook, project: Path, proj_engine: Engine):
    """A lock file's diff is long, and which version came in sits in its middle: the versions
    its added lines name are kept on one line, a scope's family at one version as one item (the
    shape of a real bun.lock diff, PackmindHub-context-evaluator); a setting's number, a
    removed line and prose are not versions."""
    family = ", ".join(f'"@zag-js/part{i}": "1.33.1"' for i in range(40))
    filler = "\n".join(f"   unchanged line {i} of the lock file" for i in range(80))
    printed = (
        " frontend/bun.lock    | 266 ++++++++++++++++++++-\n"
        " frontend/package.json |   5 +-\n\n"
        f"{filler}\n"
        '  +        "@chakra-ui/react": "^3.33.0",\n'
        '           "react": "^18.3.1",\n'
        '  -    "left-pad": ["left-pad@1.3.0", "", {}],\n'
        f'  +    "@ark-ui/react": ["@ark-ui/react@5.31.0", {{ "dependencies": {{ {family} }} }}],\n'
        "  +timeout: 1.5\n"
        "  +the retry budget is 2.5 seconds\n"
        '  +name = "serde"\n'
        '  +version = "1.0.193"\n'
        "  +github.com/lucasb-eyer/go-colorful v1.2.0 h1:abc=\n"
        f"{filler}\n"
    )
    assert hook("post-tool", _bash(project, "git diff", printed)).returncode == 0
    [row] = _rows(proj_engine)
    [line] = [x for x in row.content.splitlines() if x.startswith("[versions added] ")]
    # before the output: a long text's vector is of its start
    assert row.content.index(line) < row.content.index("[stdout]")
    assert line == (
        "[versions added] @chakra-ui/react ^3.33.0, @ark-ui/react 5.31.0, @zag-js/* 1.33.1 (40),"
        " serde 1.0.193, github.com/lucasb-eyer/go-colorful v1.2.0"
    )


def test_a_long_failure_log_keeps_its_decisive_lines(hook, project: Path, proj_engine: Engine):
    """A pre-commit/CI log longer than the error excerpt: the error lines come first."""
    noise = "\n".join(f"[group] step {i} output line that says nothing" for i in range(200))
    log = (
        f"Exit code 1\n{noise}\n"
        "lint\tFieldalignment\t2026-07-24T11:38:48.38Z ##[error]/home/runner/work/app/"
        "src/color/gradient_test.go:247:13: struct with 64 pointer bytes could be 56\n"
        f"{noise}\n"
    )
    command = "gh run view 3009 --log-failed 2>&1 | tail -150; exit 1"
    assert hook("post-tool-failure", _bash(project, command, log, failed=True)).returncode == 0
    [row] = _rows(proj_engine)
    lines = row.content.split("\n")
    assert lines[0].startswith("Failed: $ gh run view 3009")
    assert "gradient_test.go:247:13: struct with 64 pointer bytes could be 56" in lines[2]
    assert "Outcome: CI job lint failed at step Fieldalignment" in lines


def test_the_turns_last_message_is_kept_as_a_report(hook, project: Path, proj_engine: Engine):
    """Stop's last_assistant_message says what was done and why in the assistant's words; a
    short reply is not kept, and a Stop already continuing (stop_hook_active) stores nothing."""
    base = {
        "session_id": "outcome-session",
        "transcript_path": str(project / "outcome.jsonl"),
        "cwd": str(project),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    message = (
        "Committed as 62c5d6c0. Root cause: the total delta grew linearly with the cell "
        "count against a hard cap, so wide segments all hit the same clamp."
    )
    assert hook("stop", {**base, "last_assistant_message": message}).returncode == 0
    assert hook("stop", {**base, "last_assistant_message": "Done."}).returncode == 0
    again = {**base, "stop_hook_active": True, "last_assistant_message": message + " Again."}
    assert hook("stop", again).returncode == 0
    [row] = [m for m in _rows(proj_engine) if "report" in m.tags]
    assert row.content == f"Assistant reported at the end of a turn: {message}"


def test_a_long_output_kept_in_a_file_is_read_to_its_end(
    hook, project: Path, proj_engine: Engine, tmp_path: Path
):
    """Claude Code hands the hook the first 30,000 characters of a longer output and the path
    of the file holding all of it (``persistedOutputPath``, as 2.1.197 sends it): the build's
    verdict at the end is read back from the file."""
    lines = [f"[{i}/1800] Compiling StratoAgent Module{i}.swift" for i in range(1800)]
    whole = "\n".join([*lines, "Build complete! (43.50s)"]) + "\n"
    saved = tmp_path / "tool-results" / "b44588bnc.txt"
    saved.parent.mkdir()
    saved.write_text(whole)
    payload = _bash(project, "swift build --package-path agent 2>&1", whole[:30_000])
    payload["tool_response"].update(
        persistedOutputPath=str(saved), persistedOutputSize=len(whole.encode())
    )
    assert hook("post-tool", payload).returncode == 0
    [row] = _rows(proj_engine)
    assert row.content.split("\n")[1] == "Outcome: build: succeeded in 43.50s"
    assert row.content.rstrip().endswith("Build complete! (43.50s)")
    assert "[0/1800] Compiling" in row.content  # its start, as the hook got it
    # a path that is gone (a transcript replayed on another machine), is not a file, or a file
    # shorter than the size Claude Code gives (not written to its end): the output as it came
    partial = tmp_path / "partial.txt"
    partial.write_text(whole[:40_000])
    for gone in (tmp_path / "gone.txt", tmp_path, partial):
        payload["tool_response"]["persistedOutputPath"] = str(gone)
        payload["tool_input"]["command"] = f"swift build # {gone.name}"
        assert hook("post-tool", payload).returncode == 0
    cut = [r for r in _rows(proj_engine) if "# " in r.content.split("\n")[0]]
    assert len(cut) == 3
    (short,) = [r for r in cut if "partial.txt" in r.content]
    last_written = whole[:40_000].rsplit("\n", 2)[-2]  # the partial file's last whole line
    assert last_written not in short.content
    assert all("Build complete" not in r.content for r in cut)


def test_a_long_command_keeps_how_long_it_took(hook, project: Path, proj_engine: Engine):
    """Claude Code gives a tool call's wall time (``duration_ms``, 2.1.197): a command that ran
    ten seconds or more keeps it after its command line, passing or failing; a quick one, or a
    time that is no number, adds nothing."""
    runs = [
        (_bash(project, "swift build --package-path agent", "Build complete!\n"), 43_500),
        (_bash(project, "npm test", "2 failing\n", failed=True), 125_400),
        (_bash(project, "ls", "a\nb\n"), 3_000),
        (_bash(project, "make lint", "ok\n"), "43500"),
        (_bash(project, "make docs", "ok\n"), True),
    ]
    for payload, duration in runs:
        event = "post-tool-failure" if "error" in payload else "post-tool"
        assert hook(event, {**payload, "duration_ms": duration}).returncode == 0
    firsts = {r.content.split("\n")[0] for r in _rows(proj_engine)}
    assert firsts == {
        "$ swift build --package-path agent (took 43.5 s)",
        "Failed: $ npm test (took 2 min 5 s)",
        "$ ls",
        "$ make lint",
        "$ make docs",
    }
