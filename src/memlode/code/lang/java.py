"""Java: packages, modifiers, ``static final`` constants, JUnit tests, Spring/JAX-RS routes."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import LanguageSpec, RawDef, node_text, word_set
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "JavaSpec"]

_TEST_ANNOTATIONS = frozenset(
    {"Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate"}
)
_ROUTE_ANNOTATIONS = {
    "GetMapping": "GET",
    "PostMapping": "POST",
    "PutMapping": "PUT",
    "DeleteMapping": "DELETE",
    "PatchMapping": "PATCH",
    "RequestMapping": "",
    "GET": "GET",
    "POST": "POST",
    "PUT": "PUT",
    "DELETE": "DELETE",
    "PATCH": "PATCH",
    "Path": "",
}
_STRING = re.compile(r'"([^"]*)"')
_JAVA_LANG = word_set(
    """Boolean Byte Character Class Double Enum Exception Float Integer Iterable Long Math
    Number Object Override Deprecated FunctionalInterface SuppressWarnings Runnable
    RuntimeException Short String StringBuilder System Thread Throwable Void Error
    IllegalArgumentException IllegalStateException NullPointerException"""
)


class JavaSpec(LanguageSpec):
    name = "java"
    grammar_module = "tree_sitter_java"
    query_name = "java"
    extensions: ClassVar[tuple[str, ...]] = (".java",)
    self_names: ClassVar[frozenset[str]] = frozenset({"this"})
    builtins: ClassVar[frozenset[str]] = _JAVA_LANG
    builtin_methods: ClassVar[frozenset[str]] = word_set(
        """toString equals hashCode get put add addAll size isEmpty contains containsKey
        remove clear append length charAt substring indexOf equalsIgnoreCase println print
        printf format valueOf iterator stream map filter collect forEach of asList keySet
        values entrySet getKey getValue trim split replace toLowerCase toUpperCase
        startsWith endsWith isPresent orElse orElseThrow ifPresent getClass getName
        getMessage close read write flush next hasNext compareTo parseInt"""
    )
    implicit_members = True
    comment_types: ClassVar[frozenset[str]] = frozenset({"block_comment", "line_comment"})

    def module_key(self, path: str, paths: frozenset[str]) -> str:
        # the folder path below the source root; the parsed package declaration wins
        parts = posixpath.dirname(path).split("/")
        for marker in ("java", "src"):
            if marker in parts:
                parts = parts[len(parts) - parts[::-1].index(marker) :]
                break
        return ".".join(p for p in parts if p)

    def module_from_tree(self, root: Node, module: str) -> str:
        for child in root.named_children:
            if child.type == "package_declaration":
                for part in child.named_children:
                    if part.type in ("scoped_identifier", "identifier"):
                        return node_text(part)
        return module

    def qualified_prefix(self, path: str, module: str, root: Node) -> str:
        return f"{module}." if module else ""

    def external_package(self, qualifier: str) -> str | None:
        if qualifier.startswith(("java.", "javax.", "jdk.", "sun.")):
            return None
        return qualifier or None

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        if node.type not in ("field_declaration", "constant_declaration"):
            return None
        declarator = node.child_by_field_name("declarator")
        name = declarator.child_by_field_name("name") if declarator is not None else None
        return (node_text(name), None, name.start_byte) if name is not None else None

    def refine(self, d: RawDef, path: str) -> bool:
        node = d.node
        modifiers = next((c for c in node.children if c.type == "modifiers"), None)
        words = set(node_text(modifiers).split()) if modifiers is not None else set()
        annotations = _annotations(modifiers)
        if node.type == "field_declaration":
            interface_field = d.parent_kind == NodeKind.INTERFACE
            if not interface_field and not {"static", "final"} <= words:
                return False
        if d.kind == NodeKind.METHOD:
            if _TEST_ANNOTATIONS & set(annotations):
                d.kind = NodeKind.TEST
            else:
                _maybe_endpoint(d, annotations)
        if "public" in words or d.parent_kind == NodeKind.INTERFACE:
            d.visibility = Visibility.PUBLIC
        elif "private" in words:
            d.visibility = Visibility.PRIVATE
        elif "protected" in words:
            d.visibility = Visibility.PROTECTED
        elif node.type == "enum_constant":
            d.visibility = Visibility.PUBLIC
        else:
            d.visibility = Visibility.INTERNAL
        return True

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        target = next(
            (
                node_text(c)
                for c in node.named_children
                if c.type in ("scoped_identifier", "identifier")
            ),
            "",
        )
        if not target:
            return []
        line = node.start_point.row + 1
        if any(c.type == "asterisk" for c in node.children):
            return [Reference(RefKind.IMPORT, "*", None, line, target, "*")]
        qualifier, _, name = target.rpartition(".")
        return [Reference(RefKind.IMPORT, name, None, line, qualifier, name)]


def _annotations(modifiers: Node | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if modifiers is None:
        return out
    for child in modifiers.named_children:
        if child.type in ("marker_annotation", "annotation"):
            name = node_text(child.child_by_field_name("name")).rsplit(".", 1)[-1]
            out[name] = node_text(child.child_by_field_name("arguments"))
    return out


def _maybe_endpoint(d: RawDef, annotations: dict[str, str]) -> None:
    for name, args in annotations.items():
        if name not in _ROUTE_ANNOTATIONS:
            continue
        d.kind = NodeKind.ENDPOINT
        route = _STRING.search(args)
        if route:
            d.properties["route"] = route.group(1)
        verb = _ROUTE_ANNOTATIONS[name]
        if not verb and "RequestMethod." in args:
            verb = args.split("RequestMethod.", 1)[1][:6].strip(" )},").upper()
        if verb:
            d.properties["methods"] = verb


SPECS = (JavaSpec(),)
