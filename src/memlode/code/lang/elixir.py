"""Elixir: modules named by their aliases, ``def``/``defp`` clauses, ``@doc``, ExUnit tests.

Every construct is a call (``defmodule Foo do``, ``def f(x)``, ``alias A.B``), so the rules
here read a definition's name from the call's arguments. Module names are global and written
in full (``MyApp.Accounts.User``, or nested ``defmodule`` blocks that join to the same), so
qualified names have no file prefix: a module's functions are reached through its name
wherever it is defined. ``alias`` binds a short name, ``import`` makes a module's functions
callable unqualified, ``use`` and ``require`` name a module; an ExUnit ``test "name"`` block
is a test named as ExUnit names it (``test <describe> <name>``).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import (
    DOC_LIMIT,
    SIGNATURE_LIMIT,
    LanguageSpec,
    RawDef,
    node_text,
    word_set,
)
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "ElixirSpec"]

_PRIVATE_FORMS = frozenset({"defp", "defmacrop", "defguardp", "defnp"})
_MODULE_FORMS = frozenset({"defmodule", "defprotocol", "defimpl"})
# Attributes that may stand between a function's @doc and its first clause.
_DOC_SKIP_ATTRIBUTES = word_set("spec impl deprecated since dialyzer compile decorate")
# Kernel's functions and macros, ExUnit's assertions, and the standard library's modules: a
# bare use of one is the language's unless this file defines or imports it.
_BUILTINS = word_set(
    """abs apply binary_part binding bit_size byte_size ceil dbg div elem exit floor
    function_exported? get_and_update_in get_in hd inspect is_atom is_binary is_bitstring
    is_boolean is_exception is_float is_function is_integer is_list is_map is_map_key
    is_nil is_number is_pid is_port is_reference is_struct is_tuple length macro_exported?
    make_ref map_size match? max min node not pop_in put_elem put_in rem round self send
    spawn spawn_link spawn_monitor struct struct! tap then throw tl to_charlist to_string trunc
    tuple_size update_in sigil_r sigil_s sigil_w sigil_c sigil_D sigil_T sigil_N sigil_U
    defstruct defexception defoverridable doctest assert refute assert_raise assert_receive
    assert_received refute_receive refute_received assert_in_delta flunk catch_error
    catch_exit catch_throw on_exit start_supervised start_supervised! __MODULE__ __ENV__
    __DIR__ __CALLER__ __STACKTRACE__ Access Agent Application Atom Base Behaviour Bitwise
    Calendar Code Config Date DateTime Dict DynamicSupervisor Enum Exception File Float
    Function GenEvent GenServer HashDict IO Inspect Integer Kernel Keyword List Logger Macro
    Map MapSet Mix Module NaiveDateTime Node OptionParser Path Port Process Protocol Range
    Record Regex Registry Set Stream String StringIO Supervisor System Task Time Tuple URI
    Version ExUnit EEx IEx"""
)


class ElixirSpec(LanguageSpec):
    name = "elixir"
    grammar_module = "tree_sitter_elixir"
    query_name = "elixir"
    extensions: ClassVar[tuple[str, ...]] = (".ex", ".exs")
    self_names: ClassVar[frozenset[str]] = frozenset({"__MODULE__"})
    # a bare call reaches the functions of the module around it
    implicit_members = True
    guess_receivers = False
    builtins: ClassVar[frozenset[str]] = _BUILTINS

    def module_key(self, path: str, paths: frozenset[str]) -> str:
        # modules are named by `defmodule`, not by files: a path never equals an alias
        return path

    def qualified_prefix(self, path: str, module: str, root: Node) -> str:
        return ""

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        form = _form(node)
        args = _arguments(node)
        first = args.named_children[0] if args is not None and args.named_children else None
        if args is None or first is None:
            return None
        if form in _MODULE_FORMS:
            if first.type != "alias":
                return None
            written = node_text(first)
            if form == "defimpl":  # `defimpl Proto, for: Type` is the module Proto.Type
                target = _keyword(args, "for")
                if target is not None and target.type == "list":  # one module per type
                    target = next((c for c in target.named_children if c.type == "alias"), None)
                if target is not None and target.type == "alias":
                    written = f"{written}.{node_text(target)}"
            head, _, tail = written.rpartition(".")
            return tail, head or None, first.end_byte - len(tail)
        if form == "test":
            title = _string(first)
            describe = _describe(node)
            label = f"test {describe} {title}" if describe else f"test {title}"
            return label, None, first.start_byte
        if first.type == "binary_operator":  # `def f(x) when guard`
            first = first.child_by_field_name("left") or first
        if first.type == "call":
            first = first.child_by_field_name("target") or first
        if first.type != "identifier":
            return None  # `def unquote(name)(...)`, operators: no name to read
        return node_text(first), None, first.start_byte

    def refine(self, d: RawDef, path: str) -> bool:
        form = _form(d.node)
        if form in _PRIVATE_FORMS:
            d.visibility = Visibility.PRIVATE
        if form == "defprotocol":
            d.kind = NodeKind.INTERFACE
        elif form not in ("def", "defp", "test", "defmodule"):
            d.properties["form"] = form
        return True

    def signature(self, node: Node, source: bytes) -> str:
        args = _arguments(node)
        first = args.named_children[0] if args is not None and args.named_children else None
        text = " ".join(f"{_form(node)} {node_text(first)}".split())
        if len(text) > SIGNATURE_LIMIT:
            text = text[: SIGNATURE_LIMIT - 3].rstrip() + "..."
        return text

    def docstring(self, d: RawDef) -> str:
        if d.kind in (NodeKind.MODULE, NodeKind.INTERFACE):
            block = next((c for c in d.node.named_children if c.type == "do_block"), None)
            first = block.named_children[0] if block is not None and block.named_children else None
            return _attribute_doc(first, "moduledoc") or ""
        sibling = d.node.prev_named_sibling
        while sibling is not None:
            if sibling.type == "comment":
                sibling = sibling.prev_named_sibling
                continue
            doc = _attribute_doc(sibling, "doc")
            if doc is not None:
                return doc
            if _attribute_name(sibling) not in _DOC_SKIP_ATTRIBUTES:
                return ""
            sibling = sibling.prev_named_sibling
        return ""

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        form = _form(node)
        args = _arguments(node)
        first = args.named_children[0] if args is not None and args.named_children else None
        if args is None or first is None:
            return []
        line = node.start_point.row + 1
        names: list[str] = []
        if first.type == "alias":
            names.append(node_text(first))
        elif first.type == "dot":  # `alias MyApp.{User, Token}`
            left = first.child_by_field_name("left")
            right = first.child_by_field_name("right")
            if left is not None and left.type == "alias" and right is not None:
                base = node_text(left)
                names += [
                    f"{base}.{node_text(c)}" for c in right.named_children if c.type == "alias"
                ]
        refs: list[Reference] = []
        known = _earlier_aliases(node)
        for written in names:
            head, dot, rest = written.partition(".")
            if head in known:  # `alias Parser.Array` after `alias Snyk.JSON.Parser`
                written = known[head] + dot + rest
            if form == "import":
                refs.append(Reference(RefKind.IMPORT, "*", None, line, written, "*"))
                continue
            head, _, tail = written.rpartition(".")
            if form != "alias" or not head:
                refs.append(Reference(RefKind.IMPORT, "", None, line, written, ""))
                continue
            renamed = _keyword(args, "as") if len(names) == 1 else None
            alias = node_text(renamed) if renamed is not None else tail
            refs.append(Reference(RefKind.IMPORT, tail, None, line, head, alias))
        return refs


def _earlier_aliases(node: Node) -> dict[str, str]:
    """Short name -> module of the ``alias`` calls before ``node`` in its block."""
    found: dict[str, str] = {}
    sibling = node.prev_named_sibling
    while sibling is not None:
        if sibling.type == "call" and _form(sibling) == "alias":
            args = _arguments(sibling)
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is not None and first.type == "alias":
                full = node_text(first)
                renamed = _keyword(args, "as") if args is not None else None
                short = node_text(renamed) if renamed is not None else full.rsplit(".", 1)[-1]
                found.setdefault(short, full)
        sibling = sibling.prev_named_sibling
    return found


def _form(node: Node) -> str:
    target = node.child_by_field_name("target")
    return node_text(target) if target is not None and target.type == "identifier" else ""


def _arguments(node: Node) -> Node | None:
    return next((c for c in node.named_children if c.type == "arguments"), None)


def _keyword(args: Node, key: str) -> Node | None:
    """The value of ``key:`` in a call's trailing keyword list (``for: Type``, ``as: Name``)."""
    for child in args.named_children:
        if child.type != "keywords":
            continue
        for pair in child.named_children:
            name = pair.child_by_field_name("key")
            if name is not None and node_text(name).rstrip(": ") == key:
                return pair.child_by_field_name("value")
    return None


