"""What a language needs beyond its tag query: the :class:`LanguageSpec` base and its helpers.

A :class:`LanguageSpec` names a grammar wheel, a tag query (``queries/<name>.scm``, package
data) and the few rules a query cannot express: how a file's module is named, what a
docstring or a visibility looks like, how an import statement binds names. The per-family
modules beside this one subclass it; ``memlode.code.lang`` registers them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar

from memlode.code.model import Reference, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = [
    "TEST_PATH",
    "LanguageSpec",
    "RawDef",
    "is_test_path",
    "outward_names",
    "word_set",
]

# A path is a test file when a folder says so or the file name follows a test runner's rule
# (pytest, go test, Jest, RSpec and minitest, JUnit, PHPUnit, xUnit/NUnit, XCTest, ExUnit).
TEST_PATH = re.compile(
    r"(^|/)(tests?|testing|__tests__|spec|specs|Tests)/"
    r"|(^|/)test_[^/]*\.py$|_test\.(py|go|rb|exs)$|_spec\.rb$|\.(test|spec)\.[jt]sx?$"
    r"|(^|/)(Test[A-Z][^/]*|[^/]*Tests?)\.(java|kt|kts|cs|php)$|[^/]Tests?\.swift$"
)

_UPPER = re.compile(r"^_*[A-Z][A-Z0-9_]*$")


def word_set(text: str) -> frozenset[str]:
    """A set of words written as one blank-separated string (readable long vocabularies)."""
    return frozenset(text.split())


@lru_cache(maxsize=65536)
def is_test_path(path: str) -> bool:
    return TEST_PATH.search(path) is not None


def outward_names(written: str, around: str, sep: str) -> list[str]:
    """``written`` inside each scope of ``around``, innermost first, then on its own:
    ``Task`` from ``Rake::Application::run`` -> ``Rake::Application::run::Task``,
    ``Rake::Application::Task``, ``Rake::Task``, ``Task``."""
    out: list[str] = []
    scope = around
    while scope:
        out.append(f"{scope}{sep}{written}")
        head, found, _ = scope.rpartition(sep)
        scope = head if found else ""
    out.append(written)
    return out


def is_constant_name(name: str) -> bool:
    return _UPPER.match(name) is not None and any(c.isalpha() for c in name)


_PUBLIC = Visibility.PUBLIC  # read once: an enum class attribute costs ~0.3 us per access


class RawDef:
    """A definition as the query found it, refined in place by the language's rules."""

    __slots__ = (
        "doc",
        "end",
        "kind",
        "name",
        "node",
        "parent_kind",
        "parent_name",
        "properties",
        "signature",
        "start",
        "visibility",
    )

    def __init__(self, node: Node, name: str, kind: NodeKind, parent_name: str | None) -> None:
        self.node = node
        self.name = name
        self.kind = kind
        self.parent_name = parent_name  # an explicit container (Go receiver, C++ Foo::bar)
        self.start = node.start_byte
        self.end = node.end_byte
        self.doc = ""
        self.signature = ""
        self.visibility = _PUBLIC
        self.properties: dict[str, str] = {}
        self.parent_kind: NodeKind | None = None  # kind of the enclosing symbol, if any


def node_text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


_COMMENT_MARK = re.compile(r"^\s*(/\*\*?|\*/|\*(?!/)|///?!?|//!|#)\s?")


def clean_comment(text: str) -> str:
    """Strip comment markers (``/** */``, ``*``, ``///``, ``//``, ``#``) line by line."""
    text = text.strip()
    text = text.removesuffix("*/")
    lines = []
    for line in text.splitlines():
        line = _COMMENT_MARK.sub("", line, count=1).rstrip()
        lines.append(line)
    return "\n".join(lines).strip()


# Doc text kept per symbol: enough for search, small enough for a map.
DOC_LIMIT = 1000
# A signature longer than this is cut (argument lists of generated code can run for pages).
SIGNATURE_LIMIT = 200


