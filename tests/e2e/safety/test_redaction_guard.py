"""No planted secret reaches the store: every write path, every table, the hook log, an export.

The planted secrets are real-shaped fake values from ``secrets_corpus.json``. They go in through
each way text gets into memlode (hooks as subprocesses fed real payloads, transcript ingest,
the CLI's store and update with tags and metadata, memory-file and docs indexing, code indexing,
import), then every column of every table (FTS index pages included), ``hooks.log`` and
``memlode export`` are searched for them.

Two static checks keep the choke point (``memlode.storage.scrub``) the only way in: every TEXT
column of a fresh store is classified as user text or not, and every SQL statement in ``src/``
that writes a user-text column lives in a module that redacts it.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import run_memlode

from memlode.storage import text_columns
from memlode.storage.db import connect

CORPUS = json.loads(Path(__file__).with_name("secrets_corpus.json").read_text("utf-8"))
CASES = {case["id"]: case for case in CORPUS["secrets"]}
SRC = Path(__file__).resolve().parents[3] / "src"


def _case(case_id: str) -> tuple[str, list[str]]:
    case = CASES[case_id]
    return case["text"], list(case["values"])


PLANTED: list[str] = []


def plant(case_id: str) -> str:
    """The text of a corpus case; its secret values join the list searched for at the end."""
    text, values = _case(case_id)
    PLANTED.extend(values)
    return text


def _hook(event: str, payload: dict[str, Any], project: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "memlode.hooks", event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=project,
        env=dict(os.environ),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr


def _run(*args: str, cwd: Path, stdin: str | None = None) -> str:
    result = run_memlode(*args, cwd=cwd, input=stdin)
    assert result.returncode == 0, (args, result.stderr)
    return result.stdout


def _write_paths(tmp_path: Path, project: Path) -> None:
    """Every way text gets in, each carrying planted secrets."""
    base = {"session_id": "guard-session", "transcript_path": str(tmp_path / "none.jsonl")}
    base["cwd"] = str(project)
    start = {**base, "hook_event_name": "SessionStart", "source": "startup"}
    _hook("session-start", start, project)
    prompt = "Deploy with " + plant("env-anthropic-key") + " then " + plant("header-basic")
    _hook("prompt", {**base, "hook_event_name": "UserPromptSubmit", "prompt": prompt}, project)
    command = plant("shell-pgpassword-prefix")
    output = plant("shell-curl-u") + "\n" + plant("url-mongodb-srv")
    _hook(
        "post-tool",
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "check " + plant("shell-mysql-p")},
            "tool_response": {"stdout": output, "stderr": plant("token-jwt-log")},
        },
        project,
    )
    # values named by their key whatever their entropy, custom auth headers, cookies, CLI
    # credentials (issue 35's classes) through a file read and a command
    config_yml = str(project / "config" / "database.yml")
    content = plant("kc-yaml-password-word") + "\n" + plant("kd-py-def-default") + "\n"
    read = {"filePath": config_yml, "content": content, "numLines": 2, "startLine": 1}
    read["totalLines"] = 2
    _hook(
        "post-tool",
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": config_yml},
            "tool_response": {"type": "text", "file": read},
        },
        project,
    )
    command = plant("cli-httpie-a") + " && " + plant("hd-curl-x-auth-token-dq")
    _hook(
        "post-tool",
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": plant("ck-set-cookie-sid"), "stderr": ""},
        },
        project,
    )
    diff = plant("yaml-edit-diff-secret-key-base").splitlines()
    secrets_yml = str(project / "config" / "secrets.yml")
    _hook(
        "post-tool",
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": secrets_yml, "old_string": diff[1], "new_string": diff[2]},
            "tool_response": {
                "filePath": secrets_yml,
                "structuredPatch": [
                    {"oldStart": 3, "oldLines": 1, "newStart": 3, "newLines": 1, "lines": diff[1:]}
                ],
            },
        },
        project,
    )
    env_text = plant("env-aws-pair")
    _hook(
        "post-tool",
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": str(project / ".env"), "content": env_text},
            "tool_response": {"type": "create", "filePath": str(project / ".env")},
        },
        project,
    )
    stripe = plant("env-stripe-secret").split("=", 1)[1]
    _hook(
        "post-tool",
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Grep",
            "tool_input": {"pattern": stripe, "path": str(project)},
            "tool_response": {"filenames": [str(project / ".env")], "numFiles": 1},
        },
        project,
    )
    _hook(
        "post-tool-failure",
        {
            **base,
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": plant("shell-docker-login")},
            "error": "Error: denied for " + plant("shell-sshpass"),
        },
        project,
    )
    last = "Done. " + plant("sql-identified-by") + " and " + plant("token-shopify")
    stop = {**base, "hook_event_name": "Stop", "last_assistant_message": last}
    _hook("stop", stop, project)
    _hook("pre-compact", {**base, "hook_event_name": "PreCompact", "trigger": "auto"}, project)
    _hook("session-end", {**base, "hook_event_name": "SessionEnd", "reason": "exit"}, project)
    _hook("prompt", "not json " + plant("env-github-token"), project)  # type: ignore[arg-type]

    # transcript ingest
    from tests.sources.test_transcript_ingest import factory

    path = tmp_path / "transcript.jsonl"
    writer = factory.TranscriptWriter(path, session_id="guard-transcript", cwd=str(project))
    writer.prompt("Set up the database: " + plant("env-database-url"))
    writer.reply("I will use " + plant("ini-npmrc"))
    writer.tool("Bash", {"command": plant("shell-redis-cli")}, plant("json-docker-config"))
    writer.reply("Configured " + plant("code-django-secret-key"))
    writer.compact("Summary: the key is " + plant("env-slack-bot"))
    writer.prompt("And the webhook? " + plant("url-slack-webhook"))
    writer.reply("Stored " + plant("yaml-kubeconfig"))
    _run("ingest", "transcript", str(path), cwd=project)

    # the CLI: store with tags and metadata, then update all three
    metadata = {"db_password": _case("ini-my-cnf")[1][0], "note": plant("env-twilio-auth-token")}
    PLANTED.append(metadata["db_password"])
    stored = _run(
        "store",
        plant("code-flask-config"),
        "--tags",
        json.dumps(["deploy", "cmd:" + plant("shell-pgpassword-cmd-tag").split(":", 1)[1]]),
        "--metadata",
        json.dumps(metadata),
        "--json",
        cwd=project,
    )
    memory_id = json.loads(stored)["id"]
    _run(
        "update",
        memory_id,
        "--content",
        plant("code-go-struct"),
        "--tags",
        json.dumps(["ops", plant("header-x-api-key")]),
        "--metadata",
        json.dumps({"conn": plant("code-csharp-connstring")}),
        cwd=project,
    )
    _run("store", "-", cwd=project, stdin=plant("pem-rsa"))

    # memory files and docs
    (project / "MEMORY.md").write_text("# Ops\n\n" + plant("ini-pypirc") + "\n", "utf-8")
    docs = project / ".memlode" / "docs"
    docs.mkdir(parents=True)
    (docs / "deploy.md").write_text("# Deploy\n\n" + plant("yaml-compose-env") + "\n", "utf-8")
    _run("docs", "index", cwd=project)

    # code index: constants and defaults land in symbol signatures
    (project / "settings.py").write_text(
        plant("code-django-secret-key").replace("django-insecure-", "django-prod-") + "\n"
        "def connect(password='" + _case("code-java-field")[1][0] + "'):\n    return password\n",
        "utf-8",
    )
    PLANTED.append(_case("code-java-field")[1][0])
    _run("index", str(project), cwd=project)

    # import
    when = "2026-11-24T10:00:00.000000Z"
    records = [
        {
            "kind": "session",
            "id": "imported-session",
            "namespace": "imported",
            "started_at": when,
            "summary": "Imported: " + plant("env-sendgrid"),
            "metadata": {"token": _case("env-jwt-secret")[1][0]},
        },
        {
            "kind": "memory",
            "id": "imported-1",
            "namespace": "imported",
            "content": "Imported note: " + plant("properties-spring"),
            "tags": [plant("env-huggingface")],
            "metadata": {"api_key": _case("json-api-key")[1][0]},
            "created_at": when,
        },
        {
            "kind": "memory",
            "id": "imported-2",
            "namespace": "imported",
            "content": "Second note: " + plant("netrc"),
            "created_at": when,
        },
        {
            "kind": "edge",
            "source_id": "imported-1",
            "target_id": "imported-2",
            "relationship": "RELATES_TO",
            "properties": {"why": plant("header-cookie")},
        },
    ]
    PLANTED.extend([_case("env-jwt-secret")[1][0], _case("json-api-key")[1][0]])
    dump = tmp_path / "import.jsonl"
    dump.write_text("\n".join(json.dumps(r) for r in records) + "\n", "utf-8")
    _run("import", str(dump), cwd=project)


def _everything(db: Path) -> list[tuple[str, str, Any]]:
    """(table, column, value) for every value of every table, FTS index pages included."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not r[0].startswith("sqlite_")
        ]
        out: list[tuple[str, str, Any]] = []
        for table in tables:
            cur = conn.execute(f'SELECT * FROM "{table}"')
            names = [d[0] for d in cur.description]
            for row in cur:
                out.extend((table, name, value) for name, value in zip(names, row, strict=True))
        return out
    finally:
        conn.close()


