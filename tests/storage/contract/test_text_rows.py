"""Contract: what a process's in-memory text index reads (``TextIndexRows``) gives the same
answers on SQLite and PostgreSQL: the same tokens for the same text (FTS5's tokenizer on both),
the same texts of the same rows, read in one consistent snapshot (or outside one)."""

from __future__ import annotations

import json
from typing import Any

from memlode.search.postings import TOKENIZER
from memlode.storage import embeddings, fts_texts, memories, turn_context
from memlode.storage.values import NewMemory

PIECES = ["Running", "getUserName", "naïve", "Café", "HTTPServer", "x", "2026", "ünïcödé"]


def _store_texts(store: Any) -> list[str]:
    with store.write() as conn:
        ids = [
            memories.insert(
                conn,
                NewMemory(
                    f"The runners were running getUserName {i}",
                    namespace="p",
                    tags=["alpha", f"t{i}"],
                    source="conversation",
                    session_id="s",
                ),
            )[0]
            for i in range(3)
        ]
        turn_context.refresh_context(conn, ["s"])
    return ids


def test_the_tokenizer_splits_and_stems_as_fts5(store: Any) -> None:
    texts = fts_texts
    texts.create_tokenizer(store.conn, TOKENIZER)
    texts.create_tokenizer(store.conn, TOKENIZER)  # again: no error
    found = texts.tokenize_pieces(store.conn, PIECES)
    assert found == {
        0: ["run"],
        1: ["getusernam"],
        2: ["naiv"],
        3: ["cafe"],
        4: ["httpserver"],
        5: ["x"],
        6: ["2026"],
        7: ["unicod"],
    }
    assert texts.tokenize_pieces(store.conn, ["again"]) == {0: ["again"]}


def test_text_rows_in_one_snapshot(store: Any) -> None:
    ids = _store_texts(store)
    texts = fts_texts
    with texts.read_snapshot(store.conn):
        count, top = texts.store_extent(store.conn)
        cursor = texts.text_rows(store.conn)
        rows = []
        while batch := cursor.fetchmany(2):
            rows.extend(tuple(r) for r in batch)
    assert count == 3 and top == max(r[0] for r in rows)
    first = min(rows)
    assert first[1] == "The runners were running getUserName 0"
    assert json.loads(first[2]) == ["alpha", "t0"]
    assert "get user name" in first[3]
    assert first[4].startswith("The runners") and first[5].startswith("The runners")
    some = sorted(tuple(r) for r in texts.text_rows_of(store.conn, [first[0], 10**9]))
    assert some == [first]
    assert sorted(tuple(r) for r in texts.text_rows(store.conn).fetchall()) == sorted(rows)
    assert texts.latest_seq(store.conn) == embeddings.change_marks(store.conn, "m")[0]
    assert len(ids) == 3
