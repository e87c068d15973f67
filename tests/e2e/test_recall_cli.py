"""Recall commands through the real entry point: weights, embedding upkeep, explained search."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_weights_round_trip_and_bad_input(cli, workdir: Path) -> None:
    result = cli("config", "set-weights", "bm25=2", "vector=2", "--replace", "--json", cwd=workdir)
    assert result.returncode == 0, result.stderr
    weights = result.json()
    assert weights["bm25"] == pytest.approx(0.5) and weights["graph"] == 0
    got = cli("config", "get-weights", "--json", cwd=workdir).json()
    assert got == pytest.approx(weights)
    for bad in (["nonsense=1"], ["bm25"], ["bm25=abc"], ["bm25=-1"]):
        failed = cli("config", "set-weights", *bad, cwd=workdir)
        assert failed.returncode == 1, bad
        assert failed.stderr.startswith("memlode: error:") and "Traceback" not in failed.stderr
        assert len(failed.stderr.strip().splitlines()) == 1
    assert cli("config", "get-weights", "--json", cwd=workdir).json() == pytest.approx(weights)
    reset = cli("config", "set-weights", "reset", "--json", cwd=workdir).json()
    assert reset["vector"] > 0 and reset["graph"] > 0


def test_embed_reembed_and_explained_search(cli, workdir: Path) -> None:
    stored = cli("store", "rotate JWT signing keys every 24 hours", "-t", "decision", cwd=workdir)
    assert stored.returncode == 0, stored.stderr
    embedded = cli("embed", "--json", cwd=workdir).json()
    assert embedded == {
        "embedded": 1,
        "symbols_embedded": 0,  # no code indexed
        "pending": 0,
        "pending_token_states": 0,
        "model": "hash:v1-256",
    }
    assert cli("embed", "--json", cwd=workdir).json()["embedded"] == 0
    again = cli("reembed", "--yes", "--json", cwd=workdir).json()
    assert again["embedded"] == 1
    hits = cli("search", "jwt signing keys", "--explain", "--json", cwd=workdir).json()
    assert hits and hits[0]["content"].startswith("rotate JWT")
    assert {"bm25", "vector"} <= set(hits[0]["signals"])
    off = cli("embed", cwd=workdir, env={"MEMLODE_EMBED_PROVIDER": "none"})
    assert off.returncode == 1 and "no embedder" in off.stderr
    bad_batch = cli("embed", "--batch-size", "0", cwd=workdir)
    assert bad_batch.returncode == 1 and "batch size" in bad_batch.stderr


def test_reembed_stale_only_keeps_current_vectors(cli, workdir: Path) -> None:
    cli("store", "first memory about caches", cwd=workdir)
    assert cli("embed", "--json", cwd=workdir).json()["embedded"] == 1
    kept = cli("reembed", "--yes", "--stale-only", "--json", cwd=workdir).json()
    assert kept == {"model": "hash:v1-256", "dropped": 0, "embedded": 0}
