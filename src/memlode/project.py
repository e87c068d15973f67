"""Namespace detection: which project a working directory belongs to.

The namespace is the project root's folder name: the git top level if there is one, else the
nearest folder holding a project marker; outside any project, no namespace (""). L0: stdlib only,
no subprocess (hooks call this on every event).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PROJECT_MARKERS", "detect_namespace", "find_project_root"]

PROJECT_MARKERS = (
    "pyproject.toml",
    "setup.py",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "Gemfile",
    "composer.json",
    "CMakeLists.txt",
    "Makefile",
)


def find_project_root(start: Path | str) -> Path | None:
    """The git top level above ``start``, else the nearest folder with a project marker."""
    try:
        here = Path(start).expanduser().resolve()
    except OSError:
        return None
    chain = [here, *here.parents]
    for folder in chain:
        if (folder / ".git").exists():
            return folder
    for folder in chain:
        if any((folder / marker).is_file() for marker in PROJECT_MARKERS):
            return folder
    return None


def detect_namespace(start: Path | str) -> str:
    root = find_project_root(start)
    if root is None or root == root.parent:
        return ""
    return root.name
