"""Contract: namespaces as a whole (``NamespaceRows``: exist, keys by name, listing, delete,
move all or part) give the same answers on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from memlode.storage import (
    briefing,
    capture,
    consolidation,
    doc_files,
    doc_folders,
    embeddings,
    graph,
    graph_state,
    memories,
    namespaces,
    sessions,
    vector_rows,
)
from memlode.storage.namespaces import Selection
from memlode.storage.values import MemoryFilter, NewMemory
from memlode.types import Edge, Relationship

APP1, APP2, OTHER = "app-1a2b3c4d", "app-5e6f7a8b", "apps-9c0d1e2f"


def _fill(store: Any) -> dict[str, str]:
    ids: dict[str, str] = {}
    with store.write() as conn:
        for key, text, ns, day in (
            ("a", "alpha", APP1, 1),
            ("b", "beta", APP1, 2),
            ("shared", "same text", APP1, 3),
            ("twin", "same text", APP2, 4),
            ("c", "gamma", OTHER, 5),
        ):
            ids[key] = memories.insert(
                conn,
                NewMemory(text, namespace=ns, created_at=f"2026-01-0{day}T00:00:00.000000Z"),
            )[0]
            graph.ensure_memory_node(conn, ids[key], text, ns)
        graph.add_edge(conn, Edge(ids["a"], ids["b"], Relationship.LEADS_TO))
        sessions.start(conn, "s1", APP1, "cli")
        sessions.start(conn, "s2", APP1, "cli")
        capture.upsert_file_node(conn, "/r/a.py", APP1, "a.py")
        doc_folders.add_folder(conn, "/notes", APP1, "T")
        consolidation.log_start(conn, "decay", APP1, "T", {})
        briefing.keep_session_map(conn, APP1, "map")
        embeddings.write_vectors(conn, [(ids["a"], "m", 1, b"\x00\x00\x80?", "h", "t")])
    return ids


def _namespaces_of(store: Any, ids: dict[str, str]) -> dict[str, str]:
    found = memories.fetch_many(store.conn, ids.values())
    return {key: found[memory_id].namespace for key, memory_id in ids.items()}


def test_exists_keys_and_listing(store: Any) -> None:
    _fill(store)
    ns = namespaces
    assert ns.exists(store.conn, APP1) and not ns.exists(store.conn, "nobody")
    assert ns.keys_named(store.conn, "app") == [APP1, APP2]
    assert ns.keys_named(store.conn, "apps") == [OTHER] and ns.keys_named(store.conn, "") == []
    listing = ns.listing(store.conn)
    assert [e["namespace"] for e in listing] == [APP1, APP2, OTHER]
    assert listing[0] == {
        "namespace": APP1,
        "name": "app",
        "memories": 3,
        "sessions": 2,
        "code_files": 0,
        "first_at": "2026-01-01T00:00:00.000000Z",
        "last_at": "2026-01-03T00:00:00.000000Z",
    }
    assert ns.legacy_left(store.conn) == []
    with store.write() as conn:
        assert not ns.forget_legacy(conn, APP1)


def test_delete_takes_everything_of_the_namespace(store: Any) -> None:
    ids = _fill(store)
    with store.write() as conn:
        assert namespaces.delete(conn, APP1) == 3
    assert not namespaces.exists(store.conn, APP1)
    assert memories.count(store.conn, MemoryFilter()) == 2
    assert graph.edges_of(store.conn, [ids["a"]]) == []
    assert briefing.session_map(store.conn, APP1) is None
    assert doc_folders.folders(store.conn) == []


def test_a_whole_move_leaves_duplicates_behind(store: Any) -> None:
    ids = _fill(store)
    before = vector_rows.vector_count_and_rowid_sum(store.conn, "m", 1)
    with store.write() as conn:
        report = namespaces.move(conn, APP1, APP2)
    assert report.to_dict() == {
        "memories": 2,
        "duplicates": 1,
        "sessions": 2,
        "code_files": 0,
        "code_files_dropped": 0,
        "doc_files": 0,
    }
    assert _namespaces_of(store, ids) == {
        "a": APP2,
        "b": APP2,
        "shared": APP1,
        "twin": APP2,
        "c": OTHER,
    }
    after = vector_rows.vector_count_and_rowid_sum(store.conn, "m", 1)
    assert after[0] == before[0] and after[1] != before[1]  # the vector index must rebuild
    assert briefing.session_map(store.conn, APP2) == "map"
    assert briefing.session_map(store.conn, APP1) is None
    assert doc_folders.folders(store.conn) == [("/notes", APP2)]
    assert graph_state.node_ids(store.conn, APP1, None) == [ids["shared"]]
    with store.write() as conn:
        assert namespaces.move(conn, APP2, APP2).to_dict()["memories"] == 0


def test_a_partial_move_takes_only_the_selection(store: Any) -> None:
    ids = _fill(store)
    part = Selection(
        memories={ids["b"], ids["shared"]}, sessions={"s2"}, file_nodes={"file:/r/a.py"}
    )
    with store.write() as conn:
        report = namespaces.move(conn, APP1, OTHER, part)
    assert (report.memories, report.duplicates, report.sessions) == (2, 0, 1)
    assert _namespaces_of(store, ids) == {
        "a": APP1,
        "b": OTHER,
        "shared": OTHER,
        "twin": APP2,
        "c": OTHER,
    }
    assert [s.id for s in sessions.list_sessions(store.conn, OTHER)] == ["s2"]
    assert "file:/r/a.py" in graph_state.node_ids(store.conn, OTHER, ["file"])
    assert briefing.session_map(store.conn, APP1) is None
    assert doc_folders.folders(store.conn) == [("/notes", APP1)]


def test_doc_files_and_folders_move_unless_the_target_has_them(store: Any) -> None:
    df, folders = doc_files, doc_folders
    values = ("/notes", "folder", "h", "2026-01-01T00:00:00Z", 10, 1, "2026-01-02T00:00:00Z")
    with store.write() as conn:
        kept, clash, left = (
            df.insert_file(conn, values, APP1, f"/notes/{name}.md") for name in "abc"
        )
        df.insert_file(conn, values, APP2, "/notes/b.md")
        folders.add_folder(conn, "/notes", APP1, "T")
        folders.add_folder(conn, "/notes", APP2, "T")
    with store.write() as conn:
        part = Selection(doc_files={kept, clash})
        assert namespaces.move(conn, APP1, APP2, part).doc_files == 1
    assert df.file_row(store.conn, APP2, "/notes/a.md")[0] == kept
    assert df.file_row(store.conn, APP1, "/notes/b.md")[0] == clash  # the target has its own
    assert df.file_row(store.conn, APP1, "/notes/c.md")[0] == left  # not chosen
    with store.write() as conn:
        assert namespaces.move(conn, APP1, APP2).doc_files == 1
    assert df.file_row(store.conn, APP2, "/notes/c.md")[0] == left
    assert df.file_row(store.conn, APP1, "/notes/b.md")[0] == clash
    assert folders.folders(store.conn) == [("/notes", APP2)]
