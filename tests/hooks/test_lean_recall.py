"""The prompt hook's lean recall (``memlode.hooks._recall``): its crude stemmer
(``memlode.textutil.stem``, which the supersede rules share), and its BM25
candidates on a store larger than the scoring budget, where the rarest terms choose the rows:
the same rows, with the whole query's exact scores, as the unpruned query gives."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlode.config import Settings
from memlode.engine import Engine
from memlode.hooks import _recall
from memlode.search import fts
from memlode.textutil import stem


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("iesdngly"), min_size=1, max_size=9))
def test_recall_stem_matches_the_suffix_regex(term: str) -> None:
    import re

    expected = term
    if len(term) > 4:
        expected = re.sub(r"(?:ies|(?<!e)es|s|ed|ing|ly)$", "", term)  # "trees": tree + s
    elif len(term) == 4:
        expected = re.sub(r"(?<=..[^s])s$", "", term)
    expected = re.sub(r"(?<=...)[ey]$", "", expected)
    expected = re.sub(r"(?<=.)([dng])\1$", r"\1", expected)  # a doubled consonant, but l or s
    assert stem(term) == expected


def test_recall_stem_joins_the_forms_of_a_word() -> None:
    assert {stem(w) for w in ("close", "closes", "closed", "closing")} == {"clos"}
    assert stem("queries") == stem("query") == "quer"
    # "-ees" is "-ee" and an s: "a leftover worktree" meets ".claude/worktrees/…"
    for word in ("worktree", "tree", "degree", "employee"):
        assert stem(word) == stem(word + "s"), word
    assert stem("used") == "used"  # four letters or fewer: no suffix cut but "s"
    # a word of four letters meets its plural: "rule" / "rules" (a question's "branch
    # protection rules" and git's "Bypassed rule violations"), "file" / "files", "day" / "days"
    for word, plural in [("rule", "rules"), ("file", "files"), ("day", "days"), ("key", "keys")]:
        assert stem(word) == stem(plural), word
    assert stem("class") == "clas" and stem("pass") == "pass"
    # the consonant an "-ing" or "-ed" doubles: "was it committed?" meets "git commit"
    for word, form in [
        ("commit", "committed"),
        ("run", "running"),
        ("add", "added"),
        ("stop", "stopped"),
        ("plan", "planning"),
        ("put", "putting"),
    ]:
        assert stem(word) == stem(form), word
    assert stem("fill") == stem("filled") == "fill" and stem("buzz") == "buzz"


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
    conn = _large_store(tmp_path)
    prompt = "why does the zebrafish deploy touch the server config cache"
    terms = _recall._gate_terms(prompt)
    wanted = _recall.CANDIDATES * fts._OVERFETCH
    expressions = _recall._expressions(conn, terms)
    assert len(expressions) == 2  # pruned: the store is larger than the budget
    assert expressions == fts._expressions(conn, terms, wanted, fts.SCORING_BUDGET, None)

    def best(count: int) -> list[tuple[str, float]]:
        return [(r[0], r[7]) for r in _recall._candidates(conn, terms, "ns", "s")[:count]]

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


def test_recall_stem_reads_british_spellings_as_american() -> None:
    """Tool output is mostly American English; the person asking may write British English."""
    for british, american in [
        ("cancelled", "canceled"),
        ("cancelling", "canceling"),
        ("colour", "color"),
        ("colours", "colors"),
        ("behavioural", "behavioral"),
        ("initialised", "initialized"),
        ("initialisation", "initialization"),
        ("serialising", "serializing"),
        ("analyse", "analyze"),
        ("centre", "center"),
        ("licence", "license"),
        ("catalogue", "catalog"),
        ("modelling", "modeling"),
        ("labelled", "labeled"),
        ("grey", "gray"),
    ]:
        assert stem(british) == stem(american), british
    # a rule for every "-our" or "-ise" would join words that differ
    assert stem("four") != stem("for") and stem("hour") == "hour"
    assert stem("promise") == "promis" and stem("installed") == stem("install") == "install"
