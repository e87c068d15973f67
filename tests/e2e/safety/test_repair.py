"""``memlode doctor --repair`` (issue 16, item 9), through the real CLI.

A store with memories, vectors, token states and indexed code is damaged on disk (closed) the
ways derived state goes wrong -- FTS rows deleted, centrality gone, the vector mirror deleted or
garbled, code edges lost, the change log emptied -- then repaired: every search answers as
before and every content table is as before. Rows that cannot be read are removed when derived
(and made again by ``memlode embed``) and reported, untouched, when stored.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from tests.conftest import process_environment

BENCH = Path(__file__).resolve().parents[3] / "bench" / "bench_kill.py"
NS = "bk"
CODE = "code"
SEARCHES = [
    ["search", "caching layer shard 42", "-n", NS],
    ["search", "retry 5 payments", "-n", NS],
    ["search", "note about", "-n", NS, "--k", "25"],
    ["symbols", "pagerank", "-n", CODE],
    ["impact", "pagerank", "-n", CODE],
    ["graph", "pagerank", "-n", CODE],
]


def _load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_kill", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_kill", module)
    spec.loader.exec_module(module)
    return module


bk = _load_bench()


class Cli:
    def __init__(self, run: Callable[..., Any]) -> None:
        self.run = run

    def ok(self, *args: str) -> Any:
        done = self.run(*args)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if "--json" in args else done.stdout


@pytest.fixture
def memlode(cli: Callable[..., Any]) -> Cli:
    return Cli(cli)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with memories (with vectors and token states), a few links, and indexed code,
    built once for the module through the CLI; ``store`` gives each test a copy of it."""
    base = tmp_path_factory.mktemp("repair")
    home = base / "memlode-home"
    lines = [json.dumps({"kind": "header", "format": "memlode-jsonl", "version": 1})]
    words = ["caching", "payments", "retry", "schema", "tokens"]
    for i in range(300):
        content = f"note {i} about the {words[i % 5]} layer, shard {i * 7 % 113}, retry {i % 17}"
        lines.append(
            json.dumps(
                {
                    "kind": "memory",
                    "id": f"m{i:04d}",
                    "content": content,
                    "namespace": NS,
                    "tags": [words[i % 5]],
                    "created_at": "2026-01-01T00:00:00.000000Z",
                }
            )
        )
    for i in range(0, 60, 3):
        lines.append(
            json.dumps(
                {
                    "kind": "edge",
                    "source_id": f"m{i:04d}",
                    "target_id": f"m{i + 1:04d}",
                    "relationship": "RELATES_TO",
                }
            )
        )
    (base / "fill.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    project = bk.copy_code(base / "project", ("graph",))
    for args in (
        ["import", str(base / "fill.jsonl")],
        ["embed"],
        ["index", str(project), "-n", CODE],
        ["graph", "recompute", "-n", NS],  # memory nodes' centrality too
    ):
        done = subprocess.run(
            [sys.executable, "-m", "memlode", *args, "--json"],
            env=process_environment(home),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    return home


@pytest.fixture
def store(built: Path, memlode_home: Path) -> Path:
    """A copy of the ``built`` home as this test's home (the store is closed), without its
    vector mirror: mirror files are keyed by the database's path, so the copied ones belong to
    the ``built`` store and this one's own searches write its mirror."""
    shutil.copytree(built, memlode_home, ignore=shutil.ignore_patterns("cache"))
    return memlode_home / "memlode.db"


def _answers(memlode: Cli) -> list[Any]:
    """Every search's results (scores to 4 places: recency moves with the clock)."""
    out = []
    for args in SEARCHES:
        result = memlode.ok(*args, "--json")
        out.append(json.loads(json.dumps(result), parse_float=lambda s: round(float(s), 4)))
    return out


def _sql(db: Path, *statements: str) -> None:
    with closing(sqlite3.connect(db)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.commit()


def _mirror(home: Path) -> list[Path]:
    return sorted((home / "cache").glob("vectors-*"))


def test_repair_rebuilds_every_derived_index_and_search_answers_as_before(
    store: Path, memlode_home: Path, memlode: Cli
) -> None:
    before = _answers(memlode)
    snapshot = bk.snapshot(store)
    mirror = _mirror(memlode_home)
    assert mirror, "the searches wrote the vector mirror"
    _sql(
        store,
        # FTS rows of every seventh memory and every fifth symbol go missing
        "INSERT INTO memories_fts (memories_fts, rowid, content, tags, search_terms,"
        " context_near, context_far) SELECT 'delete', rowid, content, tags, search_terms,"
        " context_near, context_far FROM memories WHERE rowid % 7 = 0",
        "INSERT INTO code_symbols_fts (code_symbols_fts, rowid, name, name_parts,"
        " qualified_name, doc, signature) SELECT 'delete', id, name, name_parts, qualified_name,"
        " doc, signature FROM code_symbols WHERE id % 5 = 0",
        "DELETE FROM graph_centrality",
        "DELETE FROM graph_edges WHERE relationship IN ('CALLS', 'CONTAINS')",
        "DELETE FROM memories_fts_log",
    )
    for path in mirror:  # the mirror garbled, and half of it gone
        if path.suffix == ".json":
            path.write_text('{"format": 2, "version": 1, "ids": [')
        else:
            path.unlink()
    checked = memlode.run("doctor", "--json")
    derived = json.loads(checked.stdout)["database"]["derived"]
    assert derived["fts"]["memories_fts"]["stale"] and derived["fts"]["code_symbols_fts"]["stale"]
    assert any("memories_fts" in p for p in json.loads(checked.stdout)["problems"])
    damaged = memlode.run(*SEARCHES[0], "--json")
    assert damaged.returncode != 0 or json.loads(damaged.stdout) != before[0]

    report = memlode.ok("doctor", "--repair", "--json")
    assert report["ok"] and report["problems"] == []
    assert report["integrity_before"] == ["ok"] and report["integrity_after"] == ["ok"]
    assert report["fts_integrity"] == {"memories_fts": "ok", "code_symbols_fts": "ok"}
    assert not report["rebuilt"]["fts"]["memories_fts"]["stale"]
    assert report["rebuilt"]["vectors"]["rows"] == 300
    assert set(report["rebuilt"]["graph"]) == {NS, CODE}
    assert report["removed"]["embeddings"]["count"] == 0 and report["unreadable"]["count"] == 0
    assert _mirror(memlode_home), "the mirror is written again"
    meta = json.loads(next(p for p in _mirror(memlode_home) if p.suffix == ".json").read_text())
    assert len(meta["ids"]) == 300
    assert bk.differences(bk.snapshot(store), snapshot) == []
    assert _answers(memlode) == before
    derived = json.loads(memlode.run("doctor", "--json").stdout)["database"]["derived"]
    assert [p["stale"] for p in derived["fts"].values()] == [False, False]
    assert derived["stale_graphs"] == {}


def test_repair_of_an_intact_store_changes_no_content(
    store: Path, memlode_home: Path, memlode: Cli
) -> None:
    before = _answers(memlode)
    snapshot = bk.snapshot(store)
    report = memlode.ok("doctor", "--repair", "--json")
    assert report["ok"]
    assert bk.differences(bk.snapshot(store), snapshot) == []
    assert _answers(memlode) == before
    text = memlode.ok("doctor", "--repair")
    assert "rebuilt memories_fts: 300 rows" in text and text.rstrip().startswith("repair")


def test_repair_removes_unreadable_derived_rows_and_reports_stored_ones(
    store: Path, memlode_home: Path, memlode: Cli
) -> None:
    _sql(
        store,
        "UPDATE memory_embeddings SET vector = X'00010203' WHERE memory_id = 'm0003'",
        "UPDATE memory_tokens SET states = X'01' WHERE memory_id = 'm0004'",
        "UPDATE memories SET metadata = '{broken' WHERE id = 'm0005'",
        "UPDATE memories SET tags = '\"not a list\"' WHERE id = 'm0006'",
        "UPDATE memories SET content = CAST(X'80FF41' AS TEXT) WHERE id = 'm0009'",
        "UPDATE graph_nodes SET properties = '[1' WHERE id = 'm0000'",
    )
    failed = memlode.run("doctor", "--repair", "--json")
    assert failed.returncode == 1
    report = json.loads(failed.stdout)
    assert report["integrity_after"] == ["ok"] and not report["ok"]
    assert [r["id"] for r in report["removed"]["embeddings"]["rows"]] == ["m0003"]
    assert [r["id"] for r in report["removed"]["token_states"]["rows"]] == ["m0004"]
    unreadable = {(r["table"], r["id"], r["problem"]) for r in report["unreadable"]["rows"]}
    assert unreadable == {
        ("memories", "m0005", "metadata is not a JSON object"),
        ("memories", "m0006", "tags are not a JSON list of strings"),
        ("memories", "m0009", "content is not UTF-8"),
        ("graph_nodes", "m0000", "properties is not a JSON object"),
    }
    assert report["unreadable"]["count"] == 4
    assert any("4 stored values cannot be read" in p for p in report["problems"])
    with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as conn:
        kept = conn.execute("SELECT metadata FROM memories WHERE id = 'm0005'").fetchone()[0]
        assert kept == "{broken"  # the user's data is reported, never changed
        missing = conn.execute(
            "SELECT count(*) FROM memory_embeddings WHERE memory_id = 'm0003'"
        ).fetchone()[0]
        assert missing == 0
    embedded = memlode.ok("embed", "--json")  # makes the removed vector and states again
    assert embedded["pending"] == 0 and embedded["pending_token_states"] == 0
    with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as conn:
        for table, memory in (("memory_embeddings", "m0003"), ("memory_tokens", "m0004")):
            found = conn.execute(f"SELECT count(*) FROM {table} WHERE memory_id = ?", (memory,))
            assert found.fetchone()[0] == 1
    hits = memlode.ok(
        "search", "note 3 payments shard 21 retry 3", "-n", NS, "-k", "50", "--explain", "--json"
    )
    assert [h["signals"]["vector"] > 0 for h in hits if h["id"] == "m0003"] == [True]


def test_repair_of_a_home_without_a_store_says_so(memlode_home: Path, memlode: Cli) -> None:
    done = memlode.run("doctor", "--repair")
    assert done.returncode == 1 and "nothing to repair" in done.stderr
    assert not (memlode_home / "memlode.db").exists()