class LanguageSpec:
    """Rules for one language. Subclasses override only what differs from these defaults."""

    name: ClassVar[str] = ""
    grammar_module: ClassVar[str] = ""
    grammar_function: ClassVar[str] = "language"
    query_name: ClassVar[str] = ""
    extensions: ClassVar[tuple[str, ...]] = ()
    # Whole file names (no extension) that are this language: Rakefile, Gemfile.
    file_names: ClassVar[tuple[str, ...]] = ()
    member_sep: ClassVar[str] = "."
    # The receivers that mean "this object": calls through them resolve within the class.
    self_names: ClassVar[frozenset[str]] = frozenset()
    # Whether an unqualified call may reach a method of the enclosing class (Java, C++).
    implicit_members: ClassVar[bool] = False
    # Whether top-level names are visible project-wide without an import (C and C++ link
    # globally): only then may a bare name fall back to the one definition of that name.
    global_names: ClassVar[bool] = False
    # Names the language (or its standard library) provides everywhere: an unqualified use
    # resolves to a project symbol only through the file itself or an explicit import.
    builtins: ClassVar[frozenset[str]] = frozenset()
    # Method names of the standard types (str.join, list.append, Vec::push): a call through
    # an unknown receiver with such a name is not guessed to be the project's only method of
    # that name.
    builtin_methods: ClassVar[frozenset[str]] = frozenset()
    # Whether a call through a receiver of unknown type may be guessed to be the project's
    # only method of that name. Not in Elixir: a receiver there is a module, and a module the
    # project does not define is another package's.
    guess_receivers: ClassVar[bool] = True
    # Whether a type scope (``@scope.type``) owns what it holds when the type is defined in
    # another file: Swift, where an extension's methods belong to the extended type and every
    # file of a module shares one prefix, so the type's qualified name is known.
    scope_owns_members: ClassVar[bool] = False
    comment_types: ClassVar[frozenset[str]] = frozenset({"comment"})
    # Nodes that wrap a definition (export, decorators, templates): doc comments sit before them.
    wrapper_types: ClassVar[frozenset[str]] = frozenset()
    # Siblings allowed between a doc comment and its definition (attributes, annotations).
    doc_skip_types: ClassVar[frozenset[str]] = frozenset()
    body_fields: ClassVar[tuple[str, ...]] = ("body",)
    # Whether a file's module key depends on other files (Python: which folders are packages)
    layout_modules: ClassVar[bool] = False
    # Whether a call through a receiver may be an extension function (Kotlin's
    # `fun String.x()`): the function of that name the file imports or its package defines.
    extension_functions: ClassVar[bool] = False
    # Whether an import names a file by the tail of its path from some search root (a C
    # include, a Ruby require): the resolver then accepts any module key ending in it.
    suffix_imports: ClassVar[bool] = False

    # --- naming -------------------------------------------------------------------------
    def module_key(self, path: str, paths: frozenset[str]) -> str:
        """The key other files import this file by (module name, path without suffix, ...)."""
        return posixpath.splitext(path)[0]

    def qualified_prefix(self, path: str, module: str, root: Node) -> str:
        """What goes before a symbol's local name to make it unique in the project."""
        return f"{path}:"

    def module_from_tree(self, root: Node, module: str) -> str:
        """The module key as the file declares it (a Java package), else ``module``."""
        return module

    def import_keys(
        self, qualifier: str, importer: str, hints: Mapping[str, str] | None = None
    ) -> list[str]:
        """Module keys an import's qualifier may name, best first (``hints``: from manifests)."""
        return [qualifier]

    def external_package(self, qualifier: str) -> str | None:
        """The third-party package an unresolved import names, for cross-repo links."""
        return None

    def enclosing_names(self, written: str, around: str, prefix: str) -> list[str]:
        """Qualified names a type or namespace ``written`` at a use may stand for, innermost
        first, from inside the symbol ``around`` ("" at file level) in a file whose symbols
        start with ``prefix``: how Ruby constants, C# and Kotlin nested types and PHP names
        relative to the namespace are found. Empty: the language has no such lookup."""
        return []

    # --- definitions ----------------------------------------------------------------------
    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        """(name, explicit parent, byte offset of the name) where the ``name`` field is not it."""
        return None

    def scope_name(self, node: Node) -> str:
        """The name a scope (``@scope``) gives to what it holds."""
        return node_text(node.child_by_field_name("name"))

    def refine(self, d: RawDef, path: str) -> bool:
        """Set kind, visibility, doc, signature, properties; False drops the definition."""
        return True

    def docstring(self, d: RawDef) -> str:
        return self.preceding_comments(d.node)

    def preceding_comments(self, node: Node) -> str:
        target = node
        while target.parent is not None and target.parent.type in self.wrapper_types:
            target = target.parent
        row = target.start_point.row
        parts: list[str] = []
        sibling = target.prev_named_sibling
        while sibling is not None:
            if sibling.type in self.doc_skip_types:
                row = sibling.start_point.row
            elif sibling.type in self.comment_types and sibling.end_point.row >= row - 1:
                parts.append(node_text(sibling))
                row = sibling.start_point.row
            else:
                break
            sibling = sibling.prev_named_sibling
        if not parts:
            return ""
        return clean_comment("\n".join(clean_comment(p) for p in reversed(parts)))[:DOC_LIMIT]

    def body_of(self, node: Node) -> Node | None:
        for name in self.body_fields:
            body = node.child_by_field_name(name)
            if body is not None:
                return body
        value = node.child_by_field_name("value")
        if value is not None and value.type in (
            "arrow_function",
            "function_expression",
            "function",
        ):
            return value.child_by_field_name("body")
        return None

    def signature(self, node: Node, source: bytes) -> str:
        body = self.body_of(node)
        end = body.start_byte if body is not None else node.end_byte
        raw = source[node.start_byte : end].decode("utf-8", "replace")
        if body is None:
            raw = raw.split("\n", 1)[0]
        text = " ".join(raw.split())
        text = text.rstrip("{: ").rstrip()
        if len(text) > SIGNATURE_LIMIT:
            text = text[: SIGNATURE_LIMIT - 3].rstrip() + "..."
        return text

    # --- imports ---------------------------------------------------------------------------
    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        return []
