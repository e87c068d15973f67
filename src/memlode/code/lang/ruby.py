"""Ruby: global constants, namespace modules, ``private`` sections, ``require``, RSpec cases.

Constants are global in Ruby, so qualified names carry no file prefix: ``Rake::Task::invoke``
(``::`` at every level, as Ruby itself allows). A class reopened in another file keeps its
name; the store tells the copies apart by path. A module that holds only classes and modules
is a namespace, not a symbol. ``require "rake/task"`` names a file below some load path: any
file whose path ends in ``rake/task.rb`` is it.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import (
    DOC_LIMIT,
    SIGNATURE_LIMIT,
    LanguageSpec,
    RawDef,
    clean_comment,
    is_test_path,
    node_text,
    outward_names,
    word_set,
)
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "RubySpec"]

# Kernel and Module methods a Ruby file calls bare, and the RSpec DSL: a project method of
# that name is reached only when the file itself defines it.
_KERNEL = word_set(
    """puts print p pp require require_relative load autoload raise fail loop lambda proc
    format sprintf printf sleep rand srand exit exit! abort at_exit binding block_given?
    caller catch throw gets open system warn freeze Integer Float String Array Hash Rational
    Complex attr_reader attr_writer attr_accessor include extend prepend private protected
    public module_function private_class_method public_class_method private_constant
    define_method alias_method instance_variable_get instance_variable_set respond_to? send
    public_send is_a? kind_of? instance_of? nil? tap then yield_self __method__ __dir__
    describe context it specify scenario feature let let! subject before after around expect
    allow is_expected shared_examples shared_context include_examples it_behaves_like
    assert assert_equal assert_nil refute refute_equal"""
)
# Methods of Ruby's core classes: a call of one through an unknown receiver is not guessed
# to be the project's only method of that name.
_CORE_METHODS = word_set(
    """each each_with_index each_with_object each_pair each_key each_value map flat_map
    collect select filter reject find detect find_index inject reduce sum min max min_by
    max_by sort sort_by group_by partition zip take drop take_while drop_while any? all?
    none? one? count size length empty? include? member? key? has_key? value? keys values
    fetch dig store delete delete_if keep_if merge merge! update first last push pop shift
    unshift insert concat join split strip lstrip rstrip chomp chop chars bytes lines
    each_line gsub gsub! sub sub! tr upcase downcase capitalize swapcase start_with?
    end_with? match match? scan index rindex slice to_s to_str to_sym to_i to_f to_a to_h
    to_proc inspect dup clone freeze frozen? hash eql? equal? compact flatten uniq reverse
    rotate sample shuffle times upto downto step call new class send respond_to? is_a?
    instance_variable_get read write close open exist? exists? file? directory? basename
    dirname extname expand_path puts print printf format empty clear replace"""
)
_VISIBILITY = {
    "private": Visibility.PRIVATE,
    "protected": Visibility.PROTECTED,
    "public": Visibility.PUBLIC,
}
# What makes a module a symbol rather than a namespace: members of its own.
_MODULE_MEMBERS = frozenset({"method", "singleton_method", "assignment", "singleton_class"})
_TEST = NodeKind.TEST
_TEST_CASE = "call"
_REQUIRES = frozenset({"require", "require_relative", "load", "autoload"})


def _is_namespace(module: Node) -> bool:
    """A module whose body holds no methods or constants of its own (only classes, modules,
    ``require``s and such): a namespace."""
    body = module.child_by_field_name("body")
    if body is None:
        return True
    for child in body.named_children:
        if child.type in _MODULE_MEMBERS:
            if child.type != "assignment":
                return False
            left = child.child_by_field_name("left")
            if left is not None and left.type == "constant":
                return False
    return True


def _string_text(node: Node) -> str:
    """The text of a plain string literal ("" when it interpolates)."""
    if node.type != "string":
        return ""
    parts = node.named_children
    if any(p.type != "string_content" for p in parts):
        return ""
    return "".join(node_text(p) for p in parts)


class RubySpec(LanguageSpec):
    name = "ruby"
    grammar_module = "tree_sitter_ruby"
    query_name = "ruby"
    extensions: ClassVar[tuple[str, ...]] = (".rb", ".rake", ".gemspec")
    file_names: ClassVar[tuple[str, ...]] = ("Rakefile", "Gemfile")
    member_sep = "::"
    self_names: ClassVar[frozenset[str]] = frozenset({"self"})
    # a bare `helper(x)` is a call of self's method (its class, a mixin, a superclass)
    implicit_members = True
    # constants are global: a name defined once in the project is that one
    global_names = True
    suffix_imports = True
    builtins: ClassVar[frozenset[str]] = _KERNEL
    builtin_methods: ClassVar[frozenset[str]] = _CORE_METHODS

    def qualified_prefix(self, path: str, module: str, root: Node) -> str:
        return ""

    def enclosing_names(self, written: str, around: str, prefix: str) -> list[str]:
        return outward_names(written.removeprefix("::"), around, "::")

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        kind = node.type
        if kind in ("class", "module"):
            if kind == "module" and _is_namespace(node):
                return "", None, 0  # a namespace: captured as a scope instead
            name = node.child_by_field_name("name")
            if name is None:
                return None
            if name.type == "scope_resolution":  # class Rake::Task: parent Rake
                scope = name.child_by_field_name("scope")
                last = name.child_by_field_name("name")
                if last is None:
                    return None
                return node_text(last), node_text(scope) or None, last.start_byte
            return node_text(name), None, name.start_byte
        if kind == "assignment":
            left = node.child_by_field_name("left")
            return (node_text(left), None, left.start_byte) if left is not None else None
        if kind == _TEST_CASE:
            args = node.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is None:
                return None
            # `describe Cart` / `it "adds"` -> "describe Cart", "it adds": the word keeps a
            # case from taking the global name of the class it describes
            text = _string_text(first) if first.type == "string" else node_text(first)
            word = node_text(node.child_by_field_name("method"))
            return f"{word} {text}", None, first.start_byte
        return None

    def scope_name(self, node: Node) -> str:
        if not _is_namespace(node):
            return ""  # a module with members of its own is a symbol (def_name)
        return node_text(node.child_by_field_name("name"))

    def refine(self, d: RawDef, path: str) -> bool:
        node = d.node
        if d.kind == _TEST:
            return is_test_path(path)
        if node.type in ("method", "singleton_method"):
            if d.name.startswith("test_") and is_test_path(path):
                d.kind = _TEST
            if node.type == "method":  # `private` sections leave `def self.x` public
                d.visibility = _method_visibility(node, d.name)
        return True

    def signature(self, node: Node, source: bytes) -> str:
        # the header only: up to the parameters, the name or the superclass
        end = node.start_byte
        for field in ("parameters", "superclass", "name"):
            part = node.child_by_field_name(field)
            if part is not None:
                end = max(end, part.end_byte)
        if end == node.start_byte:
            return super().signature(node, source)
        text = " ".join(source[node.start_byte : end].decode("utf-8", "replace").split())
        if len(text) > SIGNATURE_LIMIT:
            text = text[: SIGNATURE_LIMIT - 3].rstrip() + "..."
        return text

    def docstring(self, d: RawDef) -> str:
        # `# ...` lines right above; before the first statement of a class or module body
        # they belong to the class or module node, just before its body
        node = d.node
        sibling = node.prev_named_sibling
        parent = node.parent
        if sibling is None and parent is not None and parent.type == "body_statement":
            sibling = parent.prev_named_sibling
        row = node.start_point.row
        parts: list[str] = []
        while sibling is not None and sibling.type == "comment":
            if sibling.end_point.row < row - 1:
                break
            parts.append(node_text(sibling))
            row = sibling.start_point.row
            sibling = sibling.prev_named_sibling
        if not parts:
            return ""
        return clean_comment("\n".join(clean_comment(p) for p in reversed(parts)))[:DOC_LIMIT]

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        method = node_text(node.child_by_field_name("method"))
        args = node.child_by_field_name("arguments")
        if method not in _REQUIRES or args is None:
            return []
        target = next((t for t in map(_string_text, args.named_children) if t), "")
        if not target:
            return []
        target = target.removesuffix(".rb")
        if method == "require_relative":
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        return [Reference(RefKind.IMPORT, "", None, node.start_point.row + 1, target, "")]


def _method_visibility(node: Node, name: str) -> Visibility:
    """``private def x``, a ``private`` line above, or ``private :x`` below."""
    parent = node.parent
    if parent is not None and parent.type == "argument_list":
        call = parent.parent
        if call is not None and call.type == "call":
            found = _VISIBILITY.get(node_text(call.child_by_field_name("method")))
            if found is not None:
                return found
        return Visibility.PUBLIC
    symbol = f":{name}"
    sibling = node.next_named_sibling
    while sibling is not None:
        if sibling.type == "call":
            found = _VISIBILITY.get(node_text(sibling.child_by_field_name("method")))
            args = sibling.child_by_field_name("arguments")
            if (
                found is not None
                and args is not None
                and any(node_text(a) == symbol for a in args.named_children)
            ):
                return found
        sibling = sibling.next_named_sibling
    sibling = node.prev_named_sibling
    while sibling is not None:
        if sibling.type == "identifier":
            found = _VISIBILITY.get(node_text(sibling))
            if found is not None:
                return found
        sibling = sibling.prev_named_sibling
    return Visibility.PUBLIC


SPECS = (RubySpec(),)
