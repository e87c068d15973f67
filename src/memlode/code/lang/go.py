"""Go: packages are folders, exported names are capitalised, tests are ``TestXxx``."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import LanguageSpec, RawDef, node_text, word_set
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["GO_MODULE_HINT", "SPECS", "GoSpec"]

# Hints the indexer passes from go.mod files: "go:<module path>" -> folder of the go.mod.
GO_MODULE_HINT = "go:"
_TEST_FUNC = re.compile(r"^(Test|Benchmark|Example|Fuzz)([A-Z_]|$)")
_MAJOR = re.compile(r"^v\d+$")
_BUILTINS = word_set(
    """append cap clear close complex copy delete imag len make max min new panic print
    println real recover bool byte complex64 complex128 error float32 float64 int int8 int16
    int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any comparable"""
)


class GoSpec(LanguageSpec):
    name = "go"
    grammar_module = "tree_sitter_go"
    query_name = "go"
    extensions: ClassVar[tuple[str, ...]] = (".go",)
    builtins: ClassVar[frozenset[str]] = _BUILTINS
    builtin_methods: ClassVar[frozenset[str]] = word_set(
        """Error String Close Read Write Lock Unlock RLock RUnlock Add Done Wait Len Less Swap
        Get Set Del Load Store Printf Println Print Sprintf Errorf Fatal Fatalf Helper Run
        Context Err Value Deadline Next Scan Bytes Reset WriteString WriteByte Sum Encode
        Decode Marshal Unmarshal Sleep Now Since Unix Format Parse Seek Flush"""
    )

    def module_key(self, path: str, paths: frozenset[str]) -> str:
        return posixpath.dirname(path) or "."

    def qualified_prefix(self, path: str, module: str, root: Node) -> str:
        # one package = one folder, so a method in one file and its type in another share a
        # prefix and the method's parent resolves across files
        if module != ".":
            return f"{module}."
        for child in root.named_children:
            if child.type == "package_clause" and child.named_children:
                return f"{node_text(child.named_children[0])}."
        return "main."

    def import_keys(
        self, qualifier: str, importer: str, hints: Mapping[str, str] | None = None
    ) -> list[str]:
        for key, folder in (hints or {}).items():
            if not key.startswith(GO_MODULE_HINT):
                continue
            module_path = key[len(GO_MODULE_HINT) :]
            if qualifier == module_path:
                return [folder or "."]
            if qualifier.startswith(module_path + "/"):
                rest = qualifier[len(module_path) + 1 :]
                return [posixpath.join(folder, rest) if folder else rest]
        parts = qualifier.split("/")
        # without a go.mod: the longest tail of the import path that is a folder here
        return ["/".join(parts[i:]) for i in range(len(parts)) if "." not in parts[i]]

    def external_package(self, qualifier: str) -> str | None:
        head = qualifier.split("/", 1)[0]
        return qualifier if "." in head else None

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        if node.type != "method_declaration":
            return None
        name = node.child_by_field_name("name")
        receiver = node.child_by_field_name("receiver")
        if name is None or receiver is None or not receiver.named_children:
            return None
        target = receiver.named_children[0].child_by_field_name("type")
        while target is not None and target.type in ("pointer_type", "generic_type"):
            inner = target.child_by_field_name("type")
            target = (
                inner
                if inner is not None
                else (target.named_children[0] if target.named_children else None)
            )
        parent = node_text(target) if target is not None else None
        return node_text(name), parent or None, name.start_byte

    def refine(self, d: RawDef, path: str) -> bool:
        node = d.node
        if node.type == "type_spec":
            body = node.child_by_field_name("type")
            body_type = body.type if body is not None else ""
            if body_type == "struct_type":
                d.kind = NodeKind.CLASS
            elif body_type == "interface_type":
                d.kind = NodeKind.INTERFACE
        if node.type == "method_declaration":
            receiver = node.child_by_field_name("receiver")
            if receiver is not None and receiver.named_children:
                var = receiver.named_children[0].child_by_field_name("name")
                if var is not None:
                    d.properties["self"] = node_text(var)
        if d.kind == NodeKind.FUNCTION and path.endswith("_test.go") and _TEST_FUNC.match(d.name):
            d.kind = NodeKind.TEST
        d.visibility = Visibility.PUBLIC if d.name[:1].isupper() else Visibility.INTERNAL
        return True

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        refs: list[Reference] = []
        stack = [node]
        specs: list[Node] = []
        while stack:
            current = stack.pop()
            if current.type == "import_spec":
                specs.append(current)
            else:
                stack.extend(current.named_children)
        for spec in sorted(specs, key=lambda n: n.start_byte):
            path_node = spec.child_by_field_name("path")
            target = "".join(node_text(c) for c in path_node.named_children) if path_node else ""
            if not target:
                continue
            name_node = spec.child_by_field_name("name")
            alias = node_text(name_node) if name_node is not None else _package_name(target)
            line = spec.start_point.row + 1
            refs.append(Reference(RefKind.IMPORT, "", None, line, target, alias))
        return refs


def _package_name(import_path: str) -> str:
    parts = import_path.split("/")
    if len(parts) > 1 and _MAJOR.match(parts[-1]):
        return parts[-2]
    return parts[-1]


SPECS = (GoSpec(),)
