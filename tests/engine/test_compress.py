"""The compress cycle through the CLI, on a store the real hooks wrote and the cluster cycle
summarised, with the language model a local server speaking a provider's wire format: facts
stored and raw text kept, a re-run sending nothing, the daily budget stopping a run (and
``memlode stats`` showing the usage), failures keeping the raw text for the next run, and no
provider doing nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.conftest import run_memlode
from tests.engine.hooked_store import observe

from memlode.config import Settings
from memlode.engine.consolidation import DEFAULT_CYCLES

KEY = "sk-test-0123456789abcdefghij"  # fake_llm.KEY


def _memlode(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Any:
    proc = run_memlode(*args, cwd=cwd, env=env)
    assert proc.returncode == 0, proc.stderr
    assert KEY not in proc.stdout and KEY not in proc.stderr
    return json.loads(proc.stdout) if "--json" in args else proc.stdout


def _summaries(db: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT id, content, metadata FROM memories WHERE source = 'consolidation'"
        ).fetchall()
    return {r[0]: (r[1], json.loads(r[2])) for r in rows}


def _summarised_store(workdir: Path) -> Path:
    (workdir / "src").mkdir()
    observe(workdir, "s1", same_runs=True)
    [cluster] = _memlode("consolidate", "--cycle", "cluster", "--json", cwd=workdir)
    assert cluster["counts"]["new"] == 2
    return Settings.load({}).database


def _compress(workdir: Path, env: dict[str, str], *flags: str) -> dict[str, Any]:
    [run] = _memlode("consolidate", "--cycle", "compress", *flags, "--json", cwd=workdir, env=env)
    assert run["cycle"] == "compress"
    return dict(run)


def test_summaries_become_facts_with_the_raw_text_kept(workdir: Path, fake_llm: Any) -> None:
    db = _summarised_store(workdir)
    raw = _summaries(db)
    server = fake_llm("openai")

    dry = _compress(workdir, server.env(), "--dry-run")
    assert dry["counts"]["candidates"] == 2 and dry["counts"]["requests"] == 1
    assert dry["counts"]["estimated_input_tokens"] > 0
    assert {c["tag"] for c in dry["changes"]} == {"summary"}
    assert server.requests == [] and _summaries(db) == raw  # a dry run sends and writes nothing

    run = _compress(workdir, server.env())
    assert server.problems == []
    assert run["counts"]["compressed"] == 2 and run["counts"]["requests"] == 1
    [seen] = server.requests  # both summaries in one request, one numbered line each
    lines = seen.user_text.splitlines()
    assert len(lines) == 2 and {line[:3] for line in lines} == {"1. ", "2. "}
    after = _summaries(db)
    for memory_id, (content, metadata) in after.items():
        assert content.startswith("Fact ") and len(content) < len(raw[memory_id][0])
        assert metadata["raw"] == raw[memory_id][0]  # the raw text is kept beside the fact
        assert metadata["compressed"]["by"] == "openai:openai-test-model"
        assert metadata["cluster"] == raw[memory_id][1]["cluster"]
    shown = _memlode("get", next(iter(after)), "--json", cwd=workdir)
    assert shown["content"].startswith("Fact ") and shown["metadata"]["raw"]

    again = _compress(workdir, server.env())
    assert again["counts"]["unchanged"] == 2 and again["counts"]["requests"] == 0
    assert len(server.requests) == 1 and _summaries(db) == after  # a re-run sends nothing

    stats = _memlode("stats", "--json", cwd=workdir, env=server.env())
    assert stats["llm"]["provider"] == "openai"
    assert stats["llm"]["tokens_today"] == server.tokens > 0
    assert stats["llm"]["requests_today"] == 1 and stats["llm"]["daily_tokens"] == 200_000
    text = _memlode("stats", cwd=workdir, env=server.env())
    assert f"model today: {server.tokens} / 200000 tokens" in text


def test_a_grown_group_is_compressed_again_within_the_budget(workdir: Path, fake_llm: Any) -> None:
    db = _summarised_store(workdir)
    server = fake_llm("anthropic")
    assert _compress(workdir, server.env())["counts"]["compressed"] == 2
    used = server.tokens

    # a fourth read: the cluster cycle rewrites that summary with its raw text
    observe(workdir, "s2", starts=(100,), same_runs=True)
    assert _memlode("consolidate", "--cycle", "cluster", "--json", cwd=workdir)[0]["counts"][
        "changed"
    ]
    rewritten = [c for c, m in _summaries(db).values() if "raw" not in m]
    assert len(rewritten) == 1 and rewritten[0].startswith("Read ")

    # a budget the next request could exceed: no request, the run says so, raw text stays
    tight = server.env(MEMLODE_LLM_DAILY_TOKENS=str(used + 10))
    stopped = _compress(workdir, tight)
    assert stopped["counts"]["budget_stopped"] == 1 and stopped["counts"]["pending"] == 1
    assert stopped["counts"]["unchanged"] == 1 and len(server.requests) == 1
    assert sorted(c for c, m in _summaries(db).values() if "raw" not in m) == rewritten
    stats = _memlode("stats", "--json", cwd=workdir, env=tight)
    assert stats["llm"]["tokens_today"] == used and stats["llm"]["daily_tokens"] == used + 10
    dry = _compress(workdir, tight, "--dry-run")
    assert dry["counts"]["budget_stopped"] == 1  # the dry run foresees it

    done = _compress(workdir, server.env())
    assert done["counts"]["compressed"] == 1 and len(server.requests) == 2
    assert all("raw" in m for _c, m in _summaries(db).values())


def test_failures_keep_the_raw_text_and_the_next_run_retries(workdir: Path, fake_llm: Any) -> None:
    db = _summarised_store(workdir)
    raw = _summaries(db)
    server = fake_llm("ollama", "500")
    for mode, state in (("500", "failed"), ("garbage", "failed"), ("prose", "unparsed")):
        server.mode = mode
        run = _compress(workdir, server.env())
        assert run["counts"][state] == 2 and run["counts"]["compressed"] == 0, mode
        assert _summaries(db) == raw, mode
    server.mode = "facts"
    run = _compress(workdir, server.env())
    assert run["counts"]["compressed"] == 2 and len(server.requests) == 4
    assert server.problems == []
    stats = _memlode("stats", "--json", cwd=workdir, env=server.env())
    assert stats["llm"]["requests_today"] == 4 and stats["llm"]["failures_today"] == 2


def test_what_is_sent_is_redacted_again(workdir: Path, fake_llm: Any) -> None:
    db = _summarised_store(workdir)
    # a row from before a redaction rule existed: the secret is in the store's text
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE memories SET content = content || ' export DB_PASSWORD=hunter2horse9'"
            " WHERE source = 'consolidation'"
        )
    server = fake_llm("openai")
    _compress(workdir, server.env())
    [seen] = server.requests
    assert "hunter2horse9" not in seen.user_text and "[redacted" in seen.user_text


def test_without_a_provider_the_cycle_does_nothing(workdir: Path) -> None:
    db = _summarised_store(workdir)
    raw = _summaries(db)
    run = _compress(workdir, {})
    assert run["counts"] == {"skipped": 1} and run["parameters"] == {"provider": "none"}
    assert _summaries(db) == raw
    every = _memlode("consolidate", "--json", cwd=workdir)  # every cycle, compress among them
    assert [r["cycle"] for r in every] == list(DEFAULT_CYCLES)
    assert "compress" in DEFAULT_CYCLES
    stats = _memlode("stats", cwd=workdir)
    assert "model:       none" in stats and "model today" not in stats


def test_the_resident_compresses_only_with_a_provider(tmp_path: Path) -> None:
    from memlode.engine.consolidation import AUTO_CYCLES, auto_cycles

    home = {"MEMLODE_HOME": str(tmp_path)}
    assert auto_cycles(Settings.load({}, environ=home)) == AUTO_CYCLES
    with_model = Settings.load({}, environ={**home, "MEMLODE_LLM_PROVIDER": "ollama"})
    assert set(auto_cycles(with_model)) == {*AUTO_CYCLES, "compress"}
