"""Patches as Claude Code's ``structuredPatch`` hunks: Codex CLI's ``apply_patch`` format (the
files a patch adds, updates, moves or deletes, with their hunks) and unified diffs (what Codex's
rollout, Gemini CLI and OpenCode report of an edit).

A patch reads ``*** Begin Patch``, then per file ``*** Add File: path``, ``*** Update File:
path`` (optionally ``*** Move to: path``) or ``*** Delete File: path``, then ``@@`` hunks of
``+``/``-``/`` `` lines, and ``*** End Patch``. The Codex hook adapter and the reader of Codex's
rollout files both read patches here. Stdlib only: Codex hook processes import it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["parse_patch", "unified_hunks"]


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


def unified_hunks(diff: str) -> list[dict[str, Any]]:
    """The ``@@ -a,b +c,d @@`` hunks of a unified diff (one file's or several's) as
    ``structuredPatch`` entries. A hunk ends when its counts are used up, so the next file's
    ``---``/``+++`` header lines never join it, and a removed line that starts with ``--``
    stays in it."""
    hunks: list[dict[str, Any]] = []
    old_left = new_left = 0
    for line in diff.splitlines():
        if old_left > 0 or new_left > 0:
            tag = line[:1]
            if tag in (" ", ""):  # context; a blank context line may have lost its space
                hunks[-1]["lines"].append(line or " ")
                old_left, new_left = old_left - 1, new_left - 1
                continue
            if tag == "-" or tag == "+":
                hunks[-1]["lines"].append(line)
                old_left -= tag == "-"
                new_left -= tag == "+"
                continue
            if tag == "\\":  # "\ No newline at end of file"
                continue
            old_left = new_left = 0
        if not line.startswith("@@ ") or line.count("@@") < 2:
            continue
        ranges = line.split("@@")[1].split()
        if len(ranges) != 2:
            continue
        (old_start, old_lines), (new_start, new_lines) = (_range(r) for r in ranges)
        hunks.append(
            {
                "oldStart": old_start,
                "oldLines": old_lines,
                "newStart": new_start,
                "newLines": new_lines,
                "lines": [],
            }
        )
        old_left, new_left = old_lines, new_lines
    return hunks


def _range(text: str) -> tuple[int, int]:
    """``-12,3`` -> (12, 3); ``+4`` -> (4, 1)."""
    start, sep, count = text[1:].partition(",")
    return (
        int(start) if start.isdigit() else 0,
        int(count) if count.isdigit() else (1 if not sep else 0),
    )
