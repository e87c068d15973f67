"""``HookSettings`` (every hook) and ``Settings`` (every command) read the same sources through
``memlode.config_file``: they agree on the home, the store and the namespace, and a hook
survives a broken config file."""

from __future__ import annotations

from pathlib import Path

from memlode.config import Settings
from memlode.hook_settings import HookSettings


def test_settings_agree(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    cases: list[tuple[dict[str, str], str]] = [
        ({"MEMLODE_HOME": str(home)}, ""),
        ({"MEMLODE_HOME": str(home), "MEMLODE_DB": str(tmp_path / "x.db")}, ""),
        ({"MEMLODE_HOME": str(home), "MEMLODE_NAMESPACE": "ns1"}, 'namespace = "cfg"\n'),
        ({"MEMLODE_HOME": str(home)}, f'namespace = "cfg"\ndb_path = "{tmp_path / "c.db"}"\n'),
    ]
    for env, config in cases:
        (home / "config.toml").write_text(config)
        ours = HookSettings(env)
        theirs = Settings.load(environ=env)
        assert Path(ours.home) == theirs.home
        assert Path(ours.db_path) == theirs.database
        assert ours.namespace == theirs.namespace


def test_hook_settings_table_and_bad_config(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text(
        "[hooks]\ncapture = false\nprompt_budget_tokens = 99\ntools = ['Edit']\n"
    )
    settings = HookSettings({"MEMLODE_HOME": str(home)})
    assert (settings.capture, settings.inject, settings.prompt_budget_tokens) == (False, True, 99)
    assert settings.tools == frozenset({"Edit"})
    assert HookSettings({"MEMLODE_HOME": str(home), "MEMLODE_HOOKS_CAPTURE": "1"}).capture
    (home / "config.toml").write_text("not [valid toml")
    broken = HookSettings({"MEMLODE_HOME": str(home)})
    assert broken.config_error and broken.capture and broken.enabled
