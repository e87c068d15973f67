"""One TOML table rewritten in place, the rest of the file kept byte for byte (Codex CLI's
``config.toml``, without a TOML-writing dependency).

``set_table`` replaces the lines of a table such as ``[mcp_servers.memlode]`` (and its
sub-tables, ``[mcp_servers.memlode.env]``) with a freshly rendered block, or appends one;
``remove_table`` drops those lines. Neither edits any other line. After every edit the new text
is parsed with ``tomllib`` and compared with the old document: everything except our table must
read the same and our table must read as intended, otherwise the edit is refused (a table
defined through dotted keys or an inline table elsewhere cannot be rewritten line-wise; the
message says what to do by hand).
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from typing import Any

from memlode.errors import InvalidInput

__all__ = ["read_toml", "remove_table", "render_table", "set_table", "table_of"]

_HEADER = re.compile(r"^[ \t]*\[")
_COMMENT = re.compile(r"^[ \t]*#")
_KEY_PART = re.compile(r'[ \t]*(?:"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+))[ \t]*')


def read_toml(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"{where} is not valid TOML ({exc}); fix it, then run again") from None


def _header_key(line: str) -> tuple[str, ...] | None:
    """The dotted key of a ``[table]`` header line (None for ``[[array]]`` or not a header)."""
    stripped = line.strip()
    if not stripped.startswith("[") or stripped.startswith("[["):
        return None
    end = stripped.find("]")
    inner, rest = stripped[1:end], stripped[end + 1 :].strip()
    if end < 0 or (rest and not rest.startswith("#")):
        return None
    parts: list[str] = []
    pos = 0
    while True:
        match = _KEY_PART.match(inner, pos)
        if match is None:
            return None
        basic, literal, bare = match.groups()
        parts.append(json.loads(f'"{basic}"') if basic is not None else (literal or bare or ""))
        pos = match.end()
        if pos == len(inner):
            return tuple(parts)
        if inner[pos] != ".":
            return None
        pos += 1


def _spans(lines: list[str], key: tuple[str, ...]) -> list[tuple[int, int]]:
    """Line ranges [start, end) of ``key``'s table and its sub-tables; the blank and comment
    lines that end a range belong to what follows (a comment above the next table is its own)."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for index, line in enumerate([*lines, "[end-of-file]"]):
        if not _HEADER.match(line):
            continue
        header = _header_key(line) if index < len(lines) else None
        ours = header is not None and header[: len(key)] == key
        if start is not None and not ours:
            end = index
            while end - 1 > start and (
                not lines[end - 1].strip() or _COMMENT.match(lines[end - 1])
            ):
                end -= 1
            spans.append((start, end))
            start = None
        if ours and start is None:
            start = index
    return spans


def _inside(index: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= index < end for start, end in spans)


def _kept(lines: list[str], spans: list[tuple[int, int]]) -> list[str]:
    return [line for index, line in enumerate(lines) if not _inside(index, spans)]


def _value(value: object) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{_value(str(k))} = {_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def render_table(key: tuple[str, ...], entry: dict[str, Any]) -> str:
    header = ".".join(k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else _value(k) for k in key)
    return f"[{header}]\n" + "".join(f"{k} = {_value(v)}\n" for k, v in entry.items())


def table_of(data: dict[str, Any], key: tuple[str, ...]) -> object:
    node: object = data
    for part in key:
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _without(data: dict[str, Any], key: tuple[str, ...]) -> dict[str, Any]:
    """``data`` without ``key``, and without parents that only held it."""
    out = copy.deepcopy(data)
    parents: list[dict[str, Any]] = [out]
    for part in key[:-1]:
        child = parents[-1].get(part)
        if not isinstance(child, dict):
            return out
        parents.append(child)
    parents[-1].pop(key[-1], None)
    for depth in range(len(key) - 1, 0, -1):
        if not parents[depth]:
            parents[depth - 1].pop(key[depth - 1], None)
    return out


def _checked(
    old: dict[str, Any], text: str, key: tuple[str, ...], entry: object, where: str
) -> str:
    try:
        new = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        new = None
    if new is None or _without(new, key) != _without(old, key) or table_of(new, key) != entry:
        name = ".".join(key)
        raise InvalidInput(
            f"{where} defines {name} in a way memlode cannot rewrite line by line;"
            f" edit its [{name}] table by hand"
        )
    return text


def set_table(text: str, key: tuple[str, ...], entry: dict[str, Any], where: str) -> str:
    """``text`` with ``key``'s table holding exactly ``entry``; other lines unchanged."""
    old = read_toml(text, where)
    lines = text.splitlines(keepends=True)
    spans = _spans(lines, key)
    block = render_table(key, entry)
    if spans:
        first_start = spans[0][0]
        kept = _kept(lines, spans)
        before = sum(1 for i in range(first_start) if not _inside(i, spans))
        new_text = "".join(kept[:before]) + block + "".join(kept[before:])
    else:
        base = text if not text or text.endswith("\n") else text + "\n"
        new_text = base + ("\n" if base.strip() else "") + block
    return _checked(old, new_text, key, entry, where)


def remove_table(text: str, key: tuple[str, ...], where: str) -> str:
    """``text`` without ``key``'s table lines; other lines unchanged."""
    old = read_toml(text, where)
    lines = text.splitlines(keepends=True)
    spans = _spans(lines, key)
    kept = _kept(lines, spans)
    if spans and spans[-1][1] == len(lines) and kept and not kept[-1].strip():
        kept.pop()  # the blank line set_table put before a table it appended
    new_text = "".join(kept)
    return _checked(old, new_text, key, None, where)
