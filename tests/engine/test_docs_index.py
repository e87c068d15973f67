"""Indexing memory files and docs: skip unchanged, replace on change, drop on delete, modes."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.docs import (
    GLOBAL_NAMESPACE,
    add_folder,
    docs_status,
    index_docs,
    list_folders,
    memory_search,
    remove_folder,
)
from memlode.errors import InvalidInput, NotFound
from memlode.project import detect_namespace


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def set_age(path: Path, days: float) -> None:
    when = time.time() - days * 86400
    os.utime(path, (when, when))


def doc_chunks(engine: Engine, namespace: str = "proj") -> dict[str, list[dict[str, Any]]]:
    """path -> the chunk memories of that file, in chunk order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for memory in engine.list_memories(namespace=namespace, sources=["doc"], limit=None):
        out.setdefault(memory.metadata["path"], []).append(memory.to_dict())
    for items in out.values():
        items.sort(key=lambda m: m["metadata"]["chunk"])
    return out


def long_note(tag: str, paragraphs: int = 12) -> str:
    return "\n\n".join(
        " ".join(f"{tag}{p}x{i}" for i in range(60)) + "." for p in range(paragraphs)
    )


def test_first_index_stores_chunks_with_metadata(project: Path, proj_engine: Engine) -> None:
    report = index_docs(proj_engine, cwd=project)
    assert report["docs_only"] is False
    assert report["namespaces"] == [detect_namespace(project), "global"]
    assert (report["files"], report["indexed"], report["skipped"]) == (2, 2, 0)
    chunks = doc_chunks(proj_engine)
    assert set(chunks) == {"MEMORY.md", "memory/caching.md"}
    memory = chunks["MEMORY.md"][0]
    meta = memory["metadata"]
    assert memory["source"] == "doc" and memory["namespace"] == detect_namespace(project)
    assert meta["root"] == str(project) and meta["scope"] == "project"
    assert meta["file"] == str(project / "MEMORY.md") and meta["ref"] == "MEMORY.md"
    assert meta["chunk"] == 0 and meta["chunks"] == 1
    assert meta["headings"] == ["Project memory", "Decisions"]
    assert meta["evergreen"] is True
    assert chunks["memory/caching.md"][0]["metadata"]["evergreen"] is False
    assert memory["content"].startswith("MEMORY.md > Project memory > Decisions\n\n# Project")


def test_unchanged_files_are_skipped(project: Path, proj_engine: Engine) -> None:
    index_docs(proj_engine, cwd=project)
    before = doc_chunks(proj_engine)
    os.utime(project / "MEMORY.md")  # touched, same bytes
    again = index_docs(proj_engine, cwd=project)
    assert (again["indexed"], again["skipped"], again["removed"]) == (0, 2, 0)
    assert (again["chunks_added"], again["chunks_removed"]) == (0, 0)
    assert doc_chunks(proj_engine) == before


def test_a_changed_file_replaces_its_chunks(project: Path, proj_engine: Engine) -> None:
    note = write(project / "memory" / "big.md", long_note("orig"))
    index_docs(proj_engine, cwd=project)
    old = doc_chunks(proj_engine)["memory/big.md"]
    assert len(old) >= 3
    # Change only the last paragraph: early chunks keep their ids, the rest are replaced.
    text = note.read_text().rsplit("\n\n", 1)[0] + "\n\nA brand new closing paragraph here."
    note.write_text(text)
    report = index_docs(proj_engine, cwd=project)
    assert (report["indexed"], report["skipped"]) == (1, 2)
    new = doc_chunks(proj_engine)["memory/big.md"]
    assert "brand new closing" in new[-1]["content"]
    assert not any("orig11x59" in m["content"] for m in new)
    assert new[0]["id"] == old[0]["id"]  # unchanged text keeps its id (and its embedding)
    assert new[-1]["id"] != old[-1]["id"]
    assert [m["metadata"]["chunk"] for m in new] == list(range(len(new)))
    gone = {m["id"] for m in old} - {m["id"] for m in new}
    assert gone and report["chunks_removed"] == len(gone)
    for memory_id in gone:
        with pytest.raises(NotFound):
            proj_engine.get(memory_id, touch=False)
    links = proj_engine.conn.execute("SELECT count(*) FROM doc_chunks").fetchone()[0]
    assert links == sum(len(v) for v in doc_chunks(proj_engine).values())


