"""Fixtures for code-intelligence tests: extract a sample, summarise what came out."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memlode.code.extract import extract_file
from memlode.code.model import FileExtract
from memlode.storage.db import Database

SymbolRow = tuple[str, str, str | None]
RefRow = tuple[str, str, str, str | None]


def _extract(path: str, text: str, module: str = "") -> FileExtract:
    ex = extract_file(path, text.encode(), module)
    assert ex.errors == 0, f"{path} did not parse cleanly"
    return ex


def _symbols(ex: FileExtract) -> list[SymbolRow]:
    """(kind, qualified name, parent) in source order."""
    return [(str(s.kind), s.qualified, s.parent) for s in ex.symbols]


def _refs(ex: FileExtract, *kinds: str) -> set[RefRow]:
    """(kind, qualifier, name, source) of the references of the given kinds (all if none)."""
    return {
        (str(r.kind), r.qualifier, r.name, r.source)
        for r in ex.references
        if not kinds or str(r.kind) in kinds
    }


@pytest.fixture
def extract() -> Callable[..., FileExtract]:
    return _extract


@pytest.fixture
def symbols() -> Callable[[FileExtract], list[SymbolRow]]:
    return _symbols


@pytest.fixture
def refs() -> Callable[..., set[RefRow]]:
    return _refs


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def write() -> Callable[[Path, dict[str, str]], Path]:
    return write_tree


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(tmp_path / "memlode.db")
    yield database
    database.close()


def graph_edges(
    db: Database,
    root: Path,
    namespace: str,
    relationships: tuple[str, ...],
    strip: tuple[str, ...] = (),
) -> set[tuple[str, str, str]]:
    """(source, target, relationship) of the code edges, node ids shortened: symbols without
    ``sym:<namespace>:``, files relative to ``root``, then without any prefix in ``strip``."""
    base = f"file:{root.resolve().as_posix()}/"

    def cut(node: str) -> str:
        node = node.replace(f"sym:{namespace}:", "").replace(base, "")
        for prefix in strip:
            node = node.removeprefix(prefix)
        return node

    marks = ",".join("?" * len(relationships))
    rows = db.conn.execute(
        "SELECT source_id, target_id, relationship FROM graph_edges"
        f" WHERE relationship IN ({marks})",
        relationships,
    )
    return {(cut(a), cut(b), r) for a, b, r in rows}


@pytest.fixture
def edges() -> Callable[..., set[tuple[str, str, str]]]:
    return graph_edges
