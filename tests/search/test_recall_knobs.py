"""``[recall]`` in config.toml and ``MEMLODE_RECALL_*`` reach the ranking of ``memlode search``
(the engine every reader goes through) and ``memlode config show``; each knob is shown to change
a ranking or a filter through the real CLI; an unknown key is one warning line on stderr."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_memlode

QUERY = "kafka consumer lag alert billing"
OLD_DOC = "The kafka consumer lag alert fires above 5000 messages on the billing topic"
NEW_DOC = "The kafka consumer lag alert threshold"


def _memory(
    n: int, content: str, created: str, source: str, path: str = "", namespace: str = ""
) -> dict[str, Any]:
    return {
        "kind": "memory",
        "id": f"00000000-0000-4000-8000-{n:012d}",
        "content": content,
        "memory_type": "context",
        "importance": 0.5,
        "confidence": 1.0,
        "access_count": 0,
        "tags": [],
        "metadata": {"path": path} if path else {},
        "namespace": namespace,
        "source": source,
        "session_id": None,
        "created_at": created,
        "updated_at": created,
        "last_accessed_at": None,
    }


def _store(workdir: Path) -> None:
    """Two memory-file chunks on the query (the better match years old, in DECISIONS.md;
    a weaker one from yesterday), and two other memories, in the project's namespace."""
    ns = str(run_memlode("config", "show", "--json", cwd=workdir).json()["namespace"])  # type: ignore[index]
    day = _yesterday()
    rows = [
        {"kind": "header", "format": "memlode-jsonl", "version": 1},
        _memory(1, OLD_DOC, "2020-06-01T00:00:00Z", "doc", "notes/DECISIONS.md", ns),
        _memory(2, NEW_DOC, day, "doc", "notes/today.md", ns),
        _memory(3, "Redis cache eviction uses allkeys-lru", day, "memory", namespace=ns),
        _memory(4, "kafka topic retention is seven days", day, "memory", namespace=ns),
    ]
    path = workdir / "seed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = run_memlode("import", str(path), cwd=workdir)
    assert done.returncode == 0, done.stderr


def _yesterday() -> str:
    from datetime import UTC, datetime, timedelta

    return (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _config(text: str) -> None:
    from memlode.config import Settings

    home = Settings.load({}).home
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)


def _hits(workdir: Path, query: str = QUERY, *args: str, **env: str) -> list[str]:
    done = run_memlode("search", query, "--json", *args, cwd=workdir, env=env)
    assert done.returncode == 0, done.stderr
    return [str(h["content"]) for h in done.json()]  # type: ignore[union-attr]


def _shown(workdir: Path) -> dict[str, Any]:
    done = run_memlode("config", "show", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    data = done.json()
    assert isinstance(data, dict)
    recall = data["recall"]
    assert isinstance(recall, dict)
    return recall


def test_half_life_days_decides_how_far_an_old_memory_falls(workdir: Path) -> None:
    _store(workdir)
    # by default (30 days) the old chunk decays to its floor and the weaker, recent one wins
    assert _hits(workdir)[:2] == [NEW_DOC, OLD_DOC]
    _config("[recall]\nhalf_life_days = 100000\n")
    assert _hits(workdir)[:2] == [OLD_DOC, NEW_DOC]
    assert _shown(workdir)["half_life_days"] == 100000.0
    # the environment comes before the file
    assert _hits(workdir, MEMLODE_RECALL_HALF_LIFE_DAYS="30")[:2] == [NEW_DOC, OLD_DOC]


def test_evergreen_names_a_file_that_never_decays(workdir: Path) -> None:
    _store(workdir)
    _config('[recall]\nevergreen = ["DECISIONS.md"]\n')
    assert _hits(workdir)[:2] == [OLD_DOC, NEW_DOC]
    assert _shown(workdir)["evergreen"] == ["DECISIONS.md", "MEMORY.md", "SOUL.md", "USER.md"]
    assert _hits(workdir, MEMLODE_RECALL_EVERGREEN="OTHER.md")[:2] == [NEW_DOC, OLD_DOC]


def test_min_score_leaves_weak_hits_out(workdir: Path) -> None:
    _store(workdir)
    everything = _hits(workdir)
    assert len(everything) == 3  # the two chunks and the kafka retention note
    _config("[recall]\nmin_score = 0.5\n")
    assert _hits(workdir) == [NEW_DOC]
    assert _shown(workdir)["min_score"] == 0.5


def test_mmr_lambda_trades_score_for_diversity(workdir: Path) -> None:
    for text in (
        "deploy the billing service with helm to staging",
        "deploy the billing service with helm to staging today",
        "deploy the billing service with helm to staging now",
        "billing deploy needs the vault token from ops",
    ):
        assert run_memlode("store", text, cwd=workdir).returncode == 0
    query = "deploy billing helm staging"
    _config("[recall]\nmmr_lambda = 1.0\n")  # by score alone: two near-duplicates
    by_score = _hits(workdir, query, "-k", "2")
    assert all(h.startswith("deploy the billing service") for h in by_score)
    _config("[recall]\nmmr_lambda = 0.3\n")
    diverse = _hits(workdir, query, "-k", "2")
    assert diverse[1] == "billing deploy needs the vault token from ops"
    assert _shown(workdir)["mmr_lambda"] == 0.3


def test_config_show_prints_each_knob_and_an_unknown_key_is_one_warning(workdir: Path) -> None:
    _config("[recall]\nhalf_life_days = 7\nhalf_life = 3\n")
    done = run_memlode("config", "show", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert "recall.half_life_days: 7.0" in done.stdout.splitlines()
    assert "recall.min_score: 0.1" in done.stdout.splitlines()
    assert "hooks.question_budget_tokens: 2000" in done.stdout.splitlines()
    assert "hooks.question_max_memories: 16" in done.stdout.splitlines()
    [warning] = done.stderr.strip().splitlines()
    assert "'recall.half_life'" in warning and "config.toml" in warning


def test_config_show_gives_the_hooks_settings_as_a_hook_reads_them(workdir: Path) -> None:
    _config("[hooks]\nprompt_budget_tokens = 500\ntools = ['Edit', 'Bash']\n")
    done = run_memlode("config", "show", "--json", cwd=workdir, env={"MEMLODE_HOOKS_INJECT": "0"})
    assert done.returncode == 0, done.stderr
    hooks = done.json()["hooks"]  # type: ignore[index,call-overload]
    assert hooks["prompt_budget_tokens"] == 500 and hooks["inject"] is False
    assert hooks["tools"] == ["Bash", "Edit"] and hooks["question_budget_tokens"] == 2000
    assert "db_path" not in hooks and "config_error" not in hooks


def test_a_bad_knob_is_one_line_and_nonzero(workdir: Path) -> None:
    done = run_memlode("search", "x", cwd=workdir, env={"MEMLODE_RECALL_MMR_LAMBDA": "2"})
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert "recall.mmr_lambda (MEMLODE_RECALL_MMR_LAMBDA) must be a number between 0 and 1" in line