def test_replacement_is_one_transaction(project: Path, proj_engine: Engine) -> None:
    """A reader never sees a file with its old chunks gone and its new ones missing."""
    index_docs(proj_engine, cwd=project)
    (project / "MEMORY.md").write_text("# Project memory\n\nEverything changed.\n")
    reader = sqlite3.connect(proj_engine.db.path)
    try:
        count = "SELECT count(*) FROM memories WHERE source = 'doc' AND namespace = ?"
        ns = (detect_namespace(project),)
        reader.execute("BEGIN")
        seen_before = reader.execute(count, ns).fetchone()[0]
        index_docs(proj_engine, cwd=project)  # WAL: the writer commits while the reader reads
        assert reader.execute(count, ns).fetchone()[0] == seen_before  # snapshot unchanged
        reader.execute("COMMIT")
        assert reader.execute(count, ns).fetchone()[0] == 2
    finally:
        reader.close()


def test_a_deleted_file_drops_its_chunks(project: Path, proj_engine: Engine) -> None:
    index_docs(proj_engine, cwd=project)
    ids = [m["id"] for m in doc_chunks(proj_engine)["memory/caching.md"]]
    (project / "memory" / "caching.md").unlink()
    report = index_docs(proj_engine, cwd=project)
    assert report["removed"] == 1 and report["chunks_removed"] == len(ids)
    assert "memory/caching.md" not in doc_chunks(proj_engine)
    for memory_id in ids:
        with pytest.raises(NotFound):
            proj_engine.get(memory_id, touch=False)
    files = proj_engine.conn.execute("SELECT path FROM doc_files").fetchall()
    assert [r[0] for r in files] == [str(project / "MEMORY.md")]


def test_identical_chunks_shared_by_two_files_survive_deleting_one(
    project: Path, proj_engine: Engine, tmp_path: Path
) -> None:
    # Two added folders with the same name and file: identical chunk text, stored once.
    for parent in ("a", "b"):
        write(tmp_path / parent / "docs" / "x.md", "Shared words about the deploy pipeline.\n")
        add_folder(proj_engine, tmp_path / parent / "docs", cwd=project)
    links = proj_engine.conn.execute("SELECT DISTINCT memory_id FROM doc_chunks").fetchall()
    shared = [r[0] for r in links]
    assert len(doc_chunks(proj_engine)["x.md"]) == 1  # one memory ...
    assert proj_engine.conn.execute("SELECT count(*) FROM doc_chunks").fetchone()[0] == 2
    (tmp_path / "a" / "docs" / "x.md").unlink()
    index_docs(proj_engine, cwd=project)
    for memory_id in shared:  # ... still there for the other file
        proj_engine.get(memory_id, touch=False)
    (tmp_path / "b" / "docs" / "x.md").unlink()
    index_docs(proj_engine, cwd=project)
    assert "x.md" not in doc_chunks(proj_engine)


def test_project_docs_folder_and_files_mtime_become_created_at(
    project: Path, proj_engine: Engine
) -> None:
    doc = write(project / ".memlode" / "docs" / "guide" / "setup.md", "# Setup\n\nRun make.\n")
    write(project / ".memlode" / "docs" / "node_modules" / "x.md", "ignored dependency docs\n")
    write(project / ".memlode" / "docs" / "notes.txt", "not markdown\n")
    set_age(doc, 40)
    index_docs(proj_engine, cwd=project)
    chunks = doc_chunks(proj_engine)
    assert "guide/setup.md" in chunks and "x.md" not in str(chunks)
    memory = chunks["guide/setup.md"][0]
    assert memory["metadata"]["scope"] == "docs" and "ref" not in memory["metadata"]
    assert memory["created_at"][:10] == memory["updated_at"][:10]
    assert memory["created_at"] < proj_engine.get(chunks["MEMORY.md"][0]["id"]).created_at


def test_symlinks_out_of_roots_are_not_indexed(
    project: Path, proj_engine: Engine, tmp_path: Path
) -> None:
    secret = write(tmp_path / "secret" / "keys.md", "TOP SECRET api key\n")
    os.symlink(secret, project / "memory" / "keys.md")
    docs = project / ".memlode" / "docs"
    docs.mkdir(parents=True)
    os.symlink(secret, docs / "keys.md")
    os.symlink(secret.parent, docs / "linked")
    index_docs(proj_engine, cwd=project)
    everything = " ".join(m.content for m in proj_engine.list_memories(namespace="*", limit=None))
    assert "TOP SECRET" not in everything


