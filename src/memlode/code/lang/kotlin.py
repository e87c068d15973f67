"""Kotlin: packages and imports as in Java, modifiers, KDoc, ``@Test`` functions.

Kotlin shares Java's module rules (a package spread over files, named by the package header,
else by the folders below ``src/main/kotlin``), so its spec extends Java's and replaces what
the grammar names differently: classes, objects and interfaces are all ``class_declaration``
or ``object_declaration``, and properties are kept only as constants.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.java import JavaSpec
from memlode.code.lang.spec import (
    SIGNATURE_LIMIT,
    RawDef,
    is_constant_name,
    node_text,
    outward_names,
    word_set,
)
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "KotlinSpec"]

_TEST_ANNOTATIONS = frozenset({"Test", "ParameterizedTest", "RepeatedTest", "TestFactory"})
# Kotlin's standard library functions and types a file calls bare most.
_STDLIB = word_set(
    """println print readLine listOf listOfNotNull mutableListOf arrayListOf mapOf
    mutableMapOf hashMapOf linkedMapOf setOf mutableSetOf hashSetOf arrayOf arrayOfNulls
    intArrayOf emptyList emptyMap emptySet emptyArray sequenceOf require requireNotNull
    check checkNotNull error TODO lazy run let apply also with repeat maxOf minOf
    buildString buildList buildMap synchronized Pair Triple Result String Int Long Short
    Byte Double Float Boolean Char Any Unit Nothing Array List Map Set MutableList
    MutableMap MutableSet Exception RuntimeException IllegalStateException
    IllegalArgumentException UnsupportedOperationException Throwable Regex StringBuilder
    Suppress JvmStatic JvmOverloads JvmField Deprecated"""
)
_STDLIB_METHODS = word_set(
    """let apply also run takeIf takeUnless map mapNotNull flatMap filter filterNot
    filterIsInstance forEach forEachIndexed first firstOrNull last lastOrNull single
    singleOrNull find any all none count sum sumOf maxOrNull minOrNull sortedBy sorted
    sortedByDescending groupBy associate associateBy associateWith toList toMutableList
    toSet toMutableSet toMap toTypedArray joinToString contains containsKey get getOrNull
    getOrDefault getOrElse getOrPut put putAll set add addAll remove removeAll clear
    isEmpty isNotEmpty isNullOrEmpty isNullOrBlank isBlank isNotBlank orEmpty size
    toString equals hashCode trim split replace startsWith endsWith substring lowercase
    uppercase format toInt toLong toDouble toFloat toBoolean use launch async await
    invoke copy component1 component2 close emit collect plus minus"""
)
_BODIES = frozenset({"function_body", "class_body", "enum_class_body"})
# leading annotations of a signature: `@Test`, `@GetMapping("/x")`
_ANNOTATIONS = re.compile(r"^(?:@[\w.:]+(?:\([^)]*\))?\s*)+")
_VISIBILITY = {
    "public": Visibility.PUBLIC,
    "protected": Visibility.PROTECTED,
    "internal": Visibility.INTERNAL,
    "private": Visibility.PRIVATE,
}


class KotlinSpec(JavaSpec):
    name = "kotlin"
    grammar_module = "tree_sitter_kotlin"
    query_name = "kotlin"
    extensions: ClassVar[tuple[str, ...]] = (".kt", ".kts")
    builtins: ClassVar[frozenset[str]] = _STDLIB
    builtin_methods: ClassVar[frozenset[str]] = _STDLIB_METHODS
    extension_functions = True

    def module_key(self, path: str, paths: frozenset[str]) -> str:
        parts = posixpath.dirname(path).split("/")
        for marker in ("kotlin", "java", "src"):
            if marker in parts:
                parts = parts[len(parts) - parts[::-1].index(marker) :]
                break
        return ".".join(p for p in parts if p)

    def module_from_tree(self, root: Node, module: str) -> str:
        for child in root.named_children:
            if child.type == "package_header":
                return "".join(node_text(child.named_children[0]).split()) or module
        return module

    def enclosing_names(self, written: str, around: str, prefix: str) -> list[str]:
        return outward_names(written, around or prefix, ".")

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        kind = node.type
        name: Node | None = None
        if kind == "property_declaration":
            variable = _child(node, "variable_declaration")
            name = variable.named_children[0] if variable and variable.named_children else None
        elif kind == "enum_entry":
            name = node.named_children[0] if node.named_children else None
        elif kind == "type_alias":
            name = node.child_by_field_name("type")
        else:
            return None
        if name is None or name.type != "identifier":
            return None
        return node_text(name), None, name.start_byte

    def refine(self, d: RawDef, path: str) -> bool:
        node = d.node
        modifiers = _child(node, "modifiers")
        words = set(node_text(modifiers).split()) if modifiers is not None else set()
        if node.type == "property_declaration":
            if "const" not in words and not is_constant_name(d.name):
                return False
        elif node.type == "class_declaration":
            keywords = {c.type for c in node.children if not c.is_named}
            if "interface" in keywords or "annotation" in words:
                d.kind = NodeKind.INTERFACE
            elif "enum" in words:
                d.kind = NodeKind.TYPE
        elif d.kind in (NodeKind.FUNCTION, NodeKind.METHOD) and _TEST_ANNOTATIONS & _annotations(
            modifiers
        ):
            d.kind = NodeKind.TEST
        d.visibility = next(
            (v for word, v in _VISIBILITY.items() if word in words), Visibility.PUBLIC
        )
        return True

    def signature(self, node: Node, source: bytes) -> str:
        body = next((c for c in node.named_children if c.type in _BODIES), None)
        end = body.start_byte if body is not None else node.end_byte
        text = " ".join(source[node.start_byte : end].decode("utf-8", "replace").split())
        text = _ANNOTATIONS.sub("", text).rstrip("{=: ").rstrip()
        if len(text) > SIGNATURE_LIMIT:
            text = text[: SIGNATURE_LIMIT - 3].rstrip() + "..."
        return text

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        target_node = next(
            (c for c in node.named_children if c.type == "qualified_identifier"), None
        )
        if target_node is None:
            return []
        target = "".join(node_text(target_node).split())
        line = node.start_point.row + 1
        if any(c.type == "*" for c in node.children):
            return [Reference(RefKind.IMPORT, "*", None, line, target, "*")]
        alias_node = next((c for c in node.named_children if c.type == "identifier"), None)
        qualifier, _, name = target.rpartition(".")
        alias = node_text(alias_node) if alias_node is not None else name
        return [Reference(RefKind.IMPORT, name, None, line, qualifier, alias)]


def _child(node: Node, kind: str) -> Node | None:
    return next((c for c in node.named_children if c.type == kind), None)


def _annotations(modifiers: Node | None) -> set[str]:
    out: set[str] = set()
    if modifiers is None:
        return out
    for child in modifiers.named_children:
        if child.type != "annotation":
            continue
        user_type = next(
            (n for n in _walk(child) if n.type == "user_type"),
            None,
        )
        if user_type is not None and user_type.named_children:
            out.add(node_text(user_type.named_children[-1]))
    return out


def _walk(node: Node) -> list[Node]:
    out: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(current.named_children))
    return out


SPECS = (KotlinSpec(),)
