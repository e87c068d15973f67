"""Recall never echoes the question: a prompt the hook stored is not a hit for itself (or for a
paraphrase), and a memory that merely repeats the query is not an answer. Through the real
UserPromptSubmit hook and the real ``memlode search``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memlode.cli.claude_cmds import HOOK_CODE


def _memlode(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )


def test_search_does_not_return_the_stored_prompt(workdir: Path):
    answer = "The login 401 came from the token expiry: exp was 60 seconds, now 3600."
    assert _memlode("store", answer, "--type", "insight", cwd=workdir).returncode == 0
    prompt = "Why does login return 401 after a minute?"
    payload = {
        "session_id": "s1",
        "cwd": str(workdir),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    proc = subprocess.run(
        [sys.executable, "-c", HOOK_CODE, "prompt"],
        input=json.dumps(payload).encode(),
        cwd=workdir,
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0
    listed = _memlode("list", "--tags", "prompt", "--json", cwd=workdir)
    assert [m["content"] for m in json.loads(listed.stdout)] == [prompt]  # it was stored

    for query in (prompt, "why does login return a 401"):
        found = json.loads(_memlode("search", query, "--json", cwd=workdir).stdout)
        assert found, query
        assert found[0]["content"] == answer
        assert all("prompt" not in hit["tags"] for hit in found)
    # asked for by its tag, the prompt is found
    tagged = json.loads(
        _memlode("search", prompt, "--tags", "prompt", "--json", cwd=workdir).stdout
    )
    assert [hit["content"] for hit in tagged] == [prompt]


def test_a_memory_equal_to_the_query_is_not_a_hit(workdir: Path):
    _memlode("store", "deploy checklist", cwd=workdir)
    _memlode("store", "The deploy checklist lives in docs/deploy.md", cwd=workdir)
    found = json.loads(_memlode("search", "Deploy   checklist", "--json", cwd=workdir).stdout)
    assert [hit["content"] for hit in found] == ["The deploy checklist lives in docs/deploy.md"]
