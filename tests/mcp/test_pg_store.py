"""``memlode mcp`` on a PostgreSQL store (``MEMLODE_DB=postgresql://...``), through the SDK's real
stdio client: memories stored by the tools are in the server's tables and recalled (by their
words and, once the server's background embedder has embedded them, by meaning), and a tool that
does not run on PostgreSQL yet answers so in one sentence instead of touching anything."""

from __future__ import annotations

import time

import anyio
import psycopg
import pytest

pytestmark = pytest.mark.anyio


async def test_store_and_recall_on_postgresql(harness, pg_store_url: str) -> None:
    env = {"MEMLODE_DB": pg_store_url, "MEMLODE_CREATED_BY": "mcp-test@host"}
    async with harness.session(env=env) as session:
        stored = harness.ok(
            await session.call_tool(
                "store_memory",
                {
                    "content": "We hash passwords with argon2id, never bcrypt",
                    "memory_type": "decision",
                    "tags": ["security"],
                },
            )
        )
        harness.ok(await session.call_tool("store_memory", {"content": "Standup is at 9:30"}))
        recall = harness.ok(
            await session.call_tool("recall_memory", {"query": "password hashing argon2"})
        )
        assert [h["id"] for h in recall["hits"]][:1] == [stored["id"]]
        got = harness.ok(await session.call_tool("get_memory", {"memory_id": stored["id"]}))
        assert got["content"] == "We hash passwords with argon2id, never bcrypt"
        stats = harness.ok(await session.call_tool("memlode_stats", {}))
        assert stats["memories"] == 2

        # the background embedder gives the rows vectors in the server's tables
        deadline = time.monotonic() + 60
        while harness.ok(await session.call_tool("memlode_stats", {}))["embedded"] < 2:
            assert time.monotonic() < deadline, harness.server_stderr()
            await anyio.sleep(0.2)
        by_meaning = harness.ok(
            await session.call_tool("recall_memory", {"query": "argon2id", "explain": True})
        )
        assert by_meaning["hits"][0]["id"] == stored["id"]
        assert "vector" in by_meaning["hits"][0]["signals"]

        chain = harness.ok(await session.call_tool("get_decision_chain", {"topic": "passwords"}))
        assert [d["id"] for d in chain["decisions"]] == [stored["id"]]
        note = "Releases are tagged from main after the changelog is reviewed."
        harness.ok(await session.call_tool("memory_store", {"name": "release", "text": note}))
        harness.ok(await session.call_tool("docs_reindex", {}))
        found = harness.ok(await session.call_tool("memory_search", {"query": "changelog tagged"}))
        assert any("changelog" in r["text"] for r in found["results"]), found

        deleted = harness.ok(await session.call_tool("delete_memory", {"memory_id": stored["id"]}))
        assert deleted
    with psycopg.connect(pg_store_url) as conn:
        rows = conn.execute(
            "SELECT content, created_by FROM memories WHERE source = 'memory'"
        ).fetchall()
        notes = conn.execute("SELECT count(*) FROM memories WHERE source = 'doc'").fetchone()
        vectors = conn.execute(
            "SELECT count(*) FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id"
            " WHERE m.source = 'memory'"
        ).fetchone()
    assert rows == [("Standup is at 9:30", "mcp-test@host")]
    assert notes == (1,)  # the memory file's chunk, on the server
    assert vectors == (1,)
    assert "Traceback" not in harness.server_stderr()


async def test_store_says_what_a_statement_replaces_on_postgresql(
    harness, pg_store_url: str
) -> None:
    """The store answer's ``replaces`` and ``may_replace`` on a server's store: the rules' link
    and the statements on the same subject, read from the server's vectors."""
    async with harness.session(env={"MEMLODE_DB": pg_store_url}) as session:

        async def store(text: str) -> tuple[dict, str]:
            result = await session.call_tool(
                "store_memory", {"content": text, "memory_type": "decision"}
            )
            return harness.ok(result), result.content[0].text  # type: ignore[union-attr]

        kong, _ = await store("Kong fronts every public API route of the shop.")
        await store("The checkout page is rendered on the server.")
        envoy, _ = await store("Envoy fronts every public API route of the shop, with limits.")
        assert envoy["replaces"] == [] and [m["id"] for m in envoy["may_replace"]] == [kong["id"]]
        traefik, text = await store("We no longer route through Envoy; Traefik fronts the API.")
        assert [m["id"] for m in traefik["replaces"]] == [envoy["id"]]
        assert f"old_id={envoy['id']}, new_id={traefik['id']}, undo=true" in text
