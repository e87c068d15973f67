"""Contract, by generated cases: any ``MemoryFilter`` selects and counts the same memories, in
the same order, on SQLite and PostgreSQL (``MemoryFilter.where`` renders the same filter in
each backend's dialect).

Both stores are filled with the same memories once; hypothesis then draws filters and pages.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.storage.contract.stores import open_store

from memlode.storage import memories
from memlode.storage.values import MemoryFilter, NewMemory
from memlode.types import MemoryType

NAMESPACES = ["p", "q", "global", "p-1a2b3c4d"]
SOURCES = ["memory", "hook", "conversation", "doc"]
TAGS = ["db", "arch", "prompt", "ünï", "a b", 'q"uote']
SESSIONS = [None, "s1", "s2"]
TYPES = list(MemoryType)


def _rows() -> list[NewMemory]:
    out = []
    for i in range(60):
        out.append(
            NewMemory(
                f"memory number {i} about {TAGS[i % len(TAGS)]}",
                memory_type=TYPES[i % len(TYPES)],
                namespace=NAMESPACES[i % len(NAMESPACES)],
                source=SOURCES[(i // 2) % len(SOURCES)],
                tags=[TAGS[j] for j in range(len(TAGS)) if (i >> j) & 1],
                session_id=SESSIONS[i % len(SESSIONS)],
                # some rows share a time: the id breaks the tie the same way on both
                created_at=f"2026-01-{1 + i % 20:02d}T10:00:00.000000Z",
                id=f"m{i:03d}",
            )
        )
    return out


@pytest.fixture
def both(tmp_path: Path, pg_store_url: str) -> Iterator[tuple[Any, Any]]:
    with (
        open_store("sqlite", str(tmp_path / "f.db")) as lite,
        open_store("postgresql", pg_store_url) as pg,
    ):
        for store in (lite, pg):
            with store.write() as conn:
                for new in _rows():
                    memories.insert(conn, new)
        yield lite, pg


def _days() -> st.SearchStrategy[str | None]:
    return st.one_of(
        st.none(), st.integers(1, 21).map(lambda d: f"2026-01-{d:02d}T10:00:00.000000Z")
    )


filters = st.builds(
    MemoryFilter,
    namespace=st.one_of(st.none(), st.sampled_from(NAMESPACES)),
    also_namespaces=st.lists(st.sampled_from(NAMESPACES), max_size=2).map(tuple),
    memory_types=st.lists(st.sampled_from(TYPES), max_size=3, unique=True).map(tuple),
    tags=st.lists(st.sampled_from(TAGS), max_size=2, unique=True).map(tuple),
    sources=st.lists(st.sampled_from(SOURCES), max_size=2, unique=True).map(tuple),
    session_id=st.sampled_from(SESSIONS),
    since=_days(),
    until=_days(),
    exclude_prompts=st.booleans(),
    exclude_session_id=st.sampled_from(SESSIONS),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    flt=filters,
    newest=st.booleans(),
    limit=st.one_of(st.none(), st.integers(0, 8)),
    offset=st.integers(0, 5),
)
def test_any_filter_selects_the_same_rows(
    both: tuple[Any, Any], flt: MemoryFilter, newest: bool, limit: int | None, offset: int
) -> None:
    lite, pg = both
    answers = [
        [
            m.id
            for m in memories.select(s.conn, flt, limit=limit, offset=offset, newest_first=newest)
        ]
        for s in (lite, pg)
    ]
    assert answers[0] == answers[1]
    assert memories.count(lite.conn, flt) == memories.count(pg.conn, flt)
