"""Short summaries of edits: lines added and removed, hunks, and the symbols touched.

An Edit/Write payload carries the whole file (``originalFile``, ``content``); memlode stores
a few lines about the change instead. Symbols come from a cheap line scanner for the definition
keywords of common languages (``def``, ``class``, ``function``, ``func``, ``fn``, ...), run
over the changed lines and the context lines of each hunk; no parser is loaded in a hook.
Where the file's suffix names a language whose definitions that scanner misreads (Ruby's
``def self.name``, C#'s ``public async Task<int> Get(``, Kotlin's ``fun String.ext(``, a shell
function's ``name() {``), a scanner of that language's shapes reads it instead.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DiffSummary", "leading_comment", "summarize_patch", "summarize_strings", "symbols_in"]

MAX_EXCERPT_LINES = 12
MAX_LINE_CHARS = 160
MAX_SYMBOLS = 12

_KEYWORDS = frozenset(
    "def class function func fn struct enum trait interface impl type module object".split()
)
# The words a definition line may open with (after its indentation): a keyword, or a word
# ``_definition_name`` skips before one. A line that opens with none of them defines nothing,
# which ``str.startswith`` tells without scanning it (most lines of a file read whole).
_OPENERS = (*_KEYWORDS, "export", "const", "let", "var", "default", "pub", "async", "static")


def _skip(text: str, word: str) -> str:
    """``text`` after a leading ``word`` and the whitespace that must follow it; else ``text``."""
    if text.startswith(word) and text[len(word) : len(word) + 1].isspace():
        return text[len(word) :].lstrip()
    return text


_ASCII_IDENT = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$"


def _ident(text: str) -> str:
    """The identifier ``text`` starts with (letters, digits, ``_``, ``$``; not a digit first).
    Its ASCII run is measured by ``str.lstrip``; a letter or digit of another script goes on
    one character at a time."""
    if not text or not (text[0].isascii() and (text[0].isalpha() or text[0] in "_$")):
        return ""
    end = len(text) - len(text.lstrip(_ASCII_IDENT))
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
    text = line.lstrip()
    keyword = _ident(text)
    if keyword not in _KEYWORDS:  # modifiers first, or a binding (most lines open with KEYWORD)
        text = _skip(text, "export")
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


# ---- per-language shapes (chosen by the file's suffix) ------------------------------------------

_RUBY_KEYWORDS = frozenset({"def", "class", "module"})
_PHP_MODIFIERS = frozenset("public private protected static abstract final readonly".split())
_PHP_KEYWORDS = frozenset({"function", "class", "interface", "trait", "enum"})
_CS_MODIFIERS = frozenset(
    """public private protected internal static abstract sealed virtual override async
    partial readonly unsafe extern volatile required file""".split()
)
_CS_TYPES = frozenset({"class", "struct", "interface", "record", "enum"})
# Words that may stand before `name(` in a C# statement that is not a declaration.
_CS_NOT_A_TYPE = frozenset(
    """return await new throw yield else case goto using if while for foreach switch catch
    lock typeof nameof sizeof default checked unchecked fixed in is as out ref params var do
    try finally base this when where from select let orderby group join into on equals by
    not and or with stackalloc delegate event operator implicit explicit""".split()
)
_KOTLIN_MODIFIERS = frozenset(
    """public private protected internal open abstract final override suspend inline data
    sealed enum annotation inner operator infix tailrec external value const lateinit
    expect actual noinline crossinline""".split()
)
_KOTLIN_KEYWORDS = frozenset({"fun", "class", "object", "interface"})
_SWIFT_MODIFIERS = frozenset(
    """public private fileprivate internal open final static override mutating nonmutating
    convenience required lazy dynamic optional indirect nonisolated isolated async
    package""".split()
)
_SWIFT_KEYWORDS = frozenset(
    "func class struct enum protocol extension init actor typealias".split()
)
_ELIXIR_MODULES = frozenset({"defmodule", "defprotocol"})
_ELIXIR_FUNCTIONS = frozenset("def defp defmacro defmacrop defguard defguardp defdelegate".split())


def _word_then_space(text: str, word: str) -> bool:
    return text.startswith(word) and text[len(word) : len(word) + 1].isspace()


def _balanced(text: str, open_: str, close: str) -> str:
    """``text`` after a leading bracketed group (``<...>``, ``(...)``, ``[...]``), nested."""
    depth = 0
    for at, char in enumerate(text):
        if char == open_:
            depth += 1
        elif char == close:
            depth -= 1
            if depth == 0:
                return text[at + 1 :]
    return ""


def _strip_modifiers(text: str, modifiers: frozenset[str]) -> tuple[str, bool]:
    """``text`` after leading modifiers and attributes (``@objc``, ``@available(iOS 13, *)``,
    ``[HttpGet("x")]``); whether any modifier was there."""
    seen = False
    while text:
        if text[0] == "@":
            name = _ident(text[1:])
            text = text[1 + len(name) :]
            if text.startswith("("):
                text = _balanced(text, "(", ")")
            text = text.lstrip()
            continue
        if text[0] == "[":
            text = _balanced(text, "[", "]").lstrip()
            continue
        word = _ident(text)
        if word in modifiers and text[len(word) : len(word) + 1].isspace():
            text = text[len(word) :].lstrip()
            seen = True
            continue
        break
    return text, seen


def _keyword_rest(text: str, keywords: frozenset[str]) -> tuple[str, str]:
    """(keyword, text after it and its whitespace), or ("", "")."""
    word = _ident(text)
    if word in keywords and text[len(word) : len(word) + 1].isspace():
        return word, text[len(word) :].lstrip()
    return "", ""


def _with_mark(name: str, rest: str) -> str:
    """A Ruby or Elixir name with its trailing ``?`` or ``!`` (``valid?``, ``save!``)."""
    return name + rest[0] if name and rest[:1] in ("?", "!") else name


def _ruby(line: str) -> str:
    keyword, rest = _keyword_rest(line.lstrip(), _RUBY_KEYWORDS)
    if keyword == "def" and rest.startswith("self."):
        rest = rest[5:]
    name = _ident(rest)
    return _with_mark(name, rest[len(name) :]) if keyword == "def" else name


def _php(line: str) -> str:
    text, _ = _strip_modifiers(line.lstrip(), _PHP_MODIFIERS)
    keyword, rest = _keyword_rest(text, _PHP_KEYWORDS)
    if keyword == "function" and rest.startswith("&"):
        rest = rest[1:].lstrip()
    return _ident(rest) if keyword else ""


def _csharp(line: str) -> str:
    text, modified = _strip_modifiers(line.lstrip(), _CS_MODIFIERS)
    if modified and _word_then_space(text, "new"):  # `public new void F()` hides a member;
        text, _ = _strip_modifiers(text[3:].lstrip(), _CS_MODIFIERS)  # a bare `new` creates
    keyword, rest = _keyword_rest(text, _CS_TYPES)
    if keyword:
        if keyword == "record":  # record struct / record class
            rest = _skip(_skip(rest, "struct"), "class")
        return _ident(rest)
    # a method: [modifiers] Type Name[<T>](...; a constructor: modifiers Name(...
    type_name = _ident(text)
    if not type_name or type_name in _CS_NOT_A_TYPE or type_name in _CS_MODIFIERS:
        return ""
    rest = text[len(type_name) :]
    if modified and rest.lstrip().startswith("("):
        return type_name
    while rest[:1] == ".":  # System.Threading.Tasks.Task
        part = _ident(rest[1:])
        if not part:
            return ""
        rest = rest[1 + len(part) :]
    if rest.startswith("<"):
        rest = _balanced(rest, "<", ">")
    while rest[:1] in ("?", "*") or rest.startswith("[]"):
        rest = rest[1:] if rest[:1] in ("?", "*") else rest[2:]
    if not rest[:1].isspace():
        return ""
    rest = rest.lstrip()
    name = _ident(rest)
    after = rest[len(name) :]
    if after.startswith("<"):
        after = _balanced(after, "<", ">")
    return name if name and after.lstrip().startswith("(") else ""


def _kotlin(line: str) -> str:
    text, _ = _strip_modifiers(line.lstrip(), _KOTLIN_MODIFIERS)
    keyword, rest = _keyword_rest(text, _KOTLIN_KEYWORDS)
    if not keyword:
        return ""
    if keyword == "fun" and rest.startswith("<"):
        rest = _balanced(rest, "<", ">").lstrip()
    name = _ident(rest)
    while keyword == "fun" and name:  # an extension function: String.slug, List<T>.second
        after = rest[len(name) :]
        if after.startswith("<"):
            after = _balanced(after, "<", ">")
        if not after.startswith("."):
            break
        rest = after[1:]
        name = _ident(rest)
    return name


def _swift(line: str) -> str:
    text = line.lstrip()
    while True:
        text, _ = _strip_modifiers(text, _SWIFT_MODIFIERS)
        after_class = _skip(text, "class")  # `class func f`: a modifier, not a class
        if after_class is not text and _ident(after_class) in ("func", "var", "let"):
            text = after_class
            continue
        break
    if text.startswith("init") and text[4:5] in ("(", "?", "!", "<"):
        return "init"
    keyword, rest = _keyword_rest(text, _SWIFT_KEYWORDS)
    return _ident(rest) if keyword and keyword != "init" else ""


def _elixir(line: str) -> str:
    text = line.lstrip()
    keyword, rest = _keyword_rest(text, _ELIXIR_MODULES | _ELIXIR_FUNCTIONS)
    if not keyword:
        return ""
    if keyword in _ELIXIR_MODULES:  # the module's whole alias: MyApp.Accounts.User
        end = 0
        while end < len(rest) and (rest[end].isalnum() or rest[end] in "_."):
            end += 1
        return rest[:end].rstrip(".")
    name = _ident(rest)
    return _with_mark(name, rest[len(name) :])


def _shell(line: str) -> str:
    """``name() {``, ``name () {`` or ``function name``."""
    text = line.lstrip()
    keyword = _word_then_space(text, "function")
    if keyword:
        text = text[8:].lstrip()
    end = 0
    while end < len(text) and (text[end].isalnum() or text[end] in "_:.-"):
        end += 1
    name, rest = text[:end], text[end:].lstrip()
    if not name or name[0].isdigit():
        return ""
    if rest.startswith("("):
        rest = rest[1:].lstrip()
        if not rest.startswith(")"):
            return ""
        rest = rest[1:].lstrip()
        return name if not rest or rest[0] in "{(" else ""
    return name if keyword and (not rest or rest[0] == "{") else ""


_LANGUAGE_SCANNERS = {
    ".rb": _ruby,
    ".rake": _ruby,
    ".php": _php,
    ".cs": _csharp,
    ".kt": _kotlin,
    ".kts": _kotlin,
    ".swift": _swift,
    ".ex": _elixir,
    ".exs": _elixir,
    ".sh": _shell,
    ".bash": _shell,
    ".zsh": _shell,
}


def symbols_in(text: str, limit: int = MAX_SYMBOLS, suffix: str = "") -> list[str]:
    """Names the lines of ``text`` define; ``suffix`` (``.rb``, ``.cs``) picks the scanner."""
    scan = _LANGUAGE_SCANNERS.get(suffix.lower())
    found: dict[str, None] = {}
    for line in text.splitlines():
        if scan is not None:
            name = scan(line)
        elif line.lstrip().startswith(_OPENERS):
            name = _definition_name(line)
        else:
            continue
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


# A file created whole says what it is for in its opening comment (a Rust module's "//! System
# Tray Module ... via the ksni crate", a script's "# This script installs the AppImage as a
# proper application"), which its symbols do not: the comment block or docstring it opens with
# (an Elixir module's ``@moduledoc``), after a shebang, an encoding or licence line and blank
# lines, markers stripped, at most LEADING_COMMENT_CHARS long.
LEADING_COMMENT_CHARS = 400
_COMMENT_MARKS = ("//!", "///", "//", "/**", "/*", "*/", "*", "#", "--")
_DOCSTRING_MARKS = ('"""', "'''")
_LEADING_SKIP = ("#!", "# -*-", "# frozen_string_literal", "# SPDX-", "// SPDX-", "# type:")
_RULE_CHARS = frozenset("=-#*/ ")


def _uncommented(line: str) -> str | None:
    """``line`` without its comment marker, or None when it is no comment line."""
    for mark in _COMMENT_MARKS:
        if line.startswith(mark):
            return line[len(mark) :].rstrip("*/").strip()
    return None


def _opens_module(line: str) -> bool:
    """An Elixir ``defmodule X do`` line, whose ``@moduledoc`` follows it."""
    return line.startswith("defmodule ") and line.endswith(" do")


def leading_comment(text: str, limit: int = LEADING_COMMENT_CHARS) -> str:
    """The comment block or Python docstring a file opens with, as one line of prose, or ''."""
    said: list[str] = []
    size = 0
    quote = ""
    for raw in text.splitlines()[:60]:
        line = raw.strip()
        if not said and not quote:
            if not line or line.startswith(_LEADING_SKIP) or _opens_module(line):
                continue
            if line.startswith("@moduledoc "):  # Elixir's module docstring
                line = line[len("@moduledoc ") :]
            if line.startswith(_DOCSTRING_MARKS):
                quote, line = line[:3], line[3:]
        if quote:
            ends = quote in line
            line = line.split(quote, 1)[0].strip()
        else:
            uncommented = _uncommented(line)
            if uncommented is None:
                break
            line, ends = uncommented, False
        if line and set(line) - _RULE_CHARS:
            said.append(line)
            size += len(line) + 1
        if ends or size >= limit:
            break
    joined = " ".join(said)
    return joined if len(joined) <= limit else joined[: limit - 1].rstrip() + "…"


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


def summarize_patch(patch: object, suffix: str = "") -> DiffSummary | None:
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
    symbols = symbols_in("\n".join(changed_text), suffix=suffix)
    for name in symbols_in("\n".join(context_text), suffix=suffix):
        if name not in symbols and len(symbols) < MAX_SYMBOLS:
            symbols.append(name)
    out.symbols = symbols
    return out


def summarize_strings(old: str, new: str, suffix: str = "") -> DiffSummary:
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
    symbols = symbols_in("\n".join(removed + added), suffix=suffix)
    for name in symbols_in(old + "\n" + new, suffix=suffix):
        if name not in symbols and len(symbols) < MAX_SYMBOLS:
            symbols.append(name)
    out.symbols = symbols
    return out
