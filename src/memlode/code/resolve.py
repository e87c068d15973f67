"""Best-effort resolution of references to definitions, over a whole project in memory.

Order of evidence, strongest first: a receiver that means "this object" (members of the
enclosing class and its bases); names the file imports (following re-exports a few hops);
definitions in the same file, then the same module or package; and last a name defined exactly
once in the project. Ambiguous names stay unresolved rather than guessed: a wrong edge costs
more than a missing one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from memlode.code.lang import spec_for
from memlode.code.lang.spec import LanguageSpec, is_test_path
from memlode.code.model import FileExtract, Reference, RefKind
from memlode.code.resolve_types import FileInfo, SymbolInfo, Target, container_of, symbol_info
from memlode.types import NodeKind

__all__ = [
    "FileInfo",
    "Resolver",
    "SymbolInfo",
    "Target",
    "build_resolver",
    "container_of",
    "symbol_info",
]

_CLASS_LIKE = frozenset({NodeKind.CLASS, NodeKind.INTERFACE, NodeKind.TYPE})
_CALLABLE = frozenset(
    {NodeKind.FUNCTION, NodeKind.METHOD, NodeKind.CLASS, NodeKind.ENDPOINT, NodeKind.TYPE}
)
_TYPES = frozenset({NodeKind.CLASS, NodeKind.INTERFACE, NodeKind.TYPE, NodeKind.CONSTANT})
_FREE = frozenset({NodeKind.FUNCTION, NodeKind.CLASS, NodeKind.ENDPOINT, NodeKind.TYPE})
_METHODS = frozenset({NodeKind.METHOD, NodeKind.FUNCTION})
# What a qualifier may name to reach a member: a class, or a module that is a symbol (Elixir's
# `MyApp.Repo.get`, a Ruby module with methods, a Rust `mod` of the same file)
_OWNERS = _CLASS_LIKE | {NodeKind.MODULE}
_Kinds = frozenset[NodeKind]
# Members read once: an attribute of an enum class costs about 0.3 us in Python 3.11, five
# times a comparison, and these are compared for every reference of a project.
_IMPORT, _CALL, _USE = RefKind.IMPORT, RefKind.CALL, RefKind.USE
_BASE_REFS = frozenset({RefKind.INHERIT, RefKind.EXTEND, RefKind.IMPLEMENT})
_METHOD, _FUNCTION = NodeKind.METHOD, NodeKind.FUNCTION
# How many re-export hops an import is followed through (``__init__.py`` chains, barrels).
_REEXPORT_HOPS = 3
# Unresolved receivers fall back to a project-wide name only when it is this unambiguous.
_UNIQUE = 1


_NOT_YET = SymbolInfo("", "", "", NodeKind.MODULE, "")  # a cache miss (None is a result)


@dataclass(slots=True)
class _Binding:
    files: list[str] = field(default_factory=list)  # a module
    symbol: SymbolInfo | None = None
    external: bool = False  # imported from outside the project: nothing here to find


class Resolver:
    """Resolve references of any file against every file and symbol given."""

    def __init__(
        self,
        files: Iterable[FileInfo],
        symbols: Iterable[SymbolInfo],
        hints: Mapping[str, str] | None = None,
    ) -> None:
        self.hints = dict(hints or {})
        self.files = {f.path: f for f in files}
        self.modules: dict[str, list[str]] = defaultdict(list)
        self.by_tail: dict[str, list[str]] = defaultdict(list)  # last path part -> module keys
        for f in sorted(self.files.values(), key=lambda f: f.path):
            self.modules[f.module].append(f.path)
            base = f.module.rsplit("/", 1)[-1]
            tail = base.rsplit(".", 1)[-1]
            self.by_tail[tail].append(f.module)
            if base != tail:  # a file name with its suffix (`mem.h`, `common.bash`)
                self.by_tail[base].append(f.module)
        self.by_qualified: dict[str, SymbolInfo] = {}
        self.by_name: dict[str, list[SymbolInfo]] = defaultdict(list)
        self.members: dict[str, dict[str, SymbolInfo]] = defaultdict(dict)
        for sym in sorted(symbols, key=lambda s: s.qualified):
            self.by_qualified[sym.qualified] = sym
            self.by_name[sym.name].append(sym)
            self.members[sym.container].setdefault(sym.name, sym)
        self.bases: dict[str, list[str]] = defaultdict(list)
        self._bindings: dict[str, dict[str, _Binding]] = {}
        self._wildcards: dict[str, list[list[str]]] = {}
        # qualified names of the symbols whose members a file imports whole (Elixir `import
        # MyApp.Util`, Java `import static a.B.*`)
        self._wild_members: dict[str, list[str]] = {}
        # (language, qualifier, importer) -> files: modules never change after __init__
        self._module_files: dict[tuple[str, str, str], list[str]] = {}
        # (path, kind, name, qualifier) -> what a reference found, where its source is moot
        self._found: dict[tuple[str, str, str, str], SymbolInfo | None] = {}

    # --- modules and imports -----------------------------------------------------------------
    def module_files(self, spec: LanguageSpec, qualifier: str, importer: str) -> list[str]:
        """The files of the module ``qualifier`` names from ``importer`` (none: not one)."""
        key = (spec.name, qualifier, importer)
        found = self._module_files.get(key)
        if found is None:
            found = self._module_files[key] = self._find_module(spec, qualifier, importer)
        return found

    def _find_module(self, spec: LanguageSpec, qualifier: str, importer: str) -> list[str]:
        for key in spec.import_keys(qualifier, importer, self.hints):
            if key in self.modules:
                return self.modules[key]
        if spec.suffix_imports and qualifier:
            tail = qualifier.rsplit("/", 1)[-1]
            for key in self.by_tail.get(tail, ()):
                if key == qualifier or key.endswith("/" + qualifier):
                    return self.modules[key]
        if spec.name == "python" and qualifier:
            # `import views` run from inside web/, or src/ on the path: a unique dotted tail
            tail = qualifier.rsplit(".", 1)[-1]
            keys = [k for k in self.by_tail.get(tail, ()) if k.endswith("." + qualifier)]
            if len(set(keys)) == 1:
                return self.modules[keys[0]]
        return []

    def _prefix(self, path: str) -> str:
        return self.files[path].prefix

    def _lookup_in(self, files: list[str], name: str, hops: int = 0) -> SymbolInfo | None:
        """A top-level ``name`` in a module, following its own imports (re-exports)."""
        for path in files:
            found = self.members.get(self._prefix(path), {}).get(name)
            if found is not None:
                return found
        if hops >= _REEXPORT_HOPS:
            return None
        for path in files:
            binding = self.bindings(path, hops + 1).get(name)
            if binding is not None and binding.symbol is not None:
                return binding.symbol
        return None

    def bindings(self, path: str, hops: int = 0) -> dict[str, _Binding]:
        """Local name -> what the file's imports bind it to."""
        cached = self._bindings.get(path)
        if cached is not None:
            return cached
        info = self.files[path]
        spec = spec_for(info.language)
        out: dict[str, _Binding] = {}
        wild: list[list[str]] = []
        wild_members: list[str] = []
        self._bindings[path] = out  # guards against import cycles
        # source order: of `if LINUX: import a as p` / `else: import b as p`, the first wins
        for ref in sorted(info.imports, key=lambda r: (r.line, r.qualifier, r.name, r.alias)):
            if ref.kind != _IMPORT:
                continue
            binding = self._bind(spec, ref, path, hops)
            if ref.name == "*":
                if binding.files:
                    wild.append(binding.files)
                elif binding.symbol is not None:
                    wild_members.append(binding.symbol.qualified)
                continue
            if ref.alias:
                if not binding.files and binding.symbol is None:
                    binding.external = True
                out.setdefault(ref.alias, binding)
        self._wildcards[path] = wild
        self._wild_members[path] = wild_members
        return out

    def _bind(self, spec: LanguageSpec, ref: Reference, importer: str, hops: int) -> _Binding:
        files = self.module_files(spec, ref.qualifier, importer)
        if not ref.name or ref.name == "*":
            owner = None if files else self.by_qualified.get(ref.qualifier)
            if owner is not None and owner.kind in _OWNERS:
                return _Binding(symbol=owner)  # a module or class that is a symbol
            return _Binding(files=files)
        sep = spec.member_sep
        if ref.qualifier:
            sub = self.module_files(spec, f"{ref.qualifier}{sep}{ref.name}", importer)
            if sub and spec.name == "python":
                return _Binding(files=sub)
        if files:
            name = ref.alias if ref.name == "default" else ref.name
            found = self._lookup_in(files, name, hops)
            if found is not None:
                return _Binding(symbol=found)
            if ref.name == "default":
                return _Binding(files=files)
        # a class imported by its qualified name (Java, static imports)
        owner = self.by_qualified.get(ref.qualifier)
        if owner is not None:
            member = self.members.get(owner.qualified, {}).get(ref.name)
            if member is not None:
                return _Binding(symbol=member)
        direct = self.by_qualified.get(f"{ref.qualifier}.{ref.name}")
        return _Binding(symbol=direct) if direct is not None else _Binding()

    # --- references --------------------------------------------------------------------------
    def resolve(self, path: str, ref: Reference) -> Target | None:
        info = self.files.get(path)
        if info is None:
            return None
        spec = spec_for(info.language)
        kind = ref.kind
        if kind == _IMPORT:
            return self._resolve_import(spec, path, ref)
        source = self.by_qualified.get(ref.source) if ref.source else None
        if kind == _CALL:
            kinds = _CALLABLE
        elif kind == _USE:
            kinds = _TYPES
        else:
            kinds = _OWNERS  # a base: a class, or a module (an Elixir behaviour)
        qualifier = ref.qualifier
        if (
            spec.implicit_members
            or qualifier in spec.self_names
            or (source is not None and source.properties.get("self") == qualifier)
        ):
            found = self._find(spec, path, ref, source, kinds)
        else:
            # nothing else about the source matters: the same name written the same way in
            # one file finds the same symbol (a third of a project's references repeat so)
            key = (path, kind, ref.name, qualifier)
            found = self._found.get(key, _NOT_YET)
            if found is _NOT_YET:
                found = self._found[key] = self._find(spec, path, ref, source, kinds)
        if found is None or (source is not None and found.node_id == source.node_id):
            return None
        return Target(found.node_id, found.path)

    def _resolve_import(self, spec: LanguageSpec, path: str, ref: Reference) -> Target | None:
        binding = self._bind(spec, ref, path, 0)
        if binding.symbol is not None:
            return Target(binding.symbol.node_id, binding.symbol.path)
        if binding.files:
            target = self.files[binding.files[0]]
            return Target(target.node_id, target.path)
        return None

    def _find(
        self,
        spec: LanguageSpec,
        path: str,
        ref: Reference,
        source: SymbolInfo | None,
        kinds: frozenset[NodeKind],
    ) -> SymbolInfo | None:
        name, qualifier = ref.name, ref.qualifier
        if not qualifier:
            return self._unqualified(spec, path, name, source, kinds)
        if qualifier in spec.self_names or (
            source is not None and source.properties.get("self") == qualifier
        ):
            cls = self._enclosing_class(source)
            if cls is not None:
                member = self._member(cls, name)
                if member is not None:
                    return member
            return self._guess_method(spec, name, path)
        if qualifier == "?":
            return self._guess_method(spec, name, path)
        sep = spec.member_sep
        head = qualifier.split(sep, 1)[0] if sep in qualifier else qualifier.split(".", 1)[0]
        binding = self.bindings(path).get(head)
        if binding is not None and binding.external:
            return None  # `os.path.join`: a third-party name, never a project symbol
        if binding is not None:
            if binding.symbol is not None:
                # `Alias.f()`, or `Alias.Inner.f()` through what the alias names
                owner_name = binding.symbol.qualified + qualifier[len(head) :]
                member = self._member(owner_name, name)
                if member is not None:
                    return member
            elif binding.files:
                files = binding.files
                rest = qualifier[len(head) :].lstrip(".:")
                if rest:
                    module = self.files[files[0]].module
                    deeper = self.module_files(spec, f"{module}{sep}{rest}", path)
                    files = deeper or files
                found = self._lookup_in(files, name)
                if found is not None:
                    return found
        # a module path written out (Rust `crate::a::b::f`, Python `pkg.mod.f` after import)
        files = self.module_files(spec, qualifier, path)
        if files:
            found = self._lookup_in(files, name)
            if found is not None:
                return found
        # a symbol named by its qualified name (Elixir `MyApp.Repo.get`, Java `a.b.C.f`)
        whole = self.by_qualified.get(f"{qualifier}{sep}{name}")
        if whole is not None and whole.kind in kinds:
            return whole
        named = self.by_qualified.get(qualifier)
        if named is not None and named.kind in _OWNERS:
            member = self._member(named.qualified, name)
            if member is not None:
                return member
        # a type or module named from where the call is (`Task.x` inside `module Rake`), a
        # path of types from a name the file sees (`Store.Options.Default()`), a class or
        # module of this file or module (`Foo.create()`, `Foo::new()`)
        owner = (
            self._enclosing(spec, path, qualifier, source, _OWNERS)
            or self._type_path(spec, path, qualifier, source)
            or self._unqualified(spec, path, qualifier, source, _OWNERS)
        )
        if owner is not None:
            member = self._member(owner.qualified, name)
            if member is not None:
                return member
        if kinds is _CALLABLE:
            return self._guess_method(spec, name, path)
        return self._unique(name, kinds)

    def _guess_method(self, spec: LanguageSpec, name: str, caller: str) -> SymbolInfo | None:
        """A call through a receiver of unknown type: the project's only method of that name,
        unless the name is a standard type's method or a dunder (`x.append`, `x.__eq__`)."""
        if spec.extension_functions:  # `q.normalized()`: a function imported or the package's
            binding = self.bindings(caller).get(name)
            found = binding.symbol if binding is not None else None
            found = found or self.members.get(self._prefix(caller), {}).get(name)
            if found is not None and found.kind == _FUNCTION:
                return found
        if not spec.guess_receivers:
            return None
        if name in spec.builtin_methods or (name.startswith("__") and name.endswith("__")):
            return None
        return self._unique(name, _METHODS, caller)

    def _unqualified(
        self,
        spec: LanguageSpec,
        path: str,
        name: str,
        source: SymbolInfo | None,
        kinds: frozenset[NodeKind],
    ) -> SymbolInfo | None:
        if spec.implicit_members:
            cls = self._enclosing_class(source)
            if cls is not None:
                member = self._member(cls, name)
                if member is not None and member.kind in kinds | _METHODS:
                    return member
        nested = self._enclosing(spec, path, name, source, kinds)
        if nested is not None:
            return nested
        own = self.members.get(self._prefix(path), {}).get(name)
        if own is not None and own.kind in kinds:
            return own
        binding = self.bindings(path).get(name)
        if binding is not None and binding.symbol is not None:
            return binding.symbol
        if binding is not None and binding.external:
            return None
        for files in self._wildcards.get(path, ()):
            found = self._lookup_in(files, name)
            if found is not None:
                return found
        for owner_name in self._wild_members.get(path, ()):
            found = self._member(owner_name, name)
            if found is not None and found.kind in kinds | _METHODS:
                return found
        if name in spec.builtins:
            return None  # `str()`, `len()`, `printf()`: never some project function of that name
        # anything in this file by that name (a nested class, a method named like the call)
        same_file = [s for s in self.by_name.get(name, ()) if s.path == path and s.kind in kinds]
        if len(same_file) == 1 and (spec.implicit_members or same_file[0].kind != _METHOD):
            return same_file[0]
        if not spec.global_names:
            # Python, JS, Rust, Java, Go: a bare name is local, the file's, the package's or
            # imported; a project-wide guess would match local variables (`hook(data)`)
            return None
        allowed = kinds if spec.implicit_members else (kinds & _FREE) | (kinds & _TYPES)
        return self._unique(name, allowed, path)

    def _enclosing(
        self, spec: LanguageSpec, path: str, written: str, source: SymbolInfo | None, kinds: _Kinds
    ) -> SymbolInfo | None:
        """What ``written`` names from inside ``source`` (``LanguageSpec.enclosing_names``)."""
        around = source.qualified if source is not None else ""
        for candidate in spec.enclosing_names(written, around, self._prefix(path)):
            found = self.by_qualified.get(candidate)
            if found is not None and found.kind in kinds:
                return found
        return None

    def _type_path(
        self, spec: LanguageSpec, path: str, qualifier: str, source: SymbolInfo | None
    ) -> SymbolInfo | None:
        """The type ``Outer.Inner`` names: the head as a bare name, then member by member."""
        head, *rest = qualifier.split(spec.member_sep)
        owner = self._unqualified(spec, path, head, source, _OWNERS) if rest else None
        for part in rest:
            owner = self._member(owner.qualified, part) if owner is not None else None
        return owner if owner is not None and owner.kind in _OWNERS else None

    def _unique(self, name: str, kinds: frozenset[NodeKind], caller: str = "") -> SymbolInfo | None:
        """The one symbol of that name and kind; test code only counts for test callers."""
        found = [s for s in self.by_name.get(name, ()) if s.kind in kinds]
        if caller and not is_test_path(caller):
            found = [s for s in found if not is_test_path(s.path)]
        return found[0] if len(found) == _UNIQUE else None

    def _enclosing_class(self, source: SymbolInfo | None) -> str | None:
        current = source
        while current is not None:
            if current.kind in _OWNERS:  # a module holds functions as a class holds methods
                return current.qualified
            if current.container in self.by_qualified:
                current = self.by_qualified[current.container]
            else:
                # a method of a type defined elsewhere (Rust impl, Go receiver): its container
                return current.container if current.kind == _METHOD else None
        return None

    def _member(self, cls: str, name: str, depth: int = 0) -> SymbolInfo | None:
        found = self.members.get(cls, {}).get(name)
        if found is not None or depth > 4:
            return found
        for base in self.bases.get(cls, ()):
            found = self._member(base, name, depth + 1)
            if found is not None:
                return found
        return None

    def add_bases(self, path: str, refs: Iterable[Reference]) -> None:
        """Record inheritance first, so that calls through ``self`` reach inherited methods."""
        self._found.clear()  # members reached through bases may change
        for ref in refs:
            if ref.kind in _BASE_REFS and ref.source:
                target = self.resolve(path, ref)
                if target is not None:
                    base = next(
                        (
                            s.qualified
                            for s in self.by_name.get(ref.name, ())
                            if s.node_id == target.node_id
                        ),
                        None,
                    )
                    if base is not None and base not in self.bases[ref.source]:
                        self.bases[ref.source].append(base)


def build_resolver(
    extracts: Iterable[FileExtract],
    node_id: Callable[[str], str],
    file_node_id: Callable[[str], str],
    hints: Mapping[str, str] | None = None,
) -> Resolver:
    """A resolver over freshly extracted files (``node_id``: qualified name -> graph id)."""
    items = list(extracts)
    files = [
        FileInfo(
            e.path,
            e.language,
            e.module,
            file_node_id(e.path),
            e.prefix.rstrip(".:"),
            [r for r in e.references if r.kind == _IMPORT],
        )
        for e in items
    ]
    symbols = [
        symbol_info(s, e.path, e.prefix, e.language, node_id(s.qualified))
        for e in items
        for s in e.symbols
    ]
    resolver = Resolver(files, symbols, hints)
    for e in items:
        resolver.add_bases(e.path, e.references)
    return resolver
