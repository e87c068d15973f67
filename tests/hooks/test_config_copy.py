"""A hook reads ``config.toml`` through a parsed copy beside it
(``memlode.config_file.read_config_cached``): once the copy exists a hook imports no
``tomllib`` (~12 ms of a hook), and the next hook after a change to the file reads the change."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from tests.hooks.conftest import hook_modules

from memlode.config_file import PARSED_SUFFIX
from memlode.engine import Engine


def _hook(project: Path, payload: dict[str, Any]) -> set[str]:
    """The post-tool hook as registered; the modules it imported."""
    return hook_modules(project, "post-tool", payload)


def _reads(engine: Engine) -> int:
    return sum(1 for m in engine.list_memories(sources=["hook"], limit=None) if "read" in m.tags)


def _settle(path: Path, when: float) -> None:
    os.utime(path, (when, when))  # written long enough ago for a copy (SETTLED_NS)


def test_the_parsed_copy_is_used_and_follows_the_file(
    project: Path, memlode_home: Path, read_payload: Any, proj_engine: Engine
) -> None:
    config = memlode_home / "config.toml"
    parsed = Path(str(config) + PARSED_SUFFIX)
    config.write_text('[hooks]\ntools = ["Grep"]\n')
    old = time.time() - 60
    _settle(config, old)
    read = read_payload(str(project / "auth.py"))

    assert "tomllib" in _hook(project, read)  # parsed, and the copy written
    assert parsed.stat().st_mode & 0o777 == 0o600
    assert "tomllib" not in _hook(project, read)  # the copy
    assert _reads(proj_engine) == 0  # Read is not among the tools

    # the same size, the same modification time: only the change time (and the text) differ
    config.write_text('[hooks]\ntools = ["Read"]\n')
    _settle(config, old)
    assert "tomllib" in _hook(project, read)
    assert _reads(proj_engine) == 1
    assert "tomllib" not in _hook(project, read)


def test_no_copy_of_a_file_json_cannot_hold_or_just_written(
    project: Path, memlode_home: Path, read_payload: Any, proj_engine: Engine
) -> None:
    config = memlode_home / "config.toml"
    parsed = Path(str(config) + PARSED_SUFFIX)
    read = read_payload(str(project / "auth.py"))

    config.write_text("[hooks]\ncapture = false\n")  # modified now: not settled
    assert "tomllib" in _hook(project, read)
    assert not parsed.exists()

    config.write_text("[hooks]\ncapture = false\n[deploy]\nwhen = 1979-05-27\n")  # a TOML date
    _settle(config, time.time() - 60)
    assert "tomllib" in _hook(project, read)
    assert not parsed.exists()
    assert _reads(proj_engine) == 0  # its values were read all the same
