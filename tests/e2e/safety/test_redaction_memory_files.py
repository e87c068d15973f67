"""Secrets named by their key never reach a project's memory files, the code index or the repo
map: ``memlode memory store`` and compaction summaries through the real entry points (the MCP
tool is in tests/mcp/test_memory_store_redaction.py), code defaults through ``memlode index``
and ``memlode map``. The values are low-entropy words, the case the shape rules cannot catch."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from pathlib import Path

from tests.conftest import run_memlode

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.transcripts import ingest_transcript

_spec = importlib.util.spec_from_file_location(
    "transcript_factory", Path(__file__).parents[2] / "sources" / "transcript_factory.py"
)
assert _spec is not None and _spec.loader is not None
factory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(factory)

CORPUS = json.loads(Path(__file__).with_name("secrets_corpus.json").read_text("utf-8"))
CASES = {case["id"]: case for case in CORPUS["secrets"]}
# One key-anchored case of each class, pasted together as a note would be.
NOTE_CASES = (
    "kc-yaml-password-word",
    "kc-env-db-password",
    "kc-toml-password",
    "kd-py-def-default",
    "hd-curl-x-api-key-sq",
    "ck-set-cookie-sid",
    "cs-postgresql-short",
)


def _note() -> tuple[str, list[str]]:
    text = "\n\n".join(CASES[c]["text"] for c in NOTE_CASES)
    return "How to reach staging:\n\n" + text, [v for c in NOTE_CASES for v in CASES[c]["values"]]


def _stored_texts(db: Path) -> str:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT content FROM memories").fetchall()
        rows += conn.execute("SELECT signature || ' ' || doc FROM code_symbols").fetchall()
        return "\n".join(str(r[0]) for r in rows)
    finally:
        conn.close()


def test_memory_store_cli_writes_no_secret_into_the_file(workdir: Path, memlode_home: Path) -> None:
    note, values = _note()
    result = run_memlode("memory", "store", "staging", "-", input=note, cwd=workdir)
    assert result.returncode == 0, result.stderr
    written = (workdir / "memory" / "staging.md").read_text("utf-8")
    assert "How to reach staging:" in written and "[redacted:" in written
    assert [v for v in values if v in written] == []
    assert [v for v in values if v in _stored_texts(memlode_home / "memlode.db")] == []
    # the root file too, replacing it
    result = run_memlode("memory", "store", "MEMORY.md", note, "--replace", cwd=workdir)
    assert result.returncode == 0, result.stderr
    written = (workdir / "MEMORY.md").read_text("utf-8")
    assert [v for v in values if v in written] == [] and "host: db.local" in written


def test_compaction_summary_in_memory_md_is_redacted_and_appended_once(
    tmp_path: Path, workdir: Path
) -> None:
    note, values = _note()
    engine = Engine(Settings.load({"namespace": "test", "write_compactions": True}))
    try:
        path = tmp_path / "s.jsonl"
        w = factory.TranscriptWriter(path, session_id="sess-secret", cwd=str(workdir))
        w.prompt("set up staging")
        w.reply("Done.")
        w.compact("Staging is configured.\n" + note)
        w.prompt("next")
        w.reply("ok")
        ingest_transcript(engine, path)
        memory_md = (workdir / "MEMORY.md").read_text("utf-8")
        assert "Staging is configured." in memory_md
        assert [v for v in values if v in memory_md] == []
        ingest_transcript(engine, path, force=True)  # the redacted summary is found: no repeat
        assert (workdir / "MEMORY.md").read_text("utf-8") == memory_md
    finally:
        engine.close()


CODE = '''"""Database access."""

PASSWORD: str = "hazelnut"
API_KEY = "magenta"


def connect(host, password="acorn", token: str = "chestnut"):
    """Open a connection."""
    return host, password, token


class Settings:
    client_secret: str = "vermilion"

    def login(self, user, pwd="bluebird"):
        return user, pwd
'''
CODE_VALUES = ["hazelnut", "magenta", "acorn", "chestnut", "vermilion", "bluebird"]


def test_code_defaults_reach_neither_the_index_nor_the_repo_map(
    workdir: Path, memlode_home: Path
) -> None:
    (workdir / "db.py").write_text(CODE, "utf-8")
    (workdir / "app.py").write_text("from db import connect, Settings\n\nconnect('h')\n", "utf-8")
    result = run_memlode("index", str(workdir), cwd=workdir)
    assert result.returncode == 0, result.stderr
    stored = _stored_texts(memlode_home / "memlode.db")
    assert "def connect(" in stored  # the signatures are there, without their secrets
    assert [v for v in CODE_VALUES if v in stored] == []
    shown = run_memlode("map", cwd=workdir)
    assert shown.returncode == 0, shown.stderr
    assert "connect" in shown.stdout and "[redacted:" in shown.stdout
    assert [v for v in CODE_VALUES if v in shown.stdout] == []
