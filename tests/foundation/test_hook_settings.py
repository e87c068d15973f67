"""``HookSettings`` (every hook) and ``Settings`` (every command) read the same sources through
``memlode.config_file``: they agree on the home, the store and the namespace, and a hook
survives a broken config file."""

from __future__ import annotations

from pathlib import Path

from memlode.config import Settings
from memlode.hook_settings import (
    CHARS_PER_TOKEN,
    QUESTION_BUDGET_TOKENS,
    QUESTION_MEMORIES,
    HookSettings,
)


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
        "prompt_max_memories = 3\n"
    )
    settings = HookSettings({"MEMLODE_HOME": str(home)})
    assert (settings.capture, settings.inject, settings.prompt_budget_tokens) == (False, True, 99)
    assert settings.tools == frozenset({"Edit"})
    assert HookSettings({"MEMLODE_HOME": str(home), "MEMLODE_HOOKS_CAPTURE": "1"}).capture
    # a question's room and another prompt's
    assert (settings.prompt_budget_chars(False), settings.prompt_budget_chars(True)) == (
        99 * CHARS_PER_TOKEN,
        QUESTION_BUDGET_TOKENS * CHARS_PER_TOKEN,
    )
    told = HookSettings({"MEMLODE_HOME": str(home), "MEMLODE_HOOKS_QUESTION_BUDGET": "50"})
    assert told.prompt_budget_chars(True) == 50 * CHARS_PER_TOKEN
    for bad, read in (("lots", QUESTION_BUDGET_TOKENS), ("-5", 0), ("99999", 8000)):
        env = {"MEMLODE_HOME": str(home), "MEMLODE_HOOKS_QUESTION_BUDGET": bad}
        assert HookSettings(env).question_budget_tokens == read, bad  # a hook never fails
    # a prompt never waits for a starting resident past the 5 s every client gives its hook
    for asked, read in (("0", 0), ("2500", 2500), ("20000", 4000), ("soon", 3000)):
        (home / "config.toml").write_text(f"[hooks]\nresident_start_wait_ms = '{asked}'\n")
        assert HookSettings({"MEMLODE_HOME": str(home)}).resident_start_wait_ms == read, asked
    # a question's count of memories and another prompt's
    assert (settings.prompt_memories(False), settings.prompt_memories(True)) == (
        3,
        QUESTION_MEMORIES,
    )
    for bad, read in (("many", QUESTION_MEMORIES), ("-1", 0), ("500", 30), ("4", 4)):
        env = {"MEMLODE_HOME": str(home), "MEMLODE_HOOKS_QUESTION_MEMORIES": bad}
        assert HookSettings(env).prompt_memories(True) == read, bad
    older = {**settings.to_dict(), "question_budget_tokens": None, "question_max_memories": None}
    handed = HookSettings.from_dict(older)
    assert handed.prompt_budget_chars(True) == 99 * CHARS_PER_TOKEN  # from an older hook
    assert handed.prompt_memories(True) == 3
    (home / "config.toml").write_text("not [valid toml")
    broken = HookSettings({"MEMLODE_HOME": str(home)})
    assert broken.config_error and broken.capture and broken.enabled


def test_the_readme_hooks_table_reads_as_the_defaults_it_shows(tmp_path: Path) -> None:
    """README's `[hooks]` example (written to config.toml as it stands) gives the settings it
    names, and each number it shows is the default: a changed default must change the README."""
    import tomllib

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in readme.split("```toml\n")[1:]]
    (block,) = [b for b in blocks if b.startswith("[hooks]\n")]
    shown = tomllib.loads(block)["hooks"]
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text(block)
    read = HookSettings({"MEMLODE_HOME": str(home)})
    default = HookSettings({"MEMLODE_HOME": str(tmp_path / "empty")})
    for key, value in shown.items():
        got = getattr(read, key)
        assert (sorted(got) if key == "tools" else got) == (
            sorted(value) if key == "tools" else value
        )
        if key != "tools":
            assert getattr(default, key) == value, key
