"""Which files are memory files and docs: the roots they live under and how to find them.

Two kinds of root:

- a *memory root* (a project root, or ``$MEMLODE_HOME/global``) holds only the four addressable
  shapes ``MEMORY.md``, ``SOUL.md``, ``USER.md`` and ``memory/<name>.md``, found through the
  path guard, so that a symlink out of the root is never indexed;
- a *docs root* (``.memlode/docs`` in a project, or a folder added with ``memlode docs add``)
  holds any markdown below it, hidden folders and dependency folders excepted.

Indexing stays inside the roots: a file or folder that is a symlink leading out of its root is
not followed, and a root that must lie inside another (``.memlode/docs`` inside its project,
``DocRoot.within``) but resolves outside it, through a symlinked ``.memlode`` or ``docs``, is
not indexed at all. Each skip is logged with what was skipped and where it leads.

L2: stdlib only.
"""

from __future__ import annotations

import logging
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
    "is_contained",
    "relative_to_root",
]

log = logging.getLogger(__name__)

DOC_SUFFIXES = (".md", ".markdown", ".mdx")
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "dist", "build"})


@dataclass(frozen=True, slots=True)
class DocRoot:
    path: Path  # absolute and resolved
    namespace: str
    scope: str  # project | global | docs | folder
    memory_only: bool  # only MEMORY.md, SOUL.md, USER.md and memory/<name>.md
    within: Path | None = None  # the root must resolve inside this folder (its project)

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


def is_contained(root: DocRoot) -> bool:
    """False when the root must lie inside ``root.within`` but resolves outside it (a symlink)."""
    if root.within is None:
        return True
    return _inside(root.within, root.path) or not os.path.lexists(root.path)


def _where(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):
        return "an unresolvable target"


def relative_to_root(root: DocRoot, path: Path) -> str | None:
    """``path`` relative to the root (POSIX), if it is a file this root indexes."""
    try:
        rel = path.relative_to(root.path)
    except ValueError:
        return None
    if not is_contained(root):
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
    if not is_contained(root):
        assert root.within is not None
        log.warning(
            "not indexing %s: it leads to %s, outside %s (a symlink out of the project is not "
            "followed)",
            root.path,
            _where(root.path),
            root.within,
        )
        return []
    if root.memory_only:
        return _memory_files(root.path)
    found: list[Path] = []
    real_root = root.path.resolve()
    for folder, dirs, files in os.walk(root.path, followlinks=False):
        for name in dirs:
            linked = Path(folder) / name
            if linked.is_symlink() and not name.startswith(".") and name not in SKIP_DIRS:
                _log_link(linked, "folder")  # os.walk does not descend into it
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(files):
            if name.startswith(".") or not name.lower().endswith(DOC_SUFFIXES):
                continue
            path = Path(folder) / name
            if path.is_symlink() and not _inside(real_root, path):
                _log_link(path, "file")  # a link out of the folder (or a dangling one)
                continue
            if path.is_file():
                found.append(path)
    return found


def _log_link(path: Path, what: str) -> None:
    log.warning("not indexing %s: a symlinked %s leading to %s", path, what, _where(path))


def _memory_files(root: Path) -> list[Path]:
    names = list(ROOT_FILES)
    notes = root / MEMORY_DIR
    if notes.is_dir():
        if _inside(root, notes):
            names += sorted(
                f"{MEMORY_DIR}/{p.name}" for p in notes.iterdir() if p.name.endswith(".md")
            )
        else:
            _log_link(notes, "folder")
    found: list[Path] = []
    for rel in names:
        if not is_memory_file(rel):
            continue
        try:
            resolve_memory_path(root, rel)
        except NotFound:
            continue
        except InvalidInput as exc:  # a symlink out of the root, a folder named MEMORY.md, ...
            log.warning("not indexing %s: %s", root / rel, exc)
            continue
        found.append(root / rel)
    return found
