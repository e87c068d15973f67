"""What the resident answers is the engine's own answer: a recall through the socket ranks as
`memlode search` does, and `memlode search` prints the same with the resident up or down."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.resident.support import memlode, ping, request, wait_ready

from memlode.engine import Engine, supersession
from memlode.hooks._resident import recall

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

QUERIES = [
    "postgres connection pooling pgbouncer",
    "why do session tokens live in redis?",
    "billing invoices retry backoff",
    "connection timeouts pool size",
]


def _search_json(workdir: Path, query: str, *flags: str) -> list[dict[str, Any]]:
    done = memlode("search", query, "--json", "--explain", *flags, cwd=workdir)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert isinstance(found, list)
    return found


def _answered(home: Path) -> int:
    info = ping(home)
    assert info is not None
    return int(info["answered"])


def test_recall_through_the_socket_ranks_as_memlode_search(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    reference = {q: _search_json(workdir, q, "-k", "5") for q in QUERIES}  # in-process
    assert memlode("resident", cwd=workdir).returncode == 0
    wait_ready(memlode_home)
    db = str(filled.db.path)
    for query, expected in reference.items():
        hits = recall(str(memlode_home), db, query, filled.namespace, "no-such-session", 5, 5000)
        assert hits is not None
        assert [h["id"] for h in hits] == [e["id"] for e in expected], query
        for hit, want in zip(hits, expected, strict=True):
            assert hit["score"] == pytest.approx(want["score"], abs=1e-5)
            assert hit["content"] == want["content"]
            assert hit["memory_type"] == want["memory_type"]
            assert hit["source"] == want["source"] and hit["tags"] == want["tags"]
            assert hit["created_at"] == want["created_at"]
            assert hit["importance"] == want["importance"]
            signals = dict(hit["signals"])
            cosine = signals.pop("cosine")
            assert signals == pytest.approx(want["signals"], abs=1e-5)
            assert -1.0 <= cosine <= 1.0
            assert (cosine > 0) == (want["signals"].get("vector", 0) > 0)


def test_recall_leaves_out_the_asking_session_and_still_fills_k(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    for i in range(6):  # the asking session's own rows would take the top places
        filled.store(
            f"postgres pgbouncer connection pooling note {i} of this session",
            "context",
            session_id="asking",
        )
    filled.embed_pending()
    assert memlode("resident", cwd=workdir).returncode == 0
    wait_ready(memlode_home)
    db = str(filled.db.path)
    query = "postgres pgbouncer connection pooling"
    everyone = recall(str(memlode_home), db, query, filled.namespace, "someone-else", 4, 5000)
    assert everyone is not None and any("this session" in h["content"] for h in everyone)
    mine = recall(str(memlode_home), db, query, filled.namespace, "asking", 4, 5000)
    assert mine is not None and len(mine) == 4
    assert all(h["session_id"] != "asking" for h in mine)
    # The engine's own ranking with that session's rows filtered out, as a -t filter would.
    expected = filled.search(query, 4, exclude_session="asking")
    assert [h["id"] for h in mine] == [h.memory.id for h in expected]
    ranked = _search_json(workdir, query, "-k", "40")
    assert {h["id"] for h in mine} <= {h["id"] for h in ranked if h["session_id"] != "asking"}


def test_memlode_search_prints_the_same_through_the_resident(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    # a replaced memory is marked the same way on both paths
    hits = filled.search("login tokens expire after one hour", 1)
    newer = filled.store("login tokens now expire after two hours", "decision").id
    supersession.supersede(filled.db, hits[0].memory.id, newer)
    filled.embed_pending()
    cases = [
        [],
        ["-k", "3"],
        ["-t", "decision"],
        ["--source", "memory", "-k", "2"],
        ["-n", "*"],
    ]
    local = {
        (q, tuple(c)): memlode("search", q, "--explain", *c, cwd=workdir)
        for q in QUERIES[:2]
        for c in cases
    }
    local_json = {q: _search_json(workdir, q) for q in QUERIES}
    assert any(" by " + newer + ")" in done.stdout for done in local.values())
    assert any(h.get("replaced_by") == newer for found in local_json.values() for h in found)
    assert memlode("resident", cwd=workdir).returncode == 0
    wait_ready(memlode_home)
    before = _answered(memlode_home)
    for (query, flags), expected in local.items():
        got = memlode("search", query, "--explain", *flags, cwd=workdir)
        assert got.returncode == expected.returncode == 0
        assert _scoreless(got.stdout) == _scoreless(expected.stdout)
        assert _scores(got.stdout) == pytest.approx(_scores(expected.stdout), abs=2e-3)
    for query, expected_json in local_json.items():
        got_json = _search_json(workdir, query)
        assert _without_scores(got_json) == _without_scores(expected_json)
        for got_hit, want_hit in zip(got_json, expected_json, strict=True):
            assert got_hit["score"] == pytest.approx(want_hit["score"], abs=1e-5)
            assert got_hit["signals"] == pytest.approx(want_hit["signals"], abs=1e-5)
    assert _answered(memlode_home) == before + len(local) + len(local_json)


def test_search_errors_and_other_settings_fall_back_to_the_same_output(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    assert memlode("resident", cwd=workdir).returncode == 0
    wait_ready(memlode_home)
    # Another embedder in the CLI's environment: the resident declines, the CLI searches here.
    plain = memlode(
        "search", "pgbouncer pooling", "--json", cwd=workdir, env={"MEMLODE_EMBED_PROVIDER": "none"}
    )
    assert plain.returncode == 0 and "pgbouncer" in plain.stdout
    # Bad input: the same one-line error as without a resident.
    bad = memlode("search", "pgbouncer", "-t", "nonsense", cwd=workdir)
    assert bad.returncode == 1 and bad.stderr.startswith("memlode: error: ")
    assert len(bad.stderr.strip().splitlines()) == 1


def test_vector_search_and_status_answer(workdir: Path, memlode_home: Path, filled: Engine) -> None:
    assert memlode("resident", cwd=workdir).returncode == 0
    info = wait_ready(memlode_home)
    db = info["db"]
    found = request(
        memlode_home,
        {"op": "vector_search", "db": db, "query": "pgbouncer", "namespace": filled.namespace},
    )
    assert found is not None and found["hits"] and 0 < found["hits"][0]["score"] <= 1
    status = request(memlode_home, {"op": "status", "db": db})
    assert status is not None and status["pending_embeddings"] == 0
    assert status["background_embedder"]["state"] in ("idle", "embedding", "starting")
    shown = memlode("resident", "status", cwd=workdir)
    assert shown.returncode == 0 and f"pid {info['pid']}" in shown.stdout


def test_rows_stored_by_hooks_get_embedded_by_the_resident(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    assert memlode("resident", cwd=workdir).returncode == 0
    info = wait_ready(memlode_home)
    payload = {
        "session_id": "s-9",
        "cwd": str(workdir),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "remember that the staging database runs postgres sixteen",
    }
    from tests.resident.support import hook, wait_until

    assert hook("prompt", payload, cwd=workdir).returncode == 0  # stores the prompt, asks

    def embedded() -> bool:
        status = request(memlode_home, {"op": "status", "db": info["db"]})
        return status is not None and status["pending_embeddings"] == 0

    assert wait_until(embedded, 30)


_SCORE = re.compile(r"score=(-?\d+\.\d+)")


def _scoreless(text: str) -> str:
    text = _SCORE.sub("score=?", text)
    return re.sub(r"(\w+)=(-?\d+\.\d+)", r"\1=?", text)


def _scores(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"=(-?\d+\.\d+)", text)]


def _without_scores(hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in h.items() if k not in ("score", "signals")} for h in hits]


def test_background_embedding_waits_while_queries_come_in(
    workdir: Path, memlode_home: Path, filled: Engine
) -> None:
    import threading
    import time

    from tests.resident.support import wait_until

    assert memlode("resident", cwd=workdir).returncode == 0
    info = wait_ready(memlode_home)
    db = str(filled.db.path)
    stop = threading.Event()

    def ask_again_and_again() -> None:
        while not stop.is_set():
            recall(str(memlode_home), db, "pgbouncer pool", filled.namespace, "s", 4, 5000)
            time.sleep(0.2)

    asker = threading.Thread(target=ask_again_and_again)
    asker.start()
    try:
        time.sleep(0.5)
        for i in range(5):
            filled.store(f"a new note number {i} about connection pools", "context")

        def pending() -> int:
            status = request(memlode_home, {"op": "status", "db": info["db"]})
            assert status is not None
            return int(status["pending_embeddings"])

        time.sleep(3.0)  # the worker wakes on every request and defers
        assert pending() == 5
    finally:
        stop.set()
        asker.join()
    assert wait_until(lambda: pending() == 0, 30)  # quiet: the rows are embedded
