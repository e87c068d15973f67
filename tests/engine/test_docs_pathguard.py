"""The path guard: only MEMORY.md, SOUL.md, USER.md and memory/<name>.md under a root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.docs import memory_get
from memlode.errors import InvalidInput, NotFound
from memlode.sources.pathguard import is_memory_file, note_name, resolve_memory_path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A memory root with every allowed shape, plus bait: secrets inside and outside it."""
    base = tmp_path / "root"
    (base / "memory").mkdir(parents=True)
    for name in ("MEMORY.md", "SOUL.md", "USER.md", "README.md", "secret.txt"):
        (base / name).write_text(f"{name}\n")
    (base / "memory" / "note.md").write_text("note\n")
    (base / "memory" / "with space.md").write_text("spaced\n")
    (base / "memory" / "a-b_c.1.md").write_text("dotted\n")
    (base / "memory" / ".hidden.md").write_text("hidden\n")
    (base / "memory" / "sub").mkdir()
    (base / "memory" / "sub" / "deep.md").write_text("deep\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "MEMORY.md").write_text("stolen\n")
    (outside / "passwd").write_text("root:x:0:0\n")
    os.symlink(outside / "passwd", base / "memory" / "linkout.md")
    os.symlink(outside, base / "memory" / "dirlink")
    os.symlink(base / "README.md", base / "memory" / "readme.md")  # inside, but not a memory file
    os.symlink(base / "memory" / "note.md", base / "memory" / "alias.md")  # inside, allowed
    os.symlink(base / "memory" / "loop.md", base / "memory" / "loop.md")
    return base


TRAVERSALS = [
    "../MEMORY.md",
    "../outside/MEMORY.md",
    "memory/../../outside/passwd",
    "memory/../secret.txt",
    "./../MEMORY.md",
    "..",
    ".",
    "/etc/passwd",
    "//etc/passwd",
    "~/MEMORY.md",
    "~root/.ssh/id_rsa",
    "C:/Windows/win.ini",
    "c:MEMORY.md",
    "memory\\..\\..\\outside\\passwd",
    "..\\MEMORY.md",
    "%2e%2e/MEMORY.md",
    "..%2fMEMORY.md",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "memory/%2e%2e/secret.txt",
    "%252e%252e/MEMORY.md",
    "MEMORY.md\x00.txt",
    "memory/note.md\x00",
    "memory/note\n.md",
    "memory\x7f/note.md",
    "memory//note.md",
    "memory/./note.md",
    "memory/note.md/",
    "SOUL.md/..",
    "memory/..md",
    "README.md",
    "secret.txt",
    "memory.md",
    "Memory.md",
    "MEMORY.MD",
    "notes/note.md",
    "memory/sub/deep.md",
    "memory/.hidden.md",
    "memory/note.txt",
    "memory",
    "memory/",
    "memory/linkout.md",
    "memory/dirlink/MEMORY.md",
    "memory/readme.md",
    "memory/loop.md",
    "memory/" + "x" * 200 + ".md",
    "",
    "   ",
]


@pytest.mark.parametrize("attempt", TRAVERSALS)
def test_traversal_attempts_are_refused(root: Path, attempt: str) -> None:
    with pytest.raises(InvalidInput) as info:
        resolve_memory_path(root, attempt)
    message = str(info.value)
    assert message and "\n" not in message.strip("'")  # one line a user can read
    assert "stolen" not in message and "root:x" not in message


def test_there_are_enough_attempts() -> None:
    assert len(TRAVERSALS) >= 15


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        ("MEMORY.md", "MEMORY.md"),
        ("./MEMORY.md", "MEMORY.md"),
        ("SOUL.md", "SOUL.md"),
        ("USER.md", "USER.md"),
        ("memory/note.md", "memory/note.md"),
        ("memory/with space.md", "memory/with space.md"),
        ("memory/a-b_c.1.md", "memory/a-b_c.1.md"),
        ("memory/alias.md", "memory/note.md"),  # a link to another memory file in the root
        (" MEMORY.md ", "MEMORY.md"),
    ],
)
def test_allowed_paths_resolve_inside_the_root(root: Path, requested: str, expected: str) -> None:
    found = resolve_memory_path(root, requested)
    assert found == (root / expected).resolve()
    assert found.read_text()


def test_an_allowed_name_that_does_not_exist_is_not_found(root: Path) -> None:
    with pytest.raises(NotFound):
        resolve_memory_path(root, "memory/missing.md")
    assert (
        resolve_memory_path(root, "memory/new.md", must_exist=False)
        == (root / "memory" / "new.md").resolve()
    )


def test_a_symlinked_memory_folder_out_of_the_root_is_refused_for_writing(tmp_path: Path) -> None:
    base = tmp_path / "r2"
    base.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, base / "memory")
    with pytest.raises(InvalidInput, match="outside"):
        resolve_memory_path(base, "memory/new.md", must_exist=False)


def test_root_file_symlinked_outside_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "r3"
    base.mkdir()
    (tmp_path / "theirs.md").write_text("not yours\n")
    os.symlink(tmp_path / "theirs.md", base / "MEMORY.md")
    with pytest.raises(InvalidInput):
        resolve_memory_path(base, "MEMORY.md")


@pytest.mark.parametrize("name", ["auth", "auth.md", "design notes", "v1.2-plan"])
def test_note_names(name: str) -> None:
    assert note_name(name).endswith(".md")
    assert is_memory_file("memory/" + note_name(name))


@pytest.mark.parametrize(
    "name", ["", "../x", "a/b", "a\\b", ".hidden", "%2e%2e", "x\x00", "-", "a" * 150, 5]
)
def test_bad_note_names_are_refused(name: object) -> None:
    with pytest.raises(InvalidInput):
        note_name(name)


def test_memory_get_goes_through_the_guard(project: Path, proj_engine: Engine) -> None:
    assert "Authentication" in memory_get(proj_engine, "MEMORY.md", cwd=project)["content"]
    note = memory_get(proj_engine, "memory/caching.md", cwd=project)
    assert note["ref"] == "memory/caching.md" and note["scope"] == "project"
    for attempt in ("../MEMORY.md", "pyproject.toml", str(project / "MEMORY.md")):
        with pytest.raises(InvalidInput):
            memory_get(proj_engine, attempt, cwd=project)
    with pytest.raises(NotFound):
        memory_get(proj_engine, "SOUL.md", cwd=project)


def test_memory_get_reads_global_files(project: Path, memlode_home: Path) -> None:
    (memlode_home / "global").mkdir(parents=True)
    (memlode_home / "global" / "USER.md").write_text("I prefer tabs.\n")
    with Engine(Settings.load(), cwd=project) as engine:
        got = memory_get(engine, "global/USER.md", cwd=project)
        assert got["content"] == "I prefer tabs.\n" and got["namespace"] == "global"
        with pytest.raises(InvalidInput):
            memory_get(engine, "global/../USER.md", cwd=project)
