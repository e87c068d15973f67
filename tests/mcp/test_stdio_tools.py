"""Every tool through ``memlode mcp`` over stdio, checked against the store it writes."""

from __future__ import annotations

import json
import typing

import pytest
from mcp.shared.exceptions import MCPError

from memlode.engine import Engine
from memlode.errors import NotFound
from memlode.mcp.models import MemoryTypeName, RelationshipName
from memlode.types import MemoryType, Relationship

pytestmark = pytest.mark.anyio

EXPECTED_TOOLS = {
    "store_memory",
    "recall_memory",
    "recall_with_expansion",
    "recall_with_impact",
    "update_memory",
    "delete_memory",
    "get_memory",
    "associate_memories",
    "graph_traverse",
    "get_decision_chain",
    "list_namespaces",
    "namespace_stats",
    "delete_namespace",
    "export_memories",
    "import_memories",
    "set_scoring_weights",
    "get_scoring_weights",
    "memlode_stats",
    "memlode_health",
    "detect_patterns",
    "pattern_insights",
}


def test_schema_vocabularies_match_the_enums() -> None:
    assert set(typing.get_args(MemoryTypeName)) == {t.value for t in MemoryType}
    assert set(typing.get_args(RelationshipName)) == {r.value for r in Relationship}


async def test_lists_every_tool_with_schemas_resource_and_prompt(harness) -> None:
    async with harness.session() as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        templates = (await session.list_resource_templates()).resource_templates
        prompts = (await session.list_prompts()).prompts
        decision = harness.ok(
            await session.call_tool(
                "store_memory",
                {"content": "Adopt uv for dependency management", "memory_type": "decision"},
            )
        )
        harness.ok(await session.call_tool("store_memory", {"content": "Just context"}))
        read = await session.read_resource(f"memory://{decision['id']}")
        text = read.contents[0].text  # type: ignore[union-attr]
        assert "Adopt uv for dependency management" in text
        assert "type: decision" in text

        prompt = await session.get_prompt("recent_decisions", {})
        body = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "Adopt uv for dependency management" in body
        assert decision["id"] in body
        assert "Just context" not in body

        with pytest.raises(MCPError):
            await session.read_resource("memory://no-such-id")
    assert set(tools) >= EXPECTED_TOOLS
    for tool in tools.values():
        assert tool.description, tool.name
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.output_schema is not None, tool.name
    store = tools["store_memory"].input_schema
    assert store["required"] == ["content"]
    assert set(store["properties"]) == {
        "content",
        "memory_type",
        "importance",
        "confidence",
        "tags",
        "namespace",
        "metadata",
    }
    recall = tools["recall_memory"].input_schema["properties"]
    assert {"query", "k", "namespace", "memory_types", "tags", "explain"} <= set(recall)
    assert recall["k"]["maximum"] == 100
    assert tools["recall_memory"].annotations.read_only_hint is True
    assert tools["delete_namespace"].annotations.destructive_hint is True
    assert [t.uri_template for t in templates] == ["memory://{memory_id}"]
    assert "recent_decisions" in {p.name for p in prompts}


