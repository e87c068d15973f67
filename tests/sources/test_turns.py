"""Turns, sub-chunks with overlap, and action chunks."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path
from types import ModuleType

from memlode.sources.transcript import parse_transcript
from memlode.sources.turns import (
    CHUNK_WORDS,
    OVERLAP_RATIO,
    build_turns,
    chunk_text,
    turn_chunks,
)


def load_factory() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "transcript_factory", Path(__file__).with_name("transcript_factory.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


factory = load_factory()
CARRY = int(CHUNK_WORDS * OVERLAP_RATIO)


def long_answer(sections: int) -> str:
    """Markdown with headings, paragraphs, lists and code: about 390 words per section."""
    parts = []
    for s in range(sections):
        parts.append(f"## Section {s}: module mod{s}\n")
        for p in range(3):
            words = " ".join(f"w{s}x{p}x{i}" for i in range(90))
            parts.append(f"Paragraph {p} of section {s}. {words}.\n")
        parts.append("- item one of the list\n- item two of the list\n")
        code = "\n".join(f"    value_{s}_{i} = compute({i})" for i in range(20))
        parts.append(f"```python\ndef block_{s}():\n{code}\n```\n")
    return "\n".join(parts)


def test_turn_holds_the_next_prompt_and_last_is_provisional(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("why does the cache miss?")
    w.reply("The key includes a timestamp.")
    w.prompt("that fixed it, thanks")
    w.reply("Glad it works.")
    first, last = build_turns(parse_transcript(path).main)
    assert first.next_user_text == "that fixed it, thanks" and not first.provisional
    assert last.provisional and last.next_user_text == ""
    (chunk,) = turn_chunks(first)
    assert chunk.kind == "turn"
    assert chunk.text.splitlines()[0] == "User: why does the cache miss?"
    assert "Assistant: The key includes a timestamp." in chunk.text
    assert chunk.text.endswith("Next user message: that fixed it, thanks")
    assert len(chunk.uuids) == 2  # the prompt line and the reply line


def test_a_short_reply_shows_the_end_of_what_it_answers(tmp_path: Path) -> None:
    """ "both" alone says nothing: its turn shows the end of the message it answered (the
    options are last), so that the next day "where did we leave the transcript?" finds it."""
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("can we put this session's transcript into the repo?")
    options = " ".join(f"w{i}" for i in range(60))
    w.reply(f"The transcript is 2.3MB. {options} Raw JSONL or a Markdown version? Or both?")
    w.prompt("both")
    w.tool("Bash", {"command": "cp session.jsonl transcripts/conversation.jsonl"}, "")
    w.prompt("thanks, that is all for today")
    first, reply, last = build_turns(parse_transcript(path).main)
    assert first.replied_to == "" and last.replied_to == ""  # a prompt of more words
    said = turn_chunks(reply)[0].text
    head = said.splitlines()[0]
    assert head.startswith('User, to "… w') and head.endswith('Markdown version? Or both?": both')
    quoted = head.split('"')[1].split()
    assert quoted[0] == "…" and len(quoted) == 1 + 40 and quoted[1] == "w28"  # its last 40 words
    assert "[Bash] cp session.jsonl transcripts/conversation.jsonl" in said


def test_short_text_is_one_chunk() -> None:
    chunks = chunk_text([("one two three", ["u1"]), ("four five", ["u2"])])
    assert chunks == [("one two three\n\nfour five", ["u1", "u2"])]


def test_fifty_thousand_token_turn_is_split_with_overlap(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("document every module in the repository")
    answer = long_answer(100)  # ~36.6k words: more than 50k tokens
    assert len(answer.split()) > 36_000
    w.reply(answer)
    (turn,) = build_turns(parse_transcript(path).main)
    chunks = [c for c in turn_chunks(turn) if c.kind == "turn"]
    assert len(chunks) > 200
    assert all(c.parts == len(chunks) for c in chunks)
    assert [c.part for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert len(c.text.split()) <= CHUNK_WORDS
    for prev, cur in itertools.pairwise(chunks):
        # each later chunk names the question, then carries the previous chunk's tail
        head, carried, _body = cur.text.split("\n\n", 2)
        assert head.startswith("(User: document every module")
        tail = " ".join(prev.text.split()[-CARRY:])
        assert carried == "… " + tail
    # nothing is lost: every word of the answer is in some chunk
    seen = set()
    for c in chunks:
        seen.update(c.text.split())
    missing = [word for word in answer.split() if word not in seen]
    assert missing == []
    # a code block that fits stays whole in one chunk
    assert any("def block_7():" in c.text and "value_7_19 = compute(19)" in c.text for c in chunks)
    # headings start units: a heading never ends a chunk's own body
    for c in chunks:
        assert not c.text.rstrip().splitlines()[-1].startswith("## ")


def test_action_chunks_for_tool_heavy_turns(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path, cwd="/home/dev/projects/demo-app", branch="fix/login")
    w.prompt("the login fails for emails with a plus sign")
    w.tool("Grep", {"pattern": "def login"}, "auth.py:10")
    w.tool(
        "Edit",
        {
            "file_path": "/home/dev/projects/demo-app/src/auth.py",
            "old_string": "email.split('+')[0]",
            "new_string": "email",
        },
        "ok",
    )
    w.tool(
        "Bash",
        {"command": "pytest -q tests/test_auth.py", "description": "Run auth tests"},
        "1 failed",
        is_error=True,
    )
    w.reply("The plus-sign handling is fixed; one unrelated test still fails.")
    (turn,) = build_turns(parse_transcript(path).main)
    chunks = turn_chunks(turn)
    kinds = [c.kind for c in chunks]
    assert kinds == ["turn", "action"]
    action = chunks[1].text
    assert action.startswith('On 2026-03-02 09:00 on branch fix/login, asked "the login fails')
    assert "- used Grep on def login" in action
    assert "- used Edit on src/auth.py to change `email.split('+')[0]` to `email`" in action
    assert "- ran `pytest -q tests/test_auth.py` to run auth tests (it failed: 1 failed)" in action
    assert len(chunks[1].uuids) == 6  # three tool_use lines and three result lines
    # the turn chunk lists the tools briefly, without their output
    assert "[Edit] src/auth.py" in chunks[0].text and "auth.py:10" not in chunks[0].text


def test_an_edit_that_adds_to_a_long_start_shows_where_it_changes(tmp_path: Path) -> None:
    """An edit that adds a line after many words it keeps (README build dependencies, after a
    real cosmic-bing-wallpaper session) shows the words where old and new part, not their
    shared start twice; a short edit shows both whole."""
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path, cwd="/home/dev/projects/demo-app", branch="main")
    w.prompt("add the tray's build dependency to the README")
    deps = "**Build Dependencies** (Arch Linux):\n```bash\nsudo pacman -S --needed \\\n"
    deps += "".join(f"  {name} \\\n" for name in ("base-devel", "cargo", "git", "just"))
    w.tool(
        "Edit",
        {
            "file_path": "/home/dev/projects/demo-app/README.md",
            "old_string": deps + "  libxkbcommon\n```",
            "new_string": deps + "  libxkbcommon \\\n  dbus\n```",
        },
        "ok",
    )
    w.tool(
        "Edit",
        {
            "file_path": "/home/dev/projects/demo-app/a.py",
            "old_string": "x = 1",
            "new_string": "x = 2",
        },
        "ok",
    )
    w.reply("Added dbus to the build dependencies.")
    (turn,) = build_turns(parse_transcript(path).main)
    action = turn_chunks(turn)[1].text
    assert (
        "to change `… \\ just \\ libxkbcommon ```` to `… \\ just \\ libxkbcommon \\ dbus ````"
        in action
    )
    assert "to change `x = 1` to `x = 2`" in action


def test_a_single_read_gets_no_action_chunk(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("what does main.py do?")
    w.tool("Read", {"file_path": "/home/dev/projects/demo-app/main.py"}, "print('hi')")
    w.reply("It prints hi.")
    (turn,) = build_turns(parse_transcript(path).main)
    assert [c.kind for c in turn_chunks(turn)] == ["turn"]
