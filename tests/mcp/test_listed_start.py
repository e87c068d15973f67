"""A server that finds the lists of an earlier start in the home answers exactly what a cold
one builds, and binds each tool, prompt and resource when it is first used
(``memlode.mcp.listing``)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from mcp.client.session import ClientSession

from memlode.config import Settings
from memlode.mcp.listing import KEEP_LISTS

pytestmark = pytest.mark.anyio


async def _lists(session: ClientSession) -> dict[str, Any]:
    return {
        "tools": (await session.list_tools()).model_dump(mode="json"),
        "prompts": (await session.list_prompts()).model_dump(mode="json"),
        "resources": (await session.list_resources()).model_dump(mode="json"),
        "templates": (await session.list_resource_templates()).model_dump(mode="json"),
    }


def _cached() -> list[str]:
    cache = Settings.load({}).home / "cache"
    return sorted(p.name for p in cache.glob("mcp-lists-*.json")) if cache.exists() else []


async def test_a_listed_start_answers_as_a_cold_one_and_its_tools_work(harness) -> None:
    assert _cached() == []
    async with harness.session() as session:
        cold = await _lists(session)
    assert len(_cached()) == 1, "the cold start keeps its lists for the next one"

    async with harness.session() as session:
        listed = await _lists(session)
        stored = harness.ok(
            await session.call_tool(
                "store_memory",
                {"content": "Adopt uv for dependency management", "memory_type": "decision"},
            )
        )
        recalled = harness.ok(await session.call_tool("recall_memory", {"query": "uv"}))
        prompt = await session.get_prompt("recent_decisions", {})
        read = await session.read_resource(f"memory://{stored['id']}")
        # a tool called after everything was bound by the prompt
        stats = harness.ok(await session.call_tool("memlode_stats", {}))
    assert listed == cold
    assert len(cold["tools"]["tools"]) > 30
    assert [hit["id"] for hit in recalled["hits"]] == [stored["id"]]
    assert stored["id"] in prompt.messages[0].content.text  # type: ignore[union-attr]
    assert "Adopt uv" in read.contents[0].text  # type: ignore[union-attr]
    assert stats["memories"] == 1
    assert len(_cached()) == 1


async def test_an_unreadable_cache_falls_back_to_building_the_tools(harness) -> None:
    async with harness.session() as session:
        cold = await _lists(session)
    (name,) = _cached()
    (Settings.load({}).home / "cache" / name).write_text("{not json", encoding="utf-8")
    async with harness.session() as session:
        rebuilt = await _lists(session)
        harness.ok(await session.call_tool("memlode_stats", {}))
    assert rebuilt == cold


async def test_old_cached_lists_are_pruned_when_new_ones_are_kept(harness) -> None:
    cache = Settings.load({}).home / "cache"
    cache.mkdir(parents=True)
    for i in range(KEEP_LISTS + 4):  # lists of other projects and earlier versions
        old = cache / f"mcp-lists-{i:024x}.json"
        old.write_text("{}", encoding="utf-8")
        os.utime(old, (1_000_000 + i, 1_000_000 + i))
    other = cache / "notes.txt"  # not the server's
    other.write_text("kept", encoding="utf-8")
    async with harness.session() as session:
        await session.list_tools()
    kept = _cached()
    assert len(kept) == KEEP_LISTS
    oldest_kept = KEEP_LISTS + 4 - (KEEP_LISTS - 1)  # the new one plus the newest old ones
    assert f"mcp-lists-{oldest_kept:024x}.json" in kept
    assert f"mcp-lists-{oldest_kept - 1:024x}.json" not in kept
    assert other.read_text(encoding="utf-8") == "kept"
    async with harness.session() as session:  # the new lists are among those kept
        harness.ok(await session.call_tool("memlode_stats", {}))
    assert _cached() == kept
