"""The ``memlode`` command line: its entry point.

The command group and its subcommands are in ``memlode.cli.root``. Two invocations skip them:
``memlode mcp`` with no options - the line every assistant's configuration runs at each launch
(``memlode init``) - starts the server without click's parsing, ~20 ms of a start that an
assistant waits for; and ``memlode hook EVENT [CLIENT]``, the hook command of the files a team
commits (``memlode init --scope project``), becomes the hook process without click, as the
hooks ``init`` writes into personal settings start it. Any option, or a settings error, takes
the full command line.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the CLI, turning expected errors into one line on stderr."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) in (2, 3) and args[0] == "hook" and not args[1].startswith("-"):
        _run_hook(args[1:])
    if args == ["mcp"] and _serve_mcp():
        return
    from memlode.cli.common import run_cli
    from memlode.cli.root import cli

    run_cli(cli, argv)


def _run_hook(args: list[str]) -> None:
    """Become the hook process: this interpreter straight into the dispatcher, as installed
    hooks start it (interfaces start each other as processes, never by import)."""
    import os

    from memlode.hook_events import HOOK_CODE

    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-c", HOOK_CODE, *args])


def _serve_mcp() -> bool:
    """``memlode mcp`` as its click command runs it, with the same settings (the group's
    ``--db``/``--home`` options read the same environment); False, before anything started,
    when the settings cannot be read, so the full command line reports it."""
    import logging
    import os

    from memlode import interfaces
    from memlode.cli.logs import log_to_stderr
    from memlode.config import Settings
    from memlode.errors import MemlodeError

    # what the group's click.Path options refuse, they refuse with their own message
    for name, kind in (("MEMLODE_DB", os.path.isdir), ("MEMLODE_HOME", os.path.isfile)):
        value = os.environ.get(name)
        if value and kind(value):
            return False
    try:
        settings = Settings.load()
    except (MemlodeError, OSError, ValueError):
        return False
    log_to_stderr(logging.WARNING)
    serve_stdio: Any = interfaces.load("mcp-stdio")
    serve_stdio(settings, embed_in_background=True, watch_docs=False)
    return True


def __getattr__(name: str) -> Any:
    # `from memlode.cli import cli`: the group, built on first use (it imports click)
    if name in ("cli", "COMMANDS"):
        from memlode.cli import root

        return getattr(root, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
