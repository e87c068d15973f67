"""Namespace detection and the settings precedence: flag > environment > config file > default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memlode.config import DEFAULT_WEIGHTS, Settings
from memlode.errors import InvalidInput
from memlode.project import detect_namespace, find_project_root, make_key, readable_name


def test_git_top_level_wins_over_nearer_markers(tmp_path: Path) -> None:
    repo = tmp_path / "myrepo"
    sub = repo / "packages" / "web" / "src"
    sub.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "packages" / "web" / "package.json").write_text("{}")
    assert find_project_root(sub) == repo.resolve()
    # no origin remote: keyed by the repository's resolved path, named by its folder
    assert detect_namespace(sub) == make_key("myrepo", str(repo.resolve()))
    assert readable_name(detect_namespace(sub)) == "myrepo"


def test_a_git_file_marks_a_worktree(tmp_path: Path) -> None:
    tree = tmp_path / "worktree"
    tree.mkdir()
    (tree / ".git").write_text("gitdir: /elsewhere/.git/worktrees/worktree\n")
    assert readable_name(detect_namespace(tree)) == "worktree"


@pytest.mark.parametrize("marker", ["pyproject.toml", "package.json", "Cargo.toml", "go.mod"])
def test_nearest_project_marker(tmp_path: Path, marker: str) -> None:
    outer = tmp_path / "outer"
    inner = outer / "inner"
    deep = inner / "a" / "b"
    deep.mkdir(parents=True)
    (outer / "pom.xml").write_text("<project/>")
    (inner / marker).write_text("")
    assert detect_namespace(deep) == make_key("inner", str(inner.resolve()))
    assert detect_namespace(outer) == make_key("outer", str(outer.resolve()))


def test_no_project_means_no_namespace(tmp_path: Path) -> None:
    lonely = tmp_path / "lonely" / "folder"
    lonely.mkdir(parents=True)
    assert find_project_root(lonely) is None
    assert detect_namespace(lonely) == ""
    (lonely / "pyproject.toml").mkdir()  # a folder named like a marker is not a marker
    assert detect_namespace(lonely) == ""


def test_the_cli_stores_into_the_detected_namespace(cli: Any, tmp_path: Path) -> None:
    repo = tmp_path / "detected"
    sub = repo / "deep" / "er"
    sub.mkdir(parents=True)
    (repo / ".git").mkdir()
    memory_id = cli("store", "from a sub folder", cwd=sub).stdout.strip()
    assert cli("get", memory_id, "--json").json()["namespace"] == detect_namespace(repo)
    assert readable_name(detect_namespace(repo)) == "detected"
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    other = cli("store", "outside any project", cwd=nowhere).stdout.strip()
    assert cli("get", other, "--json").json()["namespace"] == ""
    listed = cli("list", "--json", cwd=sub).json()
    assert [m["id"] for m in listed] == [memory_id]


def _write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")


def test_defaults() -> None:
    settings = Settings.load(environ={})
    assert settings.home == Path.home() / ".memlode"
    assert settings.database == settings.home / "memlode.db"
    assert settings.namespace is None
    assert settings.log_level == "WARNING"
    assert settings.effective_weights == pytest.approx(DEFAULT_WEIGHTS)


def test_precedence_flag_env_file_default(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write_config(
        home,
        'db_path = "/from/file.db"\nnamespace = "file-ns"\nlog_level = "INFO"\n'
        '[embed]\nprovider = "ollama"\nmodel = "file-model"\n'
        "[weights]\nbm25 = 1.0\nvector = 1.0\n",
    )
    env = {"MEMLODE_HOME": str(home)}
    from_file = Settings.load(environ=env)
    assert from_file.home == home
    assert from_file.database == Path("/from/file.db")
    assert from_file.namespace == "file-ns"
    assert from_file.log_level == "INFO"
    assert from_file.embed_provider == "ollama"
    assert from_file.embed_model == "file-model"
    assert from_file.effective_weights["bm25"] == pytest.approx(0.5)
    assert sum(from_file.effective_weights.values()) == pytest.approx(1.0)

    env.update(
        {"MEMLODE_DB": "/from/env.db", "MEMLODE_NAMESPACE": "env-ns", "MEMLODE_LOG_LEVEL": "DEBUG"}
    )
    from_env = Settings.load(environ=env)
    assert from_env.database == Path("/from/env.db")
    assert from_env.namespace == "env-ns"
    assert from_env.log_level == "DEBUG"
    assert from_env.embed_model == "file-model"  # not set in the environment: the file's

    from_flag = Settings.load({"db_path": "/from/flag.db", "namespace": None}, environ=env)
    assert from_flag.database == Path("/from/flag.db")
    assert from_flag.namespace == "env-ns"  # a flag left unset (None) does not override


def test_a_home_flag_chooses_the_config_file(tmp_path: Path) -> None:
    env_home, flag_home = tmp_path / "env-home", tmp_path / "flag-home"
    _write_config(env_home, 'namespace = "env-home"\n')
    _write_config(flag_home, 'namespace = "flag-home"\n')
    settings = Settings.load({"home": str(flag_home)}, environ={"MEMLODE_HOME": str(env_home)})
    assert settings.home == flag_home
    assert settings.namespace == "flag-home"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("namespace = ", "not valid TOML"),
        ("[weights]\nbm25 = -1\n", "non-negative"),
        ("[weights]\nmagic = 1\n", "unknown scoring signal"),
        ('weights = "heavy"\n', "weights must be a table"),
    ],
)
def test_a_bad_config_file_is_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    _write_config(tmp_path, text)
    with pytest.raises(InvalidInput, match=message):
        Settings.load(environ={"MEMLODE_HOME": str(tmp_path)})


def test_cli_precedence_for_the_database_and_namespace(
    cli: Any, workdir: Path, memlode_home: Path, tmp_path: Path
) -> None:
    file_db, env_db, flag_db = (tmp_path / f"{n}.db" for n in ("file", "env", "flag"))
    _write_config(memlode_home, f'db_path = "{file_db}"\nnamespace = "file-ns"\n')

    def where(*args: str, env: dict[str, str] | None = None) -> tuple[str, str]:
        result = cli(*args, "stats", "--json", env=env)
        assert result.returncode == 0, result.stderr
        memory = cli(*args, "list", "-n", "*", "--json", env=env).json()
        return result.json()["database"], memory[0]["namespace"] if memory else ""

    assert cli("store", "into the file's db").returncode == 0
    assert where() == (str(file_db), "file-ns")
    env = {"MEMLODE_DB": str(env_db), "MEMLODE_NAMESPACE": "env-ns"}
    assert cli("store", "into the env db", env=env).returncode == 0
    assert where(env=env) == (str(env_db), "env-ns")
    assert cli("--db", str(flag_db), "store", "flag", "-n", "flag-ns", env=env).returncode == 0
    assert where("--db", str(flag_db), env=env) == (str(flag_db), "flag-ns")
    # Each write went to its own file only.
    assert len(cli("--db", str(file_db), "list", "-n", "*", "--json").json()) == 1
    assert len(cli("--db", str(env_db), "list", "-n", "*", "--json").json()) == 1


def test_a_bad_config_file_through_the_cli(
    cli: Any, workdir: Path, memlode_home: Path, clean_error: Any
) -> None:
    _write_config(memlode_home, "this is = = not toml")
    result = cli("list")
    clean_error(result, 1)
    assert "config.toml" in result.stderr
