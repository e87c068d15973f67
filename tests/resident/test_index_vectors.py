"""`memlode index` returns once the structure is stored and leaves the symbols' vectors to the
store's resident process, which it starts: symbol search answers on text at once and finds code
by its body once the vectors landed; `memlode doctor` counts what still waits.

Real processes in the test's home (the resident conftest turns autostart on and stops every
resident at the end), the deterministic hash embedder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.code.test_symbol_vectors import APP  # the same small project
from tests.resident.support import memlode, ping, wait_until

# Generous: the hash embedder makes the five vectors in milliseconds once the resident runs.
TIMEOUT = 60.0


@pytest.fixture
def shop(workdir: Path) -> Path:
    (workdir / "tests").mkdir()
    (workdir / "app.py").write_text(APP)
    (workdir / "tests" / "test_app.py").write_text("def test_quote():\n    assert True\n")
    return workdir


def _json(*args: str, cwd: Path) -> Any:
    done = memlode(*args, "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _doctor_vectors(cwd: Path) -> dict[str, Any]:
    """`memlode doctor --json`'s symbol vectors (doctor exits 1 here: no hooks installed)."""
    done = memlode("doctor", "--json", cwd=cwd)
    state: dict[str, Any] = json.loads(done.stdout)["database"]["symbol_vectors"]
    return state


def _names(hits: list[dict[str, Any]]) -> list[str]:
    return [h["qualified_name"] for h in hits]


def test_index_returns_before_the_vectors_and_the_resident_embeds_them(
    shop: Path, memlode_home: Path
) -> None:
    # the structure alone first: no vector yet, nobody to make them
    bare = _json("index", "--no-embed", cwd=shop)
    assert bare["symbol_vectors"]["by"] is None and "embedding" not in bare
    symbols = bare["symbol_vectors"]["symbols"]
    assert symbols == bare["symbols"] == 5  # three functions, RATES, the test
    waiting = _doctor_vectors(shop)
    assert (waiting["pending"], waiting["symbols"], waiting["resident_running"]) == (5, 5, False)
    assert ping(memlode_home) is None
    # symbol search answers on the text: by name, not yet by a body's words
    assert _names(_json("symbols", "quote", cwd=shop))[0] == "app.quote"
    assert _json("symbols", "islands villages", cwd=shop) == []

    # a plain index leaves the vectors to a resident it starts, and returns
    handed = _json("index", cwd=shop)
    assert "embedding" not in handed  # this run embedded nothing
    state = handed["symbol_vectors"]
    assert (state["by"], state["started"], state["pending"]) == ("resident", True, symbols)
    assert wait_until(lambda: ping(memlode_home) is not None, TIMEOUT)
    answered = ping(memlode_home)
    assert answered is not None and answered["pid"] == state["resident_pid"]

    # the resident works them off; doctor counts down to none
    assert wait_until(lambda: _doctor_vectors(shop)["pending"] == 0, TIMEOUT)
    done = _doctor_vectors(shop)
    assert done["resident_running"] and done["model"] == state["model"]
    text = memlode("doctor", cwd=shop).stdout
    assert "code    5 symbols, none waiting for a vector" in text
    # and symbol search now finds quote by the words of its body, its vector counting
    hits = _json("symbols", "islands villages", "--explain", cwd=shop)
    assert _names(hits)[0] == "app.quote"
    assert hits[0]["signals"]["vector"] > 0 and hits[0]["signals"]["body"] > 0
    assert _names(_json("symbols", "quote", cwd=shop))[0] == "app.quote"
    # a second run finds nothing left to hand over
    again = _json("index", cwd=shop)
    assert again["symbol_vectors"]["pending"] == 0 and again["symbol_vectors"]["by"] is None


def test_without_autostart_the_index_embeds_them_itself(
    shop: Path, memlode_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMLODE_RESIDENT_AUTOSTART", "0")
    report = _json("index", cwd=shop)
    state = report["symbol_vectors"]
    assert (state["by"], state["pending"]) == ("index", 0)
    assert state["why_not_resident"] == "no resident runs and [resident] autostart is off"
    assert report["embedding"]["embedded"] == 4  # the test is not embedded
    assert ping(memlode_home) is None
    shown = memlode("doctor", cwd=shop).stdout
    assert "code    5 symbols, none waiting for a vector" in shown


def test_wait_embeds_here_with_a_resident_running(shop: Path, memlode_home: Path) -> None:
    assert memlode("resident", cwd=shop).returncode == 0
    report = _json("index", "--wait", cwd=shop)
    assert report["embedding"]["embedded"] == 4
    assert report["symbol_vectors"]["by"] == "index" and report["symbol_vectors"]["pending"] == 0
    refused = memlode("index", "--wait", "--no-embed", cwd=shop)
    assert refused.returncode == 2 and "exclude each other" in refused.stderr
