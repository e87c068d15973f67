"""Python: dotted module names from package folders, docstrings, ``_private``, routes, tests."""

from __future__ import annotations

import builtins
import inspect
import posixpath
import re
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import (
    DOC_LIMIT,
    SIGNATURE_LIMIT,
    LanguageSpec,
    RawDef,
    is_constant_name,
    is_test_path,
    node_text,
    word_set,
)
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "PythonSpec", "python_module_name"]

# Route decorators of Flask, FastAPI, Starlette, Sanic, Quart, aiohttp's RouteTableDef ...
_ROUTE = re.compile(
    r"^@\s*[\w.]+\.(route|api_route|get|post|put|patch|delete|head|options|websocket)\s*\("
)
_FIRST_STRING = re.compile(r"""\(\s*[rbuf]*(['"])(.*?)\1""")
_METHODS = re.compile(r"methods\s*=\s*[\[(]([^\])]*)")
_STD_METHODS = frozenset(
    name
    for kind in (str, bytes, list, dict, set, tuple, int, float, complex, object, type)
    for name in dir(kind)
) | word_set(
    """read readline readlines write writelines close flush seek tell fileno truncate
    acquire release wait notify put get_nowait put_nowait send recv connect bind listen
    accept sendall shutdown settimeout match search group groups sub findall finditer
    fullmatch info debug warning error exception critical log isoformat"""
)
_ENUM_BASE = re.compile(r"\b(Enum|IntEnum|StrEnum|Flag|IntFlag)\b")
# Members read once (an attribute of an enum class costs about 0.3 us in Python 3.11, and
# refine runs for every definition).
_CONSTANT, _CLASS, _TYPE = NodeKind.CONSTANT, NodeKind.CLASS, NodeKind.TYPE
_CALLABLE = frozenset({NodeKind.FUNCTION, NodeKind.METHOD})
_PRIVATE = Visibility.PRIVATE
_IMPORT = RefKind.IMPORT