def test_docs_only_mode_indexes_global_files_and_folders(
    outside: Path, memlode_home: Path, tmp_path: Path
) -> None:
    write(memlode_home / "global" / "SOUL.md", "I am a careful assistant who writes tests.\n")
    write(memlode_home / "global" / "memory" / "habits.md", "Always run ruff before commit.\n")
    folder = write(tmp_path / "handbook" / "onboarding.md", "Onboarding checklist for laptops.\n")
    with Engine(Settings.load(), cwd=outside) as engine:
        assert engine.namespace == ""
        added = add_folder(engine, folder.parent, cwd=outside)
        assert added["namespace"] == GLOBAL_NAMESPACE and added["index"]["indexed"] == 1
        report = index_docs(engine, cwd=outside)
        assert report["docs_only"] is True and report["namespaces"] == [GLOBAL_NAMESPACE]
        assert (report["files"], report["indexed"], report["skipped"]) == (3, 2, 1)
        status = docs_status(engine, cwd=outside)
        assert status["docs_only"] is True and status["project_root"] is None
        assert status["files"] == 3 and status["namespace"] == GLOBAL_NAMESPACE
        found = memory_search(engine, "ruff commit", cwd=outside)
        assert found["docs_only"] is True
        assert found["results"][0]["ref"] == "global/memory/habits.md"
        assert memory_search(engine, "laptops", cwd=outside)["results"][0]["scope"] == "folder"


def test_project_search_includes_global_files(project: Path, memlode_home: Path) -> None:
    write(memlode_home / "global" / "USER.md", "The user prefers tabs over spaces.\n")
    with Engine(Settings.load(), cwd=project) as engine:
        index_docs(engine, cwd=project)
        found = memory_search(engine, "tabs spaces", cwd=project)
        assert found["namespaces"] == [detect_namespace(project), "global"]
        top = found["results"][0]
        assert top["namespace"] == "global" and top["ref"] == "global/USER.md"
        assert top["evergreen"] is True


def test_folders_add_list_remove(project: Path, proj_engine: Engine, tmp_path: Path) -> None:
    folder = tmp_path / "extra"
    write(folder / "a.md", "Alpha release notes.\n")
    write(folder / "sub" / "b.md", "Beta release notes.\n")
    first = add_folder(proj_engine, folder, cwd=project)
    assert first["added"] is True and first["namespace"] == detect_namespace(project)
    assert first["index"]["indexed"] == 2
    assert add_folder(proj_engine, folder, cwd=project)["added"] is False
    listed = list_folders(proj_engine)
    assert [(f["path"], f["files"]) for f in listed] == [(str(folder.resolve()), 2)]
    assert "sub/b.md" in doc_chunks(proj_engine)
    removed = remove_folder(proj_engine, folder)
    assert removed["files_removed"] == 2 and removed["chunks_removed"] == 2
    assert list_folders(proj_engine) == []
    assert "sub/b.md" not in doc_chunks(proj_engine)
    with pytest.raises(NotFound):
        remove_folder(proj_engine, folder)


@pytest.mark.parametrize("bad", ["", "does-not-exist", "pyproject.toml", "/"])
def test_bad_folders_are_refused(project: Path, proj_engine: Engine, bad: str) -> None:
    with pytest.raises(InvalidInput):
        add_folder(proj_engine, bad, cwd=project)


def test_unreadable_and_huge_files_are_reported_not_fatal(
    project: Path, proj_engine: Engine
) -> None:
    docs = project / ".memlode" / "docs"
    write(docs / "ok.md", "fine\n")
    (docs / "huge.md").write_bytes(b"x " * 1_100_000)
    report = index_docs(proj_engine, cwd=project)
    assert [e["path"] for e in report["errors"]] == [str(docs / "huge.md")]
    assert "ok.md" in doc_chunks(proj_engine)


def test_non_utf8_and_bom_files_index(project: Path, proj_engine: Engine) -> None:
    docs = project / ".memlode" / "docs"
    docs.mkdir(parents=True)
    (docs / "latin.md").write_bytes("caf\xe9 menu\n".encode("latin-1"))
    (docs / "bom.md").write_bytes("\ufeff# Title\n\nbody\n".encode())
    index_docs(proj_engine, cwd=project)
    chunks = doc_chunks(proj_engine)
    assert chunks["bom.md"][0]["metadata"]["headings"] == ["Title"]
    assert "menu" in chunks["latin.md"][0]["content"]
