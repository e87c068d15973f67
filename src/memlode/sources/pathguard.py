"""The path guard for memory files: which files a model or a user may read or write by name.

Only four shapes are addressable, relative to an allowed root (a project root or the global
memory folder): ``MEMORY.md``, ``SOUL.md``, ``USER.md`` and ``memory/<name>.md``. Everything
else is refused before the file system is touched: absolute paths, ``~``, ``..`` and ``.``
segments, empty segments, backslashes, NUL and other control characters, percent-encoding (so
``%2e%2e%2f`` cannot smuggle a traversal past a later decoder), Windows drive letters, hidden
names and any other file name. After resolving, the real path (symlinks followed) must still be
one of the four shapes inside the real root, so a symlink that leaves the root, or points at
another file in it, is refused too.

L2: stdlib only. Bad shapes raise ``InvalidInput``; a well-formed name that does not exist
raises ``NotFound``.
"""

from __future__ import annotations

import re
import stat
from pathlib import Path, PurePosixPath

from memlode.errors import InvalidInput, NotFound

__all__ = [
    "MAX_NAME_CHARS",
    "MEMORY_DIR",
    "ROOT_FILES",
    "is_memory_file",
    "note_name",
    "resolve_memory_path",
]

ROOT_FILES = ("MEMORY.md", "SOUL.md", "USER.md")
MEMORY_DIR = "memory"
MAX_NAME_CHARS = 100
_NOTE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\- ]*\.md$")
_SHAPES = "MEMORY.md, SOUL.md, USER.md or memory/<name>.md"


def _refuse(requested: str, why: str) -> InvalidInput:
    shown = requested if len(requested) <= 120 else requested[:117] + "..."
    return InvalidInput(f"refused path {shown!r}: {why}; only {_SHAPES} can be read")


def _check_note(name: str, requested: str) -> None:
    if len(name) > MAX_NAME_CHARS:
        raise _refuse(requested, f"a note name has at most {MAX_NAME_CHARS} characters")
    if not _NOTE.match(name) or name.endswith(" .md") or ".." in name:
        raise _refuse(
            requested,
            "a note name uses letters, digits, '_', '-', '.' and spaces, and ends in .md",
        )


def _parts(requested: object) -> tuple[str, ...]:
    """Validate the text of a requested path and return its segments."""
    if not isinstance(requested, str):
        raise InvalidInput(f"a memory file path must be text, got {type(requested).__name__}")
    text = requested.strip()
    if not text:
        raise InvalidInput(f"the memory file path is empty; give {_SHAPES}")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise _refuse(requested, "it contains a NUL or control character")
    if "\\" in text:
        raise _refuse(requested, "backslashes are not allowed; use '/'")
    if "%" in text:
        raise _refuse(requested, "percent-encoded characters are not allowed")
    if text.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", text):
        raise _refuse(requested, "absolute paths are not allowed; give a path inside the root")
    parts = text.split("/")
    if parts and parts[0] == "." and len(parts) > 1:  # a leading "./" is harmless
        parts = parts[1:]
    if any(p in ("", ".", "..") for p in parts):
        raise _refuse(requested, "'..', '.' and empty segments are not allowed")
    return tuple(parts)


def _shape_ok(parts: tuple[str, ...]) -> bool:
    if len(parts) == 1:
        return parts[0] in ROOT_FILES
    return (
        len(parts) == 2
        and parts[0] == MEMORY_DIR
        and bool(_NOTE.match(parts[1]))
        and len(parts[1]) <= MAX_NAME_CHARS
    )


def is_memory_file(relative: str) -> bool:
    """True when ``relative`` (POSIX, root-relative) has one of the four allowed shapes."""
    try:
        return _shape_ok(_parts(relative))
    except InvalidInput:
        return False


def note_name(name: object) -> str:
    """The file name for a note called ``name`` ('auth' or 'auth.md' -> 'auth.md')."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("a note needs a name, e.g. 'auth' for memory/auth.md")
    text = name.strip()
    if "/" in text or "\\" in text:
        raise _refuse(text, "a note name is a plain file name without folders")
    _parts(text)  # control characters, percent-encoding, '..'
    filename = text if text.endswith(".md") else text + ".md"
    _check_note(filename, text)
    return filename


def resolve_memory_path(root: Path, requested: str, *, must_exist: bool = True) -> Path:
    """The real path of memory file ``requested`` under ``root``, or a clear refusal.

    With ``must_exist=False`` a file that does not exist yet is allowed (for writing a new
    note); its folder, if present, must still be inside the root.
    """
    parts = _parts(requested)
    if len(parts) == 2 and parts[0] == MEMORY_DIR:
        _check_note(parts[1], requested)
    elif not _shape_ok(parts):
        raise _refuse(requested, "that is not a memory file")
    try:
        real_root = root.resolve(strict=True)
    except (OSError, RuntimeError):
        raise NotFound(f"the memory root {root} does not exist") from None
    candidate = real_root.joinpath(*parts)
    try:
        real = candidate.resolve(strict=False)
    except (OSError, RuntimeError):  # a symlink loop
        raise _refuse(requested, "it cannot be resolved (a symlink loop?)") from None
    try:
        inside = PurePosixPath(real.relative_to(real_root).as_posix())
    except ValueError:
        raise _refuse(requested, "it resolves outside the memory root (a symlink?)") from None
    if not _shape_ok(inside.parts):
        raise _refuse(requested, "it resolves to a file that is not a memory file (a symlink?)")
    try:
        info = real.stat()
    except FileNotFoundError:
        if must_exist:
            raise NotFound(f"no memory file {'/'.join(parts)} under {real_root}") from None
        return real
    except OSError as exc:
        raise InvalidInput(f"cannot read {'/'.join(parts)}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(requested, "it is not a regular file")
    return real
