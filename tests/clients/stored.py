"""What memlode stored, read back through its real CLI (in the project, so its namespace), for
the real-client tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["memlode"]

CLI_TIMEOUT = 120  # seconds for one memlode command


def memlode(project: Path, env: dict[str, str], *args: str) -> Any:
    """memlode's real CLI in the project (its namespace), as JSON."""
    done = subprocess.run(
        [sys.executable, "-m", "memlode", *args, "--json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
