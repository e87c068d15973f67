"""memory_store, compaction summaries and the retrieval-gated injection."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memlode.engine import Engine
from memlode.engine.docs import (
    append_compaction_summary,
    memory_get,
    memory_search,
    memory_store,
)
from memlode.errors import InvalidInput


def test_memory_store_appends_and_indexes_at_once(project: Path, proj_engine: Engine) -> None:
    first = memory_store(proj_engine, "deploy", "Deploys go out on Tuesdays.", cwd=project)
    assert first["ref"] == "memory/deploy.md" and first["mode"] == "append"
    assert first["chunks_added"] == 1
    second = memory_store(proj_engine, "deploy.md", "Rollbacks use blue-green.", cwd=project)
    text = (project / "memory" / "deploy.md").read_text()
    assert text == "Deploys go out on Tuesdays.\n\nRollbacks use blue-green.\n"
    assert second["chunks_added"] == 1 and second["chunks_removed"] == 1
    hits = memory_search(proj_engine, "rollbacks blue-green", cwd=project)["results"]
    assert hits and hits[0]["ref"] == "memory/deploy.md"
    assert "Tuesdays" in hits[0]["text"]
    # The result is JSON (what an MCP tool returns as is).
    json.dumps(first)
    json.dumps(memory_search(proj_engine, "deploys", cwd=project))


def test_memory_store_write_replaces(project: Path, proj_engine: Engine) -> None:
    memory_store(proj_engine, "plan", "Old plan.", cwd=project)
    memory_store(proj_engine, "plan", "New plan only.", mode="write", cwd=project)
    assert memory_get(proj_engine, "memory/plan.md", cwd=project)["content"] == "New plan only.\n"
    contents = [m.content for m in proj_engine.list_memories(sources=["doc"], limit=None)]
    assert not any("Old plan" in c for c in contents)


def test_memory_store_root_files_and_global_scope(project: Path, proj_engine: Engine) -> None:
    result = memory_store(proj_engine, "MEMORY", "Use uv for installs.", cwd=project)
    assert result["ref"] == "MEMORY.md"
    assert (project / "MEMORY.md").read_text().endswith("\n\nUse uv for installs.\n")
    glob = memory_store(proj_engine, "USER.md", "Prefers short answers.", scope="global")
    assert glob["ref"] == "global/USER.md" and glob["namespace"] == "global"
    assert memory_get(proj_engine, "global/USER.md", cwd=project)["content"].startswith("Prefers")


@pytest.mark.parametrize(
    ("name", "text", "kwargs"),
    [
        ("../escape", "x", {}),
        ("a/b", "x", {}),
        (".env", "x", {}),
        ("SOUL.md/x", "x", {}),
        ("ok", "", {}),
        ("ok", "   ", {}),
        ("ok", "x", {"mode": "truncate"}),
        ("ok", "x", {"scope": "team"}),
    ],
)
def test_memory_store_refuses_bad_input(
    project: Path, proj_engine: Engine, name: str, text: str, kwargs: dict[str, str]
) -> None:
    with pytest.raises(InvalidInput):
        memory_store(proj_engine, name, text, cwd=project, **kwargs)  # type: ignore[arg-type]
    assert not (project / "escape.md").exists()


def test_memory_store_in_docs_only_mode_writes_global(outside: Path, memlode_home: Path) -> None:
    from memlode.config import Settings

    with Engine(Settings.load(), cwd=outside) as engine:
        result = memory_store(engine, "ideas", "Try a trie.", cwd=outside)
        assert result["ref"] == "global/memory/ideas.md"
        assert (memlode_home / "global" / "memory" / "ideas.md").is_file()
        with pytest.raises(InvalidInput, match="docs-only"):
            memory_store(engine, "ideas", "x", scope="project", cwd=outside)


def test_compaction_summary_goes_under_a_dated_heading(project: Path, proj_engine: Engine) -> None:
    when = datetime(2026, 3, 4, 5, 6, tzinfo=UTC)
    result = append_compaction_summary(
        proj_engine,
        "Refactored the auth module; tokens now rotate daily.",
        session_id="sess-1",
        when=when,
        cwd=project,
    )
    assert result["ref"] == "MEMORY.md"
    text = (project / "MEMORY.md").read_text()
    assert text.startswith("# Project memory")  # appended, nothing lost
    assert re.search(
        r"\n## Compaction summary, 2026-03-04 05:06 UTC\n\nSession: sess-1\n\nRefactored", text
    )
    found = memory_search(proj_engine, "tokens rotate daily", cwd=project)["results"]
    assert found[0]["ref"] == "MEMORY.md"
    assert "## Compaction summary, 2026-03-04" in found[0]["text"]
    with pytest.raises(InvalidInput):
        append_compaction_summary(proj_engine, "  ", cwd=project)
