"""Ranking of memory-file chunks by the recall engine: evergreen vs decayed, MMR.

RECALL CONTRACT TESTS (for the lead to check against the recall engine): these call
``engine.search(query, k, namespace=..., sources=("doc",))`` directly on chunks written by
``docs.index_docs`` and rely on the recall engine (1) decaying a chunk by its ``created_at``
(the file's mtime) with a 30-day half-life unless ``metadata["evergreen"]`` is true, and
(2) applying MMR (lambda 0.7) so that a near-duplicate of a chosen hit gives way to a
different relevant one. In each test the raw BM25 order is the *wrong* answer, so they fail
if decay, the evergreen exemption or MMR is missing.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memlode.engine import Engine
from memlode.engine.docs import index_docs
from memlode.types import format_ts

YEAR_AGO = 365.0


def write(path: Path, text: str, age_days: float = 0.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    when = time.time() - age_days * 86400
    os.utime(path, (when, when))


def paths_of(engine: Engine, query: str, k: int = 5) -> list[str]:
    hits = engine.search(query, k, namespace="proj", sources=("doc",))
    return [h.memory.metadata["path"] for h in hits]


def fresh_project(root: Path) -> None:
    for stale in (root / "MEMORY.md", root / "memory" / "caching.md"):
        stale.unlink()


# The same note twice; the decayed copy says "webhooks" once more, so raw relevance (BM25)
# prefers it by a little, and only decay (or its absence) can put the other one first.
NOTE = "# Notes\n\nThe billing service retries failed webhooks with exponential backoff.{extra}\n"
EXTRA = " Webhooks are signed."


def test_evergreen_memory_file_outranks_an_equally_old_note(
    project: Path, proj_engine: Engine
) -> None:
    fresh_project(project)
    write(project / "MEMORY.md", NOTE.format(extra=""), YEAR_AGO)
    write(project / "memory" / "notes.md", NOTE.format(extra=EXTRA), YEAR_AGO)
    index_docs(proj_engine, cwd=project)
    chunks = proj_engine.list_memories(namespace="proj", sources=["doc"], limit=None)
    flags = {m.metadata["path"]: m.metadata["evergreen"] for m in chunks}
    assert flags == {"MEMORY.md": True, "memory/notes.md": False}
    a_while_ago = format_ts(datetime.now(UTC) - timedelta(days=300))
    assert all(m.created_at < a_while_ago for m in chunks)  # the files' mtimes
    assert paths_of(proj_engine, "billing webhooks")[0] == "MEMORY.md"


def test_a_recent_note_outranks_a_stale_one(project: Path, proj_engine: Engine) -> None:
    fresh_project(project)
    write(project / "memory" / "stale.md", NOTE.format(extra=EXTRA), YEAR_AGO)
    write(project / "memory" / "fresh.md", NOTE.format(extra=""), 0.0)
    index_docs(proj_engine, cwd=project)
    assert paths_of(proj_engine, "billing webhooks")[0] == "memory/fresh.md"


def test_without_decay_the_stale_note_would_win(project: Path, proj_engine: Engine) -> None:
    """The control for the two tests above: at equal age the extra mention wins."""
    fresh_project(project)
    write(project / "memory" / "stale.md", NOTE.format(extra=EXTRA), 0.0)
    write(project / "memory" / "fresh.md", NOTE.format(extra=""), 0.0)
    index_docs(proj_engine, cwd=project)
    assert paths_of(proj_engine, "billing webhooks")[0] == "memory/stale.md"


def test_mmr_removes_near_duplicates(project: Path, proj_engine: Engine) -> None:
    fresh_project(project)
    base = (
        "Database migrations run with alembic before each deploy; the migration job locks "
        "the schema table, applies pending migrations in order and records the revision."
    )
    write(project / "memory" / "migrations-a.md", base + " Owner: platform team.\n")
    write(project / "memory" / "migrations-b.md", base + " Owner: platform group.\n")
    write(
        project / "memory" / "migrations-c.md",
        "Rollback of database migrations: downgrade one revision at a time, verify data, "
        "never edit an applied migration file.\n",
    )
    index_docs(proj_engine, cwd=project)
    top = paths_of(proj_engine, "database migrations", k=2)
    assert len(top) == 2
    assert "memory/migrations-c.md" in top, top
    assert {"memory/migrations-a.md", "memory/migrations-b.md"} & set(top)
