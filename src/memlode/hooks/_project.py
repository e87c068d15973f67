"""Namespace detection for hooks: ``memlode.project.detect_namespace`` without ``pathlib``.

Same rule (git top level, else the nearest folder with a project marker, else ""), written
with ``os.path`` because importing ``pathlib`` is a measurable share of a hook's run time.
``tests/hooks/test_store_parity.py`` checks both give the same answer.
"""

from __future__ import annotations

import os

__all__ = ["PROJECT_MARKERS", "detect_namespace"]

# The same markers as memlode.project.PROJECT_MARKERS (a test keeps them equal).
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


def _chain(start: str) -> list[str]:
    here = os.path.realpath(os.path.expanduser(start))
    chain = [here]
    while True:
        parent = os.path.dirname(chain[-1])
        if parent == chain[-1]:
            return chain
        chain.append(parent)


def detect_namespace(start: str) -> str:
    try:
        chain = _chain(start)
    except (OSError, ValueError):
        return ""
    root = next((f for f in chain if os.path.exists(os.path.join(f, ".git"))), None)
    if root is None:
        root = next(
            (f for f in chain if any(os.path.isfile(os.path.join(f, m)) for m in PROJECT_MARKERS)),
            None,
        )
    if root is None or os.path.dirname(root) == root:
        return ""
    return os.path.basename(root)
