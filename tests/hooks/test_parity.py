"""The hooks keep their own lean copies of a few rules (settings, the FTS query, the memory
row). These tests hold each copy to the original, so they cannot drift apart. Namespace
detection is not copied: the hooks import ``memlode.project`` itself."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlode import textutil
from memlode.config import Settings
from memlode.engine import Engine
from memlode.hooks import _lean, _recall, _store
from memlode.hooks._settings import HookSettings
from memlode.search import fts


@pytest.mark.parametrize(
    "text",
    [
        "Why does login 401?",
        "getUserName in HTTPServer_config and the snake_case_name",
        "what about the the of and",
        'quotes " and NEAR * ^ : ( ) operators',
        "ünïcödé wörds and 数字 42",
    ],
)
def test_query_terms_agree_with_fts(text: str) -> None:
    assert _recall.STOPWORDS == fts.STOPWORDS
    assert _recall.query_terms(text) == fts.query_terms(text)


def test_settings_agree(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    cases: list[tuple[dict[str, str], str]] = [
        ({"MEMLODE_HOME": str(home)}, ""),
        ({"MEMLODE_HOME": str(home), "MEMLODE_DB": str(tmp_path / "x.db")}, ""),
        ({"MEMLODE_HOME": str(home), "MEMLODE_NAMESPACE": "ns1"}, 'namespace = "cfg"\n'),
        ({"MEMLODE_HOME": str(home)}, f'namespace = "cfg"\ndb_path = "{tmp_path / "c.db"}"\n'),
    ]
    for env, config in cases:
        (home / "config.toml").write_text(config)
        ours = HookSettings(env)
        theirs = Settings.load(environ=env)
        assert Path(ours.home) == theirs.home
        assert Path(ours.db_path) == theirs.database
        assert ours.namespace == theirs.namespace


def test_hook_settings_table_and_bad_config(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text(
        "[hooks]\ncapture = false\nprompt_budget_tokens = 99\ntools = ['Edit']\n"
    )
    settings = HookSettings({"MEMLODE_HOME": str(home)})
    assert (settings.capture, settings.inject, settings.prompt_budget_tokens) == (False, True, 99)
    assert settings.tools == frozenset({"Edit"})
    assert HookSettings({"MEMLODE_HOME": str(home), "MEMLODE_HOOKS_CAPTURE": "1"}).capture
    (home / "config.toml").write_text("not [valid toml")
    broken = HookSettings({"MEMLODE_HOME": str(home)})
    assert broken.config_error and broken.capture and broken.enabled


def test_rows_written_by_hooks_read_back_through_the_engine(memlode_home: Path) -> None:
    settings = Settings.load({"namespace": "p", "embed_provider": "none"})
    with Engine(settings) as engine:
        conn = _store.open_db(str(settings.database))
        with _store.write(conn):
            memory_id, created = _store.insert_memory(
                conn,
                content="Edited src/authService.py: getUserToken expiry",
                memory_type="decision",
                importance=0.45,
                tags=["edit", "file:src/authService.py"],
                metadata={"tool": "Edit"},
                namespace="p",
                source="hook",
                session_id="s1",
            )
            _store.start_session(conn, "s1", "p", "claude-code", {"transcript_path": "/t"})
        conn.close()
        assert created
        memory = engine.get(memory_id, touch=False)
        assert memory.tags == ["edit", "file:src/authService.py"]
        assert memory.metadata == {"tool": "Edit"}
        assert memory.created_at == memory.updated_at and len(memory.created_at) == 27
        # the same content stored through the engine is the same memory (same hash rule)
        again = engine.store(memory.content, "decision", namespace="p", source="hook")
        assert (again.id, again.created) == (memory_id, False)
        # identifier parts are searchable, as for rows the engine writes
        assert [h.memory.id for h in engine.search("user token", namespace="p")] == [memory_id]
        session = engine.sessions(namespace="p")[0]
        assert (session.id, session.source, session.metadata) == (
            "s1",
            "claude-code",
            {"transcript_path": "/t"},
        )


def test_open_db_creates_and_migrates_a_missing_database(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "m.db"
    conn = _store.open_db(str(path))
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"memories", "sessions", "graph_nodes", "graph_edges"} <= tables
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == _store.BUSY_TIMEOUT_MS
    conn.close()
    # an existing file without memlode's schema (or behind it) goes through the migrations
    other = tmp_path / "other.db"
    raw = sqlite3.connect(other)
    raw.execute("CREATE TABLE unrelated (x)")
    raw.commit()
    raw.close()
    conn = _store.open_db(str(other))
    assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
    conn.close()
    assert json.dumps(_store.new_id()).count("-") == 4


JSON_VALUES = [
    {"b": 1, "a": ["é", 1.5, None, True, False, -3], "c": {"z": '\u2028 " \\ \n'}},
    ["x", "y"],
    "plain",
    {},
    [],
    123456789012345678901234567890,
    0.1,
]


@pytest.mark.parametrize("value", JSON_VALUES)
def test_lean_json_matches_json(value: object) -> None:
    for sort_keys in (True, False):
        for ensure_ascii in (True, False):
            expected = json.dumps(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
            got = _lean.dumps(value, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
            assert got == expected
            assert _lean.loads(" \n" + expected + "\t ") == json.loads(expected)


@pytest.mark.parametrize("text", ["", "not json", "{1", "[1] x", '{"a": }', "\ufeff{}", "nul"])
def test_lean_loads_rejects_what_json_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        _lean.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        "Read auth.py lines 1-3 of 3; defines login",
        "getUserName HTTPServer parseJSON2 x86_64",
        "Python3 and abc2 and ABC2 and Read2",
        "Ünïcode Straße ΑΒΓ",
        "a_Foo and _Bar and foo_Bar",
        "exp=3600 exp=60",
        "$ pytest -q\n[stdout]\n3 passed",
        "",
    ],
)
def test_lean_text_helpers_match_textutil(text: str) -> None:
    assert _lean.content_hash(text) == textutil.content_hash(text)
    assert _lean.search_terms(text) == textutil.search_terms(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZbY09_ .-é\nQx"), max_size=40) | st.text(max_size=40))
def test_lean_search_terms_fuzz(text: str) -> None:
    assert _lean.search_terms(text) == textutil.search_terms(text)


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from("aAbBHTz09_ .-\n"), max_size=60))
def test_lean_search_terms_ascii_fuzz(text: str) -> None:
    """The ASCII path splits identifiers without ``re``: capital runs, digit seams, "_"."""
    assert _lean.search_terms(text) == textutil.search_terms(text)
    assert _lean.search_terms(text, limit=3) == textutil.search_terms(text, limit=3)


def test_lean_loads_errors_in_a_fresh_interpreter() -> None:
    """In a hook process json.decoder is not imported; syntax errors must still be ValueErrors."""
    import subprocess
    import sys

    script = (
        "from memlode.hooks._lean import loads\n"
        "for bad in ['{truncated', '{\"a\": }', 'nul', '[1,', '\"abc', 'x']:\n"
        "    try:\n"
        "        loads(bad)\n"
        "    except ValueError:\n"
        "        continue\n"
        "    raise SystemExit('parsed ' + bad)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, "")


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from("aAbBHTz09_ .-\n"), max_size=60) | st.text(max_size=30))
def test_lean_words_and_identifier_parts_match_textutil(text: str) -> None:
    assert _lean.words(text) == textutil.words(text)
    for token in textutil.words(text):
        assert _lean.identifier_parts(token) == textutil.identifier_parts(token)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("iesdngly"), min_size=1, max_size=9))
def test_recall_stem_matches_the_suffix_regex(term: str) -> None:
    import re

    expected = term
    if len(term) > 4:
        expected = re.sub(r"(?:ies|es|s|ed|ing|ly)$", "", term)
        expected = re.sub(r"(?<=...)[ey]$", "", expected)
    assert _recall._stem(term) == expected


def test_recall_stem_joins_the_forms_of_a_word() -> None:
    assert {_recall._stem(w) for w in ("close", "closes", "closed", "closing")} == {"clos"}
    assert _recall._stem("queries") == _recall._stem("query") == "quer"
    assert _recall._stem("used") == "used"  # four letters or fewer: as it is


def _large_store(tmp_path: Path) -> sqlite3.Connection:
    """A real store with more rows than the scoring budget: common words everywhere, a rare
    word in a few rows (inserted in bulk; the FTS triggers index them as usual)."""
    Engine(Settings.load({"home": str(tmp_path), "embed_provider": "none"})).close()
    conn = sqlite3.connect(tmp_path / "memlode.db")
    now = "2026-11-22T00:00:00.000000Z"
    common = ["deploy", "server", "config", "cache", "queue", "token"]
    rows = []
    for i in range(fts.SCORING_BUDGET + 1_500):
        words = [common[(i + j) % len(common)] for j in range(1 + i % 4)]
        if i % 500 == 7:
            words += ["zebrafish"] * (1 + i % 3)
        rows.append((f"m{i}", " ".join(words) + f" note {i}", f"h{i}", "ns", now, now))
    with conn:
        conn.executemany(
            "INSERT INTO memories (id, content, content_hash, namespace, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
    return conn


def test_hook_pruning_agrees_with_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _recall.SCORING_BUDGET == fts.SCORING_BUDGET
    assert _recall._OVERFETCH == fts._OVERFETCH
    conn = _large_store(tmp_path)
    prompt = "why does the zebrafish deploy touch the server config cache"
    terms = _recall._gate_terms(prompt)
    wanted = _recall.CANDIDATES * fts._OVERFETCH
    expressions = _recall._expressions(conn, terms)
    assert len(expressions) == 2  # pruned: the store is larger than the budget
    assert expressions == fts._expressions(conn, terms, wanted, fts.SCORING_BUDGET, None)

    def best(count: int) -> list[tuple[str, float]]:
        return [(r[0], r[6]) for r in _recall._candidates(conn, terms, "ns", "s")[:count]]

    def hits() -> list[tuple[str, float]]:
        return [(r.id, r.score) for r in _recall.recall(conn, prompt, "ns", "s", limit=10)]

    pruned, pruned_hits = best(10), hits()
    monkeypatch.setattr(_recall, "SCORING_BUDGET", 10**9)  # the whole OR query, unpruned
    assert len(_recall._expressions(conn, terms)) == 1
    whole, whole_hits = best(10), hits()
    # the same rows with the whole query's exact bm25, and the same memories recalled
    assert [i for i, _ in pruned] == [i for i, _ in whole]
    assert [b for _, b in pruned] == pytest.approx([b for _, b in whole], rel=1e-9)
    assert pruned_hits and [i for i, _ in pruned_hits] == [i for i, _ in whole_hits]
