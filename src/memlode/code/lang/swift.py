"""Swift: a module's files share one namespace, extensions add to their type, XCTest tests.

Every file of a module (an SwiftPM target under ``Sources/<Target>``, a CocoaPods or Expo
module's ``ios/`` folder) sees every other file's declarations without an import, so a
file's qualified-name prefix is its module's name, as Go's is its package's. Methods of an
``extension Foo`` belong to ``Foo`` wherever ``Foo`` is declared.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import LanguageSpec, RawDef, is_test_path, node_text, word_set
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "SwiftSpec"]

# Folders whose next folder names a SwiftPM target.
_TARGET_ROOTS = ("Sources", "Tests")
# The module of files at the project root (a one-folder package or script).
_ROOT_MODULE = "main"
_VISIBILITY = {
    "public": Visibility.PUBLIC,
    "open": Visibility.PUBLIC,
    "internal": Visibility.INTERNAL,
    "fileprivate": Visibility.PRIVATE,
    "private": Visibility.PRIVATE,
}
_BUILTINS = word_set(
    """print debugPrint dump fatalError precondition preconditionFailure assert
    assertionFailure min max abs zip stride swap repeatElement sequence type
    withUnsafePointer withUnsafeMutablePointer withExtendedLifetime withCheckedContinuation
    withCheckedThrowingContinuation withTaskGroup withThrowingTaskGroup String Int Int8 Int16
    Int32 Int64 UInt UInt8 UInt16 UInt32 UInt64 Double Float Bool Character Array Dictionary
    Set Optional Result Error Never Any AnyObject Void Data URL URLRequest Date UUID NSError
    NSObject NSString NSNumber DispatchQueue NotificationCenter UserDefaults Bundle
    FileManager JSONEncoder JSONDecoder Task CGFloat CGSize CGRect CGPoint"""
)
_NOT_A_CONSTANT = "var"
_XCTEST_CASE = "XCTestCase"


class SwiftSpec(LanguageSpec):
    name = "swift"
    grammar_module = "tree_sitter_swift"
    query_name = "swift"
    extensions: ClassVar[tuple[str, ...]] = (".swift",)
    self_names: ClassVar[frozenset[str]] = frozenset({"self", "Self", "super"})
    implicit_members = True
    scope_owns_members = True
    builtins: ClassVar[frozenset[str]] = _BUILTINS
    builtin_methods: ClassVar[frozenset[str]] = word_set(
        """append insert remove removeAll removeFirst removeLast contains map compactMap
        flatMap filter reduce forEach first last sorted sort joined split count isEmpty
        dropFirst dropLast prefix suffix index firstIndex description hash encode decode
        async sync asyncAfter resume cancel store sink send dismiss present addSubview
        removeFromSuperview layoutIfNeeded setNeedsLayout reloadData lowercased uppercased
        replacingOccurrences hasPrefix hasSuffix appendingPathComponent write read close
        data jsonObject object value keys values updateValue reversed enumerated min max
        fulfill wait"""
    )
    comment_types: ClassVar[frozenset[str]] = frozenset({"comment", "multiline_comment"})

    def module_key(self, path: str, paths: frozenset[str]) -> str:
        folders = [f for f in path.split("/")[:-1] if f]
        for root in _TARGET_ROOTS:
            if root in folders:
                at = folders.index(root)
                if at + 1 < len(folders):
                    return folders[at + 1]
        return folders[0] if folders else _ROOT_MODULE

    def qualified_prefix(self, path: str, module: str, root: Node) -> str:
        return f"{module}."

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        if node.type == "init_declaration":
            return "init", None, node.start_byte
        if node.type == "property_declaration":
            pattern = node.child_by_field_name("name")
            name = pattern.child_by_field_name("bound_identifier") if pattern else None
            return (node_text(name), None, name.start_byte) if name is not None else None
        return None

    def refine(self, d: RawDef, path: str) -> bool:
        node = d.node
        modifiers = next((c for c in node.children if c.type == "modifiers"), None)
        words = node_text(modifiers).split() if modifiers is not None else []
        if node.type == "property_declaration":
            binding = next((c for c in node.children if c.type == "value_binding_pattern"), None)
            at_top = d.parent_kind is None
            if node_text(binding) == _NOT_A_CONSTANT or not (at_top or "static" in words):
                return False  # a stored or computed property, not a constant
        if d.kind in (NodeKind.FUNCTION, NodeKind.METHOD) and (
            "@Test" in words
            or (d.name.startswith("test") and (is_test_path(path) or _in_test_case(node)))
        ):
            d.kind = NodeKind.TEST
        d.visibility = next(
            (_VISIBILITY[w] for w in words if w in _VISIBILITY), Visibility.INTERNAL
        )
        return True

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        target = next((c for c in node.named_children if c.type == "identifier"), None)
        if target is None:
            return []
        written = node_text(target)
        line = node.start_point.row + 1
        alias = written.rsplit(".", 1)[-1]
        return [Reference(RefKind.IMPORT, "", None, line, written, alias)]


def _in_test_case(node: Node) -> bool:
    """Whether a method is declared in a class that inherits ``XCTestCase``."""
    body = node.parent
    cls = body.parent if body is not None else None
    if cls is None or cls.type != "class_declaration":
        return False
    return any(
        c.type == "inheritance_specifier" and node_text(c) == _XCTEST_CASE for c in cls.children
    )


SPECS = (SwiftSpec(),)
