"""Which files of a project are indexed: code and manifests, minus what a developer ignores.

``.gitignore`` files (at every level), ``.git/info/exclude`` and ``.memlodeignore`` are
honoured; vendored, dependency, build and cache folders are skipped by name; so are symlinks,
files over :data:`MAX_FILE_BYTES`, minified bundles and generated code (by name here, by
content in :func:`skip_reason` once a changed file is read). A file without a suffix is code
only when it is executable and its ``#!`` line names a shell (``bin/deploy``): one read of
its first bytes, for executable files only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlode.code.lang import language_for_path

__all__ = [
    "MANIFEST_NAMES",
    "MAX_FILE_BYTES",
    "SKIP_DIRS",
    "SourceFile",
    "skip_reason",
    "walk_project",
]

# Larger files are data dumps, amalgamations or bundles, never hand-written code worth a map.
MAX_FILE_BYTES = 1_000_000

SKIP_DIRS = frozenset(
    {
        "node_modules", "bower_components", "jspm_packages", "vendor", "third_party",
        "third-party", "thirdparty", "site-packages", "dist-packages", "__pycache__",
        "build", "dist", "target", "coverage", "htmlcov", "venv", "virtualenv",
        "Pods", "Carthage", "DerivedData", "bazel-out",
    }
)  # fmt: skip

MANIFEST_NAMES = {
    "pyproject.toml": "pyproject",
    "package.json": "npm",
    "Cargo.toml": "cargo",
    "go.mod": "gomod",
    "pom.xml": "maven",
}

_GENERATED_NAME = re.compile(
    r"(\.min\.[cm]?js|-min\.js|\.bundle\.js|_pb2(_grpc)?\.py|\.pb\.go|\.pb\.(cc|h)"
    r"|\.generated\.\w+|_generated\.\w+|\.g\.dart)$"
)
# A generator's banner: a comment among the first lines (Go's "// Code generated ... DO NOT
# EDIT.", "# This file is generated ... DO NOT EDIT", "/* @generated */").
_GENERATED_MARK = re.compile(
    rb"^[ \t]*(#|//|/\*|\*|<!--|--|;)[^\n]*(@generated|DO NOT EDIT|automatically generated)",
    re.IGNORECASE | re.MULTILINE,
)
_BANNER_LINES = 10
# A line this long in the first block means minified or machine-written text.
_MINIFIED_LINE = 1000
_HEAD_BYTES = 4096
# Enough of a file's head to hold a `#!/usr/bin/env bash` line.
_SHEBANG_BYTES = 128
_SHELLS = frozenset({"sh", "bash", "dash", "ksh"})


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: str  # relative to the root, '/' separated
    abspath: str
    size: int
    mtime_ns: int
    language: str  # a language name, or "manifest:<kind>"


def skip_reason(path: str, data: bytes) -> str | None:
    """Why a file's content should not be indexed (binary, generated, minified), or None."""
    head = data[:_HEAD_BYTES]
    if b"\x00" in head:
        return "binary"
    if path.rsplit("/", 1)[-1] in MANIFEST_NAMES:
        return None
    banner = b"\n".join(data[:4096].split(b"\n", _BANNER_LINES)[:_BANNER_LINES])
    if _GENERATED_MARK.search(banner):
        return "generated"
    if len(data) > _HEAD_BYTES and max((len(line) for line in head.split(b"\n")), default=0) > (
        _MINIFIED_LINE
    ):
        return "minified"
    return None


class _Ignores:
    """The stack of ignore files that apply inside one folder."""

    def __init__(self, root: Path, exclude: Sequence[str]) -> None:
        self.specs: list[tuple[str, Any]] = []  # (folder prefix, compiled spec)
        lines = list(exclude)
        for extra in (root / ".git" / "info" / "exclude", root / ".memlodeignore"):
            lines += _read_lines(extra)
        if lines:
            self.specs.append(("", _compile(lines)))

    def push(self, folder: str, path: Path) -> int:
        lines = _read_lines(path / ".gitignore")
        if lines:
            self.specs.append((folder, _compile(lines)))
            return 1
        return 0

    def ignored(self, rel: str, is_dir: bool) -> bool:
        for prefix, spec in self.specs:
            sub = rel[len(prefix) :] if prefix else rel
            if spec.match_file(sub + "/" if is_dir else sub):
                return True
        return False


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text("utf-8", "replace").splitlines()
    except OSError:
        return []


def _compile(lines: list[str]) -> Any:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _script_language(path: str, mode: int) -> str | None:
    """``bash`` for an executable file whose ``#!`` line runs a shell; else None."""
    if not mode & 0o111:
        return None
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SHEBANG_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("ascii", "replace").split()
    if words and words[0].endswith("/env"):
        words = [w for w in words[1:] if not w.startswith("-")]
    program = words[0].rsplit("/", 1)[-1] if words else ""
    return "bash" if program in _SHELLS else None


def walk_project(
    root: Path | str, exclude: Sequence[str] = (), max_bytes: int = MAX_FILE_BYTES
) -> list[SourceFile]:
    """Every indexable file under ``root``, sorted by path. ``exclude``: gitignore patterns."""
    base = Path(root).resolve()
    ignores = _Ignores(base, exclude)
    return sorted(_walk(base, "", ignores, max_bytes), key=lambda f: f.path)


def _walk(folder: Path, rel: str, ignores: _Ignores, max_bytes: int) -> Iterator[SourceFile]:
    pushed = ignores.push(rel, folder)
    try:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            name = entry.name
            child = f"{rel}{name}"
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir():
                    if name.startswith(".") or name in SKIP_DIRS or name.endswith(".egg-info"):
                        continue
                    if ignores.ignored(child, True):
                        continue
                    yield from _walk(Path(entry.path), child + "/", ignores, max_bytes)
                    continue
                if not entry.is_file():
                    continue
            except OSError:
                continue
            kind = MANIFEST_NAMES.get(name)
            language = f"manifest:{kind}" if kind else language_for_path(name)
            stat = None
            if language is None and "." not in name:
                try:
                    stat = entry.stat()
                except OSError:
                    continue
                language = _script_language(entry.path, stat.st_mode)
            if language is None or _GENERATED_NAME.search(name):
                continue
            if ignores.ignored(child, False):
                continue
            try:
                stat = stat or entry.stat()
            except OSError:
                continue
            if stat.st_size > max_bytes:
                continue
            yield SourceFile(child, entry.path, stat.st_size, stat.st_mtime_ns, language)
    finally:
        del ignores.specs[len(ignores.specs) - pushed :]
