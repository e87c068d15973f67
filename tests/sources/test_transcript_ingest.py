"""Incremental ingest of transcripts into a real store: provisional turns, appends, rewinds."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.transcripts import ingest_transcript
from memlode.errors import InvalidInput, NotFound
from memlode.project import make_key
from memlode.types import Memory


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


def stored(engine: Engine) -> list[Memory]:
    return engine.list_memories(namespace="*", sources=["transcript"], limit=None)


def by_turn(engine: Engine) -> dict[tuple[str, int], list[Memory]]:
    out: dict[tuple[str, int], list[Memory]] = {}
    for m in stored(engine):
        if m.metadata["kind"] == "turn":
            out.setdefault((m.metadata["thread"], m.metadata["turn"]), []).append(m)
    return out


def snapshot(engine: Engine) -> list[tuple[str, str, str]]:
    rows = engine.conn.execute("SELECT id, content, metadata FROM memories ORDER BY id")
    return [tuple(r) for r in rows]


@pytest.mark.skipif(not REAL.is_dir(), reason=f"{REAL} is absent")
def test_real_files_become_memories(engine: Engine) -> None:
    reports = [ingest_transcript(engine, p) for p in factory.real_fixtures()]
    assert sum(r.turns for r in reports) == 16
    assert sum(r.sidechain_turns for r in reports) == 2
    assert sum(r.malformed for r in reports) == 7
    memories = stored(engine)
    assert len(memories) == sum(r.chunks_added for r in reports) > 16
    kinds = {m.metadata["kind"] for m in memories}
    assert kinds == {"turn", "action", "summary"}
    spotter = [m for m in memories if m.session_id == "491e126e-1e71-469c-ade2-fcc8af567c74"]
    # the cwd /home/marco/projects/spotter does not exist here: keyed by its folder name and path
    assert {m.namespace for m in spotter} == {make_key("spotter", "/home/marco/projects/spotter")}
    turn = next(m for m in spotter if m.metadata["kind"] == "turn" and m.metadata["turn"] == 1)
    # "create the beads" is a short reply: it shows the end of the plan it answered
    assert turn.content.startswith('User, to "… → dialyzer → deps.audit.')
    assert 'All changes committed": create the beads' in turn.content
    assert turn.created_at == "2026-02-10T22:01:14.815000Z"
    meta = turn.metadata
    assert meta["git_branch"] == "master" and meta["cwd"] == "/home/marco/projects/spotter"
    assert meta["thread"] == "main" and meta["uuids"][0] == "091e0ff4-fd44-4213-968d-b1fe201aae6f"
    assert meta["started_at"] <= meta["ended_at"]
    side = [m for m in spotter if m.metadata.get("sidechain")]
    assert side and {m.metadata["agent_id"] for m in side} == {"afb92ff"}
    summary = [m for m in memories if m.metadata["kind"] == "summary"]
    assert len(summary) == 3 and {str(m.memory_type) for m in summary} == {"insight"}
    # each Claude Code session got a sessions row
    assert engine.conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 7
    # found by full-text search with the source filter
    hits = engine.search("dialyxir credo", namespace="*", sources=["transcript"])
    assert hits and all(h.memory.source == "transcript" for h in hits)


def test_unchanged_file_is_not_read_again(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("how is the cache invalidated?")
    w.reply("By a version key.")
    first = ingest_transcript(engine, path)
    assert first.status == "ingested" and first.units_added == 1
    before = snapshot(engine)
    again = ingest_transcript(engine, path)
    assert again.status == "unchanged" and again.chunks_added == 0
    forced = ingest_transcript(engine, path, force=True)
    assert forced.status == "ingested" and forced.units_unchanged == 1
    assert forced.units_added == forced.units_replaced == forced.chunks_added == 0
    assert snapshot(engine) == before


def test_provisional_turn_is_completed_by_a_later_append(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("rename the users table to accounts")
    w.reply("Renamed it in a migration.")
    report = ingest_transcript(engine, path)
    assert report.provisional_turn == 0
    (old,) = by_turn(engine)[("main", 0)]
    assert "Next user message" not in old.content

    w.prompt("also update the ORM models")
    w.reply("Updated the models.")
    report = ingest_transcript(engine, path)
    assert (report.units_added, report.units_replaced, report.units_removed) == (1, 1, 0)
    assert report.provisional_turn == 1
    turns = by_turn(engine)
    assert sorted(turns) == [("main", 0), ("main", 1)]
    (done,) = turns[("main", 0)]
    assert done.content.endswith("Next user message: also update the ORM models")
    assert old.id not in {m.id for m in stored(engine)}  # replaced, not duplicated
    assert len(stored(engine)) == 2
    row = engine.conn.execute(
        "SELECT provisional_line, provisional_offset, read_lines FROM transcript_files"
    ).fetchone()
    assert (row[0], row[2]) == (2, 4)
    with path.open("rb") as fh:
        fh.seek(row[1])
        assert json.loads(fh.readline())["message"]["content"] == "also update the ORM models"


def test_append_adds_only_new_turns(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    for i in range(5):
        w.prompt(f"question number {i} about the scheduler")
        w.reply(f"answer number {i}")
    ingest_transcript(engine, path)
    ids = {k: [m.id for m in v] for k, v in by_turn(engine).items()}
    assert len(ids) == 5
    for i in range(5, 8):
        w.prompt(f"question number {i} about the scheduler")
        w.reply(f"answer number {i}")
    report = ingest_transcript(engine, path)
    # only the tail was read: turn 4 (provisional) is completed; 5, 6, 7 are new
    assert report.incremental and report.turns == 8 and report.provisional_turn == 7
    assert report.units_replaced == 1 and report.units_added == 3
    assert report.chunks_added == 4 and report.chunks_removed == 1
    after = {k: [m.id for m in v] for k, v in by_turn(engine).items()}
    assert len(after) == 8 and len(stored(engine)) == 8
    for i in range(4):
        assert after[("main", i)] == ids[("main", i)]


def test_half_written_last_line_then_completed(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("start the worker")
    w.reply("Started.")
    parent = w.last
    w.write_raw(
        f'{{"type": "user", "uuid": "late-1", "parentUuid": "{parent}", "message": {{"role"'
    )
    report = ingest_transcript(engine, path)
    assert report.partial_tail and report.malformed == 0 and report.turns == 1
    w.write_raw(': "user", "content": "stop the worker"}}\n')
    report = ingest_transcript(engine, path)
    assert not report.partial_tail and report.turns == 2
    assert sorted(by_turn(engine)) == [("main", 0), ("main", 1)]


def test_rewind_removes_the_abandoned_branch(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("pick a queue library")
    fork = w.reply("I suggest celery.")
    w.prompt("set up celery with redis")
    w.reply("Configured celery-redis-abandoned.")
    ingest_transcript(engine, path)
    assert any("celery-redis-abandoned" in m.content for m in stored(engine))
    w.prompt("use rq instead", parent=fork)
    w.reply("Configured rq.")
    report = ingest_transcript(engine, path)
    assert report.turns == 2
    contents = " ".join(m.content for m in stored(engine))
    assert "celery-redis-abandoned" not in contents
    assert "use rq instead" in contents
    assert len(by_turn(engine)) == 2


def test_compaction_summary_becomes_session_summary(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path, session_id="sess-compact")
    w.prompt("migrate the billing service to postgres")
    w.reply("Moved the billing tables.")
    w.compact("Billing moved from MySQL to Postgres; invoices table still pending.")
    w.prompt("now the invoices table")
    w.reply("Invoices migrated.")
    report = ingest_transcript(engine, path)
    assert report.turns == 2 and report.summaries == 1
    summary = [m for m in stored(engine) if m.metadata["kind"] == "summary"]
    assert len(summary) == 1 and "invoices table still pending" in summary[0].content
    session = engine.conn.execute(
        "SELECT summary, source, namespace FROM sessions WHERE id = 'sess-compact'"
    ).fetchone()
    assert "invoices table still pending" in session[0]
    assert session[1] == "claude-code"
    assert session[2] == make_key("demo-app", "/home/dev/projects/demo-app")  # not here: its path


def test_long_turn_keeps_unchanged_sub_chunks(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("explain the architecture in depth")
    paragraphs = [
        " ".join(f"p{p}word{i}" for i in range(60)) + "." for p in range(40)
    ]  # 2400 words
    w.reply("\n\n".join(paragraphs))
    ingest_transcript(engine, path)
    (first,) = [m for m in stored(engine) if m.metadata["part"] == 0]
    parts = by_turn(engine)[("main", 0)]
    assert len(parts) > 10
    w.prompt("thanks, now the deployment")
    w.reply("Deployment uses containers.")
    report = ingest_transcript(engine, path)
    assert report.units_replaced == 1
    parts_after = by_turn(engine)[("main", 0)]
    assert len(parts_after) == len(parts)
    # only the last sub-chunk (which now ends with the next prompt) is new
    assert first.id in {m.id for m in parts_after}
    assert len({m.id for m in parts} & {m.id for m in parts_after}) == len(parts) - 1


def test_namespace_from_an_existing_cwd(engine: Engine, tmp_path: Path) -> None:
    project = tmp_path / "shop-api"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname='shop-api'\n")
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path, cwd=str(project / "src"))
    w.prompt("add a health endpoint")
    w.reply("Added /health.")
    key = make_key("shop-api", str(project.resolve()))  # a marker folder: keyed by its path
    assert ingest_transcript(engine, path).namespace == key
    assert {m.namespace for m in stored(engine)} == {key}


def test_bad_input_changes_nothing(engine: Engine, tmp_path: Path) -> None:
    with pytest.raises(NotFound):
        ingest_transcript(engine, tmp_path / "missing.jsonl")
    junk = tmp_path / "notes.jsonl"
    junk.write_text("hello\nworld\n")
    with pytest.raises(InvalidInput, match="not a Claude Code transcript"):
        ingest_transcript(engine, junk)
    with pytest.raises(InvalidInput, match="not a file"):
        ingest_transcript(engine, tmp_path)
    assert stored(engine) == []
    assert engine.conn.execute("SELECT count(*) FROM transcript_files").fetchone()[0] == 0


def test_ingest_module_imports_nothing_heavy() -> None:
    code = (
        "import sys, memlode.engine.transcripts\n"
        "heavy = [m for m in ('numpy', 'onnxruntime', 'tokenizers', 'igraph', 'tree_sitter')"
        " if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ)
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def _content_view(engine: Engine) -> list[tuple[object, ...]]:
    view = []
    for m in stored(engine):
        meta = dict(m.metadata)
        meta.pop("transcript", None)
        view.append((m.content, json.dumps(meta, sort_keys=True), m.created_at, m.namespace))
    return sorted(view)


def test_incremental_ingest_equals_one_full_read(engine: Engine, tmp_path: Path) -> None:
    """Ingesting after every append (tail reads, with full reads forced by a rewind and a
    compaction) ends in the same store as reading the finished file once."""
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    modes = []

    def step() -> None:
        modes.append(ingest_transcript(engine, path).incremental)

    w.prompt("add retries to the HTTP client")
    step()
    w.tool("Read", {"file_path": "/home/dev/projects/demo-app/http.py"}, "class Client: ...")
    step()
    w.tool(
        "Edit",
        {
            "file_path": "/home/dev/projects/demo-app/http.py",
            "old_string": "get(",
            "new_string": "retry(get)(",
        },
        "ok",
    )
    fork = w.reply("Added retries with backoff.")
    step()
    w.prompt("and a timeout of 5 seconds")
    w.write_raw('{"type": "assistant", "message": {"id": "m-half", "content": [{"ty')
    step()
    w.write_raw('pe": "text", "text": "half line"}]}}\n')  # completed: malformed (no uuid ok)
    w.reply("Timeout set-abandoned.")
    step()
    w.prompt("make it configurable")
    w.reply("It reads HTTP_TIMEOUT-abandoned.")
    step()
    w.prompt("no timeout; log slow calls", parent=fork)  # rewind past the provisional turn
    w.reply("Logged the timeout.")
    step()
    w.compact("Retries and logging of slow calls were added to the HTTP client.")
    w.prompt("write tests for the retries")
    w.tool(
        "Write", {"file_path": "/home/dev/projects/demo-app/test_http.py", "content": "..."}, "ok"
    )
    w.reply("Tests written.")
    step()
    # a short reply shows the end of the turn before (``Turn.replied_to``), which a tail that
    # starts at it lacks: the ingest after it reads the whole file
    for i, prompt in enumerate(["follow-up 0 on the retries", "yes", "follow-up 2 on them"]):
        w.prompt(prompt)
        w.reply(f"done {i}")
        step()
    assert modes == [False, True, True, True, True, True, False, False, True, True, False]
    other = Engine(Settings.load({"namespace": "test", "db_path": str(tmp_path / "b.db")}))
    try:
        once = ingest_transcript(other, path)
        assert not once.incremental
        assert _content_view(engine) == _content_view(other)
        assert "-abandoned" not in str(_content_view(engine))
        assert once.turns == 6  # retries, log slow calls, tests, three follow-ups
        assert 'User, to "done 0": yes' in str(_content_view(engine))
        last = ingest_transcript(engine, path, force=True)
        assert (last.turns, last.malformed, last.lines) == (once.turns, once.malformed, once.lines)
        assert last.units_added == last.units_replaced == last.units_removed == 0
    finally:
        other.close()


@pytest.mark.parametrize(
    "name",
    [
        "JanDeDobbeleer-oh-my-posh/6878eb98-fd0b-43e6-82a0-ab8b38b612dc.jsonl",
        "reality2-roycdavies-cosmic-bing-wallpaper/8aef9b8f-ae65-42f1-b662-1b8e68b8fd1e.jsonl",
    ],
)
def test_a_real_session_read_as_it_grows_equals_one_full_read(
    engine: Engine, tmp_path: Path, name: str
) -> None:
    """A real session (newer record types: titles written again, messages typed while a reply
    ran) ingested every few lines, as Stop hooks would, without one failed ingest, ends in the
    store one read of the whole file gives."""
    source = REAL / name
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    lines = source.read_bytes().splitlines(keepends=True)
    path = tmp_path / source.name
    with path.open("wb") as fh:
        for start in range(0, len(lines), 40):
            fh.write(b"".join(lines[start : start + 40]))
            fh.flush()
            ingest_transcript(engine, path)
    other = Engine(Settings.load({"namespace": "test", "db_path": str(tmp_path / "b.db")}))
    try:
        once = ingest_transcript(other, path)
        assert _undated(_content_view(engine)) == _undated(_content_view(other))
        assert once.turns >= 6
    finally:
        other.close()


def _undated(view: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    """The view with the time of a session's title or linked pull request left out: their
    records carry none, so each is dated when first stored, which differs between two stores."""
    return sorted(
        (row[0], row[1], None, row[3])
        if '"kind": "summary"' in str(row[1]) and '"started_at"' not in str(row[1])
        else row
        for row in view
    )


def test_compaction_summary_is_appended_to_memory_md_once_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only with the write_compactions switch on, and only in the project the ingest runs in
    (the default, writing nothing into any repository, is in tests/e2e/safety)."""
    project = tmp_path / "app"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    monkeypatch.chdir(project)
    engine = Engine(Settings.load({"namespace": "test", "write_compactions": True}))
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path, session_id="sess-mem", cwd=str(project))
    w.prompt("migrate the billing service to postgres")
    w.reply("Moved the billing tables.")
    w.compact("Billing moved from MySQL to Postgres; invoices table still pending.")
    w.prompt("now the invoices table")
    w.reply("Invoices migrated.")
    ingest_transcript(engine, path)
    memory_md = (project / "MEMORY.md").read_text(encoding="utf-8")
    assert "## Compaction summary, 2026-03-02" in memory_md
    assert "invoices table still pending" in memory_md
    ingest_transcript(engine, path, force=True)  # a full re-read appends nothing new
    assert (project / "MEMORY.md").read_text(encoding="utf-8") == memory_md
    docs = engine.list_memories(namespace="*", sources=["doc"], limit=None)
    assert any("invoices table still pending" in m.content for m in docs)
    engine.close()


