"""Fixtures of the dashboard tests: one store built from a replayed shared session, one real
``memlode viz`` subprocess per mode (read-only, --allow-edit), one headless Chromium (Debian's
``chromium``, driven by Playwright), all shared by the module."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.viz import store

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / ".artifacts" / "viz"
URL_LINE = re.compile(r"memlode viz: (http://127\.0\.0\.1:(\d+)/\?token=(\S+))")


@dataclass
class Store:
    home: Path
    project: Path
    env: dict[str, str]

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memlode", *args],
            env=self.env,
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=120,
        )


@dataclass
class Server:
    url: str  # with the token
    base: str
    token: str
    proc: subprocess.Popen[str]


@pytest.fixture(scope="module")
def viz_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    if not store.SESSION.is_file():
        pytest.skip(f"the shared session {store.SESSION} is absent (../shared beside the repo)")
    home, project, env = store.build(tmp_path_factory.mktemp("viz"))
    return Store(home, project, env)


def start_server(s: Store, *extra: str) -> Server:
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlode", "viz", "--port", "0", *extra],
        env=s.env,
        cwd=s.project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.append(proc.stdout.readline()))  # type: ignore[union-attr]
    reader.start()
    reader.join(60)
    match = URL_LINE.search(found[0]) if found else None
    if match is None:
        proc.kill()
        proc.wait()
        raise AssertionError(f"memlode viz printed no URL: {found} {proc.stderr.read()}")
    url, port, token = match.groups()
    return Server(url, f"http://127.0.0.1:{port}", token, proc)


def stop_server(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(10)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()
    for stream in (server.proc.stdout, server.proc.stderr):
        if stream is not None:
            stream.close()


@pytest.fixture(scope="module")
def server(viz_store: Store) -> Iterator[Server]:
    srv = start_server(viz_store)
    yield srv
    stop_server(srv)


@pytest.fixture(scope="module")
def edit_server(viz_store: Store) -> Iterator[Server]:
    srv = start_server(viz_store, "--allow-edit")
    yield srv
    stop_server(srv)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make pytest` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


class ConsoleLog:
    """Errors a page reported: console errors and uncaught exceptions."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.console_log = ConsoleLog(tab)
    yield tab
    context.close()
