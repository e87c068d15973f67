"""Contract: ``MemoryRows`` and the memory half of ``CaptureRows`` (protocols/memory.py) give
the same answers on SQLite and PostgreSQL: insert with dedup, fetch, update, delete, filter,
count, import, touch."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from memlode.storage import capture, memories
from memlode.storage.values import MemoryFilter, NewMemory
from memlode.types import Memory, MemoryType


def _insert(store: Any, content: str, **fields: Any) -> str:
    with store.write() as conn:
        memory_id, created = memories.insert(conn, NewMemory(content, **fields))
    assert created
    return str(memory_id)


def _seed(store: Any) -> dict[str, str]:
    """Five memories over two namespaces, sources, types, tags, sessions and days."""
    rows = {
        "a": dict(
            memory_type=MemoryType.DECISION,
            namespace="p",
            tags=["db", "arch"],
            session_id="s1",
            created_at="2026-01-01T10:00:00.000000Z",
        ),
        "b": dict(
            memory_type=MemoryType.PATTERN,
            namespace="p",
            tags=["db"],
            source="hook",
            session_id="s2",
            created_at="2026-01-02T10:00:00.000000Z",
        ),
        "c": dict(
            memory_type=MemoryType.CONTEXT,
            namespace="p",
            tags=["prompt"],
            source="hook",
            session_id="s2",
            created_at="2026-01-03T10:00:00.000000Z",
        ),
        "d": dict(
            memory_type=MemoryType.INSIGHT,
            namespace="global",
            tags=[],
            created_at="2026-01-04T10:00:00.000000Z",
        ),
        "e": dict(
            memory_type=MemoryType.DECISION,
            namespace="other",
            tags=["arch"],
            session_id="s1",
            created_at="2026-01-05T10:00:00.000000Z",
        ),
    }
    return {key: _insert(store, f"memory {key}: the text of {key}", **f) for key, f in rows.items()}


def test_insert_then_fetch_reads_back_every_field(store: Any) -> None:
    memory_id = _insert(
        store,
        "Use PostgreSQL for team memory; getUserName stays",
        memory_type=MemoryType.DECISION,
        importance=0.8,
        confidence=0.9,
        tags=["db", "team", "db"],
        metadata={"why": "shared", "n": 2, "nested": {"k": [1, 2.5]}},
        namespace="p",
        source="memory",
        session_id="s1",
        created_at="2026-01-01T10:00:00.000000Z",
        id="m-1",
    )
    assert memory_id == "m-1"
    memory = memories.fetch(store.conn, "m-1")
    assert isinstance(memory, Memory)
    assert (memory.content, memory.memory_type, memory.importance, memory.confidence) == (
        "Use PostgreSQL for team memory; getUserName stays",
        MemoryType.DECISION,
        0.8,
        0.9,
    )
    assert memory.tags == ["db", "team"]  # duplicates dropped, order kept
    assert memory.metadata == {"why": "shared", "n": 2, "nested": {"k": [1, 2.5]}}
    assert (memory.namespace, memory.source, memory.session_id) == ("p", "memory", "s1")
    assert memory.created_at == "2026-01-01T10:00:00.000000Z"
    assert len(memory.updated_at) == 27 and memory.last_accessed_at is None
    assert memory.access_count == 0 and len(memory.content_hash) == 64
    assert memories.fetch(store.conn, "nope") is None


def test_the_same_content_is_one_memory_per_namespace_and_source(store: Any) -> None:
    first = _insert(store, "one fact", namespace="p")
    with store.write() as conn:
        again = memories.insert(conn, NewMemory("one fact", namespace="p"))
        elsewhere = memories.insert(conn, NewMemory("one fact", namespace="q"))
        by_hook = memories.insert(conn, NewMemory("one fact", namespace="p", source="hook"))
    assert again == (first, False)
    assert elsewhere[1] and by_hook[1] and len({first, elsewhere[0], by_hook[0]}) == 3
    assert memories.find_duplicate(store.conn, "p", "memory", "one fact") == first
    assert memories.find_duplicate(store.conn, "p", "memory", "other") is None
    digest = capture.stored_hash(store.conn, first)
    assert capture.find_by_hash(store.conn, "p", "memory", digest) == first


def test_secrets_are_redacted_before_the_hash(store: Any) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    memory_id = _insert(store, f"token {token} in the env", namespace="p", tags=[token])
    memory = memories.fetch(store.conn, memory_id)
    assert token not in memory.content and token not in " ".join(memory.tags)
    # the same secret stored again is a duplicate of the redacted row
    assert (
        memories.find_duplicate(store.conn, "p", "memory", f"token {token} in the env") == memory_id
    )


def test_update_changes_fields_and_the_hash(store: Any) -> None:
    memory_id = _insert(store, "old text", namespace="p", tags=["a"])
    before = memories.fetch(store.conn, memory_id)
    with store.write() as conn:
        assert memories.update(
            conn,
            memory_id,
            {
                "content": "new text",
                "memory_type": MemoryType.INSIGHT,
                "importance": 0.2,
                "tags": ["b", "c"],
                "metadata": {"x": 1},
            },
        )
        assert not memories.update(conn, "nope", {"importance": 0.1})
        with pytest.raises(ValueError, match="not updatable"):
            memories.update(conn, memory_id, {"namespace": "q"})
    after = memories.fetch(store.conn, memory_id)
    assert (after.content, after.memory_type, after.importance, after.tags, after.metadata) == (
        "new text",
        MemoryType.INSIGHT,
        0.2,
        ["b", "c"],
        {"x": 1},
    )
    assert after.content_hash != before.content_hash and after.updated_at >= before.updated_at
    assert memories.find_duplicate(store.conn, "p", "memory", "new text") == memory_id


def test_set_metadata_leaves_updated_at(store: Any) -> None:
    memory_id = _insert(store, "text", namespace="p", metadata={"a": 1})
    before = memories.fetch(store.conn, memory_id)
    with store.write() as conn:
        assert memories.set_metadata(conn, memory_id, {"b": [1, "two"]})
        assert not memories.set_metadata(conn, "nope", {})
    after = memories.fetch(store.conn, memory_id)
    assert after.metadata == {"b": [1, "two"]} and after.updated_at == before.updated_at


def test_touch_counts_each_access(store: Any) -> None:
    memory_id = _insert(store, "text", namespace="p")
    with store.write() as conn:
        memories.touch(conn, [memory_id, memory_id, "nope"])
    memory = memories.fetch(store.conn, memory_id)
    assert memory.access_count == 2 and memory.last_accessed_at is not None


def test_fetch_many_and_delete(store: Any) -> None:
    ids = _seed(store)
    got = memories.fetch_many(store.conn, [ids["a"], ids["b"], ids["a"], "nope"])
    assert set(got) == {ids["a"], ids["b"]} and got[ids["a"]].content.startswith("memory a")
    assert memories.fetch_many(store.conn, []) == {}
    with store.write() as conn:
        assert memories.delete(conn, [ids["a"], ids["c"], "nope"]) == 2
        assert memories.delete(conn, []) == 0
    assert memories.fetch(store.conn, ids["a"]) is None
    assert memories.count(store.conn, MemoryFilter()) == 3


FILTERS = {
    "everything": MemoryFilter(),
    "namespace": MemoryFilter(namespace="p"),
    "namespace and global": MemoryFilter(namespace="p", also_namespaces=("global",)),
    "types": MemoryFilter(memory_types=(MemoryType.DECISION, MemoryType.INSIGHT)),
    "all tags": MemoryFilter(tags=("db", "arch")),
    "one tag": MemoryFilter(tags=("arch",)),
    "sources": MemoryFilter(sources=("hook",)),
    "session": MemoryFilter(session_id="s2"),
    "not a session": MemoryFilter(exclude_session_id="s1"),
    "no prompts": MemoryFilter(namespace="p", exclude_prompts=True),
    "since and until": MemoryFilter(
        since="2026-01-02T10:00:00.000000Z", until="2026-01-04T10:00:00.000000Z"
    ),
}
EXPECTED = {
    "everything": "edcba",
    "namespace": "cba",
    "namespace and global": "dcba",
    "types": "eda",
    "all tags": "a",
    "one tag": "ea",
    "sources": "cb",
    "session": "cb",
    "not a session": "dcb",
    "no prompts": "ba",
    "since and until": "cb",
}


@pytest.mark.parametrize("name", list(FILTERS))
def test_filters_select_and_count_the_same_rows(store: Any, name: str) -> None:
    ids = _seed(store)
    key_of = {v: k for k, v in ids.items()}
    flt = FILTERS[name]
    newest = memories.select(store.conn, flt)
    assert "".join(key_of[m.id] for m in newest) == EXPECTED[name]
    oldest = memories.select(store.conn, flt, newest_first=False, limit=2, offset=1)
    assert [m.id for m in oldest] == [m.id for m in reversed(newest)][1:3]
    assert memories.count(store.conn, flt) == len(EXPECTED[name])


def test_insert_exact_keeps_every_field_and_refuses_a_known_id_or_content(store: Any) -> None:
    memory = Memory(
        id="imp-1",
        content="imported fact",
        memory_type=MemoryType.HABIT,
        importance=0.3,
        confidence=0.6,
        access_count=7,
        tags=["x"],
        metadata={"from": "export"},
        namespace="p",
        source="memory",
        session_id="s9",
        created_at="2025-05-05T05:05:05.000005Z",
        updated_at="2025-06-06T06:06:06.000006Z",
        last_accessed_at="2025-07-07T07:07:07.000007Z",
    )
    with store.write() as conn:
        assert memories.insert_exact(conn, memory)
        assert not memories.insert_exact(conn, memory)  # same id
        assert not memories.insert_exact(conn, dataclasses.replace(memory, id="imp-2"))
    stored = memories.fetch(store.conn, "imp-1")
    assert dataclasses.replace(stored, content_hash="") == memory


def test_update_memory_content_drops_the_vector(store: Any) -> None:
    memory_id = _insert(store, "session summary v1", namespace="p", source="hook")
    with store.write() as conn:
        assert capture.update_memory_content(conn, memory_id, "summary v2", {"v": 2})
        assert not capture.update_memory_content(conn, "nope", "x", {})
    memory = memories.fetch(store.conn, memory_id)
    assert (memory.content, memory.metadata) == ("summary v2", {"v": 2})
    assert capture.stored_hash(store.conn, "nope") is None
