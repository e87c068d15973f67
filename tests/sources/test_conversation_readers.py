"""The readers of Codex CLI rollouts and Gemini CLI chat files, on files those CLIs really wrote
(tests/clients/payloads/{codex,gemini}/, recorded from the scenarios of tests/clients/test_codex.py
and test_gemini.py), and which reader ``memlode.sources.conversations`` picks for a file.

``rollout-fix.jsonl``: Codex session 1 (cat, apply_patch, a failing check, a passing one, a
finding). ``rollout-follow-up-resumed.jsonl``: session 2 (a follow-up that calls memlode's
recall tool) then ``codex exec resume`` with an unrelated prompt; memlode's SessionStart and
prompt context went in as developer messages. ``chat-fix.jsonl``: Gemini's session 1 (read,
replace, a failing check, a passing one). ``chat-recall-hook-context.jsonl``: a later session
whose first prompt Gemini prefixed with memlode's ``<hook_context>`` briefing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from memlode.sources.conversations import detect_client, read_conversation
from memlode.sources.transcript import EventKind, Transcript
from memlode.sources.turns import Turn, build_turns, turn_chunks

PAYLOADS = Path(__file__).resolve().parents[1] / "clients" / "payloads"
CODEX_FIX = PAYLOADS / "codex" / "rollout-fix.jsonl"
CODEX_RESUMED = PAYLOADS / "codex" / "rollout-follow-up-resumed.jsonl"
GEMINI_FIX = PAYLOADS / "gemini" / "chat-fix.jsonl"
GEMINI_HOOKED = PAYLOADS / "gemini" / "chat-recall-hook-context.jsonl"

CODEX_PROMPT = "Why does the zebra parser cut wide tables? Read calc.py and fix it."
CODEX_FOLLOW_UP = "What limit did we set for the zebra parser widths in calc.py?"
CODEX_UNRELATED = "Write a haiku about autumn leaves falling on a quiet pond."
GEMINI_PROMPT = "Fix the add function in calc.py so the checks pass"
GEMINI_RECALL = "Remind me what the sign bug in the calc.py add function was"
GEMINI_ROOT = "/tmp/gmrun/gemini0/proj"  # where the Gemini recordings were made
# Text the clients wrote themselves into their files: never a user's words in a turn.
NOT_THE_USERS = (
    "<environment_context>",
    "<skills_instructions>",
    "## memlode",
    "<session_context>",
    "<hook_context>",
)


def turns_of(transcript: Transcript) -> list[Turn]:
    return build_turns(transcript.main)


def all_text(transcript: Transcript) -> str:
    return "\n".join(c.text for t in turns_of(transcript) for c in turn_chunks(t))


def test_each_file_is_read_by_its_writers_reader(tmp_path: Path) -> None:
    claude = tmp_path / "claude.jsonl"
    claude.write_text(
        json.dumps(
            {
                "type": "user",
                "uuid": "u1",
                "sessionId": "s",
                "message": {"role": "user", "content": "hello"},
            }
        )
        + "\n"
    )
    renamed = tmp_path / "whatever.jsonl"  # the content decides, not the name
    shutil.copy(GEMINI_FIX, renamed)
    found = {p.name: detect_client(p) for p in (CODEX_FIX, GEMINI_FIX, renamed, claude)}
    assert found == {
        CODEX_FIX.name: "codex",
        GEMINI_FIX.name: "gemini",
        "whatever.jsonl": "gemini",
        "claude.jsonl": "claude",
    }
    assert read_conversation(CODEX_FIX).client == "codex"
    assert read_conversation(renamed).client == "gemini"
    assert read_conversation(claude).client == "claude"


# ---- Codex CLI ---------------------------------------------------------------------------------


def test_codex_rollout_becomes_one_turn_with_the_prompt_verbatim() -> None:
    transcript = read_conversation(CODEX_FIX)
    assert transcript.session_id == "01a2340c-8cb7-7e73-8ba7-94c42bb44efa"
    assert transcript.cwd == "/tmp/cxrun/codex0/zebra"
    assert (transcript.lines, transcript.malformed) == (34, 0)
    (turn,) = turns_of(transcript)
    assert (turn.user_text, turn.user_kind, turn.complete) == (CODEX_PROMPT, "prompt", True)
    assert turn.git_branch == "master"
    assert [b.text for b in turn.blocks if b.text] == [
        "Finding: the zebra parser truncated widths because calc.LIMIT was 40;"
        " raised it to 4096 (pelican-7731)."
    ]
    prompts = [e for e in transcript.main.events if e.kind is EventKind.PROMPT]
    assert [e.text for e in prompts] == [CODEX_PROMPT]  # not its environment_context


def test_codex_tools_read_as_claude_codes() -> None:
    (turn,) = turns_of(read_conversation(CODEX_FIX))
    calls = [
        (t.name, t.input.get("command") or t.input.get("file_path"), t.is_error) for t in turn.tools
    ]
    assert calls == [
        ("Bash", "cat calc.py", False),
        ("Edit", "/tmp/cxrun/codex0/zebra/calc.py", False),
        ("Bash", "python3 check_calc.py --frobnicate", True),
        ("Bash", "python3 check_calc.py", False),
    ]
    edit = turn.tools[1]
    assert (edit.input["old_string"], edit.input["new_string"]) == ("LIMIT = 40", "LIMIT = 4096")
    failed = turn.tools[2]
    assert failed.result == "QuokkaFlagError: unknown option --frobnicate (expected none)"
    action = [c.text for c in turn_chunks(turn) if c.kind == "action"]
    assert len(action) == 1
    assert "used Edit on calc.py to change `LIMIT = 40` to `LIMIT = 4096`" in action[0]
    assert "ran `python3 check_calc.py --frobnicate` (it failed" in action[0]


def test_codex_developer_and_harness_messages_are_not_the_users_words() -> None:
    transcript = read_conversation(CODEX_RESUMED)
    raw = CODEX_RESUMED.read_text()
    assert "## memlode: what I remember" in raw and "<environment_context>" in raw
    turns = turns_of(transcript)
    assert [t.user_text for t in turns] == [CODEX_FOLLOW_UP, CODEX_UNRELATED]
    assert turns[0].next_user_text == CODEX_UNRELATED and turns[1].provisional
    assert [t.name for t in turns[0].tools] == ["mcp__memlode__recall_memory"]
    text = all_text(transcript)
    assert not [marker for marker in NOT_THE_USERS if marker in text]


def test_codex_tail_read_knows_its_session(tmp_path: Path) -> None:
    """A tail read (from the provisional turn on) has no session_meta line of its own."""
    whole = read_conversation(CODEX_RESUMED)
    last = turns_of(whole)[-1]
    tail = read_conversation(CODEX_RESUMED, start=last.offset, first_line=last.line)
    (turn,) = turns_of(tail)
    assert turn.user_text == CODEX_UNRELATED and turn.offset == last.offset
    assert tail.session_id == whole.session_id == turn.session_id
    assert turn.user_uuid == last.user_uuid is not None


def test_codex_rollback_drops_the_rolled_back_turns(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout.jsonl"
    shutil.copy(CODEX_RESUMED, rollout)
    event = {"type": "event_msg", "payload": {"type": "thread_rolled_back", "num_turns": 1}}
    with rollout.open("a") as fh:
        fh.write(json.dumps(event) + "\n")
    transcript = read_conversation(rollout)
    assert [t.user_text for t in turns_of(transcript)] == [CODEX_FOLLOW_UP]
    assert transcript.abandoned > 0


# ---- Gemini CLI --------------------------------------------------------------------------------


def test_gemini_chat_becomes_one_turn_its_rewrites_merged() -> None:
    transcript = read_conversation(GEMINI_FIX)
    assert transcript.session_id == "0ad57b55-5d6d-42ea-a2ca-90ab060ea9c9"
    (turn,) = turns_of(transcript)
    assert (turn.user_text, turn.user_kind) == (GEMINI_PROMPT, "prompt")
    # each reply is written twice (then again with its toolCalls): one call each, not two
    calls = [
        (t.name, t.input.get("command") or t.input.get("file_path"), t.is_error) for t in turn.tools
    ]
    assert calls == [
        ("Read", "calc.py", False),
        ("Edit", "/tmp/gmrun/gemini0/proj/calc.py", False),
        ("Bash", "sh check.sh first", True),
        ("Bash", "sh check.sh", False),
    ]
    assert turn.tools[2].result == "AssertionError: ZEBRA-4471 add(2, 2) returned 0"
    assert [b.text for b in turn.blocks if b.text] == [
        "Finding QUOKKA-3: add() in calc.py subtracted its arguments (a sign bug);"
        " it now returns a + b and the checks pass."
    ]
    assert "<session_context>" not in all_text(transcript)


def test_gemini_hook_context_is_cut_off_the_prompt() -> None:
    assert "<hook_context>## memlode" in GEMINI_HOOKED.read_text()
    transcript = read_conversation(GEMINI_HOOKED)
    (turn,) = turns_of(transcript)
    assert turn.user_text == GEMINI_RECALL
    assert [t.name for t in turn.tools] == ["mcp_memlode_recall_memory"]
    text = all_text(transcript)
    assert not [marker for marker in NOT_THE_USERS if marker in text]


def test_gemini_project_root_named_beside_chats(tmp_path: Path) -> None:
    """``<project temp dir>/.project_root`` names the project when its hash is the header's."""
    chats = tmp_path / "proj" / "chats"
    chats.mkdir(parents=True)
    chat = chats / GEMINI_FIX.name
    shutil.copy(GEMINI_FIX, chat)
    assert read_conversation(chat).cwd is None
    (chats.parent / ".project_root").write_text("/somewhere/else\n")
    assert read_conversation(chat).cwd is None  # another project's hash
    (chats.parent / ".project_root").write_text(GEMINI_ROOT + "\n")
    assert read_conversation(chat).cwd == GEMINI_ROOT


