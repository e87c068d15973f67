"""C#: namespaces, ``using`` directives, modifiers, ``///`` XML docs, xUnit/NUnit/MSTest tests.

A file's module is its namespace (file-scoped, or the one block namespace around everything)
and its symbols are qualified by it, as Java's are by their package, so a type of the same
namespace in another file is found without a ``using``. ``using X.Y;`` makes every type of the
namespace visible (a wildcard); nested types and enclosing namespaces are found from inside
outwards, as the compiler looks them up.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import (
    DOC_LIMIT,
    LanguageSpec,
    RawDef,
    node_text,
    outward_names,
    word_set,
)
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "CSharpSpec"]

_TEST_ATTRIBUTES = frozenset(
    {"Test", "TestCase", "TestCaseSource", "Fact", "Theory", "TestMethod", "DataTestMethod"}
)
# ASP.NET Core routing attributes -> HTTP method ("" when the attribute does not say)
_ROUTE_ATTRIBUTES = {
    "HttpGet": "GET",
    "HttpPost": "POST",
    "HttpPut": "PUT",
    "HttpDelete": "DELETE",
    "HttpPatch": "PATCH",
    "Route": "",
}
_STRING = re.compile(r'"([^"]*)"')
# `<see cref="X"/>`, `<paramref name="x"/>`: the name they point at stays in the text
_XML_REF = re.compile(r'<(?:see|seealso|paramref|typeparamref)\s+\w+="(?:[A-Z]:)?([^"]*)"\s*/>')
_XML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_BLANK_LINES = re.compile(r"\n\s*\n+")
# The System types and keywords-as-calls a file names most: a project type of that name is
# reached only through the file's own namespace or an alias.
_SYSTEM = word_set(
    """Action Activator Array ArgumentException ArgumentNullException
    ArgumentOutOfRangeException Attribute Boolean Byte Char Console Convert DateTime
    DateTimeOffset Decimal Delegate Dictionary Double Enum Enumerable Environment EventArgs
    EventHandler Exception Func GC Guid HashSet IDisposable IEnumerable IEnumerator
    IList ICollection IDictionary Int16 Int32 Int64 IntPtr InvalidCastException
    InvalidOperationException KeyValuePair Lazy List Math NotImplementedException
    NotSupportedException Nullable Object ObjectDisposedException Path File Directory
    Queue Random ReadOnlySpan Span Stack StringBuilder String Task TimeSpan Tuple Type
    UInt32 UInt64 Uri ValueTuple Volatile WeakReference nameof typeof sizeof default"""
)
_SYSTEM_METHODS = word_set(
    """ToString Equals GetHashCode GetType Add AddRange Remove RemoveAt Contains ContainsKey
    TryGetValue Clear Insert IndexOf Count Any All Where Select SelectMany First
    FirstOrDefault Last LastOrDefault Single SingleOrDefault OrderBy OrderByDescending
    ThenBy GroupBy ToList ToArray ToDictionary Cast OfType Concat Distinct Skip Take Sum
    Max Min Aggregate Reverse Sort CopyTo CompareTo Dispose Close Flush Read Write
    WriteLine ReadLine Substring Split Replace Trim StartsWith EndsWith Format Join
    Append AppendLine Parse TryParse GetValue SetValue Invoke DynamicInvoke Wait
    ConfigureAwait ContinueWith Run Delay Push Pop Peek Enqueue Dequeue GetEnumerator
    MoveNext Reset Get Set"""
)
_VISIBILITY = {
    "public": Visibility.PUBLIC,
    "protected": Visibility.PROTECTED,
    "internal": Visibility.INTERNAL,
    "private": Visibility.PRIVATE,
}
_TYPE_DECLARATIONS = frozenset(
    {
        "class_declaration",
        "struct_declaration",
        "record_declaration",
        "interface_declaration",
        "enum_declaration",
        "delegate_declaration",
    }
)
_NAMESPACES = frozenset({"namespace_declaration", "file_scoped_namespace_declaration"})


def _file_namespace(root: Node) -> str:
    """The namespace every type of the file is in: file-scoped, or the only block one."""
    found = [c for c in root.named_children if c.type in _NAMESPACES]
    if len(found) != 1:
        return ""
    return node_text(found[0].child_by_field_name("name"))


class CSharpSpec(LanguageSpec):
    name = "csharp"
    grammar_module = "tree_sitter_c_sharp"
    query_name = "csharp"
    extensions: ClassVar[tuple[str, ...]] = (".cs",)
    self_names: ClassVar[frozenset[str]] = frozenset({"this", "base"})
    implicit_members = True
    builtins: ClassVar[frozenset[str]] = _SYSTEM
    builtin_methods: ClassVar[frozenset[str]] = _SYSTEM_METHODS

    def module_from_tree(self, root: Node, module: str) -> str:
        return _file_namespace(root) or module

    def qualified_prefix(self, path: str, module: str, root: Node) -> str:
        namespace = _file_namespace(root)
        return f"{namespace}." if namespace else ""

    def external_package(self, qualifier: str) -> str | None:
        if qualifier.startswith(("System.", "Microsoft.")) or qualifier == "System":
            return None
        return qualifier or None

    def enclosing_names(self, written: str, around: str, prefix: str) -> list[str]:
        return outward_names(written.removeprefix("global::"), around or prefix, ".")

    def scope_name(self, node: Node) -> str:
        parent = node.parent
        if parent is not None and parent.type == "compilation_unit" and _file_namespace(parent):
            return ""  # the file's namespace: already the prefix of every name
        return node_text(node.child_by_field_name("name"))

    def def_name(self, node: Node) -> tuple[str, str | None, int] | None:
        if node.type != "field_declaration":
            return None
        declaration = next(
            (c for c in node.named_children if c.type == "variable_declaration"), None
        )
        declarator = (
            next((c for c in declaration.named_children if c.type == "variable_declarator"), None)
            if declaration is not None
            else None
        )
        name = declarator.child_by_field_name("name") if declarator is not None else None
        return (node_text(name), None, name.start_byte) if name is not None else None

    def refine(self, d: RawDef, path: str) -> bool:
        node = d.node
        words = {node_text(c) for c in node.named_children if c.type == "modifier"}
        if node.type == "field_declaration" and not (
            "const" in words or {"static", "readonly"} <= words
        ):
            return False
        if d.kind == NodeKind.METHOD:
            attributes = _attributes(node)
            if _TEST_ATTRIBUTES & set(attributes):
                d.kind = NodeKind.TEST
            else:
                _maybe_endpoint(d, attributes)
        d.visibility = _visibility(words, node, d.parent_kind)
        return True

    def signature(self, node: Node, source: bytes) -> str:
        text = super().signature(node, source)
        # attributes ([HttpGet], [Fact]) are the node's first children: not the signature
        attrs = [c for c in node.named_children if c.type == "attribute_list"]
        if attrs:
            cut = len(" ".join(source[node.start_byte : attrs[-1].end_byte].decode(
                "utf-8", "replace").split()))  # fmt: skip
            text = text[cut:].lstrip()
        return text

    def docstring(self, d: RawDef) -> str:
        text = self.preceding_comments(d.node)
        if "<" not in text:
            return text
        text = _XML_REF.sub(r"\1", text)
        text = _XML_TAG.sub("", text)
        lines = [line.strip() for line in text.splitlines()]
        return _BLANK_LINES.sub("\n", "\n".join(lines)).strip()[:DOC_LIMIT]

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        alias = node.child_by_field_name("name")
        skip = alias.start_byte if alias is not None else -1
        target = next(
            (
                node_text(c)
                for c in node.named_children
                if c.type in ("qualified_name", "identifier") and c.start_byte != skip
            ),
            "",
        )
        if not target:
            return []
        line = node.start_point.row + 1
        qualifier, _, name = target.rpartition(".")
        if alias is not None:  # using Json = Newtonsoft.Json.JsonConvert;
            return [Reference(RefKind.IMPORT, name, None, line, qualifier, node_text(alias))]
        if any(c.type == "static" for c in node.children):  # using static X.Y.Math;
            return [Reference(RefKind.IMPORT, name, None, line, qualifier, "")]
        return [Reference(RefKind.IMPORT, "*", None, line, target, "*")]


def _child(node: Node, kind: str) -> Node | None:
    return next((c for c in node.named_children if c.type == kind), None)


def _attributes(node: Node) -> dict[str, str]:
    """Attribute name (without ``Attribute`` and namespace) -> its argument text."""
    out: dict[str, str] = {}
    for group in node.named_children:
        if group.type != "attribute_list":
            continue
        for attr in group.named_children:
            if attr.type != "attribute":
                continue
            name = node_text(attr.child_by_field_name("name")).rsplit(".", 1)[-1]
            args = next(
                (c for c in attr.named_children if c.type == "attribute_argument_list"), None
            )
            out[name.removesuffix("Attribute")] = node_text(args)
    return out


def _maybe_endpoint(d: RawDef, attributes: dict[str, str]) -> None:
    for name, args in attributes.items():
        if name not in _ROUTE_ATTRIBUTES:
            continue
        d.kind = NodeKind.ENDPOINT
        route = _STRING.search(args)
        if route:
            d.properties["route"] = route.group(1)
        if _ROUTE_ATTRIBUTES[name]:
            d.properties["methods"] = _ROUTE_ATTRIBUTES[name]


def _visibility(words: set[str], node: Node, parent_kind: NodeKind | None) -> Visibility:
    if "private" in words and "protected" not in words:
        return Visibility.PRIVATE
    if "protected" in words or "private" in words:
        return Visibility.PROTECTED
    for word, visibility in _VISIBILITY.items():
        if word in words:
            return visibility
    if parent_kind == NodeKind.INTERFACE or node.type == "enum_member_declaration":
        return Visibility.PUBLIC
    if parent_kind is None and node.type in _TYPE_DECLARATIONS:
        return Visibility.INTERNAL  # a top-level type without a modifier
    return Visibility.PRIVATE  # a member without a modifier


SPECS = (CSharpSpec(),)
