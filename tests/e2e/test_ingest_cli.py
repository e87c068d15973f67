"""`memlode ingest transcript(s)` end to end through the real entry point."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sqlite3
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


def load_factory() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "transcript_factory",
        Path(__file__).resolve().parents[1] / "sources" / "transcript_factory.py",
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


factory = load_factory()
REAL = factory.REAL_TRANSCRIPTS


@pytest.fixture
def memory_count(memlode_home: Path) -> Any:
    """How many memories the CLI's database holds (read straight from the SQLite file)."""

    def count() -> int:
        db = memlode_home / "memlode.db"
        if not db.exists():
            return 0
        with sqlite3.connect(db) as conn:
            return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])

    return count


@pytest.mark.skipif(not REAL.is_dir(), reason=f"{REAL} is absent")
def test_ingest_real_transcripts_then_search(cli: Any, tmp_path: Path, memory_count: Any) -> None:
    files = [str(p) for p in factory.real_fixtures()]
    first = cli("ingest", "transcript", *files, "--json")
    assert first.returncode == 0, first.stderr
    summary = first.json()
    assert summary["files_total"] == summary["files_read"] == 7
    assert (summary["turns"], summary["sidechain_turns"], summary["malformed_lines"]) == (16, 2, 7)
    assert summary["chunks_added"] == memory_count()
    again = cli("ingest", "transcript", *files, "--json")
    assert again.returncode == 0 and again.json()["files_read"] == 0
    assert again.json()["chunks_added"] == 0

    hits = cli("search", "credo dialyxir mix_audit", "--source", "transcript", "-n", "*", "--json")
    assert hits.returncode == 0, hits.stderr
    found = hits.json()
    assert found and all(h["source"] == "transcript" for h in found)
    assert found[0]["metadata"]["session_id"] == "491e126e-1e71-469c-ade2-fcc8af567c74"
    assert {"turn", "started_at", "uuids", "git_branch"} <= set(found[0]["metadata"])
    text = cli("search", "credo dialyxir mix_audit", "--source", "transcript", "-n", "*")
    assert text.returncode == 0
    assert "session 491e126e turn " in text.stdout
    # the source filter keeps transcript turns out of other sources' results
    other = cli("search", "credo dialyxir", "--source", "memory", "-n", "*", "--json")
    assert other.returncode == 0 and other.json() == []


def test_ingest_a_project_folder_with_subagents(cli: Any, tmp_path: Path) -> None:
    project = tmp_path / "work" / "my.app"
    project.mkdir(parents=True)
    claude = tmp_path / "claude-projects"
    # Claude Code's rule: every character outside [A-Za-z0-9] becomes "-" (runs not collapsed)
    folder = claude / re.sub(r"[^A-Za-z0-9]", "-", str(project.resolve()))
    assert "my-app" in folder.name
    (folder / "sess-0001-aaaa" / "subagents").mkdir(parents=True)
    main = factory.TranscriptWriter(folder / "sess-0001-aaaa.jsonl", cwd=str(project))
    main.prompt("audit the payment module for rounding errors")
    main.tool("Task", {"description": "audit payments", "prompt": "look for rounding"}, "done")
    main.reply("The subagent found one rounding error in refunds.")
    agent = factory.TranscriptWriter(
        folder / "sess-0001-aaaa" / "subagents" / "agent-77aa.jsonl",
        cwd=str(project),
        sidechain=True,
        agent_id="77aa",
    )
    agent.prompt("look for rounding")
    agent.tool("Grep", {"pattern": "round("}, "refunds.py:12")
    agent.reply("refunds.py line 12 rounds before summing.")
    other = factory.TranscriptWriter(
        folder / "sess-0002-bbbb.jsonl", session_id="sess-0002-bbbb", cwd=str(project)
    )
    other.prompt("write the changelog")
    other.reply("Changelog written.")

    result = cli(
        "ingest", "transcripts", "--project", str(project), "--claude-dir", str(claude), "--json"
    )
    assert result.returncode == 0, result.stderr
    summary = result.json()
    assert summary["files_total"] == 3
    assert (summary["turns"], summary["sidechain_turns"]) == (2, 1)
    assert {Path(f["path"]).name for f in summary["files"]} == {
        "sess-0001-aaaa.jsonl",
        "sess-0002-bbbb.jsonl",
        "agent-77aa.jsonl",
    }
    # the project folder exists and has no marker: outside any project, namespace ""
    listed = cli("list", "--source", "transcript", "-n", "*", "--json", "--limit", "50")
    assert listed.returncode == 0, listed.stderr
    rows = listed.json()
    sidechain = [r for r in rows if r["metadata"].get("sidechain")]
    assert sidechain and all(r["metadata"]["agent_id"] == "77aa" for r in sidechain)
    assert any("refunds.py line 12" in r["content"] for r in sidechain)
    # text output names each file
    plain = cli("ingest", "transcripts", "--project", str(project), "--claude-dir", str(claude))
    assert plain.returncode == 0
    assert plain.stdout.count(": unchanged") == 3


def test_missing_file_is_a_one_line_error_and_stores_nothing(
    cli: Any, tmp_path: Path, memory_count: Any
) -> None:
    good = tmp_path / "good.jsonl"
    w = factory.TranscriptWriter(good)
    w.prompt("first prompt")
    w.reply("first reply")
    ok = cli("ingest", "transcript", str(good))
    assert ok.returncode == 0, ok.stderr
    before = memory_count()
    w.prompt("second prompt")
    w.reply("second reply")
    missing = tmp_path / "nope.jsonl"
    result = cli("ingest", "transcript", str(good), str(missing))
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        f"memlode: error: no transcript at {missing}; give the path of a .jsonl file"
    ]
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert memory_count() == before  # good.jsonl was not ingested either

    folder = cli("ingest", "transcript", str(tmp_path))
    assert folder.returncode != 0 and "is not a file" in folder.stderr
    assert len(folder.stderr.strip().splitlines()) == 1

    junk = tmp_path / "junk.jsonl"
    junk.write_text("this is not json\n")
    bad = cli("ingest", "transcript", str(junk))
    assert bad.returncode != 0 and "not a Claude Code transcript" in bad.stderr
    assert memory_count() == before

    nowhere = cli(
        "ingest",
        "transcripts",
        "--project",
        str(tmp_path / "x"),
        "--claude-dir",
        str(tmp_path / "none"),
    )
    assert nowhere.returncode != 0 and "no Claude Code transcripts" in nowhere.stderr
    assert memory_count() == before


def test_appending_and_reingesting_through_the_cli(
    cli: Any, tmp_path: Path, memory_count: Any
) -> None:
    path = tmp_path / "s.jsonl"
    w = factory.TranscriptWriter(path)
    w.prompt("why is the build slow?")
    w.reply("The docker layer cache is invalidated by COPY . .")
    first = cli("ingest", "transcript", str(path), "--json").json()
    assert (first["units_added"], first["chunks_added"]) == (1, 1)
    w.prompt("reorder the Dockerfile then")
    w.reply("Moved COPY after the dependency install.")
    second = cli("ingest", "transcript", str(path), "--json").json()
    assert (second["units_added"], second["units_replaced"]) == (1, 1)
    assert memory_count() == 2
    shutil.copy(path, tmp_path / "copy.jsonl")  # same turns under another path: deduplicated
    third = cli("ingest", "transcript", str(tmp_path / "copy.jsonl"), "--json").json()
    assert third["chunks_added"] == 0 and memory_count() == 2
    row = third["files"][0]
    assert row["turns"] == 2 and row["provisional_turn"] == 1
    assert json.dumps(row)  # the summary is plain JSON
