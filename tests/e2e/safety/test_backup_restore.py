"""``memlode backup`` and ``memlode restore`` (issue 16, item 9), through the real CLI.

A backup taken while another process stores in a loop passes ``integrity_check`` and holds
every memory that process had seen committed before the backup started; restore refuses to
replace a store without ``--force``, refuses files that are not memlode stores, migrates an
older one, round-trips exactly, and a running MCP server answers from the restored store.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio
import pytest

from memlode.storage.migrations import MIGRATIONS, latest_version, split_statements

NS = "bk"


class Cli:
    """The real entry point (tests/conftest.py's ``cli``): ``run`` gives the result, ``ok``
    checks the exit code and gives the output (parsed with --json)."""

    def __init__(self, run: Callable[..., Any]) -> None:
        self.run = run

    def ok(self, *args: str) -> Any:
        done = self.run(*args)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if "--json" in args else done.stdout


@pytest.fixture
def memlode(cli: Callable[..., Any]) -> Cli:
    return Cli(cli)


def _fill(memlode: Cli, path: Path, count: int, *, start: int = 0, word: str = "caching") -> None:
    """Import ``count`` memories through the CLI (one transaction)."""
    lines = [json.dumps({"kind": "header", "format": "memlode-jsonl", "version": 1})]
    lines += [
        json.dumps(
            {
                "kind": "memory",
                "id": f"m{i:06d}",
                "content": f"note {i} about the {word} layer, shard {i * 7 % 113}, retry {i % 17}",
                "namespace": NS,
                "tags": ["bulk", f"t{i % 5}"],
                "metadata": {"n": i},
                "created_at": "2026-01-01T00:00:00.000000Z",
            }
        )
        for i in range(start, start + count)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    memlode.ok("import", str(path), "--json")


def _ids(db: Path) -> set[str]:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return {r[0] for r in conn.execute("SELECT id FROM memories")}


def _checks(db: Path) -> tuple[str, str, bool]:
    """(integrity_check, journal mode, FTS5 integrity) of a backup file."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        integrity = "; ".join(r[0] for r in conn.execute("PRAGMA integrity_check"))
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    with closing(sqlite3.connect(db)) as conn:
        try:
            conn.execute(
                "INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)"
            )
            fts = True
        except sqlite3.DatabaseError:
            fts = False
    return integrity, mode, fts


# ---- backup -------------------------------------------------------------------------------------

_WRITER = """
import sys
from memlode.config import Settings
from memlode.engine import Engine

engine = Engine(Settings.load({"namespace": "bk"}))
with open(sys.argv[1], "a", encoding="utf-8") as acks:
    i = 0
    while True:
        stored = engine.store(f"stored by the writer loop, number {i}", "context")
        acks.write(stored.id + "\\n")  # written only once the store has committed
        acks.flush()
        i += 1
"""


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Path]:
    """Another process storing memories in a loop; yields the file of acknowledged ids."""
    acks = tmp_path / "acks.txt"
    acks.touch()
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(acks)], env=os.environ.copy())
    try:
        deadline = time.monotonic() + 60
        while len(acks.read_text().split()) < 20:  # it is writing
            assert proc.poll() is None, "the writer died"
            assert time.monotonic() < deadline, "the writer stored nothing"
            time.sleep(0.05)
        yield acks
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_a_backup_taken_while_another_process_writes_holds_everything_committed_before(
    tmp_path: Path, memlode_home: Path, memlode: Cli, writer: Path
) -> None:
    _fill(memlode, tmp_path / "fill.jsonl", 3000)
    for n in range(3):
        before = set(writer.read_text().split())
        target = tmp_path / f"backup-{n}.db"
        out = memlode.ok("backup", str(target), "--json")
        after = set(writer.read_text().split())
        assert len(after) > len(before), "the writer kept writing during the backup"
        assert out["path"] == str(target) and out["check"] == "ok"
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
        assert _checks(target) == ("ok", "delete", True)
        held = _ids(target)
        assert out["memories"] == len(held)
        assert before <= held, f"{len(before - held)} acknowledged memories missing"
        assert {f"m{i:06d}" for i in range(3000)} <= held
        assert not Path(f"{target}-wal").exists() and not Path(f"{target}-journal").exists()


