"""Bash (and POSIX sh): functions, the commands that call them, ``source``/``.`` as imports.

A shell function is global once the file that defines it is sourced, so a command resolves
to the function of that name in the file itself, in a file it sources, and last to the one
function of that name in the project. A sourced path is read as written, with its leading
variables (``"$ROOT/lib/util.sh"``) dropped: what is left is matched against the project's
files near the sourcing file, from the root, or by its tail.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from memlode.code.lang.spec import (
    LanguageSpec,
    RawDef,
    clean_comment,
    is_test_path,
    node_text,
    word_set,
)
from memlode.code.model import Reference, RefKind, Visibility
from memlode.types import NodeKind

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["SPECS", "BashSpec"]

# Shell builtins and the commands scripts run most: a command of one of these names is not a
# project function unless this file defines it.
_BUILTINS = word_set(
    """alias bg bind break builtin caller cd command compgen complete compopt continue
    declare dirs disown echo enable eval exec exit export false fc fg getopts hash help
    history jobs kill let local logout mapfile popd printf pushd pwd read readarray
    readonly return set shift shopt source suspend test times trap true type typeset
    ulimit umask unalias unset wait awk basename cat chmod chown cp curl cut date dirname
    env expr find git grep gzip head install ln ls mkdir mktemp mv printenv readlink
    realpath rm rmdir sed sleep sort stat sudo tail tar tee touch tr uname uniq wc wget
    which xargs ."""
)
_SOURCE_COMMANDS = frozenset({"source", "."})


class BashSpec(LanguageSpec):
    name = "bash"
    grammar_module = "tree_sitter_bash"
    query_name = "bash"
    extensions: ClassVar[tuple[str, ...]] = (".sh", ".bash")
    global_names = True
    suffix_imports = True  # `source lib/util.sh`: a file found by its path tail
    builtins: ClassVar[frozenset[str]] = _BUILTINS

    def module_key(self, path: str, paths: frozenset[str]) -> str:
        return path

    def import_keys(
        self, qualifier: str, importer: str, hints: Mapping[str, str] | None = None
    ) -> list[str]:
        near = posixpath.normpath(posixpath.join(posixpath.dirname(importer), qualifier))
        return [near, posixpath.normpath(qualifier)]

    def refine(self, d: RawDef, path: str) -> bool:
        if d.name.startswith("test") and is_test_path(path):
            d.kind = NodeKind.TEST
        if d.name.startswith("_"):
            d.visibility = Visibility.PRIVATE
        return True

    def docstring(self, d: RawDef) -> str:
        doc = self.preceding_comments(d.node)
        if not doc.startswith("!"):
            return doc
        # the shebang line above a script's first function is not its documentation
        return clean_comment(doc.split("\n", 1)[1]) if "\n" in doc else ""

    def imports(self, node: Node, path: str, module: str) -> list[Reference]:
        name = node.child_by_field_name("name")
        if node_text(name) not in _SOURCE_COMMANDS:
            return []
        argument = node.child_by_field_name("argument")
        target = _sourced_path(node_text(argument))
        if not target:
            return []
        line = node.start_point.row + 1
        return [Reference(RefKind.IMPORT, "*", None, line, target, "*")]


def _sourced_path(written: str) -> str:
    """``"$ROOT/lib/util.sh"`` -> ``lib/util.sh``; "" when no fixed path is left."""
    text = written.strip().strip("\"'")
    if "$" in text:
        # drop everything up to the last expansion's closing slash: $X/, ${X}/, $(cmd)/
        last = text.rfind("$")
        slash = text.find("/", last)
        if slash < 0:
            return ""
        text = text[slash + 1 :]
        if "$" in text or "`" in text:
            return ""
    text = text.removeprefix("./")
    return text if text and not text.startswith("-") else ""


SPECS = (BashSpec(),)
