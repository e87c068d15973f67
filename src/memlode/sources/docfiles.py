"""Which files are memory files and docs: the roots they live under and how to find them.

Two kinds of root:

- a *memory root* (a project root, or ``$MEMLODE_HOME/global``) holds only the four addressable
  shapes ``MEMORY.md``, ``SOUL.md``, ``USER.md`` and ``memory/<name>.md``, found through the
  path guard, so that a symlink out of the root is never indexed;
- a *docs root* (``.memlode/docs`` in a project, or a folder added with ``memlode docs add``)
  holds any markdown below it, hidden folders and dependency folders excepted.

L2: stdlib only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memlode.errors import InvalidInput, NotFound
from memlode.sources.pathguard import MEMORY_DIR, ROOT_FILES, is_memory_file, resolve_memory_path

__all__ = [
    "DOC_SUFFIXES",
    "SKIP_DIRS",
    "DocRoot",
    "discover",
    "relative_to_root",
]

DOC_SUFFIXES = (".md", ".markdown", ".mdx")
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "dist", "build"})


@dataclass(frozen=True, slots=True)
class DocRoot:
    path: Path  # absolute and resolved
    namespace: str
    scope: str  # project | global | docs | folder
    memory_only: bool  # only MEMORY.md, SOUL.md, USER.md and memory/<name>.md

    @property
    def label(self) -> str:
        """How chunks from this root name their file: 'MEMORY.md', 'global/MEMORY.md', ..."""
        if self.scope == "project":
            return ""
        if self.scope == "global":
            return "global"
        if self.scope == "docs":
            return ".memlode/docs"
        return self.path.name

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "namespace": self.namespace,
            "scope": self.scope,
            "memory_only": self.memory_only,
        }


def relative_to_root(root: DocRoot, path: Path) -> str | None:
    """``path`` relative to the root (POSIX), if it is a file this root indexes."""
    try:
        rel = path.relative_to(root.path)
    except ValueError:
        return None
    text = rel.as_posix()
    if root.memory_only:
        if not is_memory_file(text):
            return None
        try:
            resolve_memory_path(root.path, text)  # no symlink out of the root
        except (InvalidInput, NotFound):
            return None
        return text
    if any(part.startswith(".") or part in SKIP_DIRS for part in rel.parts[:-1]):
        return None
    if rel.name.startswith(".") or not rel.name.lower().endswith(DOC_SUFFIXES):
        return None
    if not _inside(root.path, path):
        return None
    return text


def _inside(root: Path, path: Path) -> bool:
    """True when ``path``, symlinks followed, is still under ``root``."""
    try:
        path.resolve(strict=True).relative_to(root.resolve())
    except (OSError, RuntimeError, ValueError):
        return False
    return True


def discover(root: DocRoot) -> list[Path]:
    """Every file the root indexes, sorted (an absent root has none)."""
    if not root.path.is_dir():
        return []
    if root.memory_only:
        return _memory_files(root.path)
    found: list[Path] = []
    real_root = root.path.resolve()
    for folder, dirs, files in os.walk(root.path, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(files):
            if name.startswith(".") or not name.lower().endswith(DOC_SUFFIXES):
                continue
            path = Path(folder) / name
            if path.is_symlink() and not _inside(real_root, path):
                continue  # a link out of the folder (or a dangling one) is not followed
            if path.is_file():
                found.append(path)
    return found


def _memory_files(root: Path) -> list[Path]:
    names = list(ROOT_FILES)
    notes = root / MEMORY_DIR
    if notes.is_dir():
        names += sorted(f"{MEMORY_DIR}/{p.name}" for p in notes.iterdir() if p.name.endswith(".md"))
    found: list[Path] = []
    for rel in names:
        if not is_memory_file(rel):
            continue
        try:
            resolve_memory_path(root, rel)
        except (InvalidInput, NotFound):
            continue
        found.append(root / rel)
    return found
