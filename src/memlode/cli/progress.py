"""Progress of long work on a terminal: a bar on stderr for ``(done, total)`` callbacks, a line
on stderr per step for work that reports steps, and nothing at all in a pipe, a log or with
``--json`` unless asked (stdout stays the command's output)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any

import click

__all__ = ["TtyProgress", "step_lines"]


class TtyProgress:
    """A ``(done, total)`` callback drawing one bar; use it as a context manager."""

    def __init__(self, label: str, *, quiet: bool = False) -> None:
        self.label = label
        self.enabled = not quiet and sys.stderr.isatty()
        self._bar: Any = None
        self._done = 0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            self._bar = click.progressbar(
                length=max(total, 1), label=self.label, file=sys.stderr, show_pos=True
            )
            self._bar.__enter__()
        if done > self._done:
            self._bar.update(done - self._done)
            self._done = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None

    def __enter__(self) -> TtyProgress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def step_lines(asked: bool, *, quiet: bool = False) -> Callable[[str], None] | None:
    """Where a long run reports each step (an evaluation's conversations or sessions): stderr
    when asked (``--progress``, in a pipe too) or on a terminal unless ``quiet``; else nowhere."""
    if asked or (not quiet and sys.stderr.isatty()):
        return lambda line: click.echo(line, err=True)
    return None
