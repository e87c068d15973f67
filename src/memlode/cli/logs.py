"""How the command line logs: to stderr (stdout is the command's output), one line per record
in ``LOG_FORMAT``. Both ways in use it: the command group (``memlode.cli.root``, its ``-v``
level) and the bare ``memlode mcp`` start that skips the group (``memlode.cli``)."""

from __future__ import annotations

import logging
import sys

__all__ = ["LOG_FORMAT", "log_to_stderr"]

LOG_FORMAT = "memlode: %(levelname)s %(message)s"


def log_to_stderr(level: int) -> None:
    """Send this process's log records of ``level`` and above to stderr in ``LOG_FORMAT``."""
    logging.basicConfig(stream=sys.stderr, level=level, format=LOG_FORMAT)
