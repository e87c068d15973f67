"""The resident's settings (config.toml, environment, flags) and where its files go."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.resident.support import memlode

from memlode.config import Settings
from memlode.errors import InvalidInput
from memlode.hook_settings import HookSettings
from memlode.resident_client.paths import MAX_SOCKET_PATH, database_path, resident_key, socket_path


@pytest.mark.parametrize(
    "config, env, autostart, idle",
    [
        ("", {}, True, 1200.0),
        ("[resident]\nautostart = false\nidle_seconds = 90\n", {}, False, 90.0),
        ("[resident]\nautostart = false\n", {"MEMLODE_RESIDENT_AUTOSTART": "1"}, True, 1200.0),
        ("", {"MEMLODE_RESIDENT_AUTOSTART": "off", "MEMLODE_RESIDENT_IDLE": "2.5"}, False, 2.5),
        ("[resident]\nidle_seconds = 0\n", {"MEMLODE_RESIDENT_AUTOSTART": ""}, True, 0.0),
    ],
)
def test_settings_and_hook_settings_agree(
    memlode_home: Path, config: str, env: dict[str, str], autostart: bool, idle: float
) -> None:
    memlode_home.mkdir(parents=True, exist_ok=True)
    (memlode_home / "config.toml").write_text(config)
    environ = {"MEMLODE_HOME": str(memlode_home), **env}
    settings = Settings.load(environ=environ)
    assert settings.resident_autostart is autostart
    assert settings.resident_idle_seconds == idle
    assert HookSettings(environ).resident_autostart is autostart


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf"])
def test_a_bad_idle_setting_is_refused(memlode_home: Path, value: str) -> None:
    with pytest.raises(InvalidInput, match="resident_idle_seconds"):
        Settings.load(environ={"MEMLODE_HOME": str(memlode_home), "MEMLODE_RESIDENT_IDLE": value})


def test_the_command_reports_a_bad_setting_in_one_line(workdir: Path) -> None:
    done = memlode("resident", cwd=workdir, env={"MEMLODE_RESIDENT_IDLE": "soon"})
    assert done.returncode == 1
    assert done.stderr.startswith("memlode: error: ") and len(done.stderr.splitlines()) == 1
    assert done.stdout == ""


def test_each_database_has_its_own_key_and_one_database_one_key(tmp_path: Path) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    assert resident_key(str(a)) != resident_key(str(b))
    link = tmp_path / "link"
    link.symlink_to(tmp_path, target_is_directory=True)
    # The same file by another path (a symlinked folder, a relative path): the same resident.
    assert resident_key(str(link / "a.db")) == resident_key(str(a))
    assert database_path(str(tmp_path / "home")) == str(tmp_path / "home" / "memlode.db")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert database_path("", "a.db") == str(a)
    finally:
        os.chdir(cwd)


def test_a_server_store_is_keyed_by_its_url_without_the_password(tmp_path: Path) -> None:
    plain = "postgresql://team@db.example:5432/memory?options=-csearch_path%3Dt"
    for spelt in (
        plain,
        "  postgres://team:s3cret@db.example:5432/memory?options=-csearch_path%3Dt",
        "postgresql://team@db.example:5432/memory?options=-csearch_path%3Dt&password=s3cret",
    ):
        identity = database_path(str(tmp_path), spelt)
        assert identity == plain and "s3cret" not in identity
        assert resident_key(identity) == resident_key(plain)
    assert not (tmp_path / "postgresql:").exists()  # never taken for a file path
    other = database_path(str(tmp_path), plain.replace("csearch_path%3Dt", "csearch_path%3Du"))
    assert resident_key(other) != resident_key(plain)  # another schema: another resident


def test_a_socket_path_that_would_be_too_long_goes_to_a_short_private_folder(
    tmp_path: Path,
) -> None:
    short_home = "/h"
    assert socket_path(short_home, "/h/memlode.db").startswith("/h/run/")
    long_home = str(tmp_path / ("x" * 120))
    path = socket_path(long_home, long_home + "/memlode.db")
    assert len(path.encode()) <= MAX_SOCKET_PATH
    assert path.startswith(f"/tmp/memlode-{os.getuid()}/")
