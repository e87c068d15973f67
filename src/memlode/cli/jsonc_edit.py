"""JSON and JSONC settings files edited in place: only the text of what memlode adds or removes
changes; comments, key order, indentation and everyone else's entries stay byte for byte.

The assistants' settings files are the user's: Gemini CLI and OpenCode accept ``//`` and
``/* */`` comments and trailing commas (JSONC), and people format them by hand. ``Document``
parses such a text into spans (where each member and element starts and ends) and splices new
text in at those places: a member set or removed, an element appended or removed. Removing what
was added gives back the text as it was, so ``disable`` leaves a file exactly as ``init`` found
it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from memlode.errors import InvalidInput

__all__ = ["Document"]

Path_ = tuple[str | int, ...]


@dataclass
class _Node:
    start: int
    end: int
    value: Any
    members: list[_Member] | None = None  # an object's
    items: list[_Node] | None = None  # an array's


@dataclass
class _Member:
    key: str
    start: int  # where its key starts
    node: _Node = field(repr=False)

    @property
    def end(self) -> int:
        return self.node.end


class _Parser:
    def __init__(self, text: str, where: str) -> None:
        self.text = text
        self.where = where
        self.pos = 0

    def fail(self, what: str) -> InvalidInput:
        line = self.text.count("\n", 0, self.pos) + 1
        return InvalidInput(f"{self.where} is not valid JSON ({what} at line {line}); fix it first")

    def skip(self) -> None:
        """Whitespace and comments."""
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos):
                newline = text.find("\n", self.pos)
                self.pos = n if newline < 0 else newline + 1
            elif text.startswith("/*", self.pos):
                close = text.find("*/", self.pos + 2)
                if close < 0:
                    raise self.fail("an unclosed comment")
                self.pos = close + 2
            else:
                return

    def document(self) -> _Node:
        self.skip()
        node = self.value()
        self.skip()
        if self.pos != len(self.text):
            raise self.fail("text after the end")
        return node

    def value(self) -> _Node:
        if self.pos >= len(self.text):
            raise self.fail("an unexpected end")
        ch = self.text[self.pos]
        if ch == "{":
            return self.object()
        if ch == "[":
            return self.array()
        if ch == '"':
            start = self.pos
            value = self.string()
            return _Node(start, self.pos, value)
        return self.scalar()

    def string(self) -> str:
        text, start = self.text, self.pos
        pos = start + 1
        while True:
            quote = text.find('"', pos)
            if quote < 0:
                raise self.fail("an unclosed string")
            backslashes = 0
            while text[quote - 1 - backslashes] == "\\":
                backslashes += 1
            if backslashes % 2 == 0:
                break
            pos = quote + 1
        self.pos = quote + 1
        try:
            value: str = json.loads(text[start : self.pos])
        except ValueError:
            raise self.fail("a bad string") from None
        return value

    def scalar(self) -> _Node:
        start = self.pos
        text, n = self.text, len(self.text)
        while self.pos < n and text[self.pos] not in ",]}/ \t\r\n":
            self.pos += 1
        word = text[start : self.pos]
        try:
            value = json.loads(word)
        except ValueError:
            raise self.fail(f"an unexpected {word[:20]!r}") from None
        return _Node(start, self.pos, value)

    def object(self) -> _Node:
        start = self.pos
        self.pos += 1
        members: list[_Member] = []
        while True:
            self.skip()
            if self.text.startswith("}", self.pos):
                self.pos += 1
                break
            if members:
                if not self.text.startswith(",", self.pos):
                    raise self.fail("a missing comma")
                self.pos += 1
                self.skip()
                if self.text.startswith("}", self.pos):  # a trailing comma (JSONC)
                    self.pos += 1
                    break
            if not self.text.startswith('"', self.pos):
                raise self.fail("a key that is not a string")
            key_start = self.pos
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail("a missing colon")
            self.pos += 1
            self.skip()
            members.append(_Member(key, key_start, self.value()))
        value = {m.key: m.node.value for m in members}
        return _Node(start, self.pos, value, members=members)

    def array(self) -> _Node:
        start = self.pos
        self.pos += 1
        items: list[_Node] = []
        while True:
            self.skip()
            if self.text.startswith("]", self.pos):
                self.pos += 1
                break
            if items:
                if not self.text.startswith(",", self.pos):
                    raise self.fail("a missing comma")
                self.pos += 1
                self.skip()
                if self.text.startswith("]", self.pos):
                    self.pos += 1
                    break
            items.append(self.value())
        return _Node(start, self.pos, [i.value for i in items], items=items)


class Document:
    """A JSON/JSONC text and the edits memlode makes to it, each spliced into the text."""

    def __init__(self, text: str, where: str) -> None:
        self.where = where
        self.original = text
        self.text = text if text.strip() else "{}"
        self._parse()
        if not isinstance(self.root.value, dict):
            raise InvalidInput(f"{where} does not hold a JSON object; fix it, then run again")
        self.unit = _indent_unit(text)

    def _parse(self) -> None:
        self.root = _Parser(self.text, self.where).document()

    @property
    def data(self) -> dict[str, Any]:
        value: dict[str, Any] = self.root.value
        return value

    @property
    def has_comments(self) -> bool:
        return _has_comments(self.text)

    # ---- reading ----

    def node(self, path: Path_) -> _Node | None:
        node: _Node | None = self.root
        for step in path:
            if node is None:
                return None
            if isinstance(step, str):
                member = next((m for m in node.members or () if m.key == step), None)
                node = member.node if member else None
            else:
                node = node.items[step] if node.items and 0 <= step < len(node.items) else None
        return node

    def get(self, path: Path_) -> Any:
        node = self.node(path)
        return None if node is None else node.value

    # ---- editing ----

    def set(self, path: Path_, value: Any) -> None:
        """``value`` at object ``path`` (its last step a key), the objects on the way created."""
        for depth in range(len(path), 0, -1):
            parent = self.node(path[: depth - 1])
            if parent is None or parent.members is None:
                continue
            existing = self.node(path[:depth])
            if depth == len(path) and existing is not None:
                if existing.value != value:
                    self._splice(existing.start, existing.end, self._render(value, existing.start))
                return
            if existing is not None:
                raise InvalidInput(
                    f"{self.where}: {'.'.join(map(str, path[:depth]))} is not an object"
                )
            nested: Any = value
            for step in reversed(path[depth:]):
                nested = {step: nested}
            key = path[depth - 1]
            assert isinstance(key, str)
            self._insert_member(parent, key, nested)
            return
        raise InvalidInput(f"{self.where}: cannot reach {'.'.join(map(str, path))}")

    def replace(self, path: Path_, value: Any) -> None:
        """The value at ``path`` (a member's or an element's) with ``value``, if different."""
        node = self.node(path)
        if node is None:
            raise InvalidInput(f"{self.where}: nothing at {'.'.join(map(str, path))}")
        if node.value != value:
            self._splice(node.start, node.end, self._render(value, node.start))

    def append(self, path: Path_, value: Any) -> None:
        """``value`` as the last element of the array at ``path``."""
        array = self.node(path)
        if array is None or array.items is None:
            raise InvalidInput(f"{self.where}: {'.'.join(map(str, path))} is not an array")
        self._insert(array, array.items, None, value)

    def remove(self, path: Path_) -> None:
        """The member or element at ``path`` (nothing if absent)."""
        parent = self.node(path[:-1])
        step = path[-1]
        if parent is None:
            return
        if parent.members is not None and isinstance(step, str):
            spans = [(m.start, m.end) for m in parent.members]
            index = next((i for i, m in enumerate(parent.members) if m.key == step), None)
        elif parent.items is not None and isinstance(step, int):
            spans = [(i.start, i.end) for i in parent.items]
            index = step if 0 <= step < len(spans) else None
        else:
            return
        if index is None:
            return
        if len(spans) == 1:
            self._splice(parent.start + 1, parent.end - 1, "")
        elif index < len(spans) - 1:
            comma = self.text.index(",", spans[index][1])
            after = comma + 1
            while self.text[after] in " \t\r\n":
                after += 1
            self._splice(spans[index][0], after, "")
        else:
            self._splice(spans[index - 1][1], spans[index][1], "")

    def result(self) -> str | None:
        """The new text, or None when nothing is left: an empty object with no comments, in a
        file memlode can remove (``disable`` then deletes the file it had created)."""
        if self.root.value == {} and not self.has_comments:
            return None
        if not self.original.strip():
            return self.text + "\n"
        return self.text

    # ---- splicing ----

    def _splice(self, start: int, end: int, new: str) -> None:
        self.text = self.text[:start] + new + self.text[end:]
        self._parse()

    def _line_indent(self, pos: int) -> str:
        line_start = self.text.rfind("\n", 0, pos) + 1
        indent = line_start
        while indent < len(self.text) and self.text[indent] in " \t":
            indent += 1
        return self.text[line_start:indent]

    def _render(self, value: Any, at: int, child: str | None = None) -> str:
        base = self._line_indent(at) if child is None else child
        unit: int | str = len(self.unit) if self.unit.strip(" ") == "" else self.unit
        rendered = json.dumps(value, indent=unit, ensure_ascii=False)
        return rendered.replace("\n", "\n" + base)

    def _insert_member(self, parent: _Node, key: str, value: Any) -> None:
        assert parent.members is not None
        self._insert(parent, parent.members, key, value)

    def _insert(self, parent: _Node, children: list[Any], key: str | None, value: Any) -> None:
        head = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
        base = self._line_indent(parent.start)
        if not children:
            child = base + self.unit
            text = "\n" + child + head + self._render(value, 0, child) + "\n" + base
            self._splice(parent.start + 1, parent.end - 1, text)
            return
        last_end = children[-1].end
        first_start = children[0].start
        inline = "\n" not in self.text[parent.start : first_start]
        if inline:
            text = ", " + head + json.dumps(value, ensure_ascii=False)
        else:
            child = self._line_indent(first_start)
            text = ",\n" + child + head + self._render(value, 0, child)
        self._splice(last_end, last_end, text)


def _indent_unit(text: str) -> str:
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


def _has_comments(text: str) -> bool:
    parser = _Parser(text, "")
    pos, n = 0, len(text)
    while pos < n:
        ch = text[pos]
        if ch == '"':
            parser.pos = pos
            parser.string()
            pos = parser.pos
        elif text.startswith("//", pos) or text.startswith("/*", pos):
            return True
        else:
            pos += 1
    return False