def test_a_message_typed_while_a_reply_ran_is_stored_as_an_instruction(
    engine: Engine, tmp_path: Path
) -> None:
    """Claude Code queues it (``queue-operation``) and hands it to the running turn without a
    user line of its own; harness notifications and two-word nudges are not stored."""
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path, session_id="sess-queued")
    w.prompt("implement the annotations epic")

    def queue(content: str) -> None:
        record = {"type": "queue-operation", "operation": "enqueue", "content": content}
        record.update(timestamp="2026-03-02T09:05:00.000Z", sessionId="sess-queued")
        w.write_raw(json.dumps(record) + "\n")

    queue("new beads for the epic were added. tackle them")
    queue("<task-notification><task-id>b0</task-id></task-notification>")
    queue("check again")
    w.write_raw(json.dumps({"type": "queue-operation", "operation": "remove"}) + "\n")
    w.reply("Committed the annotations work.")
    ingest_transcript(engine, path)
    told = [m for m in stored(engine) if "instruction" in m.tags]
    assert [m.content for m in told] == [
        "User said while the assistant worked: new beads for the epic were added. tackle them"
    ]
    assert told[0].created_at.startswith("2026-03-02T09:05:00")
    # a second ingest of the same file changes nothing
    assert ingest_transcript(engine, path).units_added == 0


