"""One file in, its symbols and references out: tree-sitter parse + tag query + language rules.

The query marks definitions (``@def.<kind>`` on the definition; its name is the ``name``
field unless the language says otherwise), scopes that qualify what they hold without being
symbols (``@scope``: a C++ namespace; ``@scope.type``: a Rust ``impl``, whose functions are
methods), references (``@ref.<kind>`` on the name used, or on the member access holding it,
whose receiver is read from the tree), import statements (``@import``, read by the
language's rules) and regions whose references do not count (``@ignore``: an Elixir
typespec names functions it does not call). Containment decides parents: a definition's
parent is the innermost definition or scope around it (a Swift extension, a type scope, owns
its members even when the type is declared in another file). Definitions nested in a
function body (closures, local classes) are not symbols; what they reference counts for the
function around them. The query runs through ``QueryCursor.captures``, the cheapest way
through a large tree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import TYPE_CHECKING

from memlode.code.lang import load_language, load_query, spec_for
from memlode.code.lang.spec import LanguageSpec, RawDef, node_text
from memlode.code.model import FileExtract, Reference, RefKind, Symbol
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, QueryCursor

__all__ = ["extract_file", "extract_source"]

# A function-like definition: what is defined inside one is a local, not a symbol.
_FUNCTION_LIKE = frozenset({NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.TEST, NodeKind.ENDPOINT})
_CLASS_LIKE = frozenset({NodeKind.CLASS, NodeKind.INTERFACE, NodeKind.TYPE})
# Members read once (an attribute of an enum class costs about 0.3 us in Python 3.11).
_FUNCTION, _METHOD, _TEST = NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.TEST
_BARE_USES = frozenset({RefKind.CALL, RefKind.USE})
# a receiver written as names: `a.b`, `a::b`, `$this->repo`, PHP's `\App\Models\User`
_SIMPLE_RECEIVER = re.compile(r"^\\?[A-Za-z_$][\w$]*(?:(?:\.|::|->|\\)[A-Za-z_$][\w$]*)*$")
# A member access written as plain ASCII names and dots (`self.x`, `os.path.join`): its text
# alone gives receiver and name, without asking the tree for its parts (four times the cost).
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+", re.ASCII)


@dataclass(slots=True)
class _Scope:
    node: Node
    name: str
    start: int
    end: int
    members: bool  # functions inside are methods (a Rust impl), not free functions


# (byte offset, kind, name, qualifier, line) of a reference before it has a source
_RawRef = tuple[int, RefKind, str, str, int]
# definitions and scopes: outer before inner, scopes before definitions, then kind and name
# (the order of captures() is not fixed; this one is)
_ITEM_ORDER = itemgetter(0, 1, 2, 3, 4)


@dataclass(slots=True)
class _Container:
    """A definition or scope on the containment stack while parents are assigned."""

    start: int
    end: int
    local: str
    symbol: str | None  # local name of the symbol that owns what is inside (None: file)
    kind: NodeKind | None  # None for scopes
    members: bool


@cache
def _tools(language: str) -> tuple[Parser, QueryCursor, int | None]:
    """The parser, the query cursor, and the id of the grammar's ``name`` field (a child by
    field id is found in half the time of a child by field name)."""
    from tree_sitter import Parser, QueryCursor

    grammar = load_language(language)
    name_field = grammar.field_id_for_name("name")
    return Parser(grammar), QueryCursor(load_query(language)), name_field


def _split(text: str, spec: LanguageSpec) -> tuple[str, str]:
    """``a.b.C`` -> (``a.b``, ``C``); the separators of every grammar are accepted."""
    for sep in (spec.member_sep, ".", "::", "->"):
        if sep in text:
            head, _, tail = text.rpartition(sep)
            return head, tail
    return "", text


_ROLES: dict[str, tuple[str, str]] = {
    **{f"def.{k.value}": ("def", k.value) for k in NodeKind},
    **{f"ref.{k.value}": ("ref", k.value) for k in RefKind},
    "scope": ("scope", ""),
    "scope.type": ("scope", "type"),
    "import": ("import", ""),
    "ignore": ("ignore", ""),
}
# A member access captured whole: (field holding the name, fields that may hold the receiver).
# No fields (Kotlin's navigation, a PHP name): the name is the last named child, the
# receiver the one before it.
_MEMBERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "attribute": ("attribute", ("object",)),
    "member_expression": ("property", ("object",)),
    "selector_expression": ("field", ("operand",)),
    "field_expression": ("field", ("value", "argument")),
    "scoped_identifier": ("name", ("path",)),
    "qualified_type": ("name", ("package",)),
    "method_invocation": ("name", ("object",)),
    "field_access": ("field", ("object",)),
    "navigation_expression": ("suffix", ("target",)),  # Swift; Kotlin's has no fields
    "call": ("method", ("receiver",)),  # Ruby
    "member_call_expression": ("name", ("object",)),  # PHP
    "nullsafe_member_call_expression": ("name", ("object",)),
    "scoped_call_expression": ("name", ("scope",)),
    "qualified_name": ("", ()),  # PHP `\\Countable`, `Foo\\bar`; C# `A.B<T>`
    "member_access_expression": ("name", ("expression",)),  # C#
}


def _start(node: Node) -> int:
    return node.start_byte


def _text(node: Node, source: bytes) -> tuple[str, int]:
    """A node's text and start: the source sliced costs half of ``node.text`` (py-tree-sitter
    0.26), and this runs for every name of a definition or a reference."""
    start = node.start_byte
    return source[start : node.end_byte].decode("utf-8", "replace"), start


def _default_name(
    node: Node, name_field: int | None, source: bytes
) -> tuple[str, str | None, int] | None:
    name = node.child_by_field_id(name_field) if name_field is not None else None
    if name is None and node.named_child_count == 0:
        name = node
    if name is None:
        return None
    text, start = _text(name, source)
    return text, None, start


def _qualified_name(node: Node, spec: LanguageSpec, source: bytes) -> tuple[str, str, int]:
    """(qualifier, name, offset of the name) of a reference: its receiver or written path."""
    member = _MEMBERS.get(node.type)
    if member is not None:
        text = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        if _DOTTED.fullmatch(text):
            qualifier, _, tail = text.rpartition(".")
            return qualifier, tail, node.end_byte - len(tail)
        field, receivers = member
        name = node.child_by_field_name(field) if field else None
        if name is not None and name.type == "navigation_suffix":  # Swift: it holds the name
            name = name.child_by_field_name("suffix") or name
        elif name is None and (not field or node.type == "navigation_expression"):
            # no fields (Kotlin's navigation, PHP names): the last child, after its receiver
            name = node.named_child(node.named_child_count - 1)
            receivers = ()
        if name is None:
            return "", "", 0
        if name.type == "generic_name":  # C# `r.Load<User>()`: the name without type arguments
            name = name.named_child(0) or name
        if name.named_child_count:  # `a::b::c` nests: fall back to the text
            qualifier, text = _split(node_text(node), spec)
            return qualifier, text, name.start_byte
        if not receivers:
            recv = name.prev_named_sibling
            return (_receiver(recv) if recv else ""), node_text(name), name.start_byte
        for field_name in receivers:
            recv = node.child_by_field_name(field_name)
            if recv is not None:
                return _receiver(recv), node_text(name), name.start_byte
        return "", node_text(name), name.start_byte
    text, start = _text(node, source)
    if node.named_child_count:  # a path captured whole (`a::B`, `ns::f`)
        qualifier, text = _split(text, spec)
    elif "." in text and _DOTTED.fullmatch(text):  # one token that is a path (Elixir aliases)
        qualifier, _, text = text.rpartition(".")
        start = node.end_byte - len(text)
    else:
        qualifier = ""
    return qualifier, text, start


_PLAIN_RECEIVERS = frozenset({"identifier", "self", "this", "super", "crate", "package_identifier"})


def _receiver(node: Node | None) -> str:
    if node is None:
        return ""
    text = node_text(node)
    if node.type in _PLAIN_RECEIVERS or _SIMPLE_RECEIVER.match(text):
        return text.replace("->", ".")
    return "?"  # a call result, an index, ...: the receiver's type is unknown


def extract_source(source: bytes, path: str, language: str, module: str = "") -> FileExtract:
    """Extract one file. ``module`` is the file's module key (see ``LanguageSpec.module_key``)."""
    spec = spec_for(language)
    parser, cursor, name_field = _tools(language)
    tree = parser.parse(source)
    root = tree.root_node
    if not module:
        module = spec.module_key(path, frozenset({path}))
    module = spec.module_from_tree(root, module)
    prefix = spec.qualified_prefix(path, module, root)

    defs: list[RawDef] = []
    scopes: list[_Scope] = []
    raw_refs: list[_RawRef] = []
    references: list[Reference] = []
    def_names: set[int] = set()
    ignored: list[tuple[int, int]] = []
    for key, nodes in cursor.captures(root).items():
        role = _ROLES.get(key)
        if role is None:
            continue  # helper captures used by predicates (`@_fn`)
        category, kind = role
        if category == "def":
            def_kind = NodeKind(kind)
            for node in nodes:
                found = spec.def_name(node) or _default_name(node, name_field, source)
                if found is not None and found[0]:
                    defs.append(RawDef(node, found[0], def_kind, found[1]))
                    def_names.add(found[2])
        elif category == "ref":
            ref_kind = RefKind(kind)
            for node in nodes:
                qualifier, name, at = _qualified_name(node, spec, source)
                if name:
                    line = node.start_point.row + 1
                    raw_refs.append((at, ref_kind, name, qualifier, line))
        elif category == "scope":
            for node in nodes:
                name = spec.scope_name(node)
                if name:
                    scopes.append(
                        _Scope(node, name, node.start_byte, node.end_byte, kind == "type")
                    )
        elif category == "ignore":
            ignored.extend((node.start_byte, node.end_byte) for node in nodes)
        else:
            # in source order: captures() does not promise one, and of repeated imports
            # (`import x` in two functions) the first one's line is the one kept
            for node in sorted(nodes, key=_start):
                references.extend(spec.imports(node, path, module))

    if def_names:  # a definition's own name is not a use of it (`type X = ...`)
        raw_refs = [r for r in raw_refs if r[0] not in def_names]
    if ignored:
        raw_refs = _outside(raw_refs, ignored)
    symbols, ranges = _assign_parents(defs, scopes, spec, path, source, prefix)
    imports = _dedupe(references)
    uses = _attribute(raw_refs, ranges)
    if spec.builtins:
        uses = _drop_builtins(uses, imports, symbols, spec)
    references = imports + uses
    return FileExtract(
        path=path,
        language=language,
        module=module,
        lines=source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1),
        prefix=prefix,
        symbols=symbols,
        references=references,
        errors=_count_errors(root),
    )


