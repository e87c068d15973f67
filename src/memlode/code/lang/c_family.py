"""C and C++: declarator chains, ``static``, access specifiers, ``#include``, gtest cases."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import LanguageSpec, RawDef, node_text, word_set
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "CSpec", "CppSpec"]

_DECLARATOR_WRAPPERS = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "function_declarator",
        "parenthesized_declarator",
        "array_declarator",
        "attributed_declarator",
    }
)
_NAMES = frozenset(
    {"identifier", "field_identifier", "destructor_name", "operator_name", "type_identifier"}
)
_GTEST = frozenset({"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P"})
# The C library names a project calls most; a project's own function of that name must be
# defined in the file or declared by an included header to be linked.
_LIBC = word_set(
    """abort abs atexit atof atoi atol bsearch calloc exit fclose feof ferror fflush fgetc
    fgets fopen fprintf fputc fputs fread free freopen fscanf fseek ftell fwrite getc getchar
    getenv gets isalnum isalpha isdigit islower isspace isupper malloc memchr memcmp memcpy
    memmove memset perror printf putc putchar puts qsort rand realloc remove rename rewind
    scanf snprintf sprintf srand sscanf strcat strchr strcmp strcpy strerror strlen strncat
    strncmp strncpy strrchr strstr strtod strtok strtol strtoul system time tolower toupper
    va_arg va_end va_start vfprintf vprintf vsnprintf vsprintf assert sizeof offsetof"""
)
_SPECIFIERS = frozenset({"struct_specifier", "union_specifier", "enum_specifier"})


def _declarator_name(node: Node) -> tuple[str, str | None, int] | None:
    current: Node | None = node.child_by_field_name("declarator")
    while current is not None:
        kind = current.type
        if kind in _NAMES:
            return node_text(current), None, current.start_byte
        if kind == "qualified_identifier":
            # a::b::c -> parent "a::b", name "c"
            text = "".join(node_text(current).split())
            scope, _, name = text.rpartition("::")
            return (name, scope.strip(":") or None, current.start_byte) if name else None
        if kind == "template_function":
            return node_text(current.child_by_field_name("name")), None, current.start_byte
        if kind in _DECLARATOR_WRAPPERS:
            current = current.child_by_field_name("declarator")
            continue
        return None
    return None


class CSpec(LanguageSpec):
    name = "c"
    grammar_module = "tree_sitter_c"
    query_name = "c"
    extensions: ClassVar[tuple[str, ...]] = (".c", ".h")
    builtins: ClassVar[frozenset[str]] = _LIBC
    global_names = True
    suffix_imports = True

    def module_key(self, path: str, paths: frozenset[str]) -> str:
        return path

    def import_keys(
        self, qualifier: str, importer: str, hints: Mapping[str, str] | None = None
    ) -> list[str]:
        near = posixpath.normpath(posixpath.join(posixpath.dirname(importer), qualifier))
        return [near, posixpath.normpath(qualifier)]

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        if node.type in (
            "function_definition",
            "field_declaration",
            "declaration",
            "type_definition",
        ):
            return _declarator_name(node)
        return None

    def refine(self, d: RawDef, path: str) -> bool:
        node = d.node
        parent = node.parent
        if node.type in _SPECIFIERS and parent is not None and parent.type == "type_definition":
            return False  # `typedef struct x {...} x_t`: the typedef is the symbol
        if node.type == "type_definition":
            body = node.child_by_field_name("type")
            if (
                body is not None
                and body.type in ("struct_specifier", "union_specifier")
                and (body.child_by_field_name("body") is not None)
            ):
                d.kind = NodeKind.CLASS
        if node.type == "preproc_def" and node.child_by_field_name("value") is None:
            return False  # include guards and feature flags
        if d.name in _GTEST and node.type == "function_definition":
            declarator = node.child_by_field_name("declarator")
            params = declarator.child_by_field_name("parameters") if declarator else None
            args = [node_text(p) for p in params.named_children] if params else []
            d.kind = NodeKind.TEST
            d.name = ".".join(a for a in args if a) or d.name
            return True
        d.visibility = self._visibility(node, d)
        return True

    def _visibility(self, node: Node, d: RawDef) -> Visibility:
        if (
            any(
                c.type == "storage_class_specifier" and node_text(c) == "static"
                for c in node.children
            )
            and d.parent_kind is None
        ):
            return Visibility.INTERNAL
        return Visibility.PUBLIC

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        target = node.child_by_field_name("path")
        text = "".join(node_text(c) for c in target.named_children) if target else ""
        if not text:
            return []
        return [Reference(RefKind.IMPORT, "", None, node.start_point.row + 1, text, "")]


class CppSpec(CSpec):
    name = "cpp"
    grammar_module = "tree_sitter_cpp"
    query_name = "cpp"
    extensions: ClassVar[tuple[str, ...]] = (
        ".cc",
        ".cpp",
        ".cxx",
        ".c++",
        ".hpp",
        ".hh",
        ".hxx",
        ".h++",
        ".ipp",
        ".inl",
    )
    member_sep = "::"
    self_names: ClassVar[frozenset[str]] = frozenset({"this"})
    builtin_methods: ClassVar[frozenset[str]] = word_set(
        """push_back emplace_back pop_back push pop size begin end cbegin cend rbegin rend
        empty clear insert erase find count at c_str data reset get release swap front back
        reserve resize substr append compare length str lock unlock load store exchange
        first second what"""
    )
    implicit_members = True
    wrapper_types: ClassVar[frozenset[str]] = frozenset({"template_declaration"})

    def _visibility(self, node: Node, d: RawDef) -> Visibility:
        holder = node.parent
        if holder is not None and holder.type == "template_declaration":
            node, holder = holder, holder.parent
        if holder is None or holder.type != "field_declaration_list":
            return super()._visibility(node, d)
        sibling = node.prev_sibling
        while sibling is not None:
            if sibling.type == "access_specifier":
                text = node_text(sibling).strip()
                if text.startswith("private"):
                    return Visibility.PRIVATE
                if text.startswith("protected"):
                    return Visibility.PROTECTED
                return Visibility.PUBLIC
            sibling = sibling.prev_sibling
        owner = holder.parent
        is_class = owner is not None and owner.type == "class_specifier"
        return Visibility.PRIVATE if is_class else Visibility.PUBLIC


SPECS = (CSpec(), CppSpec())
