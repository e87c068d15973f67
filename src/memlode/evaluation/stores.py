"""Fresh stores for an evaluation: each run of a benchmark's unit starts from an empty store.

On the SQLite path a fresh store is a new home with its own database file under the run's
temporary folder. When the user's store is on a PostgreSQL server (``--db postgresql://...``),
the store itself goes where theirs is, so that the figures are that backend's: a new schema on
the same server (``memlode.storage.postgres.scratch``), dropped when the block ends, however it
ends; its home (the vector mirror, caches) is still the new folder. Nothing of the user's own
store is read or written either way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from memlode.config import Settings

__all__ = ["SCRATCH_LABEL", "fresh_store"]

# Caches under the home that depend on nothing but the model (shared by the fresh stores).
_SHARED_CACHES = ("models",)
# What an evaluation's schemas are called on a server: memlode_eval_<hex>.
SCRATCH_LABEL = "eval"


@contextlib.contextmanager
def fresh_store(settings: Settings, home: Path, namespace: str) -> Iterator[Settings]:
    """Settings for an empty store of its own: a new home (``home``, made here), a new database
    (a file in it, or a schema on the user's server), one namespace.

    Everything derived from a store (vector mirrors, caches) lives under the home, so each
    store gets its own; only the model cache, derived from model weights alone, is linked to
    the user's so the model is not rebuilt for every store.
    """
    home.mkdir(parents=True)
    for name in _SHARED_CACHES:
        # Without symlinks (or a writable home) the cache is rebuilt per store: only slower.
        with contextlib.suppress(OSError):
            (settings.home / name).mkdir(parents=True, exist_ok=True)
            (home / name).symlink_to(settings.home / name, target_is_directory=True)
    fresh = settings.with_(home=home, db_path=home / "memlode.db", namespace=namespace)
    if settings.db_url is None:
        yield fresh
        return
    from memlode.storage.postgres.scratch import scratch_store

    with scratch_store(settings.db_url, SCRATCH_LABEL, created_by=settings.author) as url:
        yield fresh.with_(db_url=url, db_path=None)