def test_backup_refuses_an_existing_file_unless_forced(
    tmp_path: Path, memlode_home: Path, memlode: Cli
) -> None:
    _fill(memlode, tmp_path / "fill.jsonl", 10)
    target = tmp_path / "backup.db"
    target.write_text("something the user keeps\n")
    refused = memlode.run("backup", str(target))
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("memlode: error:") and "--force" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert target.read_text() == "something the user keeps\n"
    text = memlode.ok("backup", str(target), "--force")
    assert text.startswith(f"backed up {memlode_home / 'memlode.db'} to {target}: 10 memories")
    assert _ids(target) == {f"m{i:06d}" for i in range(10)}
    folder = memlode.run("backup", str(tmp_path))
    assert folder.returncode == 1 and "is a folder" in folder.stderr
    missing = memlode.run("backup", str(tmp_path / "no" / "such" / "b.db"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    itself = memlode.run("backup", str(memlode_home / "memlode.db"), "--force")
    assert itself.returncode == 1 and "the store itself" in itself.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_backup_of_a_home_without_a_store_says_so(
    tmp_path: Path, memlode_home: Path, memlode: Cli
) -> None:
    done = memlode.run("backup", str(tmp_path / "b.db"))
    assert done.returncode == 1 and "nothing to back up" in done.stderr
    assert not (tmp_path / "b.db").exists()


# ---- restore ------------------------------------------------------------------------------------


def _export(memlode: Cli) -> str:
    return str(memlode.ok("export", "-n", "*"))


def test_restore_refuses_to_replace_the_store_without_force(
    tmp_path: Path, memlode_home: Path, memlode: Cli
) -> None:
    _fill(memlode, tmp_path / "fill.jsonl", 20)
    backup = tmp_path / "backup.db"
    memlode.ok("backup", str(backup))
    _fill(memlode, tmp_path / "more.jsonl", 5, start=100)
    before = _export(memlode)
    refused = memlode.run("restore", str(backup))
    assert refused.returncode == 1 and "--force" in refused.stderr
    assert refused.stderr.startswith("memlode: error:")
    assert _export(memlode) == before


def test_restore_with_force_round_trips(tmp_path: Path, memlode_home: Path, memlode: Cli) -> None:
    _fill(memlode, tmp_path / "fill.jsonl", 200)
    memlode.ok("embed", "--json")
    searched = memlode.ok("search", "caching layer shard 42", "-n", NS, "--json")
    exported = _export(memlode)
    backup = tmp_path / "backup.db"
    memlode.ok("backup", str(backup))
    # the store moves on: new memories, one deleted, one changed
    _fill(memlode, tmp_path / "more.jsonl", 30, start=1000, word="payments")
    memlode.ok("delete", "m000007")
    memlode.ok("update", "m000008", "--content", "replaced text about payments")
    memlode.ok("embed", "--json")
    assert _export(memlode) != exported
    out = memlode.ok("restore", str(backup), "--force", "--json")
    assert out["memories"] == 200 and out["check"] == "ok" and out["migrated"] == []
    assert _export(memlode) == exported
    assert memlode.ok("search", "caching layer shard 42", "-n", NS, "--json") == searched
    gone = memlode.run("get", "m001000")
    assert gone.returncode == 3
    assert _checks(memlode_home / "memlode.db")[0] == "ok"


def _old_store(path: Path, up_to: int) -> None:
    """A store as an older memlode left it: migrations up to ``up_to`` and one memory."""
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            " applied_at TEXT NOT NULL)"
        )
        for version, name, script in MIGRATIONS:
            if version > up_to:
                break
            for statement in split_statements(script):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01T00:00:00Z')",
                (version, name),
            )
        conn.execute(
            "INSERT INTO memories (id, content, content_hash, namespace, created_at, updated_at)"
            " VALUES ('old-1', 'kept since the old days', 'h1', 'bk',"
            " '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')"
        )


def test_restore_migrates_an_older_backup(tmp_path: Path, memlode_home: Path, memlode: Cli) -> None:
    old = tmp_path / "old.db"
    _old_store(old, 9)
    out = memlode.ok("restore", str(old), "--json")  # no store yet: nothing to overwrite
    assert out["schema_from"] == 9 and out["schema_version"] == latest_version()
    assert out["migrated"] == [v for v, _, _ in MIGRATIONS if v > 9]
    got = memlode.ok("get", "old-1", "--json")
    assert got["content"] == "kept since the old days"
    found = memlode.ok("search", "old days", "-n", NS, "--json")
    assert [h["id"] for h in found] == ["old-1"]
    with closing(sqlite3.connect(old)) as conn:  # the backup itself is left as it was
        assert max(r[0] for r in conn.execute("SELECT version FROM schema_migrations")) == 9


