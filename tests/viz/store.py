"""The store the dashboard tests look at: a real shared Claude Code session replayed through
the installed hooks into a small project, that project's code indexed, a few memories stored
and linked by hand, everything embedded with the deterministic hash embedder.

Imported by ``tests/viz/conftest.py`` (and usable alone: ``build(folder)`` returns the home and
the project).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import process_environment

from memlode.config import Settings
from memlode.engine import Engine, code
from memlode.evaluation.replay_hooks import InstalledHooks, replay_transcript

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
SESSION = SHARED_DATA / "transcripts" / "spotter" / "tool_heavy.jsonl"

CODE = {
    "app/__init__.py": '"""A small app."""\n',
    "app/store.py": (
        "import sqlite3\n\n\n"
        "def connect(path):\n    conn = sqlite3.connect(path)\n"
        "    conn.execute('PRAGMA busy_timeout = 5000')\n    return conn\n\n\n"
        "class Store:\n    def __init__(self, path):\n        self.conn = connect(path)\n\n"
        "    def save(self, key, value):\n        self.conn.execute('INSERT INTO kv VALUES (?, ?)',"
        " (key, value))\n"
    ),
    "app/auth.py": (
        "from app.store import Store\n\n\n"
        "def token_expiry(store: Store) -> int:\n    return 3600\n\n\n"
        "def login(store: Store, user: str) -> str:\n    store.save(user, 'session')\n"
        "    return user\n"
    ),
    "app/api.py": (
        "from app.auth import login, token_expiry\n\n\n"
        "def handle(store, user):\n    login(store, user)\n    return token_expiry(store)\n"
    ),
}

MEMORIES = [
    ("Use busy_timeout before WAL on every SQLite connection", "decision", 0.9, "sqlite,storage"),
    ("JWT tokens expire after one hour; refresh them in the API layer", "decision", 0.8, "auth"),
    ("The team prefers small pull requests with one idea each", "preference", 0.6, "review"),
    ("Login failures were caused by a stale session cookie", "insight", 0.7, "auth,bug"),
    ("Tests run against a real SQLite file in a temporary folder", "pattern", 0.5, "tests"),
    ("Format with ruff, line length 100", "style", 0.4, "tooling"),
]


def memlode(env: dict[str, str], cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"memlode {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout


def build(folder: Path) -> tuple[Path, Path, dict[str, str]]:
    """(home, project, environment) of a store built under ``folder``."""
    home, project = folder / "home", folder / "proj"
    project.mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    for name, text in CODE.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    env = process_environment(home)
    settings_file = folder / "claude-settings.json"
    memlode(env, project, "init", "--settings-file", str(settings_file), "--no-mcp")
    hooks = InstalledHooks(settings_file, env, project)
    replay_transcript(SESSION, folder / "transcripts" / SESSION.name, hooks, project)
    # in this process (each CLI run would cost a second of the suite): the same engine calls
    settings = Settings.load({"home": str(home)}, environ=env)
    with Engine(settings, cwd=project) as engine:
        ids = [
            engine.store(content, kind, importance, tags=tags).id
            for content, kind, importance, tags in MEMORIES
        ]
        engine.associate(ids[0], ids[4], "LEADS_TO")
        engine.associate(ids[1], ids[3], "EXPLAINS")
        engine.associate(ids[3], ids[1], "EVOLVED_INTO")
        code.index(engine, project, cwd=project)
        engine.embed_pending()
    return home, project, env
