"""Rust: crate module paths, ``pub`` visibility, ``#[test]``, ``use`` trees, ``impl`` scopes."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import LanguageSpec, RawDef, node_text, word_set
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "RustSpec", "rust_module_path"]

_PRELUDE = word_set(
    """Box Clone Copy Default Drop Eq Err Fn FnMut FnOnce From Into Iterator None Ok Option
    Ord PartialEq PartialOrd Result Send Sized Some String Sync ToOwned ToString Vec
    assert assert_eq assert_ne cfg debug_assert dbg env eprint eprintln format format_args
    include include_str matches panic print println todo unimplemented unreachable vec
    write writeln"""
)
_BUILTIN_CRATES = frozenset({"std", "core", "alloc", "crate", "self", "super", "Self"})


def rust_module_path(path: str) -> str:
    """``src/a/b.rs`` -> ``a::b``; ``src/a/mod.rs`` -> ``a``; ``src/lib.rs`` -> ``""``."""
    parts = posixpath.splitext(path)[0].split("/")
    if "src" in parts:
        parts = parts[len(parts) - parts[::-1].index("src") :]
    if parts and parts[-1] == "mod":
        parts = parts[:-1]
    if len(parts) == 1 and parts[0] in ("lib", "main"):
        return ""
    return "::".join(parts)


class RustSpec(LanguageSpec):
    name = "rust"
    grammar_module = "tree_sitter_rust"
    query_name = "rust"
    extensions: ClassVar[tuple[str, ...]] = (".rs",)
    member_sep = "::"
    self_names: ClassVar[frozenset[str]] = frozenset({"self", "Self"})
    builtins: ClassVar[frozenset[str]] = _PRELUDE
    builtin_methods: ClassVar[frozenset[str]] = word_set(
        """unwrap expect clone to_string to_owned into iter iter_mut into_iter map collect
        push pop len is_empty get get_mut insert remove contains as_str as_ref as_mut ok_or
        ok_or_else map_err and_then unwrap_or unwrap_or_else unwrap_or_default filter
        filter_map fold any all find next extend join split trim starts_with ends_with
        lock read write borrow borrow_mut take replace is_some is_none is_ok is_err ok err
        first last sort sort_by dedup reverse keys values entry or_insert fmt eq cmp
        partial_cmp hash default from new with_capacity clear drain chars bytes lines
        parse format send recv spawn await"""
    )
    comment_types: ClassVar[frozenset[str]] = frozenset({"line_comment", "block_comment"})
    doc_skip_types: ClassVar[frozenset[str]] = frozenset({"attribute_item"})

    def module_key(self, path: str, paths: frozenset[str]) -> str:
        return rust_module_path(path)

    def import_keys(
        self, qualifier: str, importer: str, hints: Mapping[str, str] | None = None
    ) -> list[str]:
        segments = _absolute(qualifier.split("::"), rust_module_path(importer))
        return ["::".join(segments)]

    def external_package(self, qualifier: str) -> str | None:
        head = qualifier.split("::", 1)[0]
        return None if not head or head in _BUILTIN_CRATES else head

    def scope_name(self, node: Node) -> str:
        target = node.child_by_field_name("type")
        while target is not None and target.type in ("generic_type", "scoped_type_identifier"):
            target = target.child_by_field_name("type" if target.type == "generic_type" else "name")
        return node_text(target) if target is not None and target.type == "type_identifier" else ""

    def refine(self, d: RawDef, path: str) -> bool:
        node = d.node
        if d.kind in (NodeKind.FUNCTION, NodeKind.METHOD) and _has_test_attribute(node):
            d.kind = NodeKind.TEST
        vis = next((c for c in node.children if c.type == "visibility_modifier"), None)
        if vis is not None:
            text = node_text(vis).replace(" ", "")
            d.visibility = Visibility.PUBLIC if text == "pub" else Visibility.INTERNAL
        elif (
            d.kind == NodeKind.CONSTANT and node.type == "enum_variant"
        ) or d.parent_kind == NodeKind.INTERFACE:
            d.visibility = Visibility.PUBLIC
        else:
            d.visibility = Visibility.PRIVATE
        return True

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        arg = node.child_by_field_name("argument")
        if arg is None:
            return []
        line = node.start_point.row + 1
        refs: list[Reference] = []
        for full, alias in _use_tree(arg, []):
            segments = _absolute(full, module)
            if not segments:
                continue
            name = segments[-1]
            qualifier = "::".join(segments[:-1])
            refs.append(Reference(RefKind.IMPORT, name, None, line, qualifier, alias or name))
        return refs


def _has_test_attribute(node: Node) -> bool:
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment"):
        if sibling.type == "attribute_item":
            text = node_text(sibling).replace(" ", "")
            if text in ("#[test]",) or text.endswith("::test]") or text.startswith("#[test("):
                return True
        sibling = sibling.prev_named_sibling
    return False


def _path_segments(node: Node) -> list[str]:
    text = node_text(node).replace(" ", "")
    return [s for s in text.split("::") if s]


def _use_tree(node: Node, prefix: list[str]) -> list[tuple[list[str], str]]:
    kind = node.type
    if kind in ("scoped_identifier", "identifier", "crate", "self", "super", "metavariable"):
        return [([*prefix, *_path_segments(node)], "")]
    if kind == "use_as_clause":
        path = node.child_by_field_name("path")
        alias = node_text(node.child_by_field_name("alias"))
        return [([*prefix, *_path_segments(path)], alias)] if path is not None else []
    if kind == "use_wildcard":
        inner = node.named_children[0] if node.named_children else None
        base = _path_segments(inner) if inner is not None else []
        return [([*prefix, *base, "*"], "*")]
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        base = [*prefix, *(_path_segments(path) if path is not None else [])]
        items = node.child_by_field_name("list")
        return _use_tree(items, base) if items is not None else []
    if kind == "use_list":
        out: list[tuple[list[str], str]] = []
        for child in node.named_children:
            if child.type == "self":
                out.append((prefix, prefix[-1] if prefix else ""))
            else:
                out.extend(_use_tree(child, prefix))
        return out
    return []


def _absolute(segments: list[str], module: str) -> list[str]:
    """Make a ``use`` path crate-absolute where it is relative (``self::``, ``super::``)."""
    if not segments:
        return []
    here = module.split("::") if module else []
    head = segments[0]
    if head == "crate":
        return segments[1:]
    if head == "self":
        return here + segments[1:]
    if head == "super":
        ups = 0
        while ups < len(segments) and segments[ups] == "super":
            ups += 1
        base = here[: max(0, len(here) - ups)]
        return base + segments[ups:]
    return segments


SPECS = (RustSpec(),)
