"""Contract: the ingest state of memory files (``DocFileRows``, ``DocFolderRows``) and of
transcripts (``TranscriptRows``) gives the same answers on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from memlode.storage import doc_files, doc_folders, memories, transcript_store
from memlode.storage.values import NewMemory


def _memory(store: Any, conn: Any, text: str, namespace: str = "p") -> str:
    memory_id, _ = memories.insert(
        conn, NewMemory(text, namespace=namespace, created_at="2026-01-01T00:00:00.000000Z")
    )
    return str(memory_id)


def test_doc_files_and_their_chunks(store: Any) -> None:
    df = doc_files
    values = ("/root", "project", "h1", "2026-01-01T00:00:00Z", 10, 2, "2026-01-02T00:00:00Z")
    with store.write() as conn:
        file_id = df.insert_file(conn, values, "p", "/root/MEMORY.md")
        other = df.insert_file(conn, values, "p", "/root/docs/a.md")
        first, second = _memory(store, conn, "chunk one"), _memory(store, conn, "chunk two")
        df.link_chunk(conn, file_id, 0, first)
        df.link_chunk(conn, file_id, 1, second)
        df.link_chunk(conn, file_id, 1, first)  # a chunk re-linked: replaced
        df.link_chunk(conn, other, 0, second)
        df.update_file(conn, file_id, ("/root", "project", "h2", *values[3:]))
        memories.update(conn, first, {"importance": 0.9})
        df.reset_updated_at(conn, first)
    assert tuple(df.file_row(store.conn, "p", "/root/MEMORY.md")) == (file_id, "h2")
    assert df.file_row(store.conn, "q", "/root/MEMORY.md") is None
    assert df.chunk_memory_ids(store.conn, file_id) == [first, first]  # chunks 0 and 1
    assert df.is_chunk(store.conn, second) and df.is_chunk(store.conn, first)
    memory = memories.fetch(store.conn, first)
    assert memory.updated_at == memory.created_at
    assert sorted(tuple(r) for r in df.files_of_root(store.conn, "/root", "p")) == sorted(
        [(file_id, "/root/MEMORY.md"), (other, "/root/docs/a.md")]
    )
    with store.write() as conn:
        df.clear_chunks(conn, other)
        df.remove_file(conn, file_id)
    assert not df.is_chunk(store.conn, first) and not df.is_chunk(store.conn, second)
    assert [tuple(r)[1] for r in df.files_of_root(store.conn, "/root", "p")] == ["/root/docs/a.md"]


def test_doc_folders(store: Any) -> None:
    folders, df = doc_folders, doc_files
    with store.write() as conn:
        assert folders.add_folder(conn, "/notes", "p", "2026-01-01T00:00:00Z")
        assert not folders.add_folder(conn, "/notes", "p", "2026-01-02T00:00:00Z")
        assert folders.add_folder(conn, "/notes", "q", "2026-01-03T00:00:00Z")
        assert folders.add_folder(conn, "/a", "p", "2026-01-04T00:00:00Z")
        row = ("/notes", "folder", "h", "2026-01-01T00:00:00Z", 5, 3, "2026-01-05T00:00:00Z")
        first = df.insert_file(conn, row, "p", "/notes/x.md")
        second = df.insert_file(conn, (*row[:5], 4, "2026-01-06T00:00:00Z"), "p", "/notes/y.md")
    assert folders.folders(store.conn) == [("/a", "p"), ("/notes", "p"), ("/notes", "q")]
    assert sorted(folders.folder_namespaces(store.conn, "/notes")) == ["p", "q"]
    assert sorted(folders.folder_file_ids(store.conn, "/notes", "p")) == sorted([first, second])
    assert folders.folders_with_counts(store.conn) == [
        ("/a", "p", "2026-01-04T00:00:00Z", 0, 0),
        ("/notes", "p", "2026-01-01T00:00:00Z", 2, 7),
        ("/notes", "q", "2026-01-03T00:00:00Z", 0, 0),
    ]
    assert tuple(folders.root_counts(store.conn, "/notes", "p")) == (2, 7, "2026-01-06T00:00:00Z")
    assert tuple(folders.root_counts(store.conn, "/none", "p")) == (0, 0, None)
    with store.write() as conn:
        folders.remove_folder(conn, "/notes")
    assert folders.folders(store.conn) == [("/a", "p")]


def _state(path: str, **changes: Any) -> dict[str, Any]:
    state: dict[str, Any] = {
        "path": path,
        "session_id": "s1",
        "namespace": "p",
        "file_size": 100,
        "mtime_ns": 1_700_000_000_000_000_000,
        "read_offset": 90,
        "read_lines": 9,
        "malformed_lines": 0,
        "provisional_offset": 80,
        "provisional_line": 8,
        "provisional_uuid": "u8",
        "prefix_malformed": 0,
        "turns": 4,
        "sidechain_turns": 1,
        "ingested_at": "2026-01-01T00:00:00.000000Z",
    }
    state.update(changes)
    return state


def test_transcript_ingest_state(store: Any) -> None:
    ts = transcript_store
    path = "/home/u/.claude/projects/p/s1.jsonl"
    assert ts.file_state(store.conn, path) is None
    with store.write() as conn:
        ts.save_file_state(conn, _state(path))
        ts.save_file_state(conn, _state(path, read_offset=100, provisional_offset=None))
        a, b = _memory(store, conn, "turn a"), _memory(store, conn, "turn b")
        other_ns = _memory(store, conn, "turn c", namespace="q")
        ts.add_unit(conn, path, "main", 0, "f0", False)
        ts.add_unit(conn, path, "main", 1, "f1", True)
        ts.add_unit(conn, path, "agent-1", 0, "g0", False)
        ts.link_chunk(conn, path, "main", 0, 1, b)
        ts.link_chunk(conn, path, "main", 0, 0, a)
        ts.link_chunk(conn, path, "agent-1", 0, 0, a)
    state = ts.file_state(store.conn, path)
    assert (state["read_offset"], state["provisional_offset"], state["turns"]) == (100, None, 4)
    assert state["mtime_ns"] == 1_700_000_000_000_000_000
    assert ts.stored_threads(store.conn, path) == {"main", "agent-1"}
    assert sorted(ts.stored_units(store.conn, path)) == [
        ("agent-1", 0, "g0"),
        ("main", 0, "f0"),
        ("main", 1, "f1"),
    ]
    assert ts.unit_chunks(store.conn, path) == {("agent-1", 0): [a], ("main", 0): [a, b]}
    assert ts.chunk_linked(store.conn, b)
    many = [f"absent-{i}" for i in range(600)]  # more ids than one query takes
    hashes = dict(ts.content_hashes(store.conn, [a, *many, b, other_ns, "nope"], "p"))
    assert set(hashes) == {a, b} and all(len(h) == 64 for h in hashes.values())
    assert list(ts.content_hashes(store.conn, [], "p")) == []
    with store.write() as conn:
        ts.drop_unit(conn, path, "main", 0)
    assert not ts.chunk_linked(store.conn, b)
    assert ts.unit_chunks(store.conn, path) == {("agent-1", 0): [a]}