async def test_memory_tools_change_the_store(harness, store: Engine) -> None:
    async with harness.session() as session:
        stored = harness.ok(
            await session.call_tool(
                "store_memory",
                {
                    "content": "We hash passwords with argon2id, never bcrypt",
                    "memory_type": "decision",
                    "importance": 0.9,
                    "confidence": 0.8,
                    "tags": ["auth", "security"],
                    "metadata": {"file": "src/auth.py"},
                },
            )
        )
        assert stored["created"] is True and stored["namespace"] == store.namespace  # proj's key
        memory = store.get(stored["id"], touch=False)
        assert memory.memory_type == MemoryType.DECISION
        assert memory.importance == 0.9 and memory.confidence == 0.8
        assert memory.tags == ["auth", "security"]
        assert memory.metadata == {"file": "src/auth.py"}
        assert memory.namespace == store.namespace

        again = harness.ok(
            await session.call_tool(
                "store_memory", {"content": "We hash passwords with argon2id, never bcrypt"}
            )
        )
        assert again == {
            "id": stored["id"],
            "created": False,
            "namespace": store.namespace,
            "replaces": [],
            "may_replace": [],
            "next_step": None,
        }

        other = harness.ok(
            await session.call_tool(
                "store_memory",
                {"content": "Sessions expire after 30 minutes of inactivity", "tags": ["auth"]},
            )
        )
        harness.ok(
            await session.call_tool(
                "associate_memories",
                {"source_id": stored["id"], "target_id": other["id"], "relationship": "LEADS_TO"},
            )
        )

        got = harness.ok(await session.call_tool("get_memory", {"memory_id": stored["id"]}))
        assert got["content"].startswith("We hash passwords")
        assert store.get(stored["id"], touch=False).access_count == 1

        recall = await session.call_tool(
            "recall_memory", {"query": "password hashing argon2", "k": 5, "explain": True}
        )
        hits = harness.ok(recall)["hits"]
        assert hits[0]["id"] == stored["id"]
        assert hits[0]["signals"], "explain=true returns the signals"
        assert stored["id"] in recall.content[0].text

        filtered = harness.ok(
            await session.call_tool(
                "recall_memory",
                {"query": "passwords sessions", "memory_types": ["context"], "tags": ["auth"]},
            )
        )
        assert [h["id"] for h in filtered["hits"]] == [other["id"]]

        expanded = harness.ok(
            await session.call_tool(
                "recall_with_expansion", {"query": "argon2id", "k": 1, "depth": 1}
            )
        )
        assert [h["id"] for h in expanded["hits"]] == [stored["id"]]
        linked = expanded["hits"][0]["expanded"]
        assert [(m["id"], m["relationship"]) for m in linked] == [(other["id"], "LEADS_TO")]

        updated = harness.ok(
            await session.call_tool(
                "update_memory",
                {
                    "memory_id": stored["id"],
                    "content": "We hash passwords with argon2id (m=64MiB, t=3)",
                    "tags": ["auth"],
                },
            )
        )
        assert updated["content"].endswith("t=3)")
        memory = store.get(stored["id"], touch=False)
        assert memory.content == "We hash passwords with argon2id (m=64MiB, t=3)"
        assert memory.tags == ["auth"]
        assert memory.memory_type == MemoryType.DECISION  # untouched fields stay

        deleted = harness.ok(await session.call_tool("delete_memory", {"memory_id": other["id"]}))
        assert deleted == {"id": other["id"], "deleted": True}
        with pytest.raises(NotFound):
            store.get(other["id"], touch=False)


async def test_graph_tools_walk_and_chain_decisions(harness, store: Engine) -> None:
    async with harness.session() as session:

        async def remember(content: str, **extra: object) -> str:
            args = {"content": content, "memory_type": "decision", **extra}
            return str(harness.ok(await session.call_tool("store_memory", args))["id"])

        first = await remember("Store sessions in Redis", metadata={"file": "src/session.py"})
        second = await remember(
            "Move sessions from Redis to Postgres", metadata={"file": "src/session.py"}
        )
        third = await remember("Use signed cookies for session ids", tags=["session-cookies"])
        note = str(
            harness.ok(
                await session.call_tool(
                    "store_memory", {"content": "Redis was flaky under load in staging"}
                )
            )["id"]
        )
        for source, target, rel in (
            (first, second, "EVOLVED_INTO"),
            (second, third, "LEADS_TO"),
            (note, first, "EXPLAINS"),
        ):
            edge = harness.ok(
                await session.call_tool(
                    "associate_memories",
                    {"source_id": source, "target_id": target, "relationship": rel},
                )
            )
            assert edge["relationship"] == rel
        assert {(e.target_id, str(e.relationship)) for e in _edges_from(store, first)} == {
            (second, "EVOLVED_INTO")
        }

        bfs = harness.ok(
            await session.call_tool("graph_traverse", {"memory_id": first, "depth": 2})
        )
        assert [(n["node_id"], n["depth"]) for n in bfs["nodes"]] == [
            (first, 0),
            (second, 1),
            (note, 1),
            (third, 2),
        ]
        assert bfs["nodes"][1]["memory"]["content"] == "Move sessions from Redis to Postgres"

        dfs = harness.ok(
            await session.call_tool(
                "graph_traverse", {"memory_id": first, "depth": 2, "strategy": "dfs"}
            )
        )
        assert [n["node_id"] for n in dfs["nodes"]] == [first, second, third, note]

        forward = harness.ok(
            await session.call_tool(
                "graph_traverse",
                {
                    "memory_id": first,
                    "depth": 3,
                    "direction": "out",
                    "relationships": ["EVOLVED_INTO"],
                },
            )
        )
        assert [n["node_id"] for n in forward["nodes"]] == [first, second]

        by_file = harness.ok(
            await session.call_tool("get_decision_chain", {"topic": "src/session.py"})
        )
        # Both decisions naming the file, plus the one the chain LEADS_TO.
        assert [d["id"] for d in by_file["decisions"]] == [first, second, third]
        assert {(link["source_id"], link["relationship"]) for link in by_file["links"]} == {
            (first, "EVOLVED_INTO"),
            (second, "LEADS_TO"),
        }
        by_topic = harness.ok(
            await session.call_tool("get_decision_chain", {"topic": "signed cookies"})
        )
        assert [d["id"] for d in by_topic["decisions"]][-1] == third
        assert note not in {d["id"] for d in by_topic["decisions"]}  # not a decision


