"""PHP: namespaces, ``use`` imports, visibility modifiers, PHPDoc, PHPUnit tests.

A file's module is its namespace (``App\\Http``) and its symbols are qualified by it
(``App\\Http\\UserController::index``), so ``use App\\Http\\UserController`` finds the class
in whichever file declares it, as Composer's autoloader would. A file without a namespace is
in the global one: no prefix.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import LanguageSpec, RawDef, is_test_path, node_text, word_set
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "PhpSpec"]

# The standard functions and pseudo-names a PHP file calls bare most: a project function of
# that name is reached only when the file defines or imports it.
_STANDARD = word_set(
    """array_key_exists array_keys array_values array_map array_filter array_merge
    array_slice array_splice array_search array_shift array_unshift array_pop array_push
    array_reverse array_unique array_flip array_fill array_combine array_diff
    array_intersect array_column array_sum array_walk array_reduce in_array count sizeof
    implode explode join str_replace str_repeat str_pad str_split str_contains
    str_starts_with str_ends_with strlen strtolower strtoupper ucfirst lcfirst ucwords
    trim ltrim rtrim substr substr_count strpos stripos strrpos strstr strcmp strcasecmp
    strncmp sprintf printf vsprintf number_format preg_match preg_match_all preg_replace
    preg_replace_callback preg_split preg_quote json_encode json_decode serialize
    unserialize var_dump var_export print_r is_array is_string is_int is_integer is_float
    is_numeric is_bool is_null is_object is_callable isset unset empty intval floatval
    strval boolval settype gettype get_class get_parent_class method_exists
    property_exists class_exists function_exists defined define constant
    call_user_func call_user_func_array func_get_args max min abs floor ceil round sqrt pow
    rand mt_rand random_int time microtime date mktime strtotime file_exists is_file is_dir
    file_get_contents file_put_contents fopen fclose fread fwrite fgets unlink mkdir
    dirname basename realpath iterator_to_array spl_object_hash spl_autoload_register
    trigger_error error_reporting assert compact extract list array range sort usort
    uasort ksort krsort asort arsort rsort echo print die exit static self parent"""
)
_STD_METHODS = word_set(
    """__construct __toString __get __set __call __invoke get set has add remove count
    getIterator offsetGet offsetSet offsetExists offsetUnset current key next rewind valid
    format getMessage getCode getPrevious getTraceAsString jsonSerialize toArray"""
)
_VISIBILITY = {
    "public": Visibility.PUBLIC,
    "protected": Visibility.PROTECTED,
    "private": Visibility.PRIVATE,
}
_TEST_ATTRIBUTES = frozenset({"Test"})


def _namespace(root: Node) -> str:
    for child in root.named_children:
        if child.type == "namespace_definition":
            return node_text(child.child_by_field_name("name"))
    return ""


class PhpSpec(LanguageSpec):
    name = "php"
    grammar_module = "tree_sitter_php"
    grammar_function = "language_php"
    query_name = "php"
    extensions: ClassVar[tuple[str, ...]] = (".php",)
    member_sep = "::"
    self_names: ClassVar[frozenset[str]] = frozenset({"$this", "self", "static", "parent"})
    # functions and classes without a namespace are global
    global_names = True
    builtins: ClassVar[frozenset[str]] = _STANDARD
    builtin_methods: ClassVar[frozenset[str]] = _STD_METHODS

    def module_from_tree(self, root: Node, module: str) -> str:
        return _namespace(root) or module

    def qualified_prefix(self, path: str, module: str, root: Node) -> str:
        namespace = _namespace(root)
        return f"{namespace}\\" if namespace else ""

    def import_keys(
        self, qualifier: str, importer: str, hints: Mapping[str, str] | None = None
    ) -> list[str]:
        return [qualifier.lstrip("\\")]

    def external_package(self, qualifier: str) -> str | None:
        return qualifier.lstrip("\\").split("\\", 1)[0] or None

    def enclosing_names(self, written: str, around: str, prefix: str) -> list[str]:
        if written.startswith("\\"):  # fully qualified
            return [written[1:]]
        return [f"{prefix}{written}", written] if prefix else [written]

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        if node.type == "const_element":
            name = next((c for c in node.named_children if c.type == "name"), None)
            return (node_text(name), None, name.start_byte) if name is not None else None
        return None

    def refine(self, d: RawDef, path: str) -> bool:
        node = d.node
        holder = node.parent if node.type == "const_element" else node
        modifier = (
            next((c for c in holder.children if c.type == "visibility_modifier"), None)
            if holder is not None
            else None
        )
        if modifier is not None:
            d.visibility = _VISIBILITY.get(node_text(modifier).lower(), Visibility.PUBLIC)
        if d.kind == NodeKind.METHOD and _is_test(node, d.name, path):
            d.kind = NodeKind.TEST
        return True

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        line = node.start_point.row + 1
        group = node.child_by_field_name("body")
        base = ""
        if group is not None:  # use A\{B, C as D}
            base = next(
                (node_text(c) for c in node.named_children if c.type == "namespace_name"), ""
            )
            clauses = [c for c in group.named_children if c.type == "namespace_use_clause"]
        else:
            clauses = [c for c in node.named_children if c.type == "namespace_use_clause"]
        refs: list[Reference] = []
        for clause in clauses:
            target = next(
                (c for c in clause.named_children if c.type in ("qualified_name", "name")), None
            )
            if target is None:
                continue
            full = node_text(target).lstrip("\\")
            if base:
                full = f"{base}\\{full}"
            qualifier, _, name = full.rpartition("\\")
            alias = node_text(clause.child_by_field_name("alias")) or name
            refs.append(Reference(RefKind.IMPORT, name, None, line, qualifier, alias))
        return refs


def _is_test(node: Node, name: str, path: str) -> bool:
    """PHPUnit: ``testX`` methods of a test file, ``#[Test]`` or a ``@test`` doc tag."""
    if name.startswith("test") and is_test_path(path):
        return True
    attributes = node.child_by_field_name("attributes")
    if attributes is not None:
        for attr in _descendants(attributes, "attribute"):
            first = attr.named_children[0] if attr.named_children else None
            if first is not None and node_text(first).rsplit("\\", 1)[-1] in _TEST_ATTRIBUTES:
                return True
    doc = node.prev_named_sibling
    return doc is not None and doc.type == "comment" and "@test" in node_text(doc).split()


def _descendants(node: Node, kind: str) -> list[Node]:
    out: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == kind:
            out.append(current)
        else:
            stack.extend(current.named_children)
    return out


SPECS = (PhpSpec(),)