def test_no_planted_secret_is_stored_anywhere(
    tmp_path: Path, memlode_home: Path, workdir: Path
) -> None:
    PLANTED.clear()
    subprocess.run(["git", "init", "-q", str(workdir)], check=True)
    _write_paths(tmp_path, workdir)
    assert len(PLANTED) >= 40
    values = _everything(memlode_home / "memlode.db")
    exported = _run("export", "--namespace", "*", cwd=workdir)
    log = memlode_home / "hooks.log"
    log_text = log.read_text("utf-8") if log.exists() else ""

    leaks: list[str] = []
    for secret in PLANTED:
        raw = secret.encode()
        for table, column, value in values:
            if (isinstance(value, str) and secret in value) or (
                isinstance(value, bytes) and raw in value
            ):
                leaks.append(f"{table}.{column}: {secret[:24]}")
        if secret in exported:
            leaks.append(f"export: {secret[:24]}")
        if secret in log_text:
            leaks.append(f"hooks.log: {secret[:24]}")
    assert leaks == []

    # Every path did write, and wrote markers where the secrets were.
    stored = {(t, c) for t, c, v in values if isinstance(v, str) and "[redacted:" in v}
    for place in [
        ("memories", "content"),
        ("memories", "tags"),
        ("memories", "metadata"),
        ("sessions", "summary"),
        ("sessions", "metadata"),
        ("graph_nodes", "name"),
        ("graph_edges", "properties"),
        ("code_symbols", "signature"),
    ]:
        assert place in stored, place
    sources = {v for t, c, v in values if (t, c) == ("memories", "source")}
    assert {"hook", "transcript", "memory", "doc"} <= sources, sources
    assert log_text, "the malformed payload should have been logged"


