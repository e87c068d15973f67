"""``make run``'s demo: a real result, in its own database, the same on every run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def _run_demo(home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLODE_")}
    env["MEMLODE_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "memlode.engine.demo"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_demo_prints_a_search_with_scores(memlode_home: Path) -> None:
    first = _run_demo(memlode_home)
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    out = first.stdout
    assert str(memlode_home / "demo.db") in out
    assert "created=False" in out  # the dedup step
    assert "LEADS_TO" in out
    assert "score " in out
    assert "busy_timeout before switching journal_mode to WAL" in out
    assert "memories 7" in out
    assert not (memlode_home / "memlode.db").exists()  # the real store is left alone

    second = _run_demo(memlode_home)
    assert second.returncode == 0, second.stderr
    assert "memories 7" in second.stdout  # recreated, not accumulated