def extract_file(path: str, source: bytes, module: str = "", language: str = "") -> FileExtract:
    """Extract with the language picked from the name (and, for ``.h``, the content)."""
    from memlode.code.lang import language_for_path

    lang = language or language_for_path(path)
    if lang is None:
        raise ValueError(f"{path}: not a language memlode can parse")
    if lang == "c" and path.endswith(".h") and looks_like_cpp(source):
        lang = "cpp"
    return extract_source(source, path, lang, module)


_CPP_HINT = re.compile(rb"^\s*(class\s+\w+\s*[:{]|namespace\s+\w*\s*\{|template\s*<)", re.MULTILINE)


def looks_like_cpp(source: bytes) -> bool:
    return _CPP_HINT.search(source[:65536]) is not None


def _join(outer: str | None, name: str, sep: str) -> str:
    return f"{outer}{sep}{name}" if outer else name


def _assign_parents(
    defs: list[RawDef],
    scopes: list[_Scope],
    spec: LanguageSpec,
    path: str,
    source: bytes,
    prefix: str,
) -> tuple[list[Symbol], list[tuple[int, int, str]]]:
    sep = spec.member_sep
    items: list[tuple[int, int, int, str, str, RawDef | _Scope]] = [
        (d.start, -d.end, 1, d.kind, d.name, d) for d in defs
    ]
    items += [(s.start, -s.end, 0, "", s.name, s) for s in scopes]
    items.sort(key=_ITEM_ORDER)
    stack: list[_Container] = []
    symbols: list[Symbol] = []
    kinds: dict[str, NodeKind] = {}  # local name -> kind of every symbol so far
    # (start, end, qualified) of every symbol's extent, for attributing references
    ranges: list[tuple[int, int, str]] = []
    owned: set[str] = set()  # scopes that own their members (see scope_owns_members)
    for start, neg_end, _, _, _, item in items:
        end = -neg_end
        while stack and stack[-1].end <= start:
            stack.pop()
        outer = stack[-1] if stack else None
        base = outer.local if outer else None
        if isinstance(item, _Scope):
            local = _join(base, item.name, sep)
            owns = local in kinds or (item.members and spec.scope_owns_members)
            owner = local if owns else (outer.symbol if outer else None)
            owned.update([local] if owns else [])
            stack.append(_Container(start, end, local, owner, None, item.members))
            if owner is not None:
                ranges.append((start, end, prefix + owner))
            continue
        d = item
        if outer is not None and outer.kind in _FUNCTION_LIKE and d.kind != _TEST:
            continue  # a local definition: its references belong to the function around it
        if d.parent_name:
            parent_local: str | None = _join(base, d.parent_name, sep)
        else:
            parent_local = outer.symbol if outer else None
        d.parent_kind = kinds.get(parent_local) if parent_local else None
        methodish = (
            d.parent_kind in _CLASS_LIKE
            or bool(d.parent_name)
            or (outer is not None and outer.members)
        )
        if d.kind == _FUNCTION and methodish:
            d.kind = _METHOD
        keep = spec.refine(d, path)
        local = _join(parent_local if d.parent_name else base, d.name, sep)
        if not keep:
            # not a symbol: what it holds (and refers to) belongs to the container around it
            continue
        if local in kinds:  # a second definition (overload, setter): joins the first
            stack.append(_Container(start, end, local, local, d.kind, False))
            ranges.append((start, end, prefix + local))
            continue
        if not d.signature:
            d.signature = spec.signature(d.node, source)
        if not d.doc:
            d.doc = spec.docstring(d)
        line = d.node.start_point.row + 1
        end_pt = d.node.end_point
        parent_q = None
        if parent_local in kinds or parent_local in owned or (parent_local and d.parent_name):
            parent_q = prefix + parent_local
        symbols.append(
            # positional, in field order (this runs for every definition of a project)
            Symbol(
                d.name, d.kind, prefix + local, line,
                max(line, end_pt.row + (1 if end_pt.column else 0)),
                parent_q, d.signature, d.doc, d.visibility, d.properties,
            )
        )  # fmt: skip
        kinds[local] = d.kind
        stack.append(_Container(start, end, local, local, d.kind, False))
        ranges.append((start, end, prefix + local))
    return symbols, ranges


