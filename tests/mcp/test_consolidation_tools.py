"""The consolidation tools through ``memlode mcp`` over stdio: ``consolidate`` (dry run, run,
re-run; the reflect cycle on an ended session), ``consolidation_status``, and an invalid call
as an isError result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.consolidation import DEFAULT_CYCLES
from memlode.storage import memories, sessions
from memlode.storage.values import NewMemory

pytestmark = pytest.mark.anyio


def _observations(cwd: Path) -> None:
    """Three observations of one command, stored as the hooks store them."""
    engine = Engine(Settings.load({}), cwd=cwd)
    try:
        with engine.db.write() as conn:
            for n in range(3):
                memories.insert(
                    conn,
                    NewMemory(
                        f"$ make lint\n[stdout]\nrun {n}: 0 problems",
                        tags=["command", "cmd:make", "tool:Bash"],
                        metadata={"command": "make lint", "tool": "Bash"},
                        namespace=engine.namespace,
                        source="hook",
                        session_id="s1",
                    ),
                )
    finally:
        engine.close()


async def test_consolidate_and_its_status(harness, workdir: Path) -> None:
    _observations(workdir)
    async with harness.session() as session:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"consolidate", "consolidation_status"} <= tools
        dry = harness.ok(
            await session.call_tool("consolidate", {"cycles": ["cluster"], "dry_run": True})
        )
        [run] = dry["runs"]
        assert run["dry_run"] and run["counts"]["new"] == 1
        assert run["changes"][0]["summary"].startswith("Ran `make lint` 3 times")
        empty = harness.ok(await session.call_tool("consolidation_status", {}))
        assert empty["runs"] == []  # the dry run logged nothing
        done = harness.ok(await session.call_tool("consolidate", {"cycles": ["cluster"]}))
        assert done["runs"][0]["counts"]["new"] == 1
        again = harness.ok(await session.call_tool("consolidate", {}))
        assert [r["cycle"] for r in again["runs"]] == list(DEFAULT_CYCLES)
        assert "forget" not in DEFAULT_CYCLES  # opt-in: only when named
        cluster = next(r for r in again["runs"] if r["cycle"] == "cluster")
        assert cluster["counts"]["unchanged"] == 1 and cluster["changes"] == []
        compress = next(r for r in again["runs"] if r["cycle"] == "compress")
        assert compress["counts"] == {"skipped": 1}  # no language model: nothing done, no log
        log = harness.ok(await session.call_tool("consolidation_status", {"limit": 5}))
        logged = [c for c in reversed(DEFAULT_CYCLES) if c != "compress"]  # skipped: no log
        assert [r["cycle"] for r in log["runs"]] == [*logged, "cluster"][:5]
        assert all(r["state"] == "finished" for r in log["runs"])
        bad = await session.call_tool("consolidate", {"cycles": ["shred"]})
        assert bad.is_error
        forget = harness.ok(
            await session.call_tool("consolidate", {"cycles": ["forget"], "dry_run": True})
        )
        assert forget["runs"][0]["counts"]["archived"] == 0  # nothing here is old


async def test_compress_through_the_tool_with_a_model_server(
    harness, workdir: Path, fake_llm: Any
) -> None:
    _observations(workdir)
    server = fake_llm("ollama")
    async with harness.session(env=server.env()) as session:
        harness.ok(await session.call_tool("consolidate", {"cycles": ["cluster"]}))
        dry = harness.ok(
            await session.call_tool("consolidate", {"cycles": ["compress"], "dry_run": True})
        )
        assert dry["runs"][0]["counts"]["requests"] == 1 and server.requests == []
        done = harness.ok(await session.call_tool("consolidate", {"cycles": ["compress"]}))
        [run] = done["runs"]
        assert run["counts"]["compressed"] == 1 and run["parameters"]["provider"] == "ollama"
        assert len(server.requests) == 1 and server.problems == []
        assert server.requests[0].user_text.startswith("1. Ran `make lint` 3 times")
        stats = harness.ok(await session.call_tool("namespace_stats", {}))
        assert stats["llm"]["tokens_today"] == server.tokens > 0
        again = harness.ok(await session.call_tool("consolidate", {"cycles": ["compress"]}))
        assert again["runs"][0]["counts"]["unchanged"] == 1 and len(server.requests) == 1


def _ended_session(cwd: Path) -> None:
    """A session, stored as the hooks store it, whose type check failed, then passed after
    an edit; then it ended."""
    engine = Engine(Settings.load({}), cwd=cwd)
    rows = [
        ("Failed: $ mypy src\nExit code 1\nsrc/app.py:3: error: Missing return", ["failure"]),
        ("Edited src/app.py: +1 -0 lines in 1 hunk (lines 3)", ["edit", "file:src/app.py"]),
        ("$ mypy src\n[stdout]\nSuccess: no issues found in 4 source files", []),
    ]
    try:
        with engine.db.write() as conn:
            sessions.start(conn, "s9", engine.namespace, "claude-code")
            for content, tags in rows:
                command = [] if "edit" in tags else ["command", "cmd:mypy", "tool:Bash"]
                memories.insert(
                    conn,
                    NewMemory(
                        content,
                        tags=tags + command,
                        metadata={"command": "mypy src"} if command else {"file": "src/app.py"},
                        namespace=engine.namespace,
                        source="hook",
                        session_id="s9",
                    ),
                )
            sessions.end(conn, "s9", None)
    finally:
        engine.close()


async def test_consolidate_reflect(harness, workdir: Path) -> None:
    _ended_session(workdir)
    async with harness.session() as session:
        dry = harness.ok(
            await session.call_tool("consolidate", {"cycles": ["reflect"], "dry_run": True})
        )
        [run] = dry["runs"]
        assert run["cycle"] == "reflect" and run["counts"]["new"] == 1
        [change] = run["changes"]
        assert change["kind"] == "solved" and change["thread"] == "command:mypy"
        assert "failed (src/app.py:3: error: Missing return)" in change["summary"]
        assert "passed after edits to src/app.py" in change["summary"]
        done = harness.ok(await session.call_tool("consolidate", {"cycles": ["reflect"]}))
        assert done["runs"][0]["counts"]["new"] == 1
        insight = done["runs"][0]["changes"][0]["insight_id"]
        shown = harness.ok(await session.call_tool("get_memory", {"memory_id": insight}))
        assert shown["memory_type"] == "insight" and "reflection:solved" in shown["tags"]
        again = harness.ok(await session.call_tool("consolidate", {"cycles": ["reflect"]}))
        assert again["runs"][0]["changes"] == [] and again["runs"][0]["counts"]["unchanged"] == 1


def _linkable_and_old(cwd: Path) -> dict[str, str]:
    """A decision and a hook observation that say the same thing (the creative cycle links
    them), and an old, unused, low-importance observation (the forget cycle archives it)."""
    from datetime import timedelta

    from memlode.types import MemoryType, format_ts, utcnow

    text = "the billing job retries a failed charge three times with a one minute backoff"
    engine = Engine(Settings.load({}), cwd=cwd)
    try:
        with engine.db.write() as conn:
            ids = {}
            for name, new in [
                ("decision", NewMemory(f"Decided: {text}", MemoryType.DECISION)),
                ("edit", NewMemory(f"Edited billing.py: {text}", source="hook")),
                ("old", NewMemory("Glob '*.tmp' -> 0 files", source="hook")),
            ]:
                new.namespace, new.session_id = engine.namespace, f"s-{name}"
                if name == "old":
                    new.importance, new.created_at = 0.05, format_ts(utcnow() - timedelta(days=200))
                ids[name], _created = memories.insert(conn, new)
        engine.embed_pending()
    finally:
        engine.close()
    return ids


async def test_creative_and_forget_through_the_tool(harness, workdir: Path) -> None:
    ids = _linkable_and_old(workdir)
    async with harness.session() as session:
        dry = harness.ok(
            await session.call_tool("consolidate", {"cycles": ["creative"], "dry_run": True})
        )
        [planned] = dry["runs"][0]["changes"]
        assert dry["runs"][0]["changes_total"] == 1  # lists are cut at 100; the total is not
        assert {planned["source"], planned["target"]} == {ids["decision"], ids["edit"]}
        done = harness.ok(await session.call_tool("consolidate", {"cycles": ["creative"]}))
        assert done["runs"][0]["counts"]["similar_new"] == 1
        again = harness.ok(await session.call_tool("consolidate", {"cycles": ["creative"]}))
        assert again["runs"][0]["changes"] == []
        linked = harness.ok(
            await session.call_tool("recall_with_expansion", {"query": "billing retries", "k": 1})
        )
        assert {e["id"] for h in linked["hits"] for e in h["expanded"]} & {
            ids["decision"],
            ids["edit"],
        }

        everything = harness.ok(await session.call_tool("consolidate", {}))
        assert "forget" not in {r["cycle"] for r in everything["runs"]}  # only when named
        forget = harness.ok(await session.call_tool("consolidate", {"cycles": ["forget"]}))
        assert forget["runs"][0]["changes"] == [{"id": ids["old"], "reason": "low importance"}]
        gone = await session.call_tool("get_memory", {"memory_id": ids["old"]})
        assert "no memory" in harness.error_text(gone)
    with Engine(Settings.load({}), cwd=workdir) as engine:
        from memlode.engine.consolidation.forget import restore

        assert restore(engine, ids=[ids["old"]]) == {ids["old"]: "restored"}
        assert engine.get(ids["old"], touch=False).importance == 0.05
