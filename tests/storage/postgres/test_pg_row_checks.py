"""On PostgreSQL, stored JSON of the wrong shape (which the repositories never write, but an
import or a hand edit can) is found by ``memlode doctor``'s row checks and only reported."""

from __future__ import annotations

from memlode.storage import capture, memories, row_checks, sessions
from memlode.storage.postgres.connection import PgDatabase
from memlode.storage.values import NewMemory


def test_json_of_the_wrong_shape_is_reported(pg_store_url: str) -> None:
    with PgDatabase(pg_store_url) as db:
        with db.write() as conn:
            ok = memories.insert(conn, NewMemory("fine", namespace="p"))[0]
            bad = memories.insert(conn, NewMemory("bad", namespace="p"))[0]
            mixed = memories.insert(conn, NewMemory("mixed", namespace="p"))[0]
            capture.ensure_memory_node(conn, ok, "fine", "p")
            sessions.start(conn, "s1", "p", "cli")
            conn.execute(
                "UPDATE memories SET tags = '{\"a\": 1}', metadata = '[1]' WHERE id = ?", (bad,)
            )
            conn.execute("UPDATE memories SET tags = '[\"x\", 2]' WHERE id = ?", (mixed,))
            conn.execute("UPDATE graph_nodes SET properties = '[]' WHERE id = ?", (ok,))
            conn.execute("UPDATE sessions SET metadata = '\"text\"' WHERE id = 's1'")
        found = {(b.id, b.problem) for b in row_checks.unreadable_memories(db.conn)}
        assert found == {
            (bad, "tags are not a JSON list of strings"),
            (bad, "metadata is not a JSON object"),
            (mixed, "tags are not a JSON list of strings"),
        }
        assert [b.to_dict() for b in row_checks.unreadable_json(db.conn)] == [
            {"table": "graph_nodes", "id": ok, "problem": "properties is not a JSON object"},
            {"table": "sessions", "id": "s1", "problem": "metadata is not a JSON object"},
        ]