def python_module_name(path: str, paths: frozenset[str]) -> str:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod`` where ``pkg`` is the top folder with __init__.py.

    Folders above the topmost package (``src/``, ``lib/``) are not part of the name; folders
    without ``__init__.py`` below it are namespace subpackages (``flask/sansio/app.py`` ->
    ``flask.sansio.app``). A file under no package at all is importable from the project root
    by its dotted path (``web/views.py`` -> ``web.views``).
    """
    stem = posixpath.splitext(path)[0]
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
        folder_parts = parts
    else:
        folder_parts = parts[:-1]
    # the name starts at the highest folder that is a regular package (folders below it
    # without __init__.py are namespace subpackages); with none, at the root
    top = 0
    for depth in range(1, len(folder_parts) + 1):
        if "/".join([*folder_parts[:depth], "__init__.py"]) in paths:
            top = depth - 1
            break
    name = ".".join(parts[top:])
    return name or posixpath.basename(posixpath.dirname(path)) or "__init__"


class PythonSpec(LanguageSpec):
    name = "python"
    grammar_module = "tree_sitter_python"
    query_name = "python"
    extensions: ClassVar[tuple[str, ...]] = (".py", ".pyw")
    self_names: ClassVar[frozenset[str]] = frozenset({"self", "cls"})
    builtins: ClassVar[frozenset[str]] = frozenset(dir(builtins))
    builtin_methods: ClassVar[frozenset[str]] = _STD_METHODS
    wrapper_types: ClassVar[frozenset[str]] = frozenset({"decorated_definition"})
    layout_modules = True

    def module_key(self, path: str, paths: frozenset[str]) -> str:
        return python_module_name(path, paths)

    def qualified_prefix(self, path: str, module: str, root: Node) -> str:
        return f"{module}."

    def external_package(self, qualifier: str) -> str | None:
        head = qualifier.split(".", 1)[0]
        return head or None

    def signature(self, node: Node, source: bytes) -> str:
        # up to the colon that ends the header: a comment after it is not part of it
        colon = None
        for child in node.children:
            if child.type == ":":
                colon = child
            elif child.type == "block":
                break
        if colon is None:
            return super().signature(node, source)
        raw = source[node.start_byte : colon.start_byte].decode("utf-8", "replace")
        text = " ".join(raw.split())
        if len(text) > SIGNATURE_LIMIT:
            text = text[: SIGNATURE_LIMIT - 3].rstrip() + "..."
        return text

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        if node.type == "assignment":
            left = node.child_by_field_name("left")
            return (node_text(left), None, left.start_byte) if left is not None else None
        if node.type == "type_alias_statement":
            left = node.child_by_field_name("left")
            ident = left.named_children[0] if left is not None and left.named_children else None
            return (node_text(ident), None, ident.start_byte) if ident is not None else None
        return None

    def refine(self, d: RawDef, path: str) -> bool:
        name = d.name
        if d.kind == _CONSTANT:
            enum_member = d.parent_kind == _CLASS and _in_enum(d.node)
            if not (enum_member or is_constant_name(name)) or name.startswith("__"):
                return False
        elif d.kind == _TYPE:
            pass
        elif d.kind in _CALLABLE:
            if name.startswith("test") and is_test_path(path):
                d.kind = NodeKind.TEST
            else:
                _maybe_endpoint(d)
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            d.visibility = _PRIVATE
        return True

    def docstring(self, d: RawDef) -> str:
        body = d.node.child_by_field_name("body")
        first = body.named_child(0) if body is not None else None
        if first is None or first.type != "expression_statement":
            return ""
        string = first.named_child(0)
        if string is None or string.type != "string" or first.named_child_count != 1:
            return ""
        content = "".join(node_text(c) for c in string.named_children if c.type == "string_content")
        if "\n" not in content and "\t" not in content:
            return content.lstrip()[:DOC_LIMIT]  # what cleandoc makes of one line, sooner
        return inspect.cleandoc(content)[:DOC_LIMIT]

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        line = node.start_point.row + 1
        refs: list[Reference] = []
        if node.type == "import_statement":
            for child in node.children_by_field_name("name"):
                if child.type == "aliased_import":
                    target = node_text(child.child_by_field_name("name"))
                    alias = node_text(child.child_by_field_name("alias"))
                else:
                    # `import a.b.c` binds `a`; the module itself is still what is imported
                    target = node_text(child)
                    alias = target.split(".", 1)[0]
                    if alias != target:
                        refs.append(Reference(_IMPORT, "", None, line, alias, alias))
                        alias = ""
                refs.append(Reference(_IMPORT, "", None, line, target, alias))
            return refs
        module_node = node.child_by_field_name("module_name")
        base = _absolute(module_node, path, module) if module_node is not None else ""
        names = node.children_by_field_name("name")
        if not names and any(c.type == "wildcard_import" for c in node.children):
            return [Reference(_IMPORT, "*", None, line, base, "*")]
        for child in names:
            if child.type == "aliased_import":
                name = node_text(child.child_by_field_name("name"))
                alias = node_text(child.child_by_field_name("alias"))
            else:
                name = alias = node_text(child)
            refs.append(Reference(_IMPORT, name, None, line, base, alias))
        return refs


def _absolute(module_node: Node, path: str, module: str) -> str:
    if module_node.type != "relative_import":
        return node_text(module_node)
    dots = 0
    rest = ""
    for child in module_node.children:
        if child.type == "import_prefix":
            dots = len(node_text(child).strip())
        elif child.type == "dotted_name":
            rest = node_text(child)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    parts = package.split(".") if package else []
    if dots > 1:
        parts = parts[: len(parts) - (dots - 1)] if dots - 1 <= len(parts) else []
    if rest:
        parts.append(rest)
    return ".".join(parts)


def _in_enum(node: Node) -> bool:
    cls: Node | None = node
    while cls is not None and cls.type != "class_definition":
        cls = cls.parent
    if cls is None:
        return False
    bases = cls.child_by_field_name("superclasses")
    return bases is not None and _ENUM_BASE.search(node_text(bases)) is not None


def _maybe_endpoint(d: RawDef) -> None:
    wrapper = d.node.parent
    if wrapper is None or wrapper.type != "decorated_definition":
        return
    for dec in wrapper.children:
        if dec.type != "decorator":
            continue
        text = node_text(dec)
        match = _ROUTE.match(text)
        if not match:
            continue
        d.kind = NodeKind.ENDPOINT
        route = _FIRST_STRING.search(text)
        if route:
            d.properties["route"] = route.group(2)
        verb = match.group(1)
        methods = _METHODS.search(text)
        if verb not in ("route", "api_route", "websocket"):
            d.properties["methods"] = verb.upper()
        elif methods:
            found = re.findall(r"['\"](\w+)['\"]", methods.group(1))
            d.properties["methods"] = ",".join(m.upper() for m in found)
        return


SPECS = (PythonSpec(),)
