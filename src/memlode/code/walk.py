"""Which files of a project are indexed: code and manifests, minus what a developer ignores.

``.gitignore`` files (at every level), ``.git/info/exclude`` and ``.memlodeignore`` are
honoured; vendored, dependency, build and cache folders are skipped by name; so are symlinks,
files over :data:`MAX_FILE_BYTES`, minified bundles and generated code (by name here, by
content in :func:`skip_reason` once a changed file is read). A file without a suffix is code
only when it is executable and its ``#!`` line names a shell (``bin/deploy``): one read of
its first bytes, for executable files only.

:func:`walk_project` walks a whole root; :func:`sources_at` answers the same question for a
few given paths (an edited file) by the same rules, reading only the ignore files of the
folders above them.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlode.code.lang import language_for_path

__all__ = [
    "MANIFEST_NAMES",
    "MAX_FILE_BYTES",
    "SKIP_DIRS",
    "SourceFile",
    "folders_walked",
    "skip_reason",
    "skipped_folder",
    "sources_at",
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
        return _ignored(self.specs, rel, is_dir)


def _ignored(specs: Sequence[tuple[str, Any]], rel: str, is_dir: bool) -> bool:
    for prefix, spec in specs:
        sub = rel[len(prefix) :] if prefix else rel
        if spec.match_file(sub + "/" if is_dir else sub):
            return True
    return False


def skipped_folder(name: str) -> bool:
    """A folder skipped by its name alone: hidden, vendored, dependencies, build output."""
    return name.startswith(".") or name in SKIP_DIRS or name.endswith(".egg-info")


def _name_language(name: str) -> str | None:
    """The language (or ``manifest:<kind>``) a file's name says; None for no suffix we know
    (a file without a suffix may still be a shell script: :func:`_script_language`)."""
    kind = MANIFEST_NAMES.get(name)
    return f"manifest:{kind}" if kind else language_for_path(name)


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
                    if skipped_folder(name):
                        continue
                    if ignores.ignored(child, True):
                        continue
                    yield from _walk(Path(entry.path), child + "/", ignores, max_bytes)
                    continue
                if not entry.is_file():
                    continue
            except OSError:
                continue
            language = _name_language(name)
            info = None
            if language is None and "." not in name:
                try:
                    info = entry.stat()
                except OSError:
                    continue
                language = _script_language(entry.path, info.st_mode)
            if language is None or _GENERATED_NAME.search(name):
                continue
            if ignores.ignored(child, False):
                continue
            try:
                info = info or entry.stat()
            except OSError:
                continue
            if info.st_size > max_bytes:
                continue
            yield SourceFile(child, entry.path, info.st_size, info.st_mtime_ns, language)
    finally:
        del ignores.specs[len(ignores.specs) - pushed :]


def sources_at(
    root: Path | str,
    paths: Iterable[str],
    exclude: Sequence[str] = (),
    max_bytes: int = MAX_FILE_BYTES,
) -> dict[str, SourceFile | None]:
    """Each of ``paths`` (relative to ``root``, '/' separated) as :func:`walk_project` would
    list it, or None where the walk would not (gone, not a file, skipped, ignored, too big).

    The ignore files are read once per folder on the way down, as the walk reads them.
    """
    tree = _Tree(Path(root).resolve(), exclude)
    return {rel: tree.source(rel, max_bytes) for rel in paths}


def folders_walked(
    root: Path | str, paths: Iterable[str], exclude: Sequence[str] = ()
) -> list[str]:
    """Those of ``paths`` (relative, '/' separated; '' is the root) that are folders
    :func:`walk_project` walks into (not skipped by name, not ignored, not symlinks)."""
    tree = _Tree(Path(root).resolve(), exclude)
    return [rel for rel in paths if tree.walked(rel)]


class _Tree:
    """The walk's rules for single paths of one root: ignore specs per folder, read lazily."""

    def __init__(self, base: Path, exclude: Sequence[str]) -> None:
        self.base = base
        self.top = _Ignores(base, exclude)
        self.folders: dict[str, list[tuple[str, Any]] | None] = {}

    def specs_of(self, folder: str) -> list[tuple[str, Any]] | None:
        """The ignore specs in force inside ``folder`` ('' or 'a/b/'); None: not walked."""
        if folder in self.folders:
            return self.folders[folder]
        found: list[tuple[str, Any]] | None
        if not folder:
            found = list(self.top.specs)
            lines = _read_lines(self.base / ".gitignore")
            if lines:
                found.append(("", _compile(lines)))
        else:
            parent, _, name = folder[:-1].rpartition("/")
            outer = self.specs_of(parent + "/" if parent else "")
            path = self.base / folder
            if (
                outer is None
                or skipped_folder(name)
                or path.is_symlink()
                or _ignored(outer, folder[:-1], True)
            ):
                found = None
            else:
                found = outer
                lines = _read_lines(path / ".gitignore")
                if lines:
                    found = [*outer, (folder, _compile(lines))]
        self.folders[folder] = found
        return found

    def walked(self, rel: str) -> bool:
        if not rel:
            return True
        if not _clean(rel) or not (self.base / rel).is_dir():
            return False
        return self.specs_of(rel + "/") is not None

    def source(self, rel: str, max_bytes: int) -> SourceFile | None:
        if not _clean(rel):
            return None
        folder, _, name = rel.rpartition("/")
        specs = self.specs_of(folder + "/" if folder else "")
        if specs is None or _ignored(specs, rel, False):
            return None
        path = self.base / rel
        try:
            info = path.lstat()
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        language = _name_language(name)
        if language is None and "." not in name:
            language = _script_language(str(path), info.st_mode)
        if language is None or _GENERATED_NAME.search(name):
            return None
        return SourceFile(
            rel, os.path.join(self.base, rel), info.st_size, info.st_mtime_ns, language
        )


def _clean(rel: str) -> bool:
    """A relative path without empty, '.' or '..' parts."""
    return bool(rel) and not any(p in ("", ".", "..") for p in rel.split("/"))
