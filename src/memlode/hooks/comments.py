"""What a code file says about itself in its comments: the prose a Read or a Write observation
keeps of the file's text (L0, import-light: no ``re``).

A file's symbols say what it defines, not why: "python3 (for JSON parsing - more portable than
jq)" in a script's header, "Copy the shell script (for timer functionality)" above a build
step, "Currently informational; cleanup not yet implemented." on a setting's field. A later
session asks exactly that ("why does the script use python instead of jq?", "does the app
actually delete old wallpapers?"), and the file may have changed or be gone by then.

``comments_in`` gives the whole-line comments of a code file (and a Python file's docstrings)
that read as prose, in the file's order, as one line: no commented-out code, no rule lines, no
licence or tool directives, at most ``COMMENTS_CHARS``.
"""

from __future__ import annotations

__all__ = ["COMMENTS_CHARS", "comments_in"]

# A file's comments whole in 228 of the 236 file reads of the shared transcripts (median 400
# characters among the 104 that have any); the prompt hook shows the passage about the prompt
# (memlode.hooks.injection), so a long memory costs the store, not the room.
COMMENTS_CHARS = 2000
# A comment of fewer words ("end loop", "Act", "noqa") says nothing a question would ask for.
MIN_WORDS = 3
# Share of a comment's characters (spaces aside) that are letters: prose is most of them,
# commented-out code ("x = foo(bar[1]);") much less.
MIN_LETTER_SHARE = 0.7

_SLASHES = ("//!", "///", "//", "/**", "/*", "*/", "*")
_HASH = ("#",)
_DASHES = ("--",)
# A comment's markers by the file's suffix; a file of any other suffix is not code here (a
# markdown heading starts with "#", a settings file's lines are read by memlode.hooks.manifest).
_SLASH_SUFFIXES = """.c .h .cc .cpp .cxx .hpp .hh .cs .java .kt .kts .scala .swift .go .rs .js
    .jsx .mjs .cjs .ts .tsx .mts .cts .dart .zig .vue .svelte .groovy .gradle .proto""".split()
_HASH_SUFFIXES = """.py .pyi .sh .bash .zsh .fish .rb .pl .r .jl .ex .exs .nix .ps1 .tf .cmake
    .mk""".split()
_MARKS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(_SLASH_SUFFIXES, _SLASHES),
    **dict.fromkeys(_HASH_SUFFIXES, _HASH),
    **dict.fromkeys((".sql", ".lua", ".hs", ".elm"), _DASHES),
    ".php": (*_SLASHES, "#"),
}
_DOCSTRING = ('"""', "'''")
_SKIP = tuple(
    (
        "#!|-*-|spdx-|copyright|licensed under|eslint-|prettier-ignore|noqa|type: ignore|"
        "pylint:|@ts-|nolint|#region|#endregion|shellcheck "
    ).split("|")
)
# A commented-out line of code ends as code does; a wrapped line of prose may end in a comma.
_CODE_ENDS = (";", "{", "}", "[")


def comments_in(text: str, suffix: str, limit: int = COMMENTS_CHARS) -> str:
    """The prose comments of a code file's ``text`` (its ``suffix`` picks the markers), in
    order, as one line at most ``limit`` long; '' for a file that is not code or says nothing."""
    marks = _MARKS.get(suffix.lower())
    if marks is None or limit <= 0:
        return ""
    said: list[str] = []
    size = 0
    quote = ""  # inside a Python docstring
    python = marks is _HASH and suffix.lower() in (".py", ".pyi")
    for raw in text.splitlines():
        line = raw.strip()
        if quote:
            piece, ends, _ = line.partition(quote)
            quote = "" if ends else quote
        elif python and line.startswith(_DOCSTRING):
            quote, line = line[:3], line[3:]
            piece, ends, _ = line.partition(quote)
            quote = "" if ends else quote
        else:
            piece = _uncommented(line, marks)
        piece = piece.strip()
        if piece and _prose(piece):
            said.append(piece)
            size += len(piece) + 1
            if size >= limit:
                break
    joined = " ".join(said)
    return joined if len(joined) <= limit else joined[: limit - 1].rstrip() + "…"


def _uncommented(line: str, marks: tuple[str, ...]) -> str:
    """``line`` without its comment marker ('' when it is no comment line)."""
    for mark in marks:
        if line.startswith(mark):
            return line[len(mark) :].rstrip("*/").strip()
    return ""


def _prose(piece: str) -> bool:
    """Whether a comment reads as words, not as code, a rule line or a tool's directive."""
    low = piece.lower()
    if any(skip in low for skip in _SKIP) or piece.endswith(_CODE_ENDS) or " = " in piece:
        return False
    words = [w for w in piece.split() if w.strip(".,:;!?()'\"`-").isalpha()]
    if len(words) < MIN_WORDS:
        return False
    solid = [c for c in piece if not c.isspace()]
    return sum(c.isalpha() for c in solid) >= MIN_LETTER_SHARE * len(solid)