def _string(node: Node | None) -> str:
    """A string's or sigil's text, without interpolation."""
    if node is None or node.type not in ("string", "sigil"):
        return ""
    return "".join(node_text(c) for c in node.named_children if c.type == "quoted_content")


def _describe(node: Node) -> str:
    """The title of the ``describe`` block a test sits in, if any."""
    block = node.parent
    outer = block.parent if block is not None and block.type == "do_block" else None
    if outer is None or outer.type != "call" or _form(outer) != "describe":
        return ""
    args = _arguments(outer)
    return _string(args.named_children[0]) if args is not None and args.named_children else ""


def _attribute_name(node: Node) -> str:
    """``doc`` for ``@doc "..."``; "" for anything that is not a module attribute."""
    if node.type != "unary_operator" or node.child_by_field_name("operator") is None:
        return ""
    operand = node.child_by_field_name("operand")
    if operand is None:
        return ""
    if operand.type == "call":
        return _form(operand)
    return node_text(operand) if operand.type == "identifier" else ""


def _attribute_doc(node: Node | None, attribute: str) -> str | None:
    """The text of ``@doc``/``@moduledoc`` (``""`` for ``@doc false``); None: not that one."""
    if node is None or _attribute_name(node) != attribute:
        return None
    operand = node.child_by_field_name("operand")
    args = _arguments(operand) if operand is not None else None
    value = args.named_children[0] if args is not None and args.named_children else None
    text = _string(value)
    return inspect.cleandoc(text)[:DOC_LIMIT] if text else ""


SPECS = (ElixirSpec(),)
