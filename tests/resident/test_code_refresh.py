"""An edit the PostToolUse hook sees reaches the code index through the resident, with no
`memlode index`: the new name is found, the old one is gone, the SessionStart map and the
symbol vectors follow; files outside every indexed root and ignored files are left alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import edit_payload, run_hook_ok
from tests.resident.support import memlode, wait_ready, wait_until

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.code import pending_symbols, session_map
from memlode.storage import code_dirty

# Generous: the resident re-indexes ~0.3 s after the hook (bench/bench_reindex.py measures it).
TIMEOUT = 60.0

CORE = "def compute_total(items):\n    return sum(items)\n\n\ndef report(items):\n" + (
    "    return compute_total(items)\n"
)


def _write(path: Path, content: str, cwd: Path) -> dict[str, Any]:
    """A PostToolUse Write payload creating a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return {
        "session_id": "s-code",
        "cwd": str(cwd),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(path), "content": content},
        "tool_response": {
            "type": "create",
            "filePath": str(path),
            "content": content,
            "structuredPatch": [],
            "originalFile": None,
        },
    }


def _named(workdir: Path, name: str) -> list[dict[str, Any]]:
    """`memlode symbols NAME --json` hits whose name is exactly NAME."""
    done = memlode("symbols", name, "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    return [h for h in json.loads(done.stdout) if h["name"] == name]


def _indexed_with_resident(workdir: Path, memlode_home: Path) -> Path:
    (workdir / "app").mkdir()
    (workdir / "app/__init__.py").write_text("")
    (workdir / "app/core.py").write_text(CORE)
    (workdir / ".gitignore").write_text("scratch/\n")
    done = memlode("index", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert _named(workdir, "compute_total")
    assert memlode("resident", cwd=workdir).returncode == 0
    wait_ready(memlode_home)
    return workdir / "app/core.py"


def test_an_edit_seen_by_the_hook_is_findable_by_its_new_name(
    workdir: Path, memlode_home: Path
) -> None:
    core = _indexed_with_resident(workdir, memlode_home)
    core.write_text(CORE.replace("compute_total", "summed_total"))
    edit = edit_payload(core, "def compute_total(", "def summed_total(", workdir)
    run_hook_ok("post-tool", edit, workdir)

    assert wait_until(lambda: _named(workdir, "summed_total"), TIMEOUT)
    (hit,) = _named(workdir, "summed_total")
    assert (hit["path"], hit["line"]) == ("app/core.py", 1)
    assert _named(workdir, "compute_total") == []
    # the caller's edge follows the rename
    done = memlode("impact", "summed_total", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    assert "report" in {h["name"] for h in json.loads(done.stdout)["hits"]}

    # and the map SessionStart prints is rebuilt
    def map_renamed() -> bool:
        with Engine(Settings.load(), cwd=workdir) as engine:
            text = session_map(engine, engine.namespace) or ""
        return "summed_total" in text and "compute_total" not in text

    assert wait_until(map_renamed, TIMEOUT)

    # the renamed symbol's vector for semantic code search is made by the resident too
    def embedded() -> bool:
        with Engine(Settings.load(), cwd=workdir) as engine:
            return pending_symbols(engine) == 0

    assert wait_until(embedded, TIMEOUT)


def test_edits_outside_indexed_roots_and_ignored_files_are_left_alone(
    workdir: Path, memlode_home: Path, tmp_path: Path
) -> None:
    core = _indexed_with_resident(workdir, memlode_home)
    ignored = _write(workdir / "scratch/tmp.py", "def scratch_only():\n    pass\n", workdir)
    outside = _write(tmp_path / "elsewhere/x.py", "def outside_only():\n    pass\n", workdir)
    run_hook_ok("post-tool", ignored, workdir)
    run_hook_ok("post-tool", outside, workdir)
    # a later edit of an indexed file: once it is found, the earlier marks were handled too
    core.write_text(CORE + "\n\ndef sentinel_fn():\n    pass\n")
    run_hook_ok("post-tool", edit_payload(core, "", "def sentinel_fn():", workdir), workdir)
    assert wait_until(lambda: _named(workdir, "sentinel_fn"), TIMEOUT)

    def marks_cleared() -> bool:
        with Engine(Settings.load(), cwd=workdir) as engine:
            return code_dirty.pending(engine.conn) == []

    assert wait_until(marks_cleared, TIMEOUT)
    assert _named(workdir, "scratch_only") == []
    assert _named(workdir, "outside_only") == []
    with Engine(Settings.load(), cwd=workdir) as engine:
        paths = {r[0] for r in engine.conn.execute("SELECT path FROM code_files")}
    assert paths == {"pyproject.toml", "app/__init__.py", "app/core.py"}
