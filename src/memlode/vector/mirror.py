"""The on-disk mirror of a vector index: what a fresh process maps instead of decoding every
BLOB (100k rows) or fitting a projection again (1M rows).

Files in the store's cache folder, per database and model (``key``): ``vectors-<key>.npy``
(the float32 matrix) and ``.json`` (ids, namespaces, the version, rowid count and sum it was
written at), and with a projection ``.reduced.npy`` and ``.basis.npy``, and with inverted
lists ``.lists.npz``. Every file is written to a temporary name and renamed; the JSON goes
last, so a reader never sees a newer JSON beside older arrays. The lists carry a token the
JSON names too: lists left by another fit (a write cut short) are not used with these rows.

Format 3 mirrors may hold lists (their projected rows stored list after list); format 2 ones
(no lists) are still read. Files are owner-only, like the database they mirror.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.vector.clusters import MIN_CLUSTERED_ROWS, InvertedLists
from memlode.vector.projection import Projection

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Mirror", "MirroredState"]

log = logging.getLogger(__name__)

MIRROR_FORMAT = 3  # 3: the projection may have inverted lists (its rows in list order)
READABLE_FORMATS = (2, 3)  # 2: the same vectors, a projection without lists
_FILE_MODE = 0o600


@dataclass(slots=True)
class MirroredState:
    matrix: npt.NDArray[np.float32]
    ids: list[str]
    namespaces: list[str]
    max_rowid: int
    rowid_sum: int
    version: int
    projection: Projection | None  # None: fit one (none mirrored, or unusable)


class Mirror:
    """The mirror files of one index (``folder`` None: no mirror)."""

    def __init__(self, folder: Path | None, key: str, model: str, dim: int) -> None:
        self.folder = folder
        self.key = key
        self.model = model
        self.dim = dim

    def _path(self, suffix: str) -> Path:
        assert self.folder is not None
        return self.folder / f"vectors-{self.key}{suffix}"

    # ---- reading ---------------------------------------------------------------------------

    def load(self, version: int) -> MirroredState | None:
        """The mirrored index if it is this one's, at ``version`` or older (the caller then
        appends the rest or rebuilds); None when there is none or it does not fit."""
        import numpy as np

        if self.folder is None:
            return None
        matrix_path, meta_path = self._path(".npy"), self._path(".json")
        if not matrix_path.exists() or not meta_path.exists():
            return None
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if (
                meta.get("format") not in READABLE_FORMATS
                or not isinstance(meta.get("version"), int)
                or meta["version"] > version  # a newer store's, or another store at this path
                or meta.get("model") != self.model
                or meta.get("key") != self.key
            ):
                return None
            matrix = np.load(matrix_path, mmap_mode="r")
            if matrix.shape != (len(meta["ids"]), self.dim) or matrix.dtype != np.float32:
                return None
            return MirroredState(
                matrix,
                list(meta["ids"]),
                meta["namespaces"],
                int(meta["max_rowid"]),
                int(meta["rowid_sum"]),
                int(meta["version"]),
                self._projection(meta.get("projection"), len(meta["ids"])),
            )
        except (OSError, ValueError, KeyError) as exc:
            log.info("vector cache unusable, rebuilding: %s", exc)
            return None

    def arrays(
        self,
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None] | None:
        """The mirrored matrix and projected rows, mapped (None when there is no mirror)."""
        import numpy as np

        if self.folder is None:
            return None
        try:
            matrix = np.load(self._path(".npy"), mmap_mode="r")
            reduced_path = self._path(".reduced.npy")
            reduced = np.load(reduced_path, mmap_mode="r") if reduced_path.exists() else None
        except (OSError, ValueError) as exc:
            log.info("vector cache not mapped: %s", exc)
            return None
        return matrix, reduced

    def _projection(self, meta: Any, rows: int) -> Projection | None:
        import numpy as np

        if not isinstance(meta, dict):
            return None
        try:
            reduced = np.load(self._path(".reduced.npy"), mmap_mode="r")
            basis = np.load(self._path(".basis.npy"))
            if (
                reduced.shape[0] != rows
                or basis.shape != (self.dim, reduced.shape[1])
                or reduced.dtype != np.float32
                or basis.dtype != np.float32
            ):
                return None
            projection = Projection(
                basis,
                reduced,
                int(meta["shortlist"]),
                float(meta["recall"]),
                int(meta["fitted_rows"]),
            )
            if meta.get("probes"):
                projection.lists = self._lists(reduced.shape, str(meta.get("lists")))
                projection.probes = int(meta["probes"])
                if projection.lists is None:
                    return None
            elif projection.fitted_rows >= MIN_CLUSTERED_ROWS:
                return None  # a mirror from before the lists: fit again, with them
            return projection
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.info("projection cache unusable, fitting again: %s", exc)
            return None

    def _lists(self, shape: tuple[int, ...], token: str) -> InvertedLists | None:
        """The mirrored lists, if they were written with this mirror's ``token``."""
        import numpy as np

        with np.load(self._path(".lists.npz")) as data:
            if str(data["token"]) != token:
                return None
            lists = InvertedLists(data["centres"], data["order"], data["bounds"], data["tail"])
        if (
            len(lists.order) + len(lists.tail) != shape[0]
            or lists.centres.shape[1] != shape[1]
            or len(lists.bounds) != len(lists.centres) + 1
            or int(lists.bounds[-1]) != len(lists.order)
        ):
            return None
        return lists

    # ---- writing ---------------------------------------------------------------------------

    def save(self, state: MirroredState) -> bool:
        """Write ``state``; False when it cannot be written (a cache that cannot be written is
        only slower)."""
        import numpy as np

        if self.folder is None:
            return False
        meta: dict[str, Any] = {
            "format": MIRROR_FORMAT,
            "model": self.model,
            "key": self.key,
            "version": state.version,
            "max_rowid": state.max_rowid,
            "rowid_sum": state.rowid_sum,
            "ids": state.ids,
            "namespaces": state.namespaces,
        }
        projection = state.projection
        if projection is not None:
            meta["projection"] = {
                "shortlist": projection.shortlist,
                "recall": projection.recall,
                "fitted_rows": projection.fitted_rows,
                "probes": projection.probes if projection.lists is not None else 0,
                "lists": secrets.token_hex(8),
            }
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            # Per process *and* thread: a server's engines (one per thread) may write at once.
            writer = f"{os.getpid()}-{threading.get_ident()}"

            def place(suffix: str, write: Any) -> None:
                final = self._path(suffix)
                tmp = final.with_name(f"{final.name}.{writer}.tmp{final.suffix}")
                write(tmp)
                tmp.chmod(_FILE_MODE)
                tmp.replace(final)

            def array(values: Any) -> Any:
                return lambda tmp: np.save(tmp, np.ascontiguousarray(values))

            if projection is not None:
                lists = projection.lists
                if lists is not None:
                    place(
                        ".lists.npz",
                        lambda tmp: np.savez(
                            tmp,
                            centres=lists.centres,
                            order=lists.order,
                            bounds=lists.bounds,
                            tail=lists.tail,
                            token=np.array(meta["projection"]["lists"]),
                        ),
                    )
                place(".reduced.npy", array(projection.reduced))
                place(".basis.npy", array(projection.basis))
            place(".npy", array(state.matrix))
            place(".json", lambda tmp: tmp.write_text(json.dumps(meta), encoding="utf-8"))
            return True
        except OSError as exc:
            log.info("cannot write vector cache: %s", exc)
            return False
