"""JavaScript, TypeScript and TSX: ES and CommonJS imports, exports, JSDoc, tests, routes."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import LanguageSpec, RawDef, is_constant_name, node_text, word_set
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "JavaScriptSpec", "TsxSpec", "TypeScriptSpec"]

_SOURCE_SUFFIX = re.compile(r"\.(d\.ts|[cm]?[jt]sx?)$")
_GLOBALS = word_set(
    """Array ArrayBuffer BigInt Boolean DataView Date Error EvalError Function Infinity Intl
    JSON Map Math NaN Number Object Promise Proxy RangeError ReferenceError Reflect RegExp Set
    String Symbol SyntaxError TypeError URIError URL URLSearchParams WeakMap WeakSet
    AbortController Blob Buffer FormData Headers Request Response TextDecoder TextEncoder
    clearInterval clearTimeout console decodeURI decodeURIComponent encodeURI
    encodeURIComponent escape eval fetch globalThis isFinite isNaN parseFloat parseInt
    process queueMicrotask require setImmediate setInterval setTimeout structuredClone
    unescape window document alert atob btoa"""
)
_STD_METHODS = word_set(
    """push pop shift unshift slice splice map filter reduce reduceRight forEach find
    findIndex findLast includes indexOf lastIndexOf join concat sort reverse some every keys
    values entries get set has delete add clear then catch finally toString valueOf split
    replace replaceAll trim trimStart trimEnd toLowerCase toUpperCase startsWith endsWith
    match matchAll test exec apply call bind hasOwnProperty log error warn info debug
    stringify parse assign freeze create defineProperty emit on once off
    addEventListener removeEventListener flat flatMap fill from of isArray padStart padEnd
    charAt charCodeAt substring substr toFixed resolve reject all race allSettled json text
    querySelector querySelectorAll getElementById appendChild removeChild setAttribute
    getAttribute preventDefault stopPropagation next return throw subscribe pipe"""
)
_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "generator_function", "function", "class"}
)


def _strip_quotes(text: str) -> str:
    return text.strip().strip("'\"`")


def _string_value(node: Node | None) -> str:
    if node is None:
        return ""
    return "".join(node_text(c) for c in node.named_children) or _strip_quotes(node_text(node))


class JavaScriptSpec(LanguageSpec):
    name = "javascript"
    grammar_module = "tree_sitter_javascript"
    query_name = "javascript"
    extensions: ClassVar[tuple[str, ...]] = (".js", ".jsx", ".mjs", ".cjs")
    self_names: ClassVar[frozenset[str]] = frozenset({"this"})
    builtins: ClassVar[frozenset[str]] = _GLOBALS
    builtin_methods: ClassVar[frozenset[str]] = _STD_METHODS
    wrapper_types: ClassVar[frozenset[str]] = frozenset(
        {"export_statement", "lexical_declaration", "variable_declaration", "expression_statement"}
    )
    comment_types: ClassVar[frozenset[str]] = frozenset({"comment"})

    def module_key(self, path: str, paths: frozenset[str]) -> str:
        stem = _SOURCE_SUFFIX.sub("", path)
        if posixpath.basename(stem) == "index":
            return posixpath.dirname(stem) or "index"
        return stem

    def import_keys(
        self, qualifier: str, importer: str, hints: Mapping[str, str] | None = None
    ) -> list[str]:
        if not qualifier.startswith("."):
            return [qualifier]
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(importer), qualifier))
        stem = _SOURCE_SUFFIX.sub("", joined)
        return [stem, joined] if stem != joined else [stem]

    def external_package(self, qualifier: str) -> str | None:
        if qualifier.startswith((".", "/", "node:")):
            return None
        parts = qualifier.split("/")
        if qualifier.startswith("@") and len(parts) > 1:
            return "/".join(parts[:2])
        return parts[0] or None

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        kind = node.type
        if kind == "assignment_expression":
            left = node.child_by_field_name("left")
            prop = left.child_by_field_name("property") if left is not None else None
            if left is None or prop is None:
                return None
            obj = left.child_by_field_name("object")
            parent = None
            if obj is not None and obj.type == "member_expression":
                if node_text(obj.child_by_field_name("property")) != "prototype":
                    return None
                parent = node_text(obj.child_by_field_name("object"))
            return node_text(prop), parent, prop.start_byte
        if kind == "pair":
            key = node.child_by_field_name("key")
            return (node_text(key), None, key.start_byte) if key is not None else None
        if kind == "call_expression":  # a test case or a route: named by its first string
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is None or first.type != "string":
                return None
            return _string_value(first), None, first.start_byte
        return None

    def refine(self, d: RawDef, path: str) -> bool:
        node = d.node
        if d.kind == NodeKind.TEST:
            return True
        if d.kind == NodeKind.ENDPOINT:
            fn = node.child_by_field_name("function")
            verb = node_text(fn.child_by_field_name("property")) if fn is not None else ""
            d.properties["route"] = d.name
            d.properties["methods"] = verb.upper()
            d.name = f"{verb.upper()} {d.name}"
            return True
        if d.kind == NodeKind.MODULE:
            d.name = _strip_quotes(d.name)
        if d.name.startswith("[") or d.name == "exports":
            return False  # computed names and `module.exports = ...` are not named symbols
        if d.kind == NodeKind.CONSTANT and node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is None or value.type in _FUNCTION_VALUES:
                return False
            if (
                value.type == "call_expression"
                and node_text(value.child_by_field_name("function")) == "require"
            ):
                return False
            if node.parent is not None and d.parent_kind is None:
                exported = _exported(node)
                if not (exported or is_constant_name(d.name)):
                    return False
        if d.kind == NodeKind.METHOD and d.parent_kind is None and not d.parent_name:
            d.kind = NodeKind.FUNCTION  # a method of an object literal
        d.visibility = _visibility(d)
        return True

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        line = node.start_point.row + 1
        if node.type == "call_expression":  # require("x")
            args = node.child_by_field_name("arguments")
            target = _string_value(args.named_children[0]) if args is not None else ""
            return _require_bindings(node, target, line)
        source = _string_value(node.child_by_field_name("source"))
        if not source:
            return []
        refs: list[Reference] = []
        if node.type == "export_statement":
            for spec in _descendants(node, "export_specifier"):
                name = node_text(spec.child_by_field_name("name"))
                alias = node_text(spec.child_by_field_name("alias")) or name
                refs.append(Reference(RefKind.IMPORT, name, None, line, source, alias))
            return refs or [Reference(RefKind.IMPORT, "*", None, line, source, "*")]
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            return [Reference(RefKind.IMPORT, "", None, line, source, "")]
        for child in clause.named_children:
            if child.type == "identifier":
                alias = node_text(child)
                refs.append(Reference(RefKind.IMPORT, "default", None, line, source, alias))
            elif child.type == "namespace_import":
                alias = node_text(child.named_children[0]) if child.named_children else ""
                refs.append(Reference(RefKind.IMPORT, "", None, line, source, alias))
            elif child.type == "named_imports":
                for spec in child.named_children:
                    if spec.type != "import_specifier":
                        continue
                    name = node_text(spec.child_by_field_name("name"))
                    alias = node_text(spec.child_by_field_name("alias")) or name
                    refs.append(Reference(RefKind.IMPORT, name, None, line, source, alias))
        return refs


def _descendants(node: Node, kind: str) -> list[Node]:
    out: list[Node] = []
    stack = list(node.named_children)
    while stack:
        child = stack.pop()
        if child.type == kind:
            out.append(child)
        else:
            stack.extend(child.named_children)
    return sorted(out, key=lambda n: n.start_byte)


def _require_bindings(node: Node, target: str, line: int) -> list[Reference]:
    parent = node.parent
    if parent is None or parent.type != "variable_declarator" or not target:
        return [Reference(RefKind.IMPORT, "", None, line, target, "")] if target else []
    pattern = parent.child_by_field_name("name")
    if pattern is not None and pattern.type == "identifier":
        return [Reference(RefKind.IMPORT, "", None, line, target, node_text(pattern))]
    refs: list[Reference] = []
    if pattern is not None and pattern.type == "object_pattern":
        for prop in pattern.named_children:
            if prop.type == "shorthand_property_identifier_pattern":
                name = node_text(prop)
                refs.append(Reference(RefKind.IMPORT, name, None, line, target, name))
            elif prop.type == "pair_pattern":
                name = node_text(prop.child_by_field_name("key"))
                alias = node_text(prop.child_by_field_name("value")) or name
                refs.append(Reference(RefKind.IMPORT, name, None, line, target, alias))
    return refs or [Reference(RefKind.IMPORT, "", None, line, target, "")]


def _exported(node: Node) -> bool:
    parent = node.parent
    for _ in range(3):
        if parent is None:
            return False
        if parent.type == "export_statement":
            return True
        parent = parent.parent
    return False


def _visibility(d: RawDef) -> Visibility:
    node = d.node
    if d.name.startswith("#"):
        return Visibility.PRIVATE
    for child in node.children:
        if child.type == "accessibility_modifier":
            text = node_text(child)
            if text == "private":
                return Visibility.PRIVATE
            if text == "protected":
                return Visibility.PROTECTED
            return Visibility.PUBLIC
    if d.parent_kind is not None or d.parent_name:
        return Visibility.PUBLIC
    if d.name.startswith("_"):
        return Visibility.PRIVATE
    return Visibility.PUBLIC if _exported(node) else Visibility.INTERNAL


class TypeScriptSpec(JavaScriptSpec):
    name = "typescript"
    grammar_module = "tree_sitter_typescript"
    grammar_function = "language_typescript"
    query_name = "typescript"
    extensions: ClassVar[tuple[str, ...]] = (".ts", ".mts", ".cts")
    wrapper_types: ClassVar[frozenset[str]] = JavaScriptSpec.wrapper_types | {"ambient_declaration"}


class TsxSpec(TypeScriptSpec):
    name = "tsx"
    grammar_function = "language_tsx"
    extensions: ClassVar[tuple[str, ...]] = (".tsx",)


SPECS = (JavaScriptSpec(), TypeScriptSpec(), TsxSpec())
