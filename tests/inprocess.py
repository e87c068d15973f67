"""Fixtures for tests of the CLI in-process: the CLI entry point, and the raw tables.

``cli`` here runs ``memlode.cli.main`` (the console script's function) inside the test process,
with stdin, stdout, stderr and the environment isolated as a subprocess would have them, and an
escaping exception turned into a traceback on stderr exactly as the interpreter would print it.
That keeps hundreds of CLI calls fast; ``tests/e2e/test_cli_foundation.py`` runs the same
operations and bad inputs through a real ``python -m memlode`` subprocess.

The helpers are fixtures: ``cli``, ``db`` (a view of the default database's tables), ``dbview``,
``store`` and ``clean_error``; a ``conftest.py`` imports the ones its folder uses (``tests/cli``,
``tests/storage``). ``bm25_only`` makes full-text search the only search of those tests.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memlode.cli import main

# Tables whose full contents define "what is stored".
STORED_TABLES = ("memories", "memory_embeddings", "graph_nodes", "graph_edges", "sessions")


@dataclass
class DbView:
    """Reads a database file with a plain sqlite3 connection, outside memlode."""

    path: Path

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        conn = sqlite3.connect(self.path)
        try:
            return [tuple(r) for r in conn.execute(sql, params)]
        finally:
            conn.close()

    def rows(self, table: str) -> list[tuple[Any, ...]]:
        return self._query(f'SELECT * FROM "{table}" ORDER BY 1')

    def ids(self, table: str) -> list[Any]:
        return [r[0] for r in self.rows(table)]

    def count(self, table: str) -> int:
        return int(self._query(f'SELECT count(*) FROM "{table}"')[0][0])

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        """Everything stored, row by row, to prove that a failed command changed nothing."""
        return {table: self.rows(table) for table in STORED_TABLES}

    def add_embedding(self, memory_id: str) -> None:
        conn = sqlite3.connect(self.path)
        try:
            with conn:
                conn.execute("PRAGMA foreign_keys=ON")
                conn.execute(
                    "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash,"
                    " created_at) VALUES (?, 'test-model', 2, ?, 'h', ?)",
                    (memory_id, b"\x00" * 8, "2026-11-22T00:00:00.000000Z"),
                )
        finally:
            conn.close()


@dataclass
class InProcessResult:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


@contextlib.contextmanager
def _working_directory(path: Path | None) -> Iterator[None]:
    if path is None:
        yield
        return
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_in_process(
    *args: str, input: str | None = None, cwd: Path | None = None, env: dict[str, str] | None = None
) -> InProcessResult:
    """``memlode ARGS`` through ``memlode.cli.main``; same result shape as the subprocess one."""
    runner = CliRunner()
    code = 0
    with _working_directory(cwd), runner.isolation(input=input, env=env) as (out, err, _):
        try:
            main(list(args))
        except SystemExit as exc:
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except BaseException:  # what the interpreter would do with an escaping exception
            traceback.print_exc()
            code = 1
        finally:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
    return InProcessResult(
        code,
        out.getvalue().decode("utf-8", "replace"),
        err.getvalue().decode("utf-8", "replace"),
    )


@pytest.fixture
def cli() -> Callable[..., InProcessResult]:
    """The CLI entry point, in-process (see the module docstring)."""
    return run_in_process


def check_clean_error(result: Any, code: int | None = None) -> None:
    """One line on stderr starting 'memlode: error:', a non-zero exit, no traceback."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode != 0, result.stdout
    if code is not None:
        assert result.returncode == code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("memlode: error: "), result.stderr


@pytest.fixture
def bm25_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Full-text (BM25) search only: no embedder in these tests.

    Hybrid recall, with its dense and graph signals, is tested with its own capability.
    """
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "none")


@pytest.fixture
def clean_error() -> Callable[..., None]:
    return check_clean_error


@pytest.fixture
def db(memlode_home: Path) -> DbView:
    """The default database of the isolated home."""
    return DbView(memlode_home / "memlode.db")


@pytest.fixture
def dbview() -> Callable[[Path], DbView]:
    return DbView


@pytest.fixture
def store(cli: Any, workdir: Path) -> Callable[..., str]:
    """``store("text", "--type", "decision")`` through the CLI (namespace 'proj'); the id."""

    def _store(content: str, *args: str) -> str:
        result = cli("store", content, *args)
        assert result.returncode == 0, result.stderr
        memory_id: str = result.stdout.strip()
        return memory_id

    return _store
