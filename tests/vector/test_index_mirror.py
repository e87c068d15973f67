"""Appending to the vector index: spare capacity, a mirror rewritten only now and then, and a
fresh process that maps an older mirror and appends the rest."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memlode.storage.db import Database
from memlode.vector import index as index_module
from memlode.vector.growing import append_rows
from memlode.vector.index import VectorIndex

DIM = 8
MODEL = "test:mirror"
NOW = "2026-11-23T00:00:00.000000Z"


def _vectors(count: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, DIM))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _add(db: Database, start: int, vectors: np.ndarray) -> None:
    with db.write() as conn:
        ids = [f"m{start + i}" for i in range(len(vectors))]
        conn.executemany(
            "INSERT INTO memories (id, content, content_hash, namespace, created_at, updated_at)"
            " VALUES (?, ?, ?, 'ns', ?, ?)",
            [(i, f"memory {i}", f"h-{i}", NOW, NOW) for i in ids],
        )
        conn.executemany(
            "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash, created_at)"
            " VALUES (?, ?, ?, ?, '', ?)",
            [(i, MODEL, DIM, v.tobytes(), NOW) for i, v in zip(ids, vectors, strict=True)],
        )


def _index(tmp_path: Path) -> VectorIndex:
    return VectorIndex(MODEL, DIM, cache_dir=tmp_path / "cache", database="db")


def _mirror(tmp_path: Path) -> Path:
    (found,) = (tmp_path / "cache").glob("vectors-*[0-9a-f].npy")
    return found


def _rebuilt(tmp_path: Path, db: Database) -> VectorIndex:
    fresh = VectorIndex(MODEL, DIM, cache_dir=None)
    fresh.refresh(db.conn)
    return fresh


def test_append_rows_fills_spare_capacity_without_copying() -> None:
    start = _vectors(5, 1)
    first = append_rows(start, _vectors(3, 2))
    assert first.shape == (8, DIM) and not np.shares_memory(first, start)
    second = append_rows(first, _vectors(4, 3))
    assert np.shares_memory(first, second)  # the same buffer: only the new rows were written
    np.testing.assert_array_equal(second[:5], start)
    np.testing.assert_array_equal(second[5:8], _vectors(3, 2))
    np.testing.assert_array_equal(second[8:], _vectors(4, 3))
    assert first.shape == (8, DIM)  # the older view still shows its own rows


def test_append_rows_copies_a_read_only_matrix(tmp_path: Path) -> None:
    np.save(tmp_path / "m.npy", _vectors(4, 1))
    mapped = np.load(tmp_path / "m.npy", mmap_mode="r")
    grown = append_rows(mapped, _vectors(2, 2))
    assert grown.flags.writeable and grown.shape == (6, DIM)
    np.testing.assert_array_equal(np.asarray(mapped), _vectors(4, 1))  # the file is untouched


def test_small_appends_leave_the_mirror_and_a_new_process_catches_up(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(index_module, "MIRROR_EVERY", 10)
    monkeypatch.setattr(index_module, "MIRROR_SHARE", 1.0)
    db = Database(tmp_path / "memlode.db")
    _add(db, 0, _vectors(50, 1))
    index = _index(tmp_path)
    index.refresh(db.conn)
    mirror = _mirror(tmp_path)
    written = mirror.stat().st_mtime_ns, mirror.read_bytes()

    _add(db, 50, _vectors(4, 2))  # fewer than MIRROR_EVERY: appended in memory only
    index.refresh(db.conn)
    assert len(index) == 54
    assert (mirror.stat().st_mtime_ns, mirror.read_bytes()) == written

    later = _index(tmp_path)  # a new process: maps the 50-row mirror, appends 4 from SQLite
    later.refresh(db.conn)
    assert later.mirrored_rows == 50  # it read the mirror (a rebuild would have rewritten it)
    assert later.ids == index.ids == _rebuilt(tmp_path, db).ids
    query = _vectors(1, 9)[0]
    assert later.search(query, 10) == _rebuilt(tmp_path, db).search(query, 10)

    _add(db, 54, _vectors(8, 3))  # 12 unsaved rows now: the mirror is rewritten
    index.refresh(db.conn)
    assert mirror.read_bytes() != written[1]
    assert np.load(mirror).shape == (62, DIM)


def test_a_delete_hidden_by_a_row_moved_in_from_another_model_forces_a_rebuild(
    tmp_path: Path,
) -> None:
    # Re-embedding with a new model updates a memory's row in place (same rowid, lower than
    # any this index appended): with one of the index's rows deleted meanwhile, the count is
    # what an append would give. The rowid sum is not.
    db = Database(tmp_path / "memlode.db")
    with db.write() as conn:
        conn.execute(
            "INSERT INTO memories (id, content, content_hash, namespace, created_at, updated_at)"
            " VALUES ('old', 'embedded by another model', 'h-old', 'ns', ?, ?)",
            (NOW, NOW),
        )
        conn.execute(
            "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash, created_at)"
            " VALUES ('old', 'test:other', ?, ?, '', ?)",
            (DIM, _vectors(1, 5)[0].tobytes(), NOW),
        )
    _add(db, 0, _vectors(20, 1))
    index = _index(tmp_path)
    index.refresh(db.conn)

    def delete_one_and_move_one_in(victim: str, moved: str) -> None:
        with db.write() as conn:
            conn.execute("DELETE FROM memories WHERE id = ?", (victim,))
            conn.execute(
                "UPDATE memory_embeddings SET model = ? WHERE memory_id = ?", (MODEL, moved)
            )

    delete_one_and_move_one_in("m3", "old")
    index.refresh(db.conn)
    assert "m3" not in index.ids and "old" in index.ids
    assert sorted(index.ids) == sorted(_rebuilt(tmp_path, db).ids)

    # the same, seen by a new process through the older mirror
    with db.write() as conn:
        conn.execute("UPDATE memory_embeddings SET model = 'test:other' WHERE memory_id = 'm7'")
    index.refresh(db.conn)  # m7 left: a rebuild, and the mirror is written
    delete_one_and_move_one_in("m5", "m7")
    later = _index(tmp_path)
    later.refresh(db.conn)
    assert "m5" not in later.ids and "m7" in later.ids
    assert sorted(later.ids) == sorted(_rebuilt(tmp_path, db).ids)


def test_a_mirror_newer_than_the_store_is_not_used(tmp_path: Path) -> None:
    db = Database(tmp_path / "memlode.db")
    _add(db, 0, _vectors(10, 1))
    _index(tmp_path).refresh(db.conn)
    (tmp_path / "memlode.db").unlink()  # the store is replaced at the same path
    for suffix in ("-wal", "-shm"):
        Path(str(tmp_path / "memlode.db") + suffix).unlink(missing_ok=True)
    db.close()
    db = Database(tmp_path / "memlode.db")
    _add(db, 100, _vectors(3, 2))
    index = _index(tmp_path)
    index.refresh(db.conn)
    assert index.ids == ["m100", "m101", "m102"]


def test_a_deleted_newest_row_whose_rowid_a_new_one_took_forces_a_rebuild(
    tmp_path: Path,
) -> None:
    """SQLite gives the rowid of a deleted newest row to the next insert: delete the newest
    memory and store another (or change its text, which re-embeds it) and the count and the
    rowid sum are what they were. The index kept the deleted vector and never saw the new one,
    in a long-running process (the MCP server, the resident) and in a new one that maps the
    mirror."""
    db = Database(tmp_path / "memlode.db")
    _add(db, 0, _vectors(20, 1))
    index = _index(tmp_path)
    index.refresh(db.conn)

    def replace_newest(victim: str, start: int, seed: int) -> None:
        with db.write() as conn:
            conn.execute("DELETE FROM memories WHERE id = ?", (victim,))
        _add(db, start, _vectors(1, seed))

    replace_newest("m19", 20, 2)  # m20 takes m19's rowid
    index.refresh(db.conn)
    assert "m19" not in index.ids and "m20" in index.ids
    assert index.ids == _rebuilt(tmp_path, db).ids
    query = _vectors(1, 2)[0]  # m20's own vector: its nearest is itself
    assert index.search(query, 1)[0][0] == "m20"

    # an update in place of the newest row (the same memory, a new vector): nothing appended
    with db.write() as conn:
        conn.execute(
            "UPDATE memory_embeddings SET vector = ? WHERE memory_id = 'm20'",
            (_vectors(1, 3)[0].tobytes(),),
        )
    index.refresh(db.conn)
    assert index.search(_vectors(1, 3)[0], 1)[0] == ("m20", pytest.approx(1.0, abs=1e-5))

    # two newest rows deleted, three stored: the first two take their rowids, the third comes
    # after them, and the count and the sum again look like one append
    with db.write() as conn:
        conn.execute("DELETE FROM memories WHERE id IN ('m18', 'm20')")
    _add(db, 21, _vectors(3, 4))
    index.refresh(db.conn)
    assert sorted(index.ids) == sorted(_rebuilt(tmp_path, db).ids)
    assert {"m18", "m20"}.isdisjoint(index.ids) and {"m21", "m22", "m23"} <= set(index.ids)

    # a new process that maps the mirror the last rebuild wrote, after the same kind of change
    replace_newest("m23", 24, 5)
    later = _index(tmp_path)
    later.refresh(db.conn)
    assert sorted(later.ids) == sorted(_rebuilt(tmp_path, db).ids)
    assert "m23" not in later.ids and "m24" in later.ids
