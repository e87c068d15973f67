"""Short summaries of edits: lines added and removed, hunks, and the symbols touched.

An Edit/Write payload carries the whole file (``originalFile``, ``content``); memlode stores
a few lines about the change instead. Symbols come from a cheap line scanner for the definition
keywords of common languages (``def``, ``class``, ``function``, ``func``, ``fn``, ...), run
over the changed lines and the context lines of each hunk; no parser is loaded in a hook.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DiffSummary", "summarize_patch", "summarize_strings", "symbols_in"]

MAX_EXCERPT_LINES = 12
MAX_LINE_CHARS = 160
MAX_SYMBOLS = 12

_KEYWORDS = frozenset(
    "def class function func fn struct enum trait interface impl type module object".split()
)


def _skip(text: str, word: str) -> str:
    """``text`` after a leading ``word`` and the whitespace that must follow it; else ``text``."""
    if text.startswith(word) and text[len(word) : len(word) + 1].isspace():
        return text[len(word) :].lstrip()
    return text


def _ident(text: str) -> str:
    """The identifier ``text`` starts with (letters, digits, ``_``, ``$``; not a digit first)."""
    if not text or not (text[0].isascii() and (text[0].isalpha() or text[0] in "_$")):
        return ""
    end = 1
    while end < len(text) and (text[end].isalnum() or text[end] in "_$"):
        end += 1
    return text[:end]


def _after_parens(text: str) -> str | None:
    """``text`` after a leading ``( ... )``, or None when it has none."""
    if not text.startswith("("):
        return None
    close = text.find(")")
    return None if close < 0 else text[close + 1 :]


def _definition_name(line: str) -> str:
    """The name a line defines, or "": ``[export] [default] [pub[(...)]] [async] [static]
    KEYWORD [(receiver)] NAME`` (def, class, function*, func, fn, struct, ...), or a JavaScript
    ``[export] const|let|var NAME = [async] function | (...) => | x =>``. A line scanner, not a
    regex: importing ``re`` costs a hook process several milliseconds."""
    text = _skip(line.lstrip(), "export")
    for binding in ("const", "let", "var"):
        rest = _skip(text, binding)
        if rest is not text:
            return _arrow_binding(rest)
    text = _skip(text, "default")
    if text.startswith("pub"):  # Rust: pub, pub(crate)
        scoped = _after_parens(text[3:])
        after = text[3:] if scoped is None else scoped
        if after[:1].isspace():
            text = after.lstrip()
    text = _skip(_skip(text, "async"), "static")
    keyword = _ident(text)
    if keyword not in _KEYWORDS:
        return ""
    text = text[len(keyword) :]
    if keyword == "function" and text.startswith("*"):
        text = text[1:]
    if not text[:1].isspace():
        return ""
    text = text.lstrip()
    receiver = _after_parens(text)  # Go: func (r *Reader) Read
    return _ident(receiver.lstrip() if receiver is not None else text)


def _is_function_value(text: str) -> bool:
    """``function...``, ``(...) =>`` or ``x =>``."""
    if text.startswith("function"):
        return True
    after = _after_parens(text)
    if after is None:
        param = _ident(text)
        after = text[len(param) :] if param else None
    return after is not None and after.lstrip().startswith("=>")


def _arrow_binding(text: str) -> str:
    name = _ident(text)
    rest = text[len(name) :].lstrip()
    if not name or not rest.startswith("="):
        return ""
    rest = rest[1:].lstrip()
    if rest.startswith("async") and _is_function_value(rest[5:].lstrip()):
        return name
    return name if _is_function_value(rest) else ""


def symbols_in(text: str, limit: int = MAX_SYMBOLS) -> list[str]:
    found: dict[str, None] = {}
    for line in text.splitlines():
        name = _definition_name(line)
        if name:
            found.setdefault(name, None)
            if len(found) >= limit:
                break
    return list(found)


class DiffSummary:
    __slots__ = ("added", "excerpt", "hunks", "line_ranges", "removed", "symbols")

    def __init__(self) -> None:
        self.added = 0
        self.removed = 0
        self.hunks = 0
        self.line_ranges: list[str] = []
        self.symbols: list[str] = []
        self.excerpt: list[str] = []

    def headline(self) -> str:
        hunks = f"{self.hunks} hunk" + ("" if self.hunks == 1 else "s")
        text = f"+{self.added} -{self.removed} lines in {hunks}"
        if self.line_ranges:
            text += " (lines " + ", ".join(self.line_ranges[:6]) + ")"
        if self.symbols:
            text += "; symbols: " + ", ".join(self.symbols)
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "removed": self.removed,
            "hunks": self.hunks,
            "symbols": list(self.symbols),
        }


def _clip(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"


def _excerpt(added: list[str], removed: list[str]) -> list[str]:
    """Up to ``MAX_EXCERPT_LINES`` changed lines, the added ones first: what the code is now
    matters more to a later session than what it was (a removed block of nine lines would
    otherwise hide the two lines that replaced it)."""
    shown = [line for line in added if line[1:].strip()][:MAX_EXCERPT_LINES]
    shown += [line for line in removed if line[1:].strip()][: MAX_EXCERPT_LINES - len(shown)]
    return [_clip(line) for line in shown]


def summarize_patch(patch: object) -> DiffSummary | None:
    """Summarise a ``structuredPatch`` (list of hunks with prefixed lines); None if unusable."""
    if not isinstance(patch, list) or not patch:
        return None
    out = DiffSummary()
    changed_text: list[str] = []
    context_text: list[str] = []
    added: list[str] = []
    removed: list[str] = []
    for hunk in patch:
        if not isinstance(hunk, dict):
            continue
        lines = hunk.get("lines")
        if not isinstance(lines, list):
            continue
        out.hunks += 1
        start = hunk.get("newStart")
        count = hunk.get("newLines")
        if isinstance(start, int) and isinstance(count, int):
            out.line_ranges.append(
                f"{start}-{start + max(count - 1, 0)}" if count > 1 else str(start)
            )
        for line in lines:
            if not isinstance(line, str) or not line:
                continue
            mark, body = line[0], line[1:]
            if mark == "+":
                out.added += 1
                changed_text.append(body)
                added.append(line)
            elif mark == "-":
                out.removed += 1
                changed_text.append(body)
                removed.append(line)
            else:
                context_text.append(body)
    if out.hunks == 0:
        return None
    out.excerpt = _excerpt(added, removed)
    symbols = symbols_in("\n".join(changed_text))
    for name in symbols_in("\n".join(context_text)):
        if name not in symbols and len(symbols) < MAX_SYMBOLS:
            symbols.append(name)
    out.symbols = symbols
    return out


def summarize_strings(old: str, new: str) -> DiffSummary:
    """Summarise an old -> new replacement without a patch: trim common lines, count the rest."""
    old_lines = old.splitlines()
    new_lines = new.splitlines()
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while (
        tail < min(len(old_lines), len(new_lines)) - head
        and old_lines[-1 - tail] == new_lines[-1 - tail]
    ):
        tail += 1
    removed = old_lines[head : len(old_lines) - tail]
    added = new_lines[head : len(new_lines) - tail]
    out = DiffSummary()
    out.hunks = 1 if (removed or added) else 0
    out.removed = len(removed)
    out.added = len(added)
    out.excerpt = _excerpt(["+" + line for line in added], ["-" + line for line in removed])
    symbols = symbols_in("\n".join(removed + added))
    for name in symbols_in(old + "\n" + new):
        if name not in symbols and len(symbols) < MAX_SYMBOLS:
            symbols.append(name)
    out.symbols = symbols
    return out
