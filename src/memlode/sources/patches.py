"""Codex CLI's ``apply_patch`` format: the files a patch adds, updates, moves or deletes, with
their hunks.

A patch reads ``*** Begin Patch``, then per file ``*** Add File: path``, ``*** Update File:
path`` (optionally ``*** Move to: path``) or ``*** Delete File: path``, then ``@@`` hunks of
``+``/``-``/`` `` lines, and ``*** End Patch``. The Codex hook adapter and the reader of Codex's
rollout files both read patches here. Stdlib only: Codex hook processes import it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["parse_patch"]


def parse_patch(patch: str) -> list[dict[str, Any]]:
    """The files of an ``apply_patch`` patch, in order: ``path``, ``kind`` (add, update,
    delete), ``move_to`` (or None) and ``hunks`` (``structuredPatch``-like, without line
    numbers: the patch format has none)."""
    files: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    hunk: dict[str, Any] | None = None
    for line in patch.splitlines():
        header = _file_header(line)
        if header is not None:
            kind, path = header
            hunk = {"lines": []} if kind != "delete" else None
            current = {"path": path, "kind": kind, "move_to": None, "hunks": []}
            if hunk is not None:
                current["hunks"].append(hunk)
            files.append(current)
            continue
        if current is None or line.startswith("*** End Patch") or line == "*** End of File":
            continue
        if line.startswith("*** Move to: "):
            current["move_to"] = line[len("*** Move to: ") :].strip()
        elif line.startswith("@@"):
            hunk = {"lines": []}
            if current["hunks"] and not current["hunks"][-1]["lines"]:
                current["hunks"][-1] = hunk
            else:
                current["hunks"].append(hunk)
        elif hunk is not None and line[:1] in ("+", "-", " "):
            hunk["lines"].append(line)
        elif hunk is not None and line == "":  # a blank context line whose space was trimmed
            hunk["lines"].append(" ")
    for entry in files:
        entry["hunks"] = [h for h in entry["hunks"] if h["lines"]]
    return files


def _file_header(line: str) -> tuple[str, str] | None:
    for prefix, kind in (
        ("*** Add File: ", "add"),
        ("*** Update File: ", "update"),
        ("*** Delete File: ", "delete"),
    ):
        if line.startswith(prefix):
            return kind, line[len(prefix) :].strip()
    return None
