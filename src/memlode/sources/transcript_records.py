"""Transcript records: complete JSONL lines read from a byte offset, decoded into records, and
the lines a rewind or an edit left off the active branch. Used by
:mod:`memlode.sources.transcript`, which builds the conversation threads from them.

Claude Code writes UTF-8. A transcript saved in another Unicode encoding (UTF-16 or UTF-32,
with or without a byte order mark, or UTF-8 with one) is read in that encoding: lines are split
on that encoding's newline, offsets stay byte offsets into the file, and each line is handed on
as UTF-8. A byte that is not valid in the encoding becomes U+FFFD instead of losing its line.
``sniff`` tells a transcript from a file that is none (binary data, other text).
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "SESSION_RECORDS",
    "RawLine",
    "Record",
    "abandoned",
    "decode",
    "decode_object",
    "detect_encoding",
    "make_record",
    "progress_record",
    "read_lines",
    "session_record",
    "sniff",
    "text_field",
]


@dataclass(slots=True)
class RawLine:
    index: int
    offset: int
    data: bytes  # the line as UTF-8


# Byte order marks, longest first (UTF-32 LE starts with UTF-16 LE's mark).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def detect_encoding(head: bytes) -> tuple[str, int]:
    """(encoding, length of its byte order mark) from a file's first bytes.

    Without a mark, JSON's first character is ASCII, so the zero bytes around it give the
    encoding away (the rule of RFC 4627, section 3).
    """
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name, len(bom)
    if len(head) >= 4:
        if head[:3] == b"\0\0\0" and head[3]:
            return "utf-32-be", 0
        if head[0] and head[1:4] == b"\0\0\0":
            return "utf-32-le", 0
    if len(head) >= 2:
        if head[0] == 0 and head[1]:
            return "utf-16-be", 0
        if head[0] and head[1] == 0:
            return "utf-16-le", 0
    return "utf-8", 0


def _find_newline(blob: bytes, newline: bytes, pos: int, start: int) -> int:
    """The next newline at or after ``pos`` that starts on a character boundary."""
    width = len(newline)
    nl = blob.find(newline, pos)
    while nl >= 0 and (start + nl) % width:
        nl = blob.find(newline, nl + 1)
    return nl


def read_lines(path: Path, start: int = 0) -> tuple[list[RawLine], int, bool]:
    """Complete lines from byte ``start``: (lines, end of the last one, half-written tail left)."""
    with path.open("rb") as fh:
        head = fh.read(4)
        fh.seek(start)
        blob = fh.read()
    encoding, bom = detect_encoding(head)
    newline = "\n".encode(encoding)

    def utf8(data: bytes) -> bytes:
        if encoding == "utf-8":
            return data
        return data.decode(encoding, "replace").encode("utf-8")

    out: list[RawLine] = []
    pos = bom if start == 0 else 0
    index = 0
    while True:
        nl = _find_newline(blob, newline, pos, start)
        if nl < 0:
            break
        out.append(RawLine(index, start + pos, utf8(blob[pos:nl])))
        index += 1
        pos = nl + len(newline)
    tail = utf8(blob[pos:])
    if tail.strip():
        # No newline yet. A writer appends "record\n"; a tail that is already a whole JSON
        # value (a file saved without its last newline) is taken, a half-written one is left.
        try:
            json.loads(tail.decode("utf-8", "replace"))
        except ValueError:
            return out, start + pos, True
        out.append(RawLine(index, start + pos, tail))
        pos = len(blob)
    return out, start + pos, False


# How much of a file ``sniff`` reads: enough for several whole records.
_SNIFF_BYTES = 64 * 1024


def sniff(path: Path) -> str | None:
    """Why ``path`` is not a JSONL transcript, or None if it may be one (an empty file may).

    Only the start of the file is read: binary data (zero bytes in UTF-8 text, bytes that are
    not text at all) and text whose first complete line is no JSON object are refused.
    """
    with path.open("rb") as fh:
        head = fh.read(_SNIFF_BYTES)
    if not head.strip():
        return None
    encoding, bom = detect_encoding(head)
    text = head[bom:].decode(encoding, "replace")
    sample = text if len(head) < _SNIFF_BYTES else text[: text.rfind("\n") + 1] or text
    if "\0" in sample:
        return "it holds binary data, not JSON lines"
    if sample.count("\ufffd") > max(8, len(sample) // 100):
        return f"it is not {encoding.upper()} text (binary data?)"
    first = next((line for line in sample.splitlines() if line.strip()), "")
    if not first.lstrip().startswith("{"):
        return "its first line is not a JSON record"
    return None


# ---- records --------------------------------------------------------------------------------


@dataclass(slots=True)
class Record:
    line: int
    offset: int
    data: dict[str, Any]
    uuid: str | None
    parent: str | None
    type: str
    sidechain: bool
    agent_id: str | None

    @property
    def message(self) -> dict[str, Any]:
        msg = self.data.get("message")
        return msg if isinstance(msg, dict) else {}


def text_field(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _valid_message(data: dict[str, Any]) -> bool:
    """user/assistant records need a message whose content is text or a list of blocks."""
    msg = data.get("message")
    if not isinstance(msg, dict):
        return False
    content = msg.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(isinstance(b, dict) for b in content)


# A JSON escape of a UTF-16 surrogate: a lone one decodes to text SQLite cannot store.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _without_lone_surrogates(data: Any) -> Any:
    text = json.dumps(data, ensure_ascii=False)
    return json.loads(text.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))


def decode_object(raw: RawLine) -> dict[str, Any] | None:
    """A line as a JSON object; None when it is not JSON or not an object."""
    try:
        try:
            data = json.loads(raw.data)
        except UnicodeDecodeError:  # a byte that is not UTF-8: U+FFFD, the line is kept
            data = json.loads(raw.data.decode("utf-8", "replace"))
        if _SURROGATE_ESCAPE.search(raw.data):  # pairs were joined; lone ones become U+FFFD
            data = _without_lone_surrogates(data)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def decode(raw: RawLine) -> dict[str, Any] | None:
    """A Claude Code record: a JSON object with a type (a user or assistant one with a valid
    message); None for anything else."""
    data = decode_object(raw)
    if data is None or not isinstance(data.get("type"), str):
        return None
    if data["type"] in ("user", "assistant") and not _valid_message(data):
        return None
    return data


def make_record(raw: RawLine, data: dict[str, Any], force_sidechain: bool) -> Record:
    parent = text_field(data.get("parentUuid"))
    if parent is None and data.get("subtype") == "compact_boundary":
        parent = text_field(data.get("logicalParentUuid"))
    return Record(
        line=raw.index,
        offset=raw.offset,
        data=data,
        uuid=text_field(data.get("uuid")),
        parent=parent,
        type=data["type"],
        sidechain=force_sidechain or data.get("isSidechain") is True,
        agent_id=text_field(data.get("agentId")),
    )


# Records about the session rather than in its conversation (newer builds): its name, the
# pull request it is linked to, the permission mode, the last prompt (a copy of a user line).
SESSION_RECORDS = frozenset({"custom-title", "pr-link", "mode", "last-prompt"})


def session_record(rec: Record) -> tuple[str, str] | None:
    """What a session record says: ("name", the session's name) for ``custom-title``,
    ("link", a line naming the pull request) for ``pr-link``; ("", "") for the mode and the
    last-prompt copy, which carry nothing new; None for a record of another type."""
    if rec.type not in SESSION_RECORDS:
        return None
    if rec.type == "custom-title":
        title = (text_field(rec.data.get("customTitle")) or "").strip()
        return ("name", title) if title else ("", "")
    if rec.type != "pr-link":
        return "", ""
    number = rec.data.get("prNumber")
    url = text_field(rec.data.get("prUrl")) or ""
    repo = text_field(rec.data.get("prRepository")) or ""
    if not isinstance(number, int) and not url:
        return "", ""
    text = f"Pull request {f'#{number}' if isinstance(number, int) else url}"
    text += (f" ({repo})" if repo else "") + " linked to this session"
    return "link", text + (f": {url}" if url else "")


def progress_record(outer: Record) -> Record | None:
    """An ``agent_progress`` record carries one message of a running subagent."""
    payload = outer.data.get("data")
    if not isinstance(payload, dict) or payload.get("type") != "agent_progress":
        return None
    inner = payload.get("message")
    if not isinstance(inner, dict) or inner.get("type") not in ("user", "assistant"):
        return None
    if not _valid_message(inner):
        return None
    data = dict(inner)
    for key in ("sessionId", "cwd", "gitBranch"):
        data.setdefault(key, outer.data.get(key))
    data.setdefault("timestamp", outer.data.get("timestamp"))
    agent = text_field(payload.get("agentId")) or "progress"
    return Record(
        line=outer.line,
        offset=outer.offset,
        data=data,
        uuid=text_field(inner.get("uuid")) or outer.uuid,
        parent=None,
        type=str(inner["type"]),
        sidechain=True,
        agent_id=agent,
    )


# ---- the active branch ----------------------------------------------------------------------


def _is_tool_result_line(rec: Record) -> bool:
    content = rec.message.get("content")
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


def _branch_start(rec: Record, parent: Record | None) -> bool:
    """Could this child begin an alternative branch (a rewind, an edit, a regenerated reply)?

    Parallel tool calls also give a line several children, but those are tool results,
    progress records or more blocks of the same response, never a fresh prompt or reply.
    """
    if rec.type == "user":
        return not _is_tool_result_line(rec)
    if rec.type == "assistant":
        if parent is not None and parent.type == "assistant":
            return parent.message.get("id") != rec.message.get("id")
        return True
    return False


def abandoned(records: list[Record]) -> set[str]:
    """uuids on branches that a later branch replaced.

    At every fork (a line, or the set of roots, with two or more prompts or two or more
    replies as children) the branch holding the newest conversation line wins; the others were
    rewound or edited away. Files whose lines carry no resolvable parent links (old hand-made
    logs) are taken in order.
    """
    nodes = {r.uuid: r for r in records if r.uuid is not None}
    children: dict[str | None, list[Record]] = {}
    linked = False
    for rec in nodes.values():
        parent = rec.parent if rec.parent in nodes else None
        linked = linked or parent is not None
        children.setdefault(parent, []).append(rec)
    if not linked:
        return set()
    # newest conversation line (by file position) in each subtree, iteratively (deep chains)
    newest: dict[str, int] = {}
    order: list[Record] = []
    stack = list(children.get(None, []))
    seen: set[str] = set()
    while stack:
        rec = stack.pop()
        assert rec.uuid is not None
        if rec.uuid in seen:
            continue
        seen.add(rec.uuid)
        order.append(rec)
        stack.extend(children.get(rec.uuid, []))
    for rec in reversed(order):
        assert rec.uuid is not None
        best = rec.line if rec.type in ("user", "assistant") else -1
        for child in children.get(rec.uuid, []):
            best = max(best, newest.get(child.uuid or "", -1))
        newest[rec.uuid] = best
    dropped: set[str] = set()
    for parent_id, kids in children.items():
        parent_rec = nodes.get(parent_id) if parent_id is not None else None
        # A rewind leaves two prompts under one parent, a regenerated reply two replies; a
        # prompt queued while a reply streams sits beside that reply and is no fork.
        for kind in ("user", "assistant"):
            starts = [k for k in kids if k.type == kind and _branch_start(k, parent_rec)]
            if len(starts) < 2:
                continue
            winner = max(starts, key=lambda k: (newest.get(k.uuid or "", -1), k.line))
            for loser in starts:
                if loser is not winner:
                    _collect(loser, children, dropped)
    return dropped


def _collect(root: Record, children: dict[str | None, list[Record]], out: set[str]) -> None:
    stack = [root]
    while stack:
        rec = stack.pop()
        if rec.uuid is None or rec.uuid in out:
            continue
        out.add(rec.uuid)
        stack.extend(children.get(rec.uuid, []))


# ---- events ---------------------------------------------------------------------------------
