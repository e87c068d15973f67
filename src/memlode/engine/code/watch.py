"""Watching indexed code: files changed outside the assistant are re-indexed as they change.

``watch_code`` watches the indexed roots of one namespace (watchfiles: inotify, FSEvents or
polling), lets a burst of changes settle (``debounce_ms``) and hands the changed paths to
``fresh.reindex_files``, which keeps to the walker's rules (``.gitignore`` and the other
ignore files, skipped folders, generated files) and rebuilds the graph state and the session
map after each batch. Folders skipped by name (``.git``, ``node_modules``, build output) are
filtered out before a batch is formed, so a busy build folder costs nothing.

The edits the assistant makes reach the index without this (the PostToolUse hook marks them,
the resident re-indexes: ``resident.code_refresh``); this covers an editor, ``git checkout``,
a formatter. The roots are re-read every few seconds: a project indexed later is watched too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.errors import MissingDependency, NotFound

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["watch_code", "watched_roots"]

log = logging.getLogger(__name__)

# The debounce of the docs watcher (engine/watch.py): one editor save is one batch.
DEFAULT_DEBOUNCE_MS = 300
# How often an idle watcher wakes to notice a stop request or new roots.
_TICK_MS = 200
_RECHECK_SECONDS = 2.0

OnIndex = Callable[[dict[str, Any]], None]


def watched_roots(engine: Engine, namespace: str | None = None) -> list[str]:
    """The indexed roots of the namespace (the engine's by default) that exist now."""
    from memlode.engine.code.repo_map import one_namespace
    from memlode.storage import code_graph_rows

    ns = one_namespace(engine, namespace)
    return [r for r in code_graph_rows.code_roots(engine.code_db.conn, ns) if Path(r).is_dir()]


def _wanted(roots: Sequence[str]) -> Callable[[Any, str], bool]:
    """A watch filter: paths below a root whose folders the walker does not skip by name."""
    from memlode.code.reindex import IGNORE_FILES
    from memlode.code.walk import skipped_folder

    prefixes = [r.rstrip("/") + "/" for r in roots]

    def wanted(_change: Any, path: str) -> bool:
        text = path.replace("\\", "/")
        for prefix in prefixes:
            if text.startswith(prefix):
                *folders, name = text[len(prefix) :].split("/")
                if any(skipped_folder(f) for f in folders):
                    return False
                return not name.startswith(".") or name in IGNORE_FILES
        return False

    return wanted


def watch_code(
    engine: Engine,
    *,
    namespace: str | None = None,
    stop_event: threading.Event | None = None,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    on_index: OnIndex | None = None,
) -> None:
    """Watch the namespace's indexed roots and re-index what changes, until ``stop_event``.

    The first report (``{"initial": true, "roots": [...]}``) comes once the watch is set up,
    so a change made after it is always seen. Raises ``NotFound`` when nothing is indexed.
    """
    try:
        import watchfiles
    except ImportError:  # pragma: no cover - a declared dependency
        raise MissingDependency("watchfiles", "pip install watchfiles") from None
    from memlode.engine.code.fresh import reindex_files

    stop = stop_event or threading.Event()
    roots = watched_roots(engine, namespace)
    if not roots:
        raise NotFound("no code indexed here to watch; run `memlode index` in the project first")
    announced = False
    while not stop.is_set():
        restart = threading.Event()
        checked = time.monotonic()
        for batch in watchfiles.watch(
            *roots,
            watch_filter=_wanted(roots),
            debounce=debounce_ms,
            step=50,
            stop_event=_EitherEvent(stop, restart),
            rust_timeout=_TICK_MS,
            yield_on_timeout=True,  # the first (empty) yield says the watch is set up
            recursive=True,
            raise_interrupt=False,
        ):
            if not announced:
                announced = True
                if on_index is not None:
                    on_index({"initial": True, "roots": roots})
            if batch:
                paths = sorted({path for _change, path in batch})
                report = reindex_files(engine, paths)
                log.info("code re-indexed after changes to %s", ", ".join(paths))
                if on_index is not None:
                    on_index({"initial": False, "paths": paths, **report})
            if time.monotonic() - checked >= _RECHECK_SECONDS:
                checked = time.monotonic()
                latest = watched_roots(engine, namespace)
                if latest and latest != roots:
                    roots = latest
                    restart.set()


class _EitherEvent:
    """A stop event for watchfiles that is set when either of two events is."""

    def __init__(self, first: threading.Event, second: threading.Event) -> None:
        self.first = first
        self.second = second

    def is_set(self) -> bool:
        return self.first.is_set() or self.second.is_set()
