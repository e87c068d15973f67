"""The CLI run in-process (``tests/inprocess.py``), full-text search only."""

from __future__ import annotations

import pytest
from tests.inprocess import bm25_only, clean_error, cli, db, dbview, store

__all__ = ["bm25_only", "clean_error", "cli", "db", "dbview", "store"]


@pytest.fixture(autouse=True)
def _no_embedder(bm25_only: None) -> None:
    """Full-text search only in this folder (hybrid recall is tested with its capability)."""
