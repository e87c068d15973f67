"""Watching memory files and docs: re-index changed markdown as it changes.

``watch_docs`` watches every existing doc root (watchfiles, i.e. inotify/FSEvents/polling), lets
a burst of changes settle (``debounce_ms``), then re-indexes just the changed files through
``docs.reindex_paths`` (a deletion or a folder event rescans its root). A project root is
watched without recursion (only its MEMORY.md, SOUL.md, USER.md and ``memory/`` matter there),
every other root recursively, so a big source tree costs nothing.

It runs until ``stop_event`` is set or Ctrl-C. Roots that appear later (a new ``memory/``
folder, an added docs folder) are picked up: the set of watched folders is re-checked after
every batch and every few seconds, and the watchers restart when it changed. ``on_index`` gets
every report, which is where a caller hangs re-embedding or logging.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from memlode.engine import Engine
from memlode.engine.docs import doc_roots, index_docs, reindex_paths
from memlode.errors import MissingDependency
from memlode.owner_only import make_private_dir
from memlode.sources.docfiles import DOC_SUFFIXES, is_contained
from memlode.sources.pathguard import MEMORY_DIR, ROOT_FILES

__all__ = ["DEFAULT_DEBOUNCE_MS", "watch_docs"]

log = logging.getLogger(__name__)

# Editors save in bursts (write, rename, chmod); 300 ms groups one save into one re-index
# while still feeling immediate.
DEFAULT_DEBOUNCE_MS = 300
# How often an idle watcher thread wakes to notice a stop request.
_TICK_MS = 200
# How often the set of watched folders is re-checked when nothing happens.
_RECHECK_SECONDS = 2.0

OnIndex = Callable[[dict[str, Any]], None]


def _watch_set(engine: Engine, cwd: Path | None) -> tuple[frozenset[Path], frozenset[Path]]:
    """(folders watched without recursion, folders watched recursively) that exist now."""
    flat: set[Path] = set()
    deep: set[Path] = set()
    for root in doc_roots(engine, cwd=cwd):
        if not root.path.is_dir() or not is_contained(root):
            continue  # a root that leads out of its project is neither indexed nor watched
        if root.scope == "project":
            flat.add(root.path)
            if (root.path / MEMORY_DIR).is_dir():
                flat.add(root.path / MEMORY_DIR)
        else:
            deep.add(root.path)
    return frozenset(flat), frozenset(deep)


def _interesting(path: str) -> bool:
    name = Path(path).name
    if name in ROOT_FILES or name == MEMORY_DIR:
        return True
    if name.startswith("."):
        return name == ".memlode"
    return name.lower().endswith(DOC_SUFFIXES) or "." not in name


class _Watchers:
    """One watchfiles thread per recursion mode, all feeding one queue."""

    def __init__(self, flat: Iterable[Path], deep: Iterable[Path], debounce_ms: int) -> None:
        try:
            import watchfiles
        except ImportError:  # pragma: no cover - a declared dependency
            raise MissingDependency("watchfiles", "pip install watchfiles") from None
        self._watchfiles = watchfiles
        self.changes: queue.Queue[set[str]] = queue.Queue()
        self.stop = threading.Event()
        self._debounce = debounce_ms
        self._threads: list[threading.Thread] = []
        self._ready: list[threading.Event] = []
        for paths, recursive in ((sorted(flat), False), (sorted(deep), True)):
            if paths:
                ready = threading.Event()
                thread = threading.Thread(
                    target=self._run,
                    args=(paths, recursive, ready),
                    name="memlode-watch",
                    daemon=True,
                )
                self._threads.append(thread)
                self._ready.append(ready)

    def start(self, timeout: float = 10.0) -> None:
        for thread in self._threads:
            thread.start()
        for ready in self._ready:
            ready.wait(timeout)

    def _run(self, paths: list[Path], recursive: bool, ready: threading.Event) -> None:
        try:
            for batch in self._watchfiles.watch(
                *paths,
                watch_filter=lambda _change, path: _interesting(path),
                debounce=self._debounce,
                step=50,
                stop_event=self.stop,
                rust_timeout=_TICK_MS,
                yield_on_timeout=True,  # the first (empty) yield says the watch is set up
                recursive=recursive,
                raise_interrupt=False,
            ):
                ready.set()
                if batch:
                    self.changes.put({path for _change, path in batch})
        except Exception as exc:  # a folder vanished under the watcher: restart from the set
            log.warning("watcher stopped: %s", exc)
            self.changes.put(set())
        finally:
            ready.set()

    def close(self) -> None:
        self.stop.set()
        for thread in self._threads:
            thread.join(timeout=5)


def watch_docs(
    engine: Engine,
    *,
    cwd: Path | None = None,
    stop_event: threading.Event | None = None,
    debounce_ms: int = DEFAULT_DEBOUNCE_MS,
    on_index: OnIndex | None = None,
    initial_index: bool = True,
) -> None:
    """Watch the doc roots and re-index what changes, until ``stop_event`` or Ctrl-C.

    The first report (``{"initial": true, ...}``) comes after the watchers are running, so a
    change made after it is always seen.
    """
    stop = stop_event or threading.Event()
    make_private_dir(engine.settings.home / "global")
    current = _watch_set(engine, cwd)
    watchers = _Watchers(*current, debounce_ms)
    watchers.start()
    try:
        if initial_index:
            report = index_docs(engine, cwd=cwd)
            if on_index is not None:
                on_index({"initial": True, **report})
        elif on_index is not None:
            on_index({"initial": True})
        checked = time.monotonic()
        while not stop.is_set():
            try:
                changed = watchers.changes.get(timeout=_TICK_MS / 1000)
            except queue.Empty:
                changed = None
            if changed is not None:
                while True:  # take everything that queued meanwhile as one batch
                    try:
                        changed |= watchers.changes.get_nowait()
                    except queue.Empty:
                        break
                if changed:
                    paths = sorted(changed)
                    report = reindex_paths(engine, [Path(p) for p in paths], cwd=cwd)
                    log.info("re-indexed after changes to %s", ", ".join(paths))
                    if on_index is not None:
                        on_index({"initial": False, "paths": paths, **report})
            if changed is None and time.monotonic() - checked < _RECHECK_SECONDS:
                continue
            checked = time.monotonic()
            latest = _watch_set(engine, cwd)
            if latest != current:
                watchers.close()
                current = latest
                watchers = _Watchers(*current, debounce_ms)
                watchers.start()
                # Files may have appeared while no watcher covered them.
                report = reindex_paths(engine, sorted(current[0] | current[1]), cwd=cwd)
                if on_index is not None:
                    on_index({"initial": False, "paths": [], **report})
    finally:
        watchers.close()