def test_a_message_typed_during_the_last_turn_survives_the_next_tail_read(
    engine: Engine, tmp_path: Path
) -> None:
    """A tail read starts at the provisional turn, so it reads again a message typed while
    that turn ran: the message's stored unit is updated, not inserted twice (the second insert
    failed the whole ingest, and no later turn of the session was ever stored)."""
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path, session_id="sess-tail")
    w.prompt("set up the systemd timer for the daily update")
    record = {"type": "queue-operation", "operation": "enqueue", "sessionId": "sess-tail"}
    record.update(content="the timer should also run on boot", timestamp="2026-03-02T09:05:00Z")
    w.write_raw(json.dumps(record) + "\n")
    w.reply("Added OnBootSec to the timer.")
    first = ingest_transcript(engine, path)
    assert first.provisional_turn == 0
    w.prompt("copy the conversation log into the repo as conversation.jsonl")
    w.reply("Copied it to transcripts/conversation.jsonl.")
    report = ingest_transcript(engine, path)
    assert report.incremental and report.turns == 2
    contents = [m.content for m in stored(engine)]
    assert sorted(by_turn(engine)) == [("main", 0), ("main", 1)]
    assert sum("Copied it to transcripts/conversation.jsonl" in c for c in contents) == 1
    told = [c for c in contents if c.startswith("User said while the assistant worked")]
    assert told == ["User said while the assistant worked: the timer should also run on boot"]
    assert ingest_transcript(engine, path, force=True).units_added == 0