def _edges_from(store: Engine, memory_id: str) -> list:  # type: ignore[type-arg]
    from memlode.storage.graph import edges_of

    return [e for e in edges_of(store.conn, [memory_id]) if e.source_id == memory_id]


async def test_namespace_portability_config_and_system_tools(harness, store: Engine) -> None:
    async with harness.session() as session:
        ids = []
        for text in ("Tabs are forbidden; use 4 spaces", "Prefer dataclasses to dicts"):
            result = await session.call_tool(
                "store_memory", {"content": text, "memory_type": "style"}
            )
            ids.append(harness.ok(result)["id"])
        elsewhere = await session.call_tool(
            "store_memory", {"content": "Other project's note", "namespace": "other"}
        )
        assert harness.ok(elsewhere)["namespace"] == "other"
        harness.ok(
            await session.call_tool(
                "associate_memories",
                {"source_id": ids[0], "target_id": ids[1], "relationship": "RELATES_TO"},
            )
        )

        listed = harness.ok(await session.call_tool("list_namespaces", {}))
        assert listed["current"] == store.namespace
        assert {(n["namespace"], n["memories"]) for n in listed["namespaces"]} == {
            (store.namespace, 2),
            ("other", 1),
        }

        stats = harness.ok(await session.call_tool("namespace_stats", {}))
        assert stats["namespace"] == store.namespace and stats["memories"] == 2
        assert stats["by_type"] == {"style": 2}
        everything = harness.ok(await session.call_tool("memlode_stats", {}))
        assert everything["namespace"] == "*" and everything["memories"] == 3
        assert everything == store.stats("*") | {"database_bytes": everything["database_bytes"]}

        export = harness.ok(await session.call_tool("export_memories", {}))
        assert export["namespace"] == store.namespace
        kinds = [json.loads(line)["kind"] for line in export["jsonl"].splitlines()]
        assert kinds.count("memory") == 2 and kinds.count("edge") == 1
        assert export["records"] == len(kinds) - 1  # the header is not a record

        refused = await session.call_tool("delete_namespace", {"namespace": "proj"})
        assert "confirm=true" in harness.error_text(refused)
        assert store.stats("proj")["memories"] == 2

        gone = harness.ok(
            await session.call_tool("delete_namespace", {"namespace": "proj", "confirm": True})
        )
        assert gone == {"namespace": store.namespace, "deleted_memories": 2}  # "proj": its key
        assert store.stats("proj")["memories"] == 0
        assert store.stats("other")["memories"] == 1

        imported = harness.ok(
            await session.call_tool("import_memories", {"jsonl": export["jsonl"]})
        )
        assert imported["memories_added"] == 2 and imported["edges_added"] == 1
        assert {m.id for m in store.list_memories(namespace="proj")} == set(ids)
        again = harness.ok(await session.call_tool("import_memories", {"jsonl": export["jsonl"]}))
        assert again["memories_added"] == 0 and again["memories_skipped"] == 2

        before = harness.ok(await session.call_tool("get_scoring_weights", {}))["weights"]
        assert abs(sum(before.values()) - 1) < 1e-9
        merged = harness.ok(
            await session.call_tool("set_scoring_weights", {"weights": {"bm25": 2.0}})
        )["weights"]
        assert abs(sum(merged.values()) - 1) < 1e-9
        assert merged["bm25"] > before["bm25"]
        assert merged["vector"] > 0  # merge=true keeps unnamed signals
        assert store.get_weights() == pytest.approx(merged)
        only = harness.ok(
            await session.call_tool(
                "set_scoring_weights", {"weights": {"bm25": 1, "vector": 3}, "merge": False}
            )
        )["weights"]
        assert only["bm25"] == pytest.approx(0.25) and only["vector"] == pytest.approx(0.75)
        assert only["graph"] == 0
        after = harness.ok(await session.call_tool("get_scoring_weights", {}))["weights"]
        assert after == pytest.approx(only)

        health = await session.call_tool("memlode_health", {})
        report = harness.ok(health)
        for part in ("storage", "embedder", "vectors", "graph", "pending_embeddings", "server"):
            assert part in report, part
        assert "background_embedder" in report["server"]
        assert json.loads(health.content[0].text)["storage"] == report["storage"]