# ---- static guards -----------------------------------------------------------------------


def _text_columns(db: Path) -> dict[str, set[str]]:
    """TEXT columns of every table except FTS5 indexes and their shadow tables (derived)."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
        virtual = [n for n, sql in rows if sql and sql.upper().startswith("CREATE VIRTUAL TABLE")]
        out: dict[str, set[str]] = {}
        for name, _ in rows:
            if name.startswith("sqlite_") or any(
                name == v or name.startswith(v + "_") for v in virtual
            ):
                continue
            info = conn.execute(f'PRAGMA table_info("{name}")').fetchall()
            out[name] = {r[1] for r in info if r[2].upper() in ("TEXT", "")}
        return out
    finally:
        conn.close()


def test_every_text_column_is_classified(tmp_path: Path) -> None:
    """A new TEXT column must be listed as user text (redacted on write) or as not user text,
    with why; the two lists never overlap."""
    db = tmp_path / "fresh.db"
    connect(db).close()
    columns = _text_columns(db)
    assert "memories" in columns and "sessions" in columns
    missing = [
        f"{table}.{column}"
        for table, names in columns.items()
        for column in sorted(names)
        if column not in text_columns.USER_TEXT.get(table, {})
        and column not in text_columns.NOT_USER_TEXT.get(table, {})
    ]
    assert missing == []
    overlap = [
        f"{t}.{c}" for t, cols in text_columns.USER_TEXT.items() for c in cols
        if c in text_columns.NOT_USER_TEXT.get(t, {})
    ]  # fmt: skip
    assert overlap == []


_WRITE = re.compile(
    r"\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE)\s+\"?([A-Za-z_]\w*)\"?"
    r"(?:\s*\(([^)]*)\)|\s+SET\s+(.*?)(?:\bWHERE\b|$))?",
    re.IGNORECASE | re.DOTALL,
)


def _sql_strings(tree: ast.AST) -> list[str]:
    """String constants and f-strings (their literal parts) of a module."""
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            parts = [
                v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}"
                for v in node.values
            ]
            out.append("".join(parts))
    return out


def _written_columns(sql: str) -> list[tuple[str, set[str]]]:
    found: list[tuple[str, set[str]]] = []
    for match in _WRITE.finditer(sql):
        table, listed, sets = match.group(1), match.group(2), match.group(3)
        columns: set[str] = set()
        if listed:
            columns = {c.strip().strip('"') for c in listed.split(",")}
        elif sets:
            columns = {a.split("=")[0].strip().strip('"') for a in sets.split(",") if "=" in a}
        found.append((table, columns))
    return found


def test_only_redacting_modules_write_user_text() -> None:
    """Every statement that writes a user-text column sits in a module of ``text_columns.WRITERS``,
    and each of those modules calls ``scrub``."""
    offenders: list[str] = []
    writers_seen: set[str] = set()
    for path in sorted((SRC / "memlode").rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        tree = ast.parse(path.read_text("utf-8"))
        for sql in _sql_strings(tree):
            for table, columns in _written_columns(sql):
                user = text_columns.USER_TEXT.get(table, {})
                hit = sorted(c for c in columns if c in user)
                if not hit:
                    continue
                if rel in text_columns.WRITERS:
                    if any(user[c] in ("text", "json") for c in hit):
                        writers_seen.add(rel)
                else:
                    offenders.append(f"{rel}: {table}.{','.join(hit)}")
    assert offenders == []
    assert "memlode/storage/memories.py" in writers_seen
    assert "memlode/storage/capture.py" in writers_seen
    for rel in writers_seen:
        assert "scrub." in (SRC / rel).read_text("utf-8"), rel
