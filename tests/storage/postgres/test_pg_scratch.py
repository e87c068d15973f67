"""Throw-away stores on a server (``memlode.storage.postgres.scratch``) and what they rest on: a
new schema ahead of a schema that holds a store is migrated as a store of its own.

The evaluation puts each of its stores in a schema searched before the one of the ``vector``
extension (``public`` here, as on most servers), and ``public`` may hold the user's own store.
Before, the migration runner looked ``schema_migrations`` up along the whole search path, found
the other store's, migrated nothing, and every read and write of the new store went to the other
one.
"""

from __future__ import annotations

from typing import Any

import pytest

from memlode.storage import memories
from memlode.storage.postgres.connection import PgDatabase, connect
from memlode.storage.postgres.scratch import scratch_store, with_search_path
from memlode.storage.values import MemoryFilter, NewMemory


def _schemas(server: Any, like: str) -> list[str]:
    with connect(server.url(), migrate=False) as conn:
        rows = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (like,)
        ).fetchall()
    return sorted(str(r[0]) for r in rows)


def _contents(url: str) -> list[str]:
    with PgDatabase(url) as db:
        rows = memories.select(db.conn, MemoryFilter(namespace="team"))
    return sorted(m.content for m in rows)


def _store(url: str, text: str) -> None:
    with PgDatabase(url) as db, db.write() as conn:
        memories.insert(conn, NewMemory(text, namespace="team"))


def test_a_new_schema_ahead_of_a_store_is_a_store_of_its_own(pg_server: Any) -> None:
    behind, ahead = pg_server.new_schema(), pg_server.new_schema()
    _store(pg_server.url(schema=behind), "kept in the store behind")
    url = with_search_path(pg_server.url(), ahead, behind, "public")
    _store(url, "stored in the new one")
    assert _contents(url) == ["stored in the new one"]
    assert _contents(pg_server.url(schema=behind)) == ["kept in the store behind"]


def test_a_scratch_store_is_dropped_when_its_block_ends_however_it_ends(pg_server: Any) -> None:
    users = pg_server.new_schema()
    user_url = pg_server.url(schema=users)
    _store(user_url, "the user's own memory")
    with scratch_store(user_url, "test") as url:
        (schema,) = _schemas(pg_server, "memlode\\_test\\_%")
        _store(url, "a scratch memory")
        assert _contents(url) == ["a scratch memory"]
    assert _schemas(pg_server, "memlode\\_test\\_%") == []
    for stop in (RuntimeError("failed"), KeyboardInterrupt()):
        with pytest.raises(type(stop)), scratch_store(user_url, "test") as url:
            _store(url, "a scratch memory")
            raise stop
        assert _schemas(pg_server, "memlode\\_test\\_%") == []
    assert _contents(user_url) == ["the user's own memory"]
    assert schema.startswith("memlode_test_")


@pytest.mark.parametrize(
    ("options", "kept"),
    [
        ("", ""),
        ("-csearch_path=team,public", ""),
        ("-c search_path=team -c statement_timeout=5s", "-c statement_timeout=5s "),
        ("--search-path=team -cwork_mem=64MB", "-cwork_mem=64MB "),
    ],
)
def test_with_search_path_replaces_only_the_search_path(options: str, kept: str) -> None:
    from urllib.parse import quote, unquote

    url = "postgresql://me:secret@db.example:5432/memory?sslmode=require"
    if options:
        url += "&options=" + quote(options, safe="")
    got = with_search_path(url, "memlode_eval_1", "public")
    base, _, query = got.partition("?")
    assert base == "postgresql://me:secret@db.example:5432/memory"
    pairs = dict(p.split("=", 1) for p in query.split("&"))
    assert pairs["sslmode"] == "require"
    assert unquote(pairs["options"]) == f"{kept}-csearch_path=memlode_eval_1,public"


def test_an_interrupt_the_moment_the_schema_is_made_still_drops_it(pg_server: Any) -> None:
    """A Ctrl-C or SIGTERM that lands after the server made the schema and before the block is
    entered (CI once saw it: the signal sent as soon as the schema showed) still drops it. The
    interrupt is raised where the signal's handler would raise it: as the connection's
    ``execute`` of the ``CREATE SCHEMA`` returns."""
    import sys
    from types import FrameType

    import psycopg

    create = psycopg.Connection.execute.__code__

    def interrupt_on_return(frame: FrameType, event: str, arg: object) -> Any:
        if event == "return" and str(frame.f_locals.get("query", "")).startswith("CREATE SCHEMA"):
            raise KeyboardInterrupt
        return interrupt_on_return

    def calls(frame: FrameType, event: str, arg: object) -> Any:
        return interrupt_on_return if frame.f_code is create else None

    user_url = pg_server.url(schema=pg_server.new_schema())
    sys.settrace(calls)
    try:
        with pytest.raises(KeyboardInterrupt), scratch_store(user_url, "test"):
            pytest.fail("the block was entered")
    finally:
        sys.settrace(None)
    assert _schemas(pg_server, "memlode\\_test\\_%") == []
