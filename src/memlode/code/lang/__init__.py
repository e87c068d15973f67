"""Which files are code and in which language: the registry of per-language rules.

One module per grammar family (``python``, ``ecma``, ``rust``, ...: the ones ``MODULES``
names), each exporting ``SPECS``, subclasses of :class:`memlode.code.lang.spec.LanguageSpec`.
A new language is a spec in one of them (or a new module named in ``MODULES``) plus its
``queries/<name>.scm``. Grammars and queries load lazily on first use, so importing this
package costs nothing.
"""

from __future__ import annotations

import posixpath
import re
from functools import cache, lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from memlode.errors import MissingDependency

if TYPE_CHECKING:
    from tree_sitter import Language, Query

    from memlode.code.lang.spec import LanguageSpec

__all__ = [
    "MODULES",
    "all_languages",
    "language_for_path",
    "load_language",
    "load_query",
    "query_source",
    "spec_for",
]

# The modules that declare languages, each exporting ``SPECS`` (a name goes once, here).
MODULES = (
    "python",
    "ecma",
    "rust",
    "go",
    "java",
    "c_family",
    "ruby",
    "php",
    "csharp",
    "kotlin",
    "swift",
    "elixir",
    "bash",
)

_SPECS: dict[str, LanguageSpec] = {}  # filled on first use


def _register() -> None:
    import importlib

    for name in MODULES:
        for spec in importlib.import_module(f"{__name__}.{name}").SPECS:
            _SPECS[spec.name] = spec


def all_languages() -> dict[str, LanguageSpec]:
    if not _SPECS:
        _register()
    return dict(_SPECS)


def spec_for(language: str) -> LanguageSpec:
    # called for every reference resolved: no copy of the registry
    try:
        return _SPECS[language]
    except KeyError:
        specs = all_languages()
        if language in specs:
            return specs[language]
        raise ValueError(f"no language named {language!r}; known: {sorted(specs)}") from None


@lru_cache(maxsize=1)
def _extension_map() -> dict[str, str]:
    """Extension -> language, and a whole lower-cased file name -> language (``rakefile``)."""
    out: dict[str, str] = {}
    for spec in all_languages().values():
        for ext in spec.extensions:
            out.setdefault(ext, spec.name)
        for file_name in spec.file_names:
            out.setdefault(file_name.lower(), spec.name)
    return out


def language_for_path(path: str) -> str | None:
    """The language of a file by its name (``.h`` is C until the content says C++)."""
    name = posixpath.basename(path).lower()
    if name.endswith(".d.ts"):
        return "typescript"
    ext = posixpath.splitext(name)[1]
    return _extension_map().get(ext or name)


@cache
def load_language(language: str) -> Language:
    spec = spec_for(language)
    import importlib

    try:
        from tree_sitter import Language
    except ImportError:
        raise MissingDependency("tree-sitter", "pip install memlode") from None
    try:
        grammar: Any = importlib.import_module(spec.grammar_module)
    except ImportError:
        package = spec.grammar_module.replace("_", "-")
        raise MissingDependency(f"the {language} grammar", f"pip install {package}") from None
    return Language(getattr(grammar, spec.grammar_function)())


_INHERITS = re.compile(r"^;\s*inherits:\s*(.+)$", re.MULTILINE)


def query_source(name: str) -> str:
    """A query file's text with its ``; inherits: other`` files prepended."""
    text = resources.files("memlode.code.queries").joinpath(f"{name}.scm").read_text("utf-8")
    parents = [p.strip() for m in _INHERITS.finditer(text) for p in m.group(1).split(",")]
    return "\n".join([*(query_source(p) for p in parents if p), text])


@cache
def load_query(language: str) -> Query:
    from tree_sitter import Query

    spec = spec_for(language)
    return Query(load_language(language), query_source(spec.query_name or spec.name))
