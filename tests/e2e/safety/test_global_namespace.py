"""A project reads its own namespace and the global one; another project's only when asked.

Two real git repositories both called ``app`` (different origins) and one memory stored in
``global``: each project's ``memlode search`` and prompt-time injection find the global memory
and their own, never the other project's; ``-n`` with the other key reaches it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memlode.cli.claude_cmds import HOOK_CODE


def _repo(root: Path, url: str) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", url], check=True)
    return root


def _memlode(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )


def _search(query: str, cwd: Path, *extra: str) -> list[str]:
    proc = _memlode("search", query, "--json", *extra, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return [hit["content"] for hit in json.loads(proc.stdout)]


def test_projects_read_their_own_and_the_global_namespace(tmp_path: Path):
    one = _repo(tmp_path / "a" / "app", "https://example.com/acme/app.git")
    two = _repo(tmp_path / "b" / "app", "https://example.com/other/app.git")
    shared = "Release checklist: bump the version, tag, push the tag, publish the wheel."
    mine = "Release notes for acme app live in docs/releases.md and the checklist in CI."
    theirs = "Release checklist of the other app: run the smoke tests against staging first."
    assert _memlode("store", shared, "-n", "global", cwd=tmp_path).returncode == 0
    assert _memlode("store", mine, cwd=one).returncode == 0
    assert _memlode("store", theirs, cwd=two).returncode == 0

    found = _search("release checklist", one)
    assert shared in found and mine in found and theirs not in found
    found = _search("release checklist", two)
    assert shared in found and theirs in found and mine not in found

    keys = json.loads(_memlode("namespaces", "--json", cwd=one).stdout)
    other = next(n for n in keys if n.get("current") is False and n.get("name") == "app")
    assert theirs in _search("release checklist", one, "-n", other["namespace"])

    payload = {
        "session_id": "s-one",
        "cwd": str(one),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "what is on the release checklist before we publish the wheel?",
    }
    proc = subprocess.run(
        [sys.executable, "-c", HOOK_CODE, "prompt"],
        input=json.dumps(payload).encode(),
        cwd=one,
        capture_output=True,
        timeout=120,
    )
    text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "publish the wheel" in text and "smoke tests against staging" not in text