def test_restore_refuses_files_that_are_not_sound_memlode_stores(
    tmp_path: Path, memlode_home: Path, memlode: Cli
) -> None:
    _fill(memlode, tmp_path / "fill.jsonl", 5)
    before = _export(memlode)
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 100)
    other = tmp_path / "other.db"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    newer = tmp_path / "newer.db"
    memlode.ok("backup", str(newer))
    with closing(sqlite3.connect(newer)) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (9999, 'future', 'x')")
        conn.commit()
    damaged = tmp_path / "damaged.db"
    memlode.ok("backup", str(damaged))
    with closing(sqlite3.connect(damaged)) as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    with damaged.open("r+b") as fh:  # a backup file, never opened by a store
        fh.seek(size * (pages // 2))
        fh.write(b"\xa5" * size)
    cases = {
        text: "not a SQLite database",
        other: "not a memlode store",
        newer: "newer memlode",
        damaged: "",
        tmp_path / "missing.db": "does not exist",
        tmp_path: "not a file",
    }
    for path, message in cases.items():
        done = memlode.run("restore", str(path), "--force")
        assert done.returncode == 1, (path, done.stderr)
        assert done.stderr.startswith("memlode: error:") and message in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert _export(memlode) == before


# ---- processes that have the store open during a restore ----------------------------------------


def test_an_engine_open_during_a_restore_answers_from_the_restored_store(
    tmp_path: Path, memlode_home: Path, memlode: Cli
) -> None:
    """A long-lived engine (as the MCP server's) keeps an in-memory copy of the text index and
    the vector index. After a restore, a memory stored next takes the rowids a memory lost by
    the restore had; copies that only caught up would score it with the lost memory's words and
    miss its vector."""
    from memlode.config import Settings
    from memlode.engine import Engine

    _fill(memlode, tmp_path / "fill.jsonl", 40)
    backup = tmp_path / "backup.db"
    with Engine(Settings.load({"namespace": NS})) as engine:
        engine.catch_up()  # what the MCP server's embedding worker does in the background
        for _ in range(3):  # the second search builds the in-memory text index
            engine.search("caching layer shard", 5)
            engine.text_index.wait(30)
        memlode.ok("backup", str(backup))
        lost = engine.store("zebra migration notes", "context")
        engine.catch_up()
        assert engine.search("zebra migration", 5)[0].memory.id == lost.id
        assert engine.text_index.builds >= 1
        memlode.ok("restore", str(backup), "--force")
        again = engine.store("stored after the restore again", "context")
        engine.catch_up()
        hits = engine.search("zebra migration", 5)
        assert [h for h in hits if h.memory.id == again.id and h.signals["bm25"] > 0] == []
        hits = engine.search("stored after the restore", 5)
        assert hits[0].memory.id == again.id and hits[0].signals["vector"] > 0
        index = engine.embeddings.index
        assert index is not None
        stored = {r[0] for r in engine.conn.execute("SELECT memory_id FROM memory_embeddings")}
        assert set(index.ids) == stored


# ---- restore under a running MCP server ---------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_running_mcp_server_answers_from_the_restored_store(
    tmp_path: Path, memlode_home: Path, memlode: Cli
) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    def ok(result: Any) -> dict[str, Any]:
        assert not result.is_error, [getattr(b, "text", "") for b in result.content]
        structured: dict[str, Any] = result.structured_content
        return structured

    _fill(memlode, tmp_path / "fill.jsonl", 50)
    backup = tmp_path / "backup.db"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memlode", "mcp"],
        env=dict(os.environ),
        cwd=str(tmp_path),
    )
    with (tmp_path / "server.log").open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()

            async def recall(query: str) -> list[str]:
                args = {"query": query, "k": 5, "namespace": NS}
                hits = ok(await session.call_tool("recall_memory", args))["hits"]
                return [h["id"] for h in hits]

            before = await recall("caching layer shard 42")
            memlode.ok("backup", str(backup))
            later = ok(
                await session.call_tool(
                    "store_memory",
                    {"content": "zebra migration notes after the backup", "namespace": NS},
                )
            )
            # searched often enough that the server's engines build their in-memory text index
            # (after a second search, in the background) and use it
            for _ in range(12):
                assert (await recall("zebra migration notes"))[0] == later["id"]
                await anyio.sleep(0.05)
            memlode.ok("restore", str(backup), "--force")
            assert later["id"] not in await recall("zebra migration notes")
            assert await recall("caching layer shard 42") == before
            again = ok(
                await session.call_tool(
                    "store_memory", {"content": "stored after the restore again", "namespace": NS}
                )
            )
            assert (await recall("stored after the restore"))[0] == again["id"]
            # it took the rowid the lost memory had: a stale in-memory copy of the text index
            # would still find the lost memory's words there
            args = {"query": "zebra migration notes", "k": 60, "namespace": NS, "explain": True}
            hits = ok(await session.call_tool("recall_memory", args))["hits"]
            assert hits and all("bm25" in h["signals"] for h in hits)
            assert [h for h in hits if h["id"] == again["id"] and h["signals"]["bm25"] > 0] == []
    assert _checks(memlode_home / "memlode.db")[0] == "ok"
