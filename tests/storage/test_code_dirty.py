"""Edit marks: a mark read before a newer edit of the same file survives clearing."""

from __future__ import annotations

from pathlib import Path

from memlode.storage import code_dirty
from memlode.storage.db import Database


def test_a_file_marked_again_keeps_its_mark(tmp_path: Path) -> None:
    db = Database(tmp_path / "m.db")
    try:
        with db.write() as conn:
            code_dirty.mark(conn, "/p/a.py")
            code_dirty.mark(conn, "/p/b.py")
        read = code_dirty.pending(db.conn)
        assert [(p, n) for p, _, n in read] == [("/p/a.py", 1), ("/p/b.py", 1)]
        with db.write() as conn:
            code_dirty.mark(conn, "/p/a.py")  # edited again while the resident re-indexed
            code_dirty.clear(conn, read)
        (left,) = code_dirty.pending(db.conn)
        assert (left[0], left[2]) == ("/p/a.py", 2)
        with db.write() as conn:
            code_dirty.clear(conn, [left])
        assert code_dirty.pending(db.conn) == []
    finally:
        db.close()