def _outside(raw_refs: list[_RawRef], regions: list[tuple[int, int]]) -> list[_RawRef]:
    """The references that start in none of the regions (a sweep over both, sorted)."""
    regions.sort()
    raw_refs.sort()
    kept: list[_RawRef] = []
    i, n, end = 0, len(regions), -1
    for ref in raw_refs:
        while i < n and regions[i][0] <= ref[0]:
            end = max(end, regions[i][1])
            i += 1
        if ref[0] >= end:
            kept.append(ref)
    return kept


def _attribute(raw_refs: list[_RawRef], ranges: list[tuple[int, int, str]]) -> list[Reference]:
    """Give each reference the innermost symbol around it as its source (a sweep), merging
    repeats of the same reference from the same source into one with a count."""
    ranges.sort(key=lambda r: (r[0], -r[1]))
    raw_refs.sort()  # by offset (a node captured twice: by kind)
    merged: dict[tuple[str | None, RefKind, str, str], Reference] = {}
    stack: list[tuple[int, int, str]] = []
    i, n = 0, len(ranges)
    for start, kind, name, qualifier, line in raw_refs:
        while i < n and ranges[i][0] <= start:
            while stack and stack[-1][1] <= ranges[i][0]:
                stack.pop()
            stack.append(ranges[i])
            i += 1
        while stack and stack[-1][1] <= start:
            stack.pop()
        source = stack[-1][2] if stack else None
        key = (source, kind, name, qualifier)
        found = merged.get(key)
        if found is None:
            merged[key] = Reference(kind, name, source, line, qualifier)
        else:
            found.count += 1
    return list(merged.values())


def _drop_builtins(
    refs: list[Reference], imports: list[Reference], symbols: list[Symbol], spec: LanguageSpec
) -> list[Reference]:
    """Bare uses of the language's builtins (``len``, ``printf``) can only ever resolve to
    something this file defines or imports; when it does neither, they are not kept."""
    if any(r.name == "*" for r in imports):
        return refs  # a wildcard import might shadow a builtin
    local = {s.name for s in symbols} | {r.alias for r in imports}
    return [
        r
        for r in refs
        if r.qualifier or r.kind not in _BARE_USES or r.name not in spec.builtins or r.name in local
    ]


def _dedupe(refs: list[Reference]) -> list[Reference]:
    merged: dict[tuple[str | None, str, str, str, str], Reference] = {}
    for ref in refs:
        found = merged.get(ref.key)
        if found is None:
            merged[ref.key] = ref
        else:
            found.count += ref.count
    return list(merged.values())


def _count_errors(root: Node) -> int:
    if not root.has_error:
        return 0
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
            continue
        if node.has_error:
            stack.extend(node.children)
    return count
