"""One vector index per process and store (issue 16, 1M memories: the matrix is the largest
thing a server holds): engines on the same store share it, searches and refreshes on several
threads take turns, and a rebuild reads the rows a chunk at a time."""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path

import numpy as np

from memlode.config import Settings
from memlode.engine import Engine
from memlode.vector import index as index_module
from memlode.vector.index import VectorIndex


def _engine(namespace: str = "test") -> Engine:
    return Engine(Settings.load({"namespace": namespace}))


def test_engines_on_one_store_share_the_index(memlode_home: Path) -> None:
    first, second = _engine(), _engine("other")
    first.store("shared vectors for the tools and the hooks' socket")
    first.embed_pending()
    a, b = first.embeddings.index, second.embeddings.index
    assert a is not None and a is b and len(a) == 1
    # another store in the same process has its own
    elsewhere = Engine(Settings.load({"home": str(memlode_home / "elsewhere"), "namespace": "x"}))
    assert elsewhere.embeddings.index is not a
    elsewhere.close()
    first.close()
    second.close()


def test_the_index_goes_when_no_engine_holds_it(memlode_home: Path) -> None:
    engine = _engine()
    engine.store("held while an engine holds it")
    engine.embed_pending()
    held = engine.embeddings.index
    assert held is not None
    gone = weakref.ref(held)
    engine.close()
    del engine, held
    gc.collect()
    assert gone() is None
    fresh = _engine()
    assert fresh.embeddings.index is not None and len(fresh.embeddings.index) == 1
    fresh.close()


def test_searches_and_refreshes_on_threads_take_turns(memlode_home: Path) -> None:
    writer, reader = _engine(), _engine()
    for i in range(30):
        writer.store(f"memory {i} about topic {i % 5}")
    writer.embed_pending()
    index = reader.embeddings.index
    assert index is not None
    query = index.vector_of(index.ids[0])
    assert query is not None
    errors: list[BaseException] = []
    done = threading.Event()

    def search() -> None:
        try:
            while not done.is_set():
                hits = index.search(query, 10)
                assert len(hits) == 10
                assert all(memory_id in index._row_of for memory_id, _ in hits)
                sims = index.similarities(query, [h[0] for h in hits])
                assert all(s > -1.01 for s in sims)
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=search) for _ in range(2)]
    for thread in threads:
        thread.start()
    for i in range(40):  # appends, then a full rebuild after a delete
        memory = writer.store(f"new memory {i} on topic {i % 5}")
        writer.embed_pending()
        writer.embeddings.index  # noqa: B018 - refreshes it on this thread
        if i == 20:
            writer.delete(memory.id)
    done.set()
    for thread in threads:
        thread.join()
    assert not errors, errors
    final = reader.embeddings.index
    assert final is index and len(final) == 30 + 40 - 1
    writer.close()
    reader.close()


def test_a_rebuild_in_chunks_holds_every_row(memlode_home: Path, monkeypatch) -> None:
    monkeypatch.setattr(index_module, "_REBUILD_CHUNK", 7)
    engine = _engine()
    for i in range(40):
        engine.store(f"row {i}", namespace="a" if i % 3 else "b")
    engine.embed_pending()
    rows = engine.conn.execute(
        "SELECT e.memory_id, e.vector, m.namespace FROM memory_embeddings e"
        " JOIN memories m ON m.id = e.memory_id ORDER BY e.rowid"
    ).fetchall()
    embedder = engine.embeddings.embedder
    assert embedder is not None
    fresh = VectorIndex(embedder.name, embedder.dim)
    fresh.refresh(engine.conn)
    assert fresh.ids == [r[0] for r in rows]
    assert fresh.namespaces == [r[2] for r in rows]
    for memory_id, blob, _ in rows:
        np.testing.assert_array_equal(fresh.vector_of(memory_id), np.frombuffer(blob, np.float32))
    query = fresh.vector_of(rows[0][0])
    assert query is not None
    in_b = {memory_id for memory_id, _ in fresh.search(query, 50, "b")}
    assert in_b == {r[0] for r in rows if r[2] == "b"}
    engine.close()


def test_after_a_rebuild_the_mirror_is_mapped_not_copied(memlode_home: Path) -> None:
    engine = _engine()
    for i in range(30):
        engine.store(f"mapped row {i} about topic {i % 4}")
    engine.embed_pending()
    index = engine.embeddings.index
    assert index is not None and len(index) == 30
    assert isinstance(index._matrix, np.memmap)  # the file just written, not a second copy
    query = index.vector_of(index.ids[3])
    assert query is not None
    rows = engine.conn.execute(
        "SELECT memory_id, vector FROM memory_embeddings ORDER BY rowid"
    ).fetchall()
    for memory_id, blob in rows:
        np.testing.assert_array_equal(index.vector_of(memory_id), np.frombuffer(blob, np.float32))
    hits = index.search(query, 5)
    assert hits[0][0] == index.ids[3]
    # rows appended later go into memory beside it (the mapped file is read-only)
    engine.store("one more row")
    engine.embed_pending()
    grown = engine.embeddings.index
    assert grown is index and len(grown) == 31 and not isinstance(grown._matrix, np.memmap)
    engine.close()
