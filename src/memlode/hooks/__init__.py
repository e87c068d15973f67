"""Claude Code hooks: passive capture and context injection.

``python -c "from memlode.hooks.dispatch import main; main(exit_process=True)" <event>`` (what
``memlode init`` installs), ``python -m memlode.hooks <event>`` and ``memlode hook
<event>`` (the same function, for humans) read the hook payload on stdin. Events:
``session-start``, ``prompt``, ``post-tool``, ``stop``, ``pre-compact``, ``session-end``
(Claude Code's own names work too). See ``memlode.hooks.handlers`` for what each does.

This package is on the hot path: a fresh process per tool call. It imports only the standard
library essentials (json, sqlite3, re, hashlib, os) and memlode's L0 helpers; nothing here may
import the engine's heavy capabilities (embeddings, vectors, graph algorithms, tree-sitter).
"""

__all__ = ["main"]


def main(argv: list[str] | None = None, *, exit_process: bool = False) -> int:
    from memlode.hooks.dispatch import main as dispatch_main

    return dispatch_main(argv, exit_process=exit_process)
