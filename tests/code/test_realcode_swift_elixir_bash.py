"""Swift, Elixir and Bash on real code through the real CLI: a published Expo module's iOS
sources, the Elixir sources an npm package ships (a JSON library and a mix task), and bats'
shell scripts (``lib/*.bash`` sourced by extension-less executables). Each is indexed by
``memlode index`` and asked about facts read in that code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from bench.realcode import real_code
from tests.conftest import run_memlode


def _indexed(name: str, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    project = tmp_path / name
    shutil.copytree(real_code(name), project)
    done = run_memlode("index", str(project), "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    return project, json.loads(done.stdout)


def _json(project: Path, *args: str) -> Any:
    done = run_memlode(*args, "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _callers(project: Path, symbol: str) -> set[tuple[str, str]]:
    """(name, file) of what depends on ``symbol`` directly, by CALLS."""
    found = _json(project, "impact", symbol, "--depth", "1")
    assert found["symbol"]["qualified_name"] == symbol
    return {(h["name"], h["path"]) for h in found["hits"] if h["relationship"] == "CALLS"}


def _parse_errors(project: Path, language: str) -> dict[str, int]:
    """Files of the language that tree-sitter could not parse cleanly, with their errors."""
    from memlode.code.extract import extract_file
    from memlode.code.walk import walk_project

    files = [f for f in walk_project(project) if f.language == language]
    assert files
    counts = {
        f.path: extract_file(f.path, Path(f.abspath).read_bytes(), "", language).errors
        for f in files
    }
    return {path: n for path, n in counts.items() if n}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLODE_HOME", str(tmp_path / "home"))


@pytest.mark.usefixtures("home")
def test_elixir_json_library(tmp_path: Path) -> None:
    project, stats = _indexed("elixir-snyk-hex-plugin", tmp_path)
    assert stats["files"] >= 18 and stats["symbols"] >= 100
    assert _parse_errors(project, "elixir") == {}
    hits = _json(project, "symbols", "Snyk.JSON.Encoder.Helpers.dict_encode")
    assert hits[0]["path"] == "elixirsrc/lib/json/lib/json/encoder/helpers.ex"
    assert hits[0]["doc"].startswith("Given an enumerable that yields tuples")
    # parser.ex: `alias Parser.Array, as: ArrayParser` after `alias Snyk.JSON.Parser`
    assert ("parse", "elixirsrc/lib/json/lib/json/parser.ex") in _callers(
        project, "Snyk.JSON.Parser.Array.parse"
    )
    # the mix task calls `save_to_file` unqualified after `import Snyk.MixProject.Common`
    assert _callers(project, "Snyk.MixProject.Common.save_to_file") == {
        ("run", "elixirsrc/lib/mix/tasks/read.mix.ex")
    }
    # `log` is a macro of Snyk.JSON.Logger, imported by the parsers
    assert ("parse_array_contents", "elixirsrc/lib/json/lib/json/parser/array.ex") in _callers(
        project, "Snyk.JSON.Logger.log"
    )
    # a private helper called by the clause above it
    assert ("dict_encode", "elixirsrc/lib/json/lib/json/encoder/helpers.ex") in _callers(
        project, "Snyk.JSON.Encoder.Helpers.encode_item"
    )


@pytest.mark.usefixtures("home")
def test_swift_expo_module(tmp_path: Path) -> None:
    project, stats = _indexed("swift-expo-image-picker", tmp_path)
    assert stats["symbols"] >= 200
    assert _parse_errors(project, "swift") == {}
    hits = _json(project, "symbols", "ImagePickerHandler")
    assert hits[0]["qualified_name"] == "ios.ImagePickerHandler"
    assert hits[0]["kind"] == "class" and hits[0]["path"] == "ios/ImagePickerHandler.swift"
    assert _callers(project, "ios.ImagePickerModule.presentPickerUI") == {
        ("launchLegacyImagePicker", "ios/ImagePickerModule.swift"),
        ("launchMultiSelectPicker", "ios/ImagePickerModule.swift"),
    }
    # called through a stored property holding a class of another file of the module
    assert ("handlePickedMedia", "ios/ImagePickerHandler.swift") in _callers(
        project, "ios.StatusBarVisibilityController.maybeRestoreStatusBarVisibility"
    )
    # the module adopts the protocol ImagePickerHandler.swift declares
    adopters = _json(project, "impact", "ios.OnMediaPickingResultHandler", "--depth", "1")
    assert ("ImagePickerModule", "INHERITS") in {
        (h["name"], h["relationship"]) for h in adopters["hits"]
    }


@pytest.mark.usefixtures("home")
def test_bash_bats(tmp_path: Path) -> None:
    project, stats = _indexed("bash-bats", tmp_path)
    assert stats["symbols"] >= 150
    # the grammar's misses (tree-sitter-bash 0.25 reads each as an unclosed expansion or a
    # stray token and recovers): xml_escape's `${1//&/\\&amp;}` substitutions (five lines),
    # and bats-preprocess's `${name:$i:1}` and `} <<<"$(<"$test_file")"`
    assert _parse_errors(project, "bash") == {
        "libexec/bats-core/bats-format-junit": 5,
        "libexec/bats-core/bats-preprocess": 2,
    }
    xml_escape = _json(project, "symbols", "xml_escape")
    assert xml_escape[0]["path"] == "libexec/bats-core/bats-format-junit"
    hits = _json(project, "symbols", "bats_semaphore_run")
    assert hits[0]["path"] == "lib/bats-core/semaphore.bash"
    # called from an extension-less executable that sources semaphore.bash
    assert _callers(project, "lib/bats-core/semaphore.bash:bats_semaphore_run") == {
        ("bats_run_tests_in_parallel", "libexec/bats-core/bats-exec-file")
    }
    assert ("run", "lib/bats-core/test_functions.bash") in _callers(
        project, "lib/bats-core/warnings.bash:bats_generate_warning"
    )
