"""A PostgreSQL URL as the store (``--db``, ``MEMLODE_DB``, ``db_path`` in config.toml) is taken
for what it is, never for a file path: the commands that run on PostgreSQL use it
(``tests/e2e/test_pg_cli.py``), a command about a SQLite file refuses in one line naming itself
and what to do instead (exit 1),
and every hook hands its event to the store's resident (``tests/hooks/test_pg_handoff.py``).
Before, such a URL was taken for a file path and quietly became a SQLite file under the working
directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import run_hook, run_memlode

from memlode.config import Settings
from memlode.errors import StorageError
from memlode.resident_client.paths import database_path, spool_path

URL = "postgresql://team@db.example:5432/memory"


@pytest.mark.parametrize(
    ("args", "env", "config"),
    [
        (("--db", URL), {}, ""),
        ((), {"MEMLODE_DB": URL}, ""),
        ((), {}, f'db_path = "{URL}"\n'),
    ],
)
def test_a_command_not_on_postgresql_refuses_in_one_line_naming_itself(
    tmp_path: Path, memlode_home: Path, args: tuple[str, ...], env: dict[str, str], config: str
) -> None:
    memlode_home.mkdir(parents=True, exist_ok=True)
    (memlode_home / "config.toml").write_text(config)
    project = tmp_path / "project"
    project.mkdir()
    result = run_memlode(*args, "backup", "copy.db", cwd=project, env=env)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "`memlode backup` copies a SQLite store" in lines[0]
    assert "pg_dump" in lines[0]
    assert list(project.iterdir()) == []  # no file made of the URL


def test_settings_take_every_spelling_as_a_url_and_no_file() -> None:
    for url in (URL, "postgres://h/db", "  PostgreSQL://h/db"):
        settings = Settings.load({"db_path": url}, environ={})
        expected = (url.strip(), None, url.strip())
        assert (settings.db_url, settings.db_path, settings.store) == expected
        with pytest.raises(StorageError, match="needs a SQLite database file"):
            _ = settings.database
        assert url.strip() not in repr(settings)  # a URL may carry a password


def test_created_by_flag_env_config_default(memlode_home: Path) -> None:
    memlode_home.mkdir(parents=True, exist_ok=True)
    (memlode_home / "config.toml").write_text('created_by = "from-config"\n')
    assert Settings.load({}, environ={"MEMLODE_HOME": str(memlode_home)}).author == "from-config"
    env = {"MEMLODE_HOME": str(memlode_home), "MEMLODE_CREATED_BY": " from  env "}
    assert Settings.load({}, environ=env).author == "from env"
    assert Settings.load({"created_by": "flag"}, environ=env).author == "flag"
    (memlode_home / "config.toml").write_text("")
    default = Settings.load({}, environ={"MEMLODE_HOME": str(memlode_home)}).author
    assert "@" in default and default.split("@")[0] and default.split("@")[1]


def test_a_hook_spools_its_event_for_the_resident_and_makes_no_file_of_the_url(
    tmp_path: Path, memlode_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionStart"}
    result = run_hook("SessionStart", payload, cwd=project, env={"MEMLODE_DB": URL})
    assert (result.returncode, result.stdout) == (0, "")
    assert list(project.iterdir()) == []
    spool = Path(spool_path(str(memlode_home), database_path(str(memlode_home), URL)))
    assert b'"event": "session-start"' in spool.read_bytes()
