"""A PostgreSQL URL as the store is refused in one sentence until the backend can run the whole
engine: by every command (``--db``, ``MEMLODE_DB``, ``db_path`` in config.toml) with exit 1
(as for any other setting that cannot be used),
and by every hook, which does nothing, exits 0 and notes why in its log. Before, such a URL
was taken for a file path and quietly became a SQLite file under the working directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import run_hook, run_memlode

from memlode.config import Settings
from memlode.config_file import SERVER_NOT_READY
from memlode.errors import InvalidInput

URL = "postgresql://team@db.example:5432/memory"


@pytest.mark.parametrize(
    ("args", "env", "config"),
    [
        (("--db", URL), {}, ""),
        ((), {"MEMLODE_DB": URL}, ""),
        ((), {}, f'db_path = "{URL}"\n'),
    ],
)
def test_a_command_refuses_a_postgresql_store_in_one_line(
    tmp_path: Path, memlode_home: Path, args: tuple[str, ...], env: dict[str, str], config: str
) -> None:
    memlode_home.mkdir(parents=True, exist_ok=True)
    (memlode_home / "config.toml").write_text(config)
    project = tmp_path / "project"
    project.mkdir()
    result = run_memlode(*args, "store", "a fact", cwd=project, env=env)
    assert result.returncode == 1, result.stderr
    assert SERVER_NOT_READY in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert list(project.iterdir()) == []  # no file made of the URL


def test_settings_refuse_every_spelling() -> None:
    for url in (URL, "postgres://h/db", "  PostgreSQL://h/db"):
        with pytest.raises(InvalidInput, match="PostgreSQL backend is not complete"):
            Settings.load({"db_path": url}, environ={})


def test_a_hook_does_nothing_and_says_why_in_its_log(tmp_path: Path, memlode_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionStart"}
    result = run_hook("SessionStart", payload, cwd=project, env={"MEMLODE_DB": URL})
    assert (result.returncode, result.stdout) == (0, "")
    assert list(project.iterdir()) == []
    assert SERVER_NOT_READY in (memlode_home / "hooks.log").read_text()