def test_gemini_rewind_and_rollback_drop_messages(tmp_path: Path) -> None:
    rewound = tmp_path / "rewound.jsonl"
    shutil.copy(GEMINI_HOOKED, rewound)
    lines = GEMINI_HOOKED.read_text().splitlines()
    prompt_id = json.loads(lines[2])["id"]
    with rewound.open("a") as fh:
        fh.write(json.dumps({"$rewindTo": prompt_id}) + "\n")
    transcript = read_conversation(rewound)
    assert turns_of(transcript) == [] and transcript.abandoned > 0

    # a cancelled prompt: the message list again, without it and what followed
    rolled = tmp_path / "rolled.jsonl"
    shutil.copy(GEMINI_HOOKED, rolled)
    first = json.loads(lines[1])["$set"]["messages"]
    with rolled.open("a") as fh:
        fh.write(json.dumps({"$set": {"messages": first}}) + "\n")
    assert turns_of(read_conversation(rolled)) == []


def test_gemini_tail_read_knows_its_session() -> None:
    whole = read_conversation(GEMINI_FIX)
    (turn,) = turns_of(whole)
    tail = read_conversation(GEMINI_FIX, start=turn.offset, first_line=turn.line)
    (again,) = turns_of(tail)
    assert tail.session_id == whole.session_id
    assert (again.user_uuid, again.offset, len(again.tools)) == (turn.user_uuid, turn.offset, 4)
    assert tail.abandoned == 0  # nothing in the tail forces a whole read
