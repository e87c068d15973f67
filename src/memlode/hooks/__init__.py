"""Claude Code hooks: passive capture and context injection.

``python -c "from memlode.hooks.dispatch import main; main(exit_process=True)" <event>`` (what
``memlode init`` installs), ``python -m memlode.hooks <event>`` and ``memlode hook
<event>`` (the same function, for humans) read the hook payload on stdin. Events:
``session-start``, ``prompt``, ``post-tool``, ``stop``, ``pre-compact``, ``session-end``
(Claude Code's own names work too). See ``memlode.hooks.handlers`` for what each does.

This package is on the hot path: a fresh process per tool call. On the common paths it imports
only ``os``, ``time``, the C modules ``_sqlite3``, ``_json`` and ``_sha256``, and its own small
modules: no ``re`` (ASCII text is split by hand), no ``hashlib``, no ``datetime``. Non-ASCII
text and a missing or outdated database take slower paths that import more. Nothing here may
import the engine's heavy capabilities (embeddings, vectors, graph algorithms, tree-sitter).
"""

__all__ = ["main"]


def main(argv: list[str] | None = None, *, exit_process: bool = False) -> int:
    from memlode.hooks.dispatch import main as dispatch_main

    return dispatch_main(argv, exit_process=exit_process)