def test_a_session_title_written_again_and_again_is_read_incrementally(
    engine: Engine, tmp_path: Path
) -> None:
    """Claude Code 2.1.2xx appends the session's ``custom-title`` record again every few
    turns. A tail read meets it again: the title stored once is kept (an ingest that inserted
    it a second time failed, until a full read); a new title sends it to a full read."""
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path, session_id="sess-title")

    def title(text: str) -> None:
        record = {"type": "custom-title", "customTitle": text, "sessionId": "sess-title"}
        w.write_raw(json.dumps(record) + "\n")

    modes = []
    for i in range(4):
        w.prompt(f"tune the gradient step {i}")
        title("Status segment gradient keyword")
        w.reply(f"Tuned step {i}.")
        modes.append(ingest_transcript(engine, path).incremental)
    w.prompt("rename the keyword")
    title("Gradient keyword renamed")
    w.reply("Renamed.")
    modes.append(ingest_transcript(engine, path).incremental)
    assert modes == [False, True, True, True, False]
    titles = [m.content for m in stored(engine) if m.content.startswith("Session title")]
    assert titles == ["Session title: Gradient keyword renamed"]
    assert len(by_turn(engine)) == 5
    assert ingest_transcript(engine, path, force=True).units_added == 0


def test_an_enqueue_followed_by_the_same_prompt_is_the_prompt_not_an_interjection(
    engine: Engine, tmp_path: Path
) -> None:
    """Claude Code 2.1 writes an enqueue line before every prompt in print mode (and the same
    text as the user message after it): stored once, as the turn, never as "User said while
    the assistant worked"."""
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path, session_id="sess-print")
    text = "rename the billing retry constant to MAX_WEBHOOK_RETRIES everywhere"
    for operation in ("enqueue", "dequeue"):
        record = {"type": "queue-operation", "operation": operation, "sessionId": "sess-print"}
        record.update(content=text, timestamp="2026-03-02T09:05:00.000Z")
        w.write_raw(json.dumps(record) + "\n")
    w.prompt(text)
    w.reply("Renamed it in three files.")
    ingest_transcript(engine, path)
    rows = stored(engine)
    assert not [m for m in rows if m.content.startswith("User said while the assistant worked")]
    assert sum(text in m.content for m in rows) == 1
