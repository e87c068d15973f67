"""Compaction summaries are cut along their sections: one topic per chunk, whole bullets, the
state-at-compaction sections marked as history; through the real ingest and on the real
summaries of ../shared's long sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlode.engine import Engine
from memlode.engine.transcripts import ingest_transcript
from memlode.sources.compaction import SECTION_WORDS, compaction_parts

SESSIONS = Path(__file__).resolve().parents[3] / "shared" / "data" / "transcripts" / "spotter"

SUMMARY = """This session is being continued from a previous conversation that ran out of context.

Summary:
1. Primary Request and Intent:
   The user asked to move the billing service from MySQL to Postgres.

2. Errors and Fixes:
   - **Duplicate key on invoices**: the import ran twice. Fixed by truncating the staging
     table before each run.
     - The staging table is billing_import.
   - **Timezone drift**: timestamps were naive. Fixed by storing timestamptz everywhere.

3. All User Messages:
   - "migrate billing to postgres"
   - "keep the old reports working"

4. Pending Tasks:
   - Migrate the invoices table.

5. Current Work:
   Writing the invoices migration.
"""


def test_each_chunk_is_one_section_of_whole_bullets() -> None:
    parts = compaction_parts(SUMMARY)
    sections = [p.section for p in parts]
    assert sections == [
        "Primary Request and Intent",
        "Errors and Fixes",
        "All User Messages",
        "Pending Tasks",
        "Current Work",
    ]
    errors = parts[1].text
    assert errors.startswith("Session summary · Errors and Fixes:\n")
    # a bullet keeps its sub-bullet; both bullets of the section fit one chunk
    assert "billing_import" in errors and "timestamptz" in errors
    assert not any("continued from a previous conversation" in p.text for p in parts)
    assert [p.history for p in parts] == [False, False, False, True, True]


def test_a_long_section_is_cut_between_bullets_within_the_budget() -> None:
    bullets = "\n".join(
        f"   - **Error {i}**: " + " ".join(f"word{i}x{j}" for j in range(30)) for i in range(9)
    )
    parts = compaction_parts(f"4. Errors and Fixes:\n{bullets}\n")
    assert len(parts) > 1
    for part in parts:
        body = part.text.split("\n", 1)[1]
        assert len(body.split()) <= SECTION_WORDS
        # no bullet is split across chunks
        assert all(line.lstrip().startswith("- **Error") for line in body.split("\n"))


@pytest.mark.skipif(not SESSIONS.exists(), reason="../shared/data is absent")
def test_real_summaries_become_sections_within_the_budget() -> None:
    seen = 0
    for path in sorted((SESSIONS / "sessions").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if not record.get("isCompactSummary"):
                continue
            content = record["message"]["content"]
            text = content if isinstance(content, str) else content[0]["text"]
            parts = compaction_parts(text)
            seen += 1
            titles = {p.section.lower() for p in parts}
            assert "errors and fixes" in titles or "errors and fixes" in " ".join(titles)
            assert any(p.history for p in parts) and not all(p.history for p in parts)
            for part in parts:
                # a huge line is cut at the budget; everything else stays under it
                assert len(part.text.split()) <= SECTION_WORDS + 12
            words = sum(len(p.text.split("\n", 1)[-1].split()) for p in parts)
            assert words >= 0.9 * len(text.split()) - 40  # nothing but the boilerplate dropped
    assert seen == 3


def test_ingest_stores_sections_and_types_history_as_context(
    engine: Engine, tmp_path: Path, transcript_factory: Any
) -> None:
    path = tmp_path / "s.jsonl"
    w = transcript_factory.TranscriptWriter(path, session_id="sess-sections")
    w.prompt("migrate the billing service to postgres")
    w.reply("Moved the billing tables.")
    w.compact(SUMMARY)
    w.prompt("now the invoices table")
    w.reply("Invoices migrated.")
    ingest_transcript(engine, path)
    rows = [
        m
        for m in engine.list_memories(namespace="*", sources=["transcript"], limit=None)
        if m.metadata.get("kind") == "summary"
    ]
    by_section = {m.metadata.get("section"): m for m in rows}
    assert by_section["Errors and Fixes"].memory_type == "insight"
    assert by_section["Pending Tasks"].memory_type == "context"
    assert by_section["Pending Tasks"].metadata.get("history") is True
    assert by_section["Pending Tasks"].tags == ["history"]
    assert "history" not in by_section["Errors and Fixes"].metadata
    hits = engine.search("how was the duplicate key on invoices fixed", 3, namespace="*")
    assert "truncating the staging" in hits[0].memory.content
