"""The transcript parser on real Claude Code files and on files written for each edge case."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from memlode.sources.transcript import EventKind, parse_transcript
from memlode.sources.turns import build_turns, summaries


def load_factory() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "transcript_factory", Path(__file__).with_name("transcript_factory.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


factory = load_factory()
REAL = factory.REAL_TRANSCRIPTS
needs_real = pytest.mark.skipif(
    not REAL.is_dir(), reason=f"real transcripts not available ({REAL} is absent)"
)

# Counted by reading each file line by line (see the notes beside each entry):
# (lines, malformed, main turns, sidechain turns, summaries)
REAL_COUNTS = {
    # 19 lines, the last without a newline (whole JSON, so taken). Malformed: "contenst"
    # instead of content, message "error", "massive error", {"silly"} (no type), 42, [1],
    # content ["wow error"]. Turns: 3 prompts + "/test-command" answered by the assistant.
    "claude-code-log/edge_cases.jsonl": (19, 7, 4, 0, 1),
    # 4 prompts (the last unanswered), 1 title.
    "claude-code-log/representative_messages.jsonl": (12, 0, 4, 0, 1),
    # Main thread starts mid-response (Task call, then its report): 1 turn. Inline sidechain:
    # two lines of one subagent reply = 1 turn; a lone tool_result of another agent = none.
    "claude-code-log/sidechain_integrated.jsonl": (6, 0, 1, 1, 0),
    "claude-code-log/todowrite_examples.jsonl": (12, 0, 2, 0, 1),
    # One prompt, interrupted; /model is a local command (no turn).
    "spotter/short.jsonl": (15, 0, 1, 0, 0),
    # /handgemacht:create-beads (answered) and "create the beads"; the Task subagent's work
    # arrives as agent_progress records: 1 sidechain turn.
    "spotter/subagent.jsonl": (96, 0, 2, 1, 0),
    # Two prompts; /mcp in between is a local command.
    "spotter/tool_heavy.jsonl": (39, 0, 2, 0, 0),
}


@needs_real
def test_every_real_file_is_listed() -> None:
    found = {str(p.relative_to(REAL)) for p in factory.real_fixtures()}
    assert found == set(REAL_COUNTS)


@needs_real
@pytest.mark.parametrize("name", sorted(REAL_COUNTS))
def test_real_file_counts(name: str) -> None:
    lines, malformed, main_turns, side_turns, n_summaries = REAL_COUNTS[name]
    transcript = parse_transcript(REAL / name)
    assert transcript.lines == lines
    assert transcript.malformed == malformed
    assert not transcript.partial_tail
    assert len(build_turns(transcript.main)) == main_turns
    assert sum(len(build_turns(t)) for t in transcript.sidechains) == side_turns
    assert len(summaries(transcript)) == n_summaries
    assert transcript.abandoned == 0


@needs_real
def test_real_parallel_tool_calls_are_paired_not_forks() -> None:
    # short.jsonl: Bash and Glob called in one response; the Bash result's parent is the Bash
    # line while the conversation continues under Glob. Both stay, both are paired.
    transcript = parse_transcript(REAL / "spotter/short.jsonl")
    (turn,) = build_turns(transcript.main)
    assert [t.name for t in turn.tools] == ["Bash", "Glob"]
    assert all(t.result is not None for t in turn.tools)
    assert turn.tools[0].structured is not None  # toolUseResult attached
    assert turn.interrupted
    # one response spread over five lines (text, thinking, text, tool_use, tool_use)
    responses = [e for e in transcript.main.events if e.kind is EventKind.ASSISTANT]
    assert len(responses) == 1 and len(responses[0].uuids) == 5


@needs_real
def test_real_subagent_progress_is_its_own_thread() -> None:
    transcript = parse_transcript(REAL / "spotter/subagent.jsonl")
    (side,) = transcript.sidechains
    assert (side.key, side.origin, side.sidechain) == ("afb92ff", "progress", True)
    (turn,) = build_turns(side)
    assert turn.user_text.startswith("Draft bead content for setting up Credo")
    main = build_turns(transcript.main)
    assert main[0].user_text.startswith("/handgemacht:create-beads websearch")
    assert main[0].next_user_text == "create the beads"
    assert len(main[0].tools) == 12 and all(t.result is not None for t in main[0].tools)
    assert transcript.session_id == "491e126e-1e71-469c-ade2-fcc8af567c74"
    assert transcript.git_branch == "master"


@needs_real
def test_real_inline_sidechain_is_kept_apart() -> None:
    transcript = parse_transcript(REAL / "claude-code-log/sidechain_integrated.jsonl")
    (main,) = build_turns(transcript.main)
    assert [t.name for t in main.tools] == ["Task"]
    assert all(not e.uuids[0].startswith("b674eedd") for e in transcript.main.events)
    side = [t for t in transcript.sidechains if build_turns(t)]
    assert len(side) == 1
    (turn,) = build_turns(side[0])
    assert turn.sidechain and [t.name for t in turn.tools] == ["Grep"]


def test_half_written_last_line_is_left_for_later(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("how do I rotate the API keys?")
    w.reply("Use the rotate command.")
    whole = path.stat().st_size
    w.write_raw('{"type": "user", "message": {"role": "user", "content": "and the old on')
    transcript = parse_transcript(path)
    assert transcript.partial_tail
    assert transcript.malformed == 0
    assert transcript.lines == 2
    assert transcript.consumed_bytes == whole
    w.write_raw(f'es?"}}, "uuid": "u-late", "parentUuid": "{w.last}"}}\n')
    transcript = parse_transcript(path)
    assert not transcript.partial_tail and transcript.lines == 3
    turns = build_turns(transcript.main)
    assert [t.user_text for t in turns] == ["how do I rotate the API keys?", "and the old ones?"]


def test_malformed_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("first question")
    w.write_raw("not json at all\n")
    w.write_raw("[1, 2]\n")
    w.write_raw('{"type": "assistant", "message": "oops"}\n')
    w.write_raw(b"\xff\xfe{}\n".decode("latin-1"))
    w.write_raw("\n")  # blank lines are not records and not errors
    w.reply("first answer")
    transcript = parse_transcript(path)
    assert transcript.malformed == 4
    (turn,) = build_turns(transcript.main)
    assert turn.blocks[0].text == "first answer"


def test_assistant_lines_merge_by_message_id_and_tools_pair(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("fix the login bug")
    w.reply("Let me look.", msg_id="msg_A", stop=None)
    w.tool(
        "Read",
        {"file_path": "/home/dev/projects/demo-app/auth.py"},
        "def login(): ...",
        msg_id="msg_A",
    )
    w.tool(
        "Edit",
        {"file_path": "/home/dev/projects/demo-app/auth.py", "old_string": "a", "new_string": "b"},
        "ok",
        msg_id="msg_A",
        structured={"filePath": "auth.py"},
    )
    w.reply("Fixed.", msg_id="msg_B")
    w.turn_duration()
    transcript = parse_transcript(path)
    responses = [e for e in transcript.main.events if e.kind is EventKind.ASSISTANT]
    assert [r.message_id for r in responses] == ["msg_A", "msg_B"]
    assert len(responses[0].uuids) == 3
    (turn,) = build_turns(transcript.main)
    assert turn.complete and turn.provisional
    read, edit = turn.tools
    assert read.result == "def login(): ..." and edit.structured == {"filePath": "auth.py"}


def test_duplicate_uuids_are_read_once(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("question")
    w.reply("answer")
    lines = path.read_text().splitlines(keepends=True)
    w.write_raw("".join(lines))  # a resumed session re-writes history
    transcript = parse_transcript(path)
    assert transcript.duplicates == 2
    assert len(build_turns(transcript.main)) == 1


def test_compact_boundary_is_followed_through_logical_parent(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("set up the database schema")
    w.reply("Created tables users and orders.")
    w.compact("The user set up a schema with users and orders tables.")
    w.prompt("now add an index on orders.user_id")
    w.reply("Added the index.")
    transcript = parse_transcript(path)
    assert transcript.compact_boundaries == 1
    assert transcript.abandoned == 0
    turns = build_turns(transcript.main)
    assert [t.user_text for t in turns] == [
        "set up the database schema",
        "now add an index on orders.user_id",
    ]
    (summary,) = summaries(transcript)
    assert summary.kind == "compaction" and "orders tables" in summary.text


def test_rewind_fork_drops_the_abandoned_branch(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("write a parser for the config")
    fork_point = w.reply("Here is a parser using regexes.")
    w.prompt("use PyYAML instead of regexes")
    w.reply("Switched to an abandoned-yaml approach.")
    w.tool("Edit", {"file_path": "config.py", "old_string": "re", "new_string": "yaml"}, "ok")
    # the user rewinds to after the first answer and asks something else
    w.prompt("actually use tomllib", parent=fork_point)
    w.reply("Switched to tomllib.")
    transcript = parse_transcript(path)
    assert transcript.abandoned == 4  # prompt, reply, tool_use, tool_result
    turns = build_turns(transcript.main)
    assert [t.user_text for t in turns] == [
        "write a parser for the config",
        "actually use tomllib",
    ]
    assert turns[0].next_user_text == "actually use tomllib"
    text = json.dumps([e.text for e in transcript.main.events]) + str(turns)
    assert "abandoned-yaml" not in text


def test_regenerated_reply_keeps_the_newest(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    question = w.prompt("name the service")
    w.reply("Call it foo.")
    w.last = question
    w.reply("Call it bar.")
    (turn,) = build_turns(parse_transcript(path).main)
    assert [b.text for b in turn.blocks] == ["Call it bar."]


def test_commands_meta_and_notifications(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("<command-name>/model</command-name>\n<command-args></command-args>")
    w.prompt("<local-command-stdout>Kept model</local-command-stdout>")
    w.prompt(
        "<command-message>review</command-message>\n<command-name>/review</command-name>"
        "\n<command-args>the auth module</command-args>"
    )
    w.record(
        {
            "type": "user",
            "isMeta": True,
            "message": {"role": "user", "content": "Review the code carefully."},
        }
    )
    w.reply("The auth module looks fine.")
    w.prompt("<task-notification>build finished</task-notification>")
    w.prompt("[Request interrupted by user]")
    turns = build_turns(parse_transcript(path).main)
    assert len(turns) == 1
    assert turns[0].user_text == "/review the auth module"
    assert turns[0].user_kind == "command" and turns[0].interrupted


def test_subagent_file_is_one_sidechain_thread(tmp_path: Path) -> None:
    folder = tmp_path / "sess-0001-aaaa" / "subagents"
    folder.mkdir(parents=True)
    path = folder / "agent-a1b2c3.jsonl"
    w = factory.TranscriptWriter(path, sidechain=True, agent_id="a1b2c3")
    w.prompt("find every caller of load_config")
    w.tool("Grep", {"pattern": "load_config"}, "app.py:3")
    w.reply("One caller: app.py line 3.")
    transcript = parse_transcript(path)
    assert build_turns(transcript.main) == []
    (thread,) = transcript.sidechains
    assert (thread.key, thread.origin) == ("a1b2c3", "file")
    (turn,) = build_turns(thread)
    assert turn.sidechain and turn.user_text == "find every caller of load_config"


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    transcript = parse_transcript(path)
    assert transcript.lines == 0 and build_turns(transcript.main) == []
